//! Where a report lands: stdout that a closed reader cannot turn into an error, and the one
//! writer for `--output` and `--fix` files (atomic, never over what is not a regular file).

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// A file mgctl could not write; names the path as the user gave it.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    #[error("{0}: is a directory")]
    Directory(PathBuf),
    #[error("{0}: too many levels of symbolic links")]
    SymlinkLoop(PathBuf),
    #[error("{path}: {what}")]
    Io {
        path: PathBuf,
        what: &'static str,
        #[source]
        source: io::Error,
    },
}

fn io_err<'a>(path: &'a Path, what: &'static str) -> impl FnOnce(io::Error) -> WriteError + 'a {
    move |source| WriteError::Io {
        path: path.to_path_buf(),
        what,
        source,
    }
}

/// Stdout whose reader may go away (`mgctl check | head -1`). A closed pipe (EPIPE) is the
/// reader's choice, not a failure: the rest of the output is dropped and the command runs to its
/// verdict, so the exit code is the verdict's whatever happens to stdout.
///
/// With `escape_controls` (stdout is not coloured), every C0 control byte but LF and TAB, and
/// DEL, is written as `\xHH`: such bytes can only come from input data (file names, cited
/// source lines), and must not reach a terminal or a CI log raw.
pub struct Stdout<W: Write> {
    inner: W,
    closed: bool,
    escape_controls: bool,
}

impl<W: Write> Stdout<W> {
    pub fn new(inner: W, escape_controls: bool) -> Self {
        Stdout {
            inner,
            closed: false,
            escape_controls,
        }
    }

    fn guard(&mut self, r: io::Result<()>) -> io::Result<()> {
        match r {
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
                self.closed = true;
                Ok(())
            }
            r => r,
        }
    }
}

impl<W: Write> Write for Stdout<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.closed {
            return Ok(buf.len());
        }
        let r = if self.escape_controls && buf.iter().copied().any(is_raw_control) {
            let mut escaped = Vec::with_capacity(buf.len() + 16);
            for &b in buf {
                if is_raw_control(b) {
                    escaped.extend_from_slice(format!("\\x{b:02x}").as_bytes());
                } else {
                    escaped.push(b);
                }
            }
            self.inner.write_all(&escaped)
        } else {
            self.inner.write_all(buf)
        };
        self.guard(r)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.closed {
            return Ok(());
        }
        let r = self.inner.flush();
        self.guard(r)
    }
}

fn is_raw_control(b: u8) -> bool {
    (b < 0x20 && b != b'\n' && b != b'\t') || b == 0x7f
}

/// Writes `bytes` to `path` the way a careful shell user would expect of `> path`:
///
/// - a symlink is followed, and its target is what gets written;
/// - a regular file (or a new one) is replaced atomically: the bytes go to a uniquely named
///   temp file in the same directory (so concurrent runs never collide), are fsynced, get the
///   old file's permissions, and are renamed over it; a failure leaves the old file whole;
/// - anything else that exists (a device, a FIFO) is opened and written in place, never replaced.
pub fn write_file(path: &Path, bytes: &[u8]) -> Result<(), WriteError> {
    let target = resolve_symlinks(path)?;
    let cannot_write = io_err(path, "cannot write");
    match fs::metadata(&target) {
        Ok(meta) if meta.is_dir() => Err(WriteError::Directory(path.to_path_buf())),
        Ok(meta) if !meta.is_file() => {
            let mut f = OpenOptions::new()
                .write(true)
                .truncate(true)
                .open(&target)
                .map_err(io_err(path, "cannot open for writing"))?;
            f.write_all(bytes)
                .and_then(|()| f.flush())
                .map_err(cannot_write)
        }
        Ok(meta) => replace(&target, bytes, Some(meta.permissions())).map_err(cannot_write),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            replace(&target, bytes, None).map_err(cannot_write)
        }
        Err(e) => Err(cannot_write(e)),
    }
}

