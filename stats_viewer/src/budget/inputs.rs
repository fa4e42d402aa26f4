//! Input discovery for budgets and counter contracts: workspace-relative path globs. The only I/O
//! of these modules (listing and reading the matched files); everything else is pure.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use globset::{Glob, GlobSetBuilder};

use crate::benchmark::BenchmarkFile;

/// One matched input: its workspace-relative path (forward slashes) and its bytes.
#[derive(Debug, Clone)]
pub struct InputFile {
    pub rel: String,
    pub path: PathBuf,
    pub bytes: Vec<u8>,
    /// The bytes parsed as a `benchmark.json`, on first use: budgets over the same inputs (the
    /// driver's p50 and p99 delta) share the files, and parsing them is most of their cost.
    benchmark: OnceLock<Result<BenchmarkFile, crate::Error>>,
}

impl InputFile {
    pub fn new(rel: String, path: PathBuf, bytes: Vec<u8>) -> InputFile {
        InputFile {
            rel,
            path,
            bytes,
            benchmark: OnceLock::new(),
        }
    }

    /// The file as a benchmark (named by its relative path), parsed once.
    pub fn benchmark(&self) -> Result<&BenchmarkFile, &crate::Error> {
        self.benchmark
            .get_or_init(|| BenchmarkFile::parse(Path::new(&self.rel), &self.bytes))
            .as_ref()
    }
}

/// Why the inputs of a budget or contract cannot be listed or read; `what` names the config key.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    #[error("{what}: bad glob {glob:?}: {reason}")]
    BadGlob {
        what: String,
        glob: String,
        reason: globset::Error,
    },
    #[error("{what}: {reason}")]
    Globs {
        what: String,
        reason: globset::Error,
    },
    #[error("{}: cannot list: {reason}", .dir.display())]
    List {
        dir: PathBuf,
        reason: std::io::Error,
    },
    #[error("{rel}: cannot read: {reason}")]
    Read { rel: String, reason: std::io::Error },
    #[error("produced_by `{library}` must be a path inside the workspace (relative, no `..`)")]
    LibraryOutside { library: String },
    #[error("produced_by {library} cannot be read ({reason}), so whether the inputs are as new as it cannot be told")]
    LibraryUnreadable {
        library: String,
        reason: std::io::Error,
    },
}

/// Workspace files matching any glob (skipping `.git` and `target`), sorted by relative path.
/// `what` names the config key in errors (`[[budget]] t1 inputs`).
pub fn matching(root: &Path, globs: &[String], what: &str) -> Result<Vec<PathBuf>, InputError> {
    let mut b = GlobSetBuilder::new();
    for g in globs {
        b.add(Glob::new(g).map_err(|reason| InputError::BadGlob {
            what: what.to_string(),
            glob: g.clone(),
            reason,
        })?);
    }
    let set = b.build().map_err(|reason| InputError::Globs {
        what: what.to_string(),
        reason,
    })?;
    walk_globs(root, globs, &set).map_err(|(dir, reason)| InputError::List { dir, reason })
}

/// The directory (workspace-relative components) every path `glob` matches lies under: its
/// leading components free of glob syntax, the file-name component excluded. A `*` crosses `/`
/// in these globs, so only the literal head bounds the walk; `.`, `..` and empty components
/// stop it (a relative path never spells them). None when no path under the walk can match:
/// the head runs through a `.git` or `target` directory, which the walk never enters.
fn literal_dir(glob: &str) -> Option<Vec<&str>> {
    let comps: Vec<&str> = glob.split('/').collect();
    let mut dir = Vec::new();
    for c in &comps[..comps.len().saturating_sub(1)] {
        let literal = !c.is_empty()
            && *c != "."
            && *c != ".."
            && !c.contains(['*', '?', '[', ']', '{', '}', '\\', '!']);
        if !literal {
            break;
        }
        if *c == ".git" || *c == "target" {
            return None;
        }
        dir.push(*c);
    }
    Some(dir)
}

/// Like [`walk`], but only under the directories the globs can reach (issue 16: a budget's
/// `MobileGL/MG_Test/runs/*/…` no longer lists the whole workspace). Same paths, same order; a
/// directory the globs cannot reach is not listed, so it cannot fail the walk either.
pub(crate) fn walk_globs(
    root: &Path,
    globs: &[String],
    set: &globset::GlobSet,
) -> Result<Vec<PathBuf>, (PathBuf, std::io::Error)> {
    let mut dirs: Vec<Vec<&str>> = globs.iter().filter_map(|g| literal_dir(g)).collect();
    dirs.sort();
    dirs.dedup();
    // A directory under another is walked with it (sorted: an ancestor comes first).
    let mut tops: Vec<Vec<&str>> = Vec::new();
    for d in dirs {
        if !tops.iter().any(|t| d.starts_with(t)) {
            tops.push(d);
        }
    }
    let mut out = Vec::new();
    for t in tops {
        let start = t.iter().fold(root.to_path_buf(), |p, c| p.join(c));
        // The old whole-tree walk found nothing below a head that is not a directory.
        if t.is_empty() || start.is_dir() {
            walk_from(root, start, set, &mut out)?;
        }
    }
    Ok(once_each(out))
}

