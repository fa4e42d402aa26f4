//! The one workspace walk (issue 29): every gate that lists files (tokens, cite, preproc,
//! fatal-sites, the budgets/counters/fatals inputs) lists them here, so they agree on what a
//! tree holds however hostile its links are.
//!
//! - Links are followed (what the compiler reads through a link is what a gate judges), but a
//!   link whose target lies **outside the workspace** is not: it is a [`Skip::OutsideLink`] the
//!   gate reports, so a scan is bounded by the workspace.
//! - A link back to one of its own ancestors is a loop and is not walked (all it leads to is
//!   walked through the ancestor), so `up -> ..` cannot hang a walk. A directory reached by two
//!   paths that are not a loop is walked under both (which files a gate wants depends on the
//!   path), and its files are listed once, as below.
//! - A file is listed once however many paths lead to it (links, hard links: its device and
//!   inode), at the first of its paths in walk order (names sorted bytewise at each level).
//! - Names are kept as found (`OsStr`, never a lossy copy), so a non-UTF-8 name is read back.
//! - A file larger than the size limit is a [`Skip::TooLarge`], not a read ([`read_capped`] caps
//!   a read the same way, for the readers that do not list).
//!
//! Only `std`: this crate's one dependency stays serde.

use std::collections::HashSet;
use std::ffi::OsString;
use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// The default largest source a gate reads: 64 MiB (`[check] max_file_size`, docs/config.md).
pub const DEFAULT_MAX_FILE_SIZE: u64 = 64 << 20;

static MAX_FILE_SIZE: AtomicU64 = AtomicU64::new(DEFAULT_MAX_FILE_SIZE);

/// Sets the size limit of this process's walks and capped reads (the binary sets it once, from
/// `[check] max_file_size`, before any gate runs).
pub fn set_max_file_size(bytes: u64) {
    MAX_FILE_SIZE.store(bytes, Ordering::Relaxed);
}

/// The size limit in force.
pub fn max_file_size() -> u64 {
    MAX_FILE_SIZE.load(Ordering::Relaxed)
}

/// `bytes` for a message: `2.0 GiB`, `64 MiB`, `512 B`.
pub fn human_size(bytes: u64) -> String {
    const UNITS: [(&str, u64); 3] = [("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)];
    for (unit, size) in UNITS {
        if bytes >= size {
            return if bytes % size == 0 {
                format!("{} {unit}", bytes / size)
            } else {
                format!("{:.1} {unit}", bytes as f64 / size as f64)
            };
        }
    }
    format!("{bytes} B")
}

/// Why a file is over the limit, for the finding that names it.
pub fn too_large_reason(size: u64, limit: u64) -> String {
    format!(
        "{} is larger than the {} limit ([check] max_file_size): not read",
        human_size(size),
        human_size(limit)
    )
}

/// Reads `path` whole unless it holds more than `limit` bytes, which is an error of kind
/// `FileTooLarge` (read through `take`, so a file that grows or lies about its size is still
/// never read past the limit).
pub fn read_capped(path: &Path, limit: u64) -> std::io::Result<Vec<u8>> {
    let file = std::fs::File::open(path)?;
    let size = file.metadata().map(|m| m.len()).unwrap_or(0);
    if size > limit {
        return Err(too_large(size, limit));
    }
    let mut out = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
    file.take(limit.saturating_add(1)).read_to_end(&mut out)?;
    if out.len() as u64 > limit {
        return Err(too_large(out.len() as u64, limit));
    }
    Ok(out)
}

fn too_large(size: u64, limit: u64) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::FileTooLarge,
        too_large_reason(size, limit),
    )
}

/// [`read_capped`] at the limit in force.
pub fn read(path: &Path) -> std::io::Result<Vec<u8>> {
    read_capped(path, max_file_size())
}

/// Whether a configured workspace-relative path stays inside the workspace: not absolute, and
/// no `..` that climbs above the root (`a/../b` stays inside; `../b`, `a/../../b` do not).
pub fn inside_workspace(p: &Path) -> bool {
    let mut depth = 0usize;
    for c in p.components() {
        match c {
            std::path::Component::Normal(_) => depth += 1,
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => match depth.checked_sub(1) {
                Some(d) => depth = d,
                None => return false,
            },
            std::path::Component::RootDir | std::path::Component::Prefix(_) => return false,
        }
    }
    true
}

