//! The real sandbox: a throw-away copy of the workspace in a temp dir (never the workspace
//! itself), real processes in their own process group with a deadline, and cleanup on every
//! exit — a `Drop` removes the copy, a timeout or SIGINT/SIGTERM/SIGHUP kills the child's
//! whole process group, and an interrupted run re-raises the signal once everything is gone.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};

use super::check::{Error, Exit, RunResult, Sandbox, Spec, TreeDigest};

/// Output kept per stream: the last this many bytes (memory is bounded by it, not the run).
const KEEP: usize = 4 << 20;

/// A throw-away copy of a workspace: `<tmp>/ws` is the copy, `<tmp>/tmp` the children's
/// `TMPDIR` (outside the copy, so scratch files never count as a changed tree). Removed on drop.
pub struct TempCopy {
    dir: tempfile::TempDir,
    cancel: Arc<AtomicUsize>,
}

impl TempCopy {
    /// Copies `root` (every file but `.git`) into a fresh temp dir.
    pub fn new(root: &Path, cancel: Arc<AtomicUsize>) -> Result<TempCopy, Error> {
        let no_copy = |e: Error| Error::NoCopy(Box::new(e));
        let dir = tempfile::Builder::new()
            .prefix("mgctl-control-")
            .tempdir()
            .map_err(|e| no_copy(Error::Io(e)))?;
        let ws = dir.path().join("ws");
        std::fs::create_dir_all(dir.path().join("tmp")).map_err(Error::Io)?;
        copy_tree(root, &ws).map_err(no_copy)?;
        Ok(TempCopy { dir, cancel })
    }

    pub fn root(&self) -> PathBuf {
        self.dir.path().join("ws")
    }

    /// Runs `command` (argv, no shell) in the copy's root, in its own process group with a
    /// deadline, as every control run is (the `generated` gate's generators run here too).
    pub fn run_argv(
        &self,
        command: &[String],
        timeout: Duration,
        env: &BTreeMap<String, String>,
    ) -> RunResult {
        let tmp = self.dir.path().join("tmp");
        spawn(command, timeout, &self.root(), &tmp, env, &self.cancel)
    }
}

fn copy_tree(from: &Path, to: &Path) -> Result<(), Error> {
    let walk = walkdir::WalkDir::new(from)
        .follow_links(false)
        .into_iter()
        .filter_entry(|e| e.depth() == 0 || e.file_name() != ".git");
    for entry in walk {
        let entry = entry.map_err(Error::Walk)?;
        let rel = entry.path().strip_prefix(from).map_err(Error::Outside)?;
        let dst = to.join(rel);
        let ft = entry.file_type();
        let res = if ft.is_dir() {
            std::fs::create_dir_all(&dst)
        } else if ft.is_symlink() {
            std::fs::read_link(entry.path()).and_then(|t| std::os::unix::fs::symlink(t, &dst))
        } else if ft.is_file() {
            std::fs::copy(entry.path(), &dst).map(|_| ())
        } else {
            Ok(()) // sockets, fifos: nothing a test reads
        };
        res.map_err(|reason| Error::Copy {
            path: entry.path().to_path_buf(),
            reason,
        })?;
    }
    Ok(())
}