/// Workspace files (skipping `.git` and `target`) whose relative path `set` matches, sorted; a
/// directory that cannot be listed is the error, with its path. The whole-tree walk, kept as
/// the reference [`walk_globs`] is held to.
#[cfg(test)]
fn walk(root: &Path, set: &globset::GlobSet) -> Result<Vec<PathBuf>, (PathBuf, std::io::Error)> {
    let mut out = Vec::new();
    walk_from(root, root.to_path_buf(), set, &mut out)?;
    Ok(once_each(out))
}

/// A file's identity (device, inode) where the platform has one.
type FileId = Option<(u64, u64)>;

/// The listed paths sorted, each file once (issue 29): a file that several paths reach (links to
/// a directory, hard links) keeps the first of its paths in sorted order.
fn once_each(mut found: Vec<(PathBuf, FileId)>) -> Vec<PathBuf> {
    found.sort();
    found.dedup_by(|a, b| a.0 == b.0);
    let mut seen = std::collections::HashSet::new();
    found
        .into_iter()
        .filter(|(_, id)| id.is_none_or(|id| seen.insert(id)))
        .map(|(p, _)| p)
        .collect()
}

/// The matching files under `start`, through the one workspace walk (diag::walk, issue 29): a
/// link back to one of its own ancestors is a loop and is not walked (all it leads to is listed
/// through the ancestor already), so `up -> ..` can neither hang the walk nor list a run's inputs
/// again under `up/`; a link out of the workspace is not followed and is the error naming it. A
/// dangling link, or a file over the size limit, is listed as a file (reading it is the error
/// that names it); any other failure is the directory that cannot be listed.
fn walk_from(
    root: &Path,
    start: PathBuf,
    set: &globset::GlobSet,
    out: &mut Vec<(PathBuf, FileId)>,
) -> Result<(), (PathBuf, std::io::Error)> {
    let skipped = |rel: &Path, is_dir: bool| {
        is_dir
            && rel
                .file_name()
                .is_some_and(|n| n == ".git" || n == "target")
    };
    let from = start.strip_prefix(root).unwrap_or(&start).to_path_buf();
    let listing = diag::walk::walk(root, &from, &|r, is_dir| {
        !skipped(r, is_dir) && (is_dir || set.is_match(rel(root, &root.join(r))))
    })
    .map_err(|e| (e.path, e.source))?;
    for skip in listing.skipped {
        match skip {
            diag::walk::Skip::OutsideLink { rel, .. } => {
                return Err((
                    root.join(&rel),
                    std::io::Error::other(
                        "a link leading out of the workspace: not followed".to_string(),
                    ),
                ))
            }
            diag::walk::Skip::TooLarge { rel, .. } => out.push((root.join(rel), None)),
            diag::walk::Skip::Dangling { path, .. } => out.push((path, None)),
        }
    }
    out.extend(listing.files.into_iter().map(|f| (f.path, f.id)));
    Ok(())
}

/// Issue 30: the run artifacts among `files` older than `library`, the build that produced them
/// (`produced_by`): each measures an older build than the one in the workspace. Err (a sentence)
/// when the key is not a workspace path or the library cannot be read, so nothing can be told.
pub fn older_than_library(
    root: &Path,
    library: &str,
    files: &[InputFile],
) -> Result<Vec<String>, InputError> {
    let p = Path::new(library);
    if library.trim().is_empty()
        || p.is_absolute()
        || p.components().any(|c| c == std::path::Component::ParentDir)
    {
        return Err(InputError::LibraryOutside {
            library: library.to_string(),
        });
    }
    let built = std::fs::metadata(root.join(p))
        .and_then(|m| m.modified())
        .map_err(|reason| InputError::LibraryUnreadable {
            library: library.to_string(),
            reason,
        })?;
    Ok(files
        .iter()
        .filter(|f| {
            std::fs::metadata(&f.path)
                .and_then(|m| m.modified())
                .is_ok_and(|t| t < built)
        })
        .map(|f| f.rel.clone())
        .collect())
}

/// Workspace-relative display form (forward slashes).
pub fn rel(root: &Path, p: &Path) -> String {
    p.strip_prefix(root)
        .unwrap_or(p)
        .to_string_lossy()
        .replace('\\', "/")
}