/// The final target of a chain of symlinks (which need not exist yet).
fn resolve_symlinks(path: &Path) -> Result<PathBuf, WriteError> {
    let mut p = path.to_path_buf();
    for _ in 0..40 {
        match fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let link = fs::read_link(&p).map_err(io_err(&p, "cannot read symlink"))?;
                p = match p.parent() {
                    Some(dir) if link.is_relative() => dir.join(link),
                    _ => link,
                };
            }
            _ => return Ok(p),
        }
    }
    Err(WriteError::SymlinkLoop(path.to_path_buf()))
}

static TEMP_SEQ: AtomicU64 = AtomicU64::new(0);

fn replace(target: &Path, bytes: &[u8], perms: Option<fs::Permissions>) -> io::Result<()> {
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".into());
    // Registered while it exists, so a signal mid-write removes it (issue 29).
    let (tmp_path, tmp, registered) = teardown::create_file(|| create_unique(&dir, &name))?;
    let written = fill_and_rename(tmp, &tmp_path, bytes, perms, target, &dir);
    if written.is_err() {
        let _ = fs::remove_file(&tmp_path);
    }
    drop(registered);
    written
}

fn fill_and_rename(
    mut tmp: File,
    tmp_path: &Path,
    bytes: &[u8],
    perms: Option<fs::Permissions>,
    target: &Path,
    dir: &Path,
) -> io::Result<()> {
    tmp.write_all(bytes)?;
    if let Some(p) = perms {
        tmp.set_permissions(p)?;
    }
    tmp.sync_all()?;
    drop(tmp);
    fs::rename(tmp_path, target)?;
    // The rename itself is durable once the directory is synced; not every filesystem lets a
    // directory be opened for that, which is no reason to fail the write.
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// A new file `.NAME.PID.SEQ.NANOS.mgctl-tmp` in `dir`, created exclusively (mode 0666 less the
/// umask, as `>` would give a new file).
fn create_unique(dir: &Path, name: &str) -> io::Result<(PathBuf, File)> {
    let pid = std::process::id();
    loop {
        let seq = TEMP_SEQ.fetch_add(1, Ordering::Relaxed);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let p = dir.join(format!(".{name}.{pid}.{seq}.{nanos}.mgctl-tmp"));
        match OpenOptions::new().write(true).create_new(true).open(&p) {
            Ok(f) => return Ok((p, f)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && seq < 1000 => continue,
            Err(e) => return Err(e),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    struct Closed;
    impl Write for Closed {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::ErrorKind::BrokenPipe.into())
        }
        fn flush(&mut self) -> io::Result<()> {
            Err(io::ErrorKind::BrokenPipe.into())
        }
    }

    #[test]
    fn a_closed_pipe_is_not_an_error() {
        let mut out = Stdout::new(Closed, false);
        writeln!(out, "one").unwrap();
        writeln!(out, "two").unwrap();
        out.flush().unwrap();
    }

    #[test]
    fn control_bytes_are_escaped_when_asked() {
        let mut out = Stdout::new(Vec::new(), true);
        out.write_all(b"a\x1b[31mb\rc\n\td").unwrap();
        assert_eq!(out.inner, b"a\\x1b[31mb\\x0dc\n\td");
    }

    #[test]
    fn write_file_replaces_keeps_mode_and_follows_symlinks() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.txt");
        fs::write(&real, "old").unwrap();
        fs::set_permissions(&real, fs::Permissions::from_mode(0o640)).unwrap();
        let link = dir.path().join("link.txt");
        std::os::unix::fs::symlink("real.txt", &link).unwrap();
        write_file(&link, b"new").unwrap();
        assert!(fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(fs::read_to_string(&real).unwrap(), "new");
        assert_eq!(
            fs::metadata(&real).unwrap().permissions().mode() & 0o777,
            0o640
        );
        let left: Vec<_> = fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(left.len(), 2, "no temp file left behind");
    }
}