/// A file the walk lists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// The path to read: the walk's root joined with `rel`, as found.
    pub path: PathBuf,
    /// Workspace-relative, as found (bytes kept).
    pub rel: PathBuf,
    /// Its size when listed.
    pub size: u64,
    /// Its identity (device, inode) where the platform has one.
    pub id: Option<(u64, u64)>,
}

impl Found {
    /// `rel` for reports: forward slashes, lossy (U+FFFD) when the name is not UTF-8.
    pub fn display(&self) -> String {
        display(&self.rel)
    }
}

/// A workspace-relative path for reports: components joined with `/`, lossy when not UTF-8.
pub fn display(rel: &Path) -> String {
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

/// A wanted entry the walk did not list, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Skip {
    /// A link whose target is outside the workspace: not followed.
    OutsideLink { rel: PathBuf, target: PathBuf },
    /// A file over the size limit: not read.
    TooLarge { rel: PathBuf, size: u64, limit: u64 },
    /// A link to nothing.
    Dangling { rel: PathBuf, path: PathBuf },
}

impl Skip {
    /// The entry's workspace-relative path.
    pub fn rel(&self) -> &Path {
        match self {
            Skip::OutsideLink { rel, .. }
            | Skip::TooLarge { rel, .. }
            | Skip::Dangling { rel, .. } => rel,
        }
    }

    /// Why, in a phrase for a finding (the path is the finding's location).
    pub fn reason(&self) -> String {
        match self {
            Skip::OutsideLink { target, .. } => format!(
                "a link leading out of the workspace (to {}): not followed",
                target.display()
            ),
            Skip::TooLarge { size, limit, .. } => too_large_reason(*size, *limit),
            Skip::Dangling { .. } => "a link to nothing".to_string(),
        }
    }
}

/// What a walk found.
#[derive(Debug, Default)]
pub struct Listing {
    /// Each file once, in walk order.
    pub files: Vec<Found>,
    /// Wanted entries not listed (links out, files over the limit, dangling links), walk order.
    pub skipped: Vec<Skip>,
}

impl Listing {
    /// The skips other than dangling links (a gate for which a dangling link is no source).
    pub fn findings(&self) -> impl Iterator<Item = &Skip> {
        self.skipped
            .iter()
            .filter(|s| !matches!(s, Skip::Dangling { .. }))
    }
}

/// A directory or entry that could not be read.
#[derive(Debug)]
pub struct Error {
    pub path: PathBuf,
    pub source: std::io::Error,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.source)
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}

type Id = (u64, u64);

#[cfg(unix)]
fn id(m: &std::fs::Metadata) -> Option<Id> {
    use std::os::unix::fs::MetadataExt;
    Some((m.dev(), m.ino()))
}

#[cfg(not(unix))]
fn id(_: &std::fs::Metadata) -> Option<Id> {
    None
}

/// Walks `root/start` (`start` workspace-relative, empty for the whole workspace). `wanted(rel,
/// is_dir)` prunes: a directory it refuses is not entered, a file it refuses is not listed (and
/// so not deduplicated against, nor size-checked).
pub fn walk(
    root: &Path,
    start: &Path,
    wanted: &dyn Fn(&Path, bool) -> bool,
) -> Result<Listing, Error> {
    walk_limited(root, start, max_file_size(), wanted)
}

/// [`walk`] with an explicit size limit.
pub fn walk_limited(
    root: &Path,
    start: &Path,
    limit: u64,
    wanted: &dyn Fn(&Path, bool) -> bool,
) -> Result<Listing, Error> {
    let err = |path: &Path| {
        let path = path.to_path_buf();
        move |source| Error { path, source }
    };
    let canon_root = root.canonicalize().map_err(err(root))?;
    let mut w = Walker {
        root,
        canon_root,
        limit,
        wanted,
        dirs: Vec::new(),
        files: HashSet::new(),
        out: Listing::default(),
    };
    let start: PathBuf = start
        .components()
        .filter(|c| !matches!(c, std::path::Component::CurDir))
        .collect();
    let start = start.as_path();
    let top = root.join(start);
    let meta = std::fs::metadata(&top).map_err(err(&top))?;
    if meta.is_dir() {
        w.enter(&top, start, &meta)?;
    } else {
        w.entry(&top, start.to_path_buf())?;
    }
    Ok(w.out)
}