/// Lists and reads every file matching `globs`; an unreadable file is an error naming it.
pub fn read_matching(
    root: &Path,
    globs: &[String],
    what: &str,
) -> Result<Vec<InputFile>, InputError> {
    let mut out = Vec::new();
    for path in matching(root, globs, what)? {
        let r = rel(root, &path);
        match diag::walk::read(&path) {
            Ok(bytes) => out.push(InputFile::new(r, path, bytes)),
            Err(reason) => return Err(InputError::Read { rel: r, reason }),
        }
    }
    Ok(out)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn literal_heads() {
        let d = |g: &str| literal_dir(g).map(|v| v.join("/"));
        assert_eq!(
            d("MobileGL/MG_Test/runs/*/*/benchmark-run*.json").unwrap(),
            "MobileGL/MG_Test/runs"
        );
        assert_eq!(d("a/b.log").unwrap(), "a");
        assert_eq!(d("b.log").unwrap(), "");
        assert_eq!(d("**/x.log").unwrap(), "");
        assert_eq!(d("a/{b,c}/x").unwrap(), "a");
        assert_eq!(d("a/[bc]/x").unwrap(), "a");
        assert_eq!(d("a/b\\*/x").unwrap(), "a");
        assert_eq!(d("/abs/x").unwrap(), "");
        assert_eq!(d("./a/x").unwrap(), "");
        assert_eq!(d("a/../b/x").unwrap(), "a");
        assert_eq!(d("a//b/x").unwrap(), "a");
        assert_eq!(d("a/target/x"), None);
        assert_eq!(d("a/.git/x"), None);
        assert_eq!(d("a/target*/x").unwrap(), "a");
    }

    fn tree() -> tempfile::TempDir {
        let t = tempfile::tempdir().unwrap();
        for f in [
            "a/b/x.log",
            "a/b/c/x.log",
            "a/bb/x.log",
            "a/x.log",
            "a/target/x.log",
            "a/.git/x.log",
            "target/x.log",
            "x.log",
            "a/b/target",
            "c/d/e/f/run1.json",
            "c/d/run2.json",
            "a b/x.log",
        ] {
            let p = t.path().join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, f).unwrap();
        }
        // A file where a glob's head wants a directory, and a symlinked directory.
        std::fs::write(t.path().join("notdir"), "").unwrap();
        std::os::unix::fs::symlink(t.path().join("c"), t.path().join("a/link")).unwrap();
        t
    }

    /// The bounded walk lists exactly what the whole-tree walk lists, glob set for glob set.
    #[test]
    fn bounded_walk_equals_the_whole_tree_walk() {
        let t = tree();
        let sets: &[&[&str]] = &[
            &["a/b/*.log"],
            &["a/*/x.log"],
            &["a/*"],
            &["*.log"],
            &["**/x.log"],
            &["a/b/x.log", "a/*.log"],
            &["a/b/c/*", "a/b/*"],
            &["c/*/run*.json"],
            &["a/link/*"],
            &["a/link/d/*.json", "c/**"],
            &["a/target/*", "target/x.log", "a/.git/*"],
            &["a/b/target", "notdir/x", "missing/x/*"],
            &["a b/*", "a/{b,bb}/x.log", "a/[b]/x.log"],
            &[],
        ];
        let mut nonempty = 0;
        for globs in sets {
            let globs: Vec<String> = globs.iter().map(|s| s.to_string()).collect();
            let mut b = GlobSetBuilder::new();
            for g in &globs {
                b.add(Glob::new(g).unwrap());
            }
            let set = b.build().unwrap();
            let whole = walk(t.path(), &set).unwrap();
            let bounded = walk_globs(t.path(), &globs, &set).unwrap();
            assert_eq!(bounded, whole, "{globs:?}");
            nonempty += usize::from(!whole.is_empty());
        }
        assert!(nonempty >= 10, "{nonempty}");
    }

    /// Issue 29: `up -> ..` links in two sibling directories (a walk without loop detection
    /// never ends) and a second link to a directory: every file is listed once, under its first
    /// path, as in the tree without links.
    #[test]
    fn links_and_loops_list_each_file_once() {
        let t = tree();
        let globs = ["**/*.json".to_string(), "c/**".to_string()];
        let plain: Vec<PathBuf> = matching(t.path(), &globs, "t").unwrap();
        for side in ["c/d", "c/d/e"] {
            std::os::unix::fs::symlink("..", t.path().join(side).join("up")).unwrap();
        }
        std::os::unix::fs::symlink(t.path().join("c/d"), t.path().join("zz")).unwrap();
        let linked = matching(t.path(), &globs, "t").unwrap();
        assert_eq!(linked, plain);
        assert!(
            plain.iter().any(|p| p.ends_with("a/link/d/run2.json")),
            "{plain:?}"
        );
    }

    /// Only what the globs can reach is listed: an unreadable directory elsewhere is not an
    /// error any more, one under the globs still is.
    #[test]
    fn unreachable_directories_are_not_listed() {
        use std::os::unix::fs::PermissionsExt;
        let t = tree();
        let locked = t.path().join("a/bb");
        std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).unwrap();
        let can_lock = std::fs::read_dir(&locked).is_err(); // root ignores the mode
        let r1 = matching(t.path(), &["c/*/run*.json".to_string()], "t");
        let r2 = matching(t.path(), &["a/*/x.log".to_string()], "t");
        std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert_eq!(r1.unwrap().len(), 2);
        if can_lock {
            assert!(r2.unwrap_err().to_string().contains("cannot list"));
        }
    }
}
