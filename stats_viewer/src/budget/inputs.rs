//! Input discovery for budgets and counter contracts: workspace-relative path globs. The only I/O
//! of these modules (listing and reading the matched files); everything else is pure.

use std::path::{Path, PathBuf};

use globset::{Glob, GlobSetBuilder};

/// One matched input: its workspace-relative path (forward slashes) and its bytes.
#[derive(Debug, Clone)]
pub struct InputFile {
    pub rel: String,
    pub path: PathBuf,
    pub bytes: Vec<u8>,
}

/// Workspace files matching any glob (skipping `.git` and `target`), sorted by relative path.
/// `what` names the config key in errors (`[[budget]] t1 inputs`).
pub fn matching(root: &Path, globs: &[String], what: &str) -> Result<Vec<PathBuf>, String> {
    let mut b = GlobSetBuilder::new();
    for g in globs {
        b.add(Glob::new(g).map_err(|e| format!("{what}: bad glob {g:?}: {e}"))?);
    }
    let set = b.build().map_err(|e| format!("{what}: {e}"))?;
    walk(root, &set).map_err(|(dir, e)| format!("{}: cannot list: {e}", dir.display()))
}

/// Workspace files (skipping `.git` and `target`) whose relative path `set` matches, sorted; a
/// directory that cannot be listed is the error, with its path.
pub(crate) fn walk(
    root: &Path,
    set: &globset::GlobSet,
) -> Result<Vec<PathBuf>, (PathBuf, std::io::Error)> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let entries = std::fs::read_dir(&dir).map_err(|e| (dir.clone(), e))?;
        for e in entries {
            let e = e.map_err(|e| (dir.clone(), e))?;
            let p = e.path();
            let name = e.file_name();
            if p.is_dir() {
                if name != ".git" && name != "target" {
                    stack.push(p);
                }
                continue;
            }
            if set.is_match(rel(root, &p)) {
                out.push(p);
            }
        }
    }
    out.sort();
    Ok(out)
}

/// Workspace-relative display form (forward slashes).
pub fn rel(root: &Path, p: &Path) -> String {
    p.strip_prefix(root)
        .unwrap_or(p)
        .to_string_lossy()
        .replace('\\', "/")
}

/// Lists and reads every file matching `globs`; an unreadable file is an error naming it.
pub fn read_matching(root: &Path, globs: &[String], what: &str) -> Result<Vec<InputFile>, String> {
    let mut out = Vec::new();
    for path in matching(root, globs, what)? {
        let r = rel(root, &path);
        let bytes = std::fs::read(&path).map_err(|e| format!("{r}: cannot read: {e}"))?;
        out.push(InputFile {
            rel: r,
            path,
            bytes,
        });
    }
    Ok(out)
}