struct Walker<'a> {
    root: &'a Path,
    canon_root: PathBuf,
    limit: u64,
    wanted: &'a dyn Fn(&Path, bool) -> bool,
    /// The directories being walked, outermost first.
    dirs: Vec<Id>,
    files: HashSet<Id>,
    out: Listing,
}

impl Walker<'_> {
    /// Walks a directory unless it is one of its own ancestors (a loop).
    fn enter(&mut self, dir: &Path, rel: &Path, meta: &std::fs::Metadata) -> Result<(), Error> {
        let me = id(meta);
        if me.is_some_and(|i| self.dirs.contains(&i)) {
            return Ok(());
        }
        if let Some(i) = me {
            self.dirs.push(i);
        }
        let r = self.dir(dir, rel);
        if me.is_some() {
            self.dirs.pop();
        }
        r
    }

    fn dir(&mut self, dir: &Path, rel: &Path) -> Result<(), Error> {
        let rd = std::fs::read_dir(dir).map_err(|source| Error {
            path: dir.to_path_buf(),
            source,
        })?;
        let mut names: Vec<OsString> = Vec::new();
        for e in rd {
            let e = e.map_err(|source| Error {
                path: dir.to_path_buf(),
                source,
            })?;
            names.push(e.file_name());
        }
        names.sort_by(|a, b| a.as_encoded_bytes().cmp(b.as_encoded_bytes()));
        for name in names {
            self.entry(&dir.join(&name), rel.join(&name))?;
        }
        Ok(())
    }

    fn entry(&mut self, path: &Path, rel: PathBuf) -> Result<(), Error> {
        let err = |source| Error {
            path: path.to_path_buf(),
            source,
        };
        let lmeta = std::fs::symlink_metadata(path).map_err(err)?;
        let link = lmeta.file_type().is_symlink();
        let meta = if link {
            match std::fs::metadata(path) {
                Ok(m) => m,
                Err(_) => {
                    if (self.wanted)(&rel, false) {
                        self.out.skipped.push(Skip::Dangling {
                            rel,
                            path: path.to_path_buf(),
                        });
                    }
                    return Ok(());
                }
            }
        } else {
            lmeta
        };
        let is_dir = meta.is_dir();
        if !is_dir && !meta.is_file() {
            return Ok(()); // a fifo, socket or device is no source (reading one may block)
        }
        if !(self.wanted)(&rel, is_dir) {
            return Ok(());
        }
        if link {
            let target = path.canonicalize().map_err(err)?;
            if !target.starts_with(&self.canon_root) {
                self.out.skipped.push(Skip::OutsideLink { rel, target });
                return Ok(());
            }
        }
        if is_dir {
            return self.enter(path, &rel, &meta);
        }
        if id(&meta).is_some_and(|i| !self.files.insert(i)) {
            return Ok(());
        }
        if meta.len() > self.limit {
            self.out.skipped.push(Skip::TooLarge {
                rel,
                size: meta.len(),
                limit: self.limit,
            });
            return Ok(());
        }
        self.out.files.push(Found {
            path: self.root.join(&rel),
            rel,
            size: meta.len(),
            id: id(&meta),
        });
        Ok(())
    }
}