impl Sandbox for TempCopy {
    fn read(&self, rel: &str) -> Result<Option<Vec<u8>>, Error> {
        let p = self.root().join(rel);
        match std::fs::read(&p) {
            Ok(b) => Ok(Some(b)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(Error::Io(e)),
        }
    }

    fn write(&mut self, rel: &str, bytes: Option<&[u8]>) -> Result<(), Error> {
        let p = self.root().join(rel);
        match bytes {
            None => std::fs::remove_file(&p).map_err(Error::Io),
            Some(b) => {
                if let Some(parent) = p.parent() {
                    std::fs::create_dir_all(parent).map_err(Error::Io)?;
                }
                std::fs::write(&p, b).map_err(Error::Io)
            }
        }
    }

    fn digest(&self) -> Result<TreeDigest, Error> {
        let root = self.root();
        let mut out = TreeDigest::new();
        for entry in walkdir::WalkDir::new(&root)
            .follow_links(false)
            .sort_by_file_name()
        {
            let entry = entry.map_err(Error::Walk)?;
            let ft = entry.file_type();
            if ft.is_dir() {
                continue;
            }
            let rel = entry
                .path()
                .strip_prefix(&root)
                .map_err(Error::Outside)?
                .to_string_lossy()
                .replace('\\', "/");
            let mut h = Sha256::new();
            if ft.is_symlink() {
                let t = std::fs::read_link(entry.path()).map_err(Error::Io)?;
                h.update(b"symlink:");
                h.update(t.to_string_lossy().as_bytes());
            } else {
                match std::fs::read(entry.path()) {
                    Ok(bytes) => h.update(&bytes),
                    Err(reason) => return Err(Error::Read { rel, reason }),
                }
            }
            out.insert(rel, h.finalize().into());
        }
        Ok(out)
    }

    fn run(&mut self, spec: &Spec, env: &BTreeMap<String, String>) -> RunResult {
        let cwd = match &spec.cwd {
            Some(c) => self.root().join(c),
            None => self.root(),
        };
        let tmp = self.dir.path().join("tmp");
        spawn(&spec.command, spec.timeout, &cwd, &tmp, env, &self.cancel)
    }
}

/// A reader thread's bounded capture of one stream: its last [`KEEP`] bytes.
fn capture(mut r: impl Read + Send + 'static) -> std::sync::mpsc::Receiver<Vec<u8>> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut keep: Vec<u8> = Vec::new();
        let mut buf = [0u8; 64 * 1024];
        loop {
            match r.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    keep.extend_from_slice(&buf[..n]);
                    if keep.len() > 2 * KEEP {
                        keep.drain(..keep.len() - KEEP);
                    }
                }
            }
        }
        if keep.len() > KEEP {
            keep.drain(..keep.len() - KEEP);
        }
        let _ = tx.send(keep);
    });
    rx
}

fn kill_group(pgid: u32) {
    if let Some(pid) = i32::try_from(pgid)
        .ok()
        .and_then(rustix::process::Pid::from_raw)
    {
        // ESRCH (the group is gone) is the usual answer and fine
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    }
}

/// Why `program` (argv[0] as configured) did not start. Not found names the program: the OS's
/// "No such file or directory" alone does not say which file; other errors are the OS's text.
fn spawn_error(program: &str, e: &std::io::Error) -> String {
    let text = e.to_string();
    if e.kind() != std::io::ErrorKind::NotFound {
        return text;
    }
    let os = match e.raw_os_error() {
        Some(code) => text
            .strip_suffix(&format!(" (os error {code})"))
            .unwrap_or(&text),
        None => &text,
    };
    // a program without a `/` is looked up on PATH; one with a `/` is a path (from the cwd)
    if program.contains('/') {
        format!("`{program}` does not exist ({os})")
    } else {
        format!("`{program}` is not on PATH ({os})")
    }
}