#[cfg(all(test, unix))]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn tmp(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("diag-walk-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    fn all(_: &Path, _: bool) -> bool {
        true
    }

    fn names(l: &Listing) -> Vec<String> {
        l.files.iter().map(Found::display).collect()
    }

    #[test]
    fn loops_and_aliases_are_walked_once() {
        let d = tmp("loops");
        std::fs::create_dir_all(d.join("runs/r/pull")).unwrap();
        std::fs::create_dir_all(d.join("runs/r/push")).unwrap();
        std::fs::write(d.join("runs/r/pull/a.log"), "a").unwrap();
        std::fs::write(d.join("runs/r/push/b.log"), "b").unwrap();
        symlink("..", d.join("runs/r/pull/up")).unwrap();
        symlink("..", d.join("runs/r/push/up")).unwrap();
        symlink("a.log", d.join("runs/r/pull/z.log")).unwrap();
        std::fs::hard_link(d.join("runs/r/push/b.log"), d.join("runs/r/push/c.log")).unwrap();
        let l = walk(&d, Path::new(""), &all).unwrap();
        assert_eq!(names(&l), ["runs/r/pull/a.log", "runs/r/push/b.log"]);
        assert!(l.skipped.is_empty(), "{:?}", l.skipped);
        // the first path in walk order is the one kept
        let l = walk(&d, Path::new("runs/r/push"), &all).unwrap();
        assert_eq!(
            names(&l),
            ["runs/r/push/b.log", "runs/r/push/up/pull/a.log"]
        );
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn links_out_of_the_workspace_are_not_followed() {
        let d = tmp("out");
        let outside = tmp("out-target");
        std::fs::write(outside.join("x.cpp"), "x").unwrap();
        std::fs::create_dir_all(d.join("src")).unwrap();
        symlink(&outside, d.join("src/ext")).unwrap();
        symlink(outside.join("x.cpp"), d.join("src/x.cpp")).unwrap();
        symlink("/nonexistent/nothing", d.join("src/gone.cpp")).unwrap();
        std::fs::write(d.join("src/in.cpp"), "i").unwrap();
        symlink("in.cpp", d.join("src/same.cpp")).unwrap();
        let l = walk(&d, Path::new(""), &all).unwrap();
        assert_eq!(names(&l), ["src/in.cpp"]);
        let skipped: Vec<(String, bool)> = l
            .skipped
            .iter()
            .map(|s| (display(s.rel()), matches!(s, Skip::OutsideLink { .. })))
            .collect();
        assert_eq!(
            skipped,
            [
                ("src/ext".to_string(), true),
                ("src/gone.cpp".to_string(), false),
                ("src/x.cpp".to_string(), true)
            ]
        );
        assert!(l.skipped[0].reason().contains("out of the workspace"));
        assert_eq!(l.findings().count(), 2);
        std::fs::remove_dir_all(&d).unwrap();
        std::fs::remove_dir_all(&outside).unwrap();
    }

    #[test]
    fn non_utf8_names_are_kept_and_pruning_applies() {
        use std::os::unix::ffi::OsStrExt;
        let d = tmp("bytes");
        let name = std::ffi::OsStr::from_bytes(b"F\xffill.cpp");
        std::fs::create_dir_all(d.join(".git")).unwrap();
        std::fs::write(d.join(".git/x"), "").unwrap();
        std::fs::write(d.join(name), "n").unwrap();
        let l = walk(&d, Path::new(""), &|rel, _| {
            !rel.as_os_str().as_encoded_bytes().starts_with(b".")
        })
        .unwrap();
        assert_eq!(l.files.len(), 1);
        assert_eq!(std::fs::read(&l.files[0].path).unwrap(), b"n");
        assert_eq!(l.files[0].display(), "F\u{fffd}ill.cpp");
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn files_over_the_limit_are_not_listed_nor_read() {
        let d = tmp("big");
        let f = std::fs::File::create(d.join("huge.cpp")).unwrap();
        f.set_len(2 << 30).unwrap(); // a 2 GiB sparse file
        std::fs::write(d.join("small.cpp"), "s").unwrap();
        let l = walk_limited(&d, Path::new(""), 1024, &all).unwrap();
        assert_eq!(names(&l), ["small.cpp"]);
        assert_eq!(
            l.skipped[0].reason(),
            "2 GiB is larger than the 1 KiB limit ([check] max_file_size): not read"
        );
        let e = read_capped(&d.join("huge.cpp"), 1024).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::FileTooLarge);
        assert_eq!(read_capped(&d.join("small.cpp"), 1).unwrap(), b"s");
        assert!(read_capped(&d.join("small.cpp"), 0).is_err());
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn configured_paths_stay_inside() {
        for (p, inside) in [
            ("a/b", true),
            ("./a", true),
            ("a/../b", true),
            ("MobileGL/**/*.h", true),
            ("../b", false),
            ("a/../../b", false),
            ("/etc/passwd", false),
        ] {
            assert_eq!(inside_workspace(Path::new(p)), inside, "{p}");
        }
    }

    #[test]
    fn sizes_read_as_people_write_them() {
        assert_eq!(human_size(DEFAULT_MAX_FILE_SIZE), "64 MiB");
        assert_eq!(human_size(1536), "1.5 KiB");
        assert_eq!(human_size(12), "12 B");
    }
}