/// Runs `command` (argv) in `cwd` (its own process group, `TMPDIR=tmp`, stdin closed), killing
/// the whole group at `timeout` or when `cancel` is set by a signal.
fn spawn(
    command: &[String],
    timeout: Duration,
    cwd: &Path,
    tmp: &Path,
    env: &BTreeMap<String, String>,
    cancel: &AtomicUsize,
) -> RunResult {
    let start = Instant::now();
    let done = |exit: Exit, output: String| RunResult {
        exit,
        output,
        ms: u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX),
    };
    if !cwd.is_dir() {
        return done(
            Exit::NotStarted(format!("its cwd `{}` is not a directory", cwd.display())),
            String::new(),
        );
    }
    let Some(first) = command.first() else {
        return done(
            Exit::NotStarted("its command is empty".into()),
            String::new(),
        );
    };
    let prog = Path::new(first);
    let prog = if prog.is_relative() && first.contains('/') {
        cwd.join(prog)
    } else {
        prog.to_path_buf()
    };
    use std::os::unix::process::{CommandExt, ExitStatusExt};
    let child = Command::new(&prog)
        .args(&command[1..])
        .current_dir(cwd)
        .envs(env)
        .env("TMPDIR", tmp)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) => return done(Exit::NotStarted(spawn_error(first, &e)), String::new()),
    };
    let pgid = child.id();
    let out = child.stdout.take().map(capture);
    let err = child.stderr.take().map(capture);
    let exit = loop {
        match child.try_wait() {
            Ok(Some(st)) => {
                break match (st.code(), st.signal()) {
                    (Some(c), _) => Exit::Code(c),
                    (None, Some(s)) => Exit::Signal(s),
                    (None, None) => Exit::Code(-1),
                }
            }
            Ok(None) => {}
            Err(e) => break Exit::NotStarted(format!("cannot wait for it: {e}")),
        }
        let late = start.elapsed() >= timeout;
        let stop = cancel.load(Ordering::SeqCst) != 0;
        if late || stop {
            kill_group(pgid);
            let _ = child.wait();
            break if stop {
                Exit::Interrupted
            } else {
                Exit::TimedOut
            };
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    // whatever the child left behind in its group goes too, so the pipes close
    kill_group(pgid);
    let collect = |rx: Option<std::sync::mpsc::Receiver<Vec<u8>>>| {
        rx.and_then(|r| r.recv_timeout(Duration::from_secs(2)).ok())
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .unwrap_or_default()
    };
    let mut output = collect(out);
    let e = collect(err);
    if !e.is_empty() {
        if !output.is_empty() && !output.ends_with('\n') {
            output.push('\n');
        }
        output.push_str(&e);
    }
    done(exit, output)
}

/// SIGINT, SIGTERM and SIGHUP set `flag` (to the signal's number) while this lives; dropped, the
/// handlers go. [`Signals::reraise`] then ends the process as that signal would have.
pub struct Signals {
    ids: Vec<signal_hook::SigId>,
    pub flag: Arc<AtomicUsize>,
}

impl Signals {
    pub fn register() -> Signals {
        use signal_hook::consts::signal::{SIGHUP, SIGINT, SIGTERM};
        let flag = Arc::new(AtomicUsize::new(0));
        let ids = [SIGINT, SIGTERM, SIGHUP]
            .into_iter()
            .filter_map(|s| {
                signal_hook::flag::register_usize(s, Arc::clone(&flag), s as usize).ok()
            })
            .collect();
        Signals { ids, flag }
    }

    /// The signal that arrived, if any.
    pub fn caught(&self) -> Option<i32> {
        match self.flag.load(Ordering::SeqCst) {
            0 => None,
            s => i32::try_from(s).ok(),
        }
    }

    /// Unregisters, then dies by the caught signal (after every copy is gone).
    pub fn reraise(self) {
        let sig = self.caught();
        drop(self);
        if let Some(s) = sig {
            let _ = signal_hook::low_level::emulate_default_handler(s);
        }
    }
}

impl Drop for Signals {
    fn drop(&mut self) {
        for id in self.ids.drain(..) {
            signal_hook::low_level::unregister(id);
        }
    }
}

/// While this lives, children dump no core into the copy (the soft core limit is 0); the old
/// limit comes back on drop.
pub struct NoCore(Option<rustix::process::Rlimit>);

impl NoCore {
    pub fn set() -> NoCore {
        use rustix::process::{getrlimit, setrlimit, Resource, Rlimit};
        let old = getrlimit(Resource::Core);
        let new = Rlimit {
            current: Some(0),
            maximum: old.maximum,
        };
        NoCore(setrlimit(Resource::Core, new).ok().map(|_| old))
    }
}

impl Drop for NoCore {
    fn drop(&mut self) {
        if let Some(old) = self.0.take() {
            let _ = rustix::process::setrlimit(rustix::process::Resource::Core, old);
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_program_that_is_not_found_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let cancel = AtomicUsize::new(0);
        let why = |argv0: &str| {
            let command = [argv0.to_string()];
            let (cwd, env) = (dir.path(), BTreeMap::new());
            spawn(&command, Duration::from_secs(5), cwd, cwd, &env, &cancel).exit
        };
        assert_eq!(
            why("mgctl-no-such-program"),
            Exit::NotStarted(
                "`mgctl-no-such-program` is not on PATH (No such file or directory)".into()
            )
        );
        assert_eq!(
            why("./mgctl-no-such-program"),
            Exit::NotStarted(
                "`./mgctl-no-such-program` does not exist (No such file or directory)".into()
            )
        );
    }
}
