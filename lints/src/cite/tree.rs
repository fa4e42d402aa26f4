//! The files citations point into: the working tree, a git revision (through git2), or an
//! in-memory set (tests, self-test, benchmark). This is the only module that reads sources.

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::rc::Rc;

use globset::GlobSet;

use super::error::Error;

/// Text of one source file, decoded once; lines are slices of it.
#[derive(Debug)]
pub struct SourceText {
    text: String,
    /// Byte range of each line without its terminator; upstream's count rule (a final
    /// unterminated line counts).
    spans: Vec<(usize, usize)>,
    pub binary: bool,
}

impl SourceText {
    pub fn from_bytes(bytes: &[u8]) -> Self {
        let binary = memchr::memchr(0, &bytes[..bytes.len().min(8192)]).is_some();
        if binary {
            return SourceText {
                text: String::new(),
                spans: Vec::new(),
                binary,
            };
        }
        let text = match std::str::from_utf8(bytes) {
            Ok(t) => t.to_string(),
            Err(_) => String::from_utf8_lossy(bytes).into_owned(),
        };
        let mut spans = Vec::new();
        let mut start = 0;
        for piece in crate::lines::inclusive(&text) {
            let body = piece.trim_end_matches(['\n', '\r']);
            spans.push((start, start + body.len()));
            start += piece.len();
        }
        SourceText {
            text,
            spans,
            binary,
        }
    }

    pub fn line_count(&self) -> u64 {
        self.spans.len() as u64
    }

    /// Line `i` (0-based), or "" past the end.
    pub fn line(&self, i: usize) -> &str {
        self.spans.get(i).map_or("", |&(a, b)| &self.text[a..b])
    }

    pub fn lines(&self) -> impl Iterator<Item = &str> {
        self.spans.iter().map(|&(a, b)| &self.text[a..b])
    }
}

enum Backend {
    Worktree {
        root: PathBuf,
    },
    Git {
        repo: git2::Repository,
        blobs: HashMap<String, git2::Oid>,
    },
    Memory {
        files: HashMap<String, Vec<u8>>,
    },
}

/// A listing of workspace-relative paths (forward slashes) plus a loader that reads each file
/// at most once.
pub struct SourceTree {
    /// `WORKTREE`, or the revision as given.
    pub label: String,
    /// The commit a revision resolved to.
    pub commit: Option<String>,
    files: Vec<String>,
    /// basename → indices into `files`
    by_name: HashMap<String, Vec<usize>>,
    backend: Backend,
    cache: RefCell<HashMap<String, Rc<SourceText>>>,
}

fn basename(p: &str) -> &str {
    p.rsplit('/').next().unwrap_or(p)
}

impl SourceTree {
    fn new(
        label: String,
        commit: Option<String>,
        mut files: Vec<String>,
        backend: Backend,
    ) -> Self {
        files.sort();
        files.dedup();
        let mut by_name: HashMap<String, Vec<usize>> = HashMap::new();
        for (i, f) in files.iter().enumerate() {
            by_name.entry(basename(f).to_string()).or_default().push(i);
        }
        SourceTree {
            label,
            commit,
            files,
            by_name,
            backend,
            cache: RefCell::new(HashMap::new()),
        }
    }

    /// The working tree under `root`. Skips `.git`, `target` and paths matching `exclude`
    /// (workspace-relative globs).
    pub fn worktree(root: &Path, exclude: &GlobSet) -> Result<Self, Error> {
        // The one workspace walk (diag::walk): links inside the workspace followed, each file
        // once. A file over the size limit stays listed (reading it is the error naming the
        // limit); a link out of the workspace is not followed, so it is no citation target.
        let listing = diag::walk::walk(root, Path::new(""), &|rel, _| {
            let name = rel.file_name().map(|n| n.to_string_lossy());
            let rel = diag::walk::display(rel);
            !(name.as_deref() == Some(".git")
                || name.as_deref() == Some("target")
                || (!rel.is_empty() && exclude.is_match(&rel)))
        })
        .map_err(|e| Error::Walk {
            path: e.path.clone(),
            reason: e.source.to_string(),
        })?;
        let mut files: Vec<String> = listing.files.iter().map(|f| f.display()).collect();
        files.extend(listing.skipped.iter().filter_map(|s| match s {
            diag::walk::Skip::TooLarge { rel, .. } => Some(diag::walk::display(rel)),
            _ => None,
        }));
        Ok(Self::new(
            "WORKTREE".to_string(),
            None,
            files,
            Backend::Worktree {
                root: root.to_path_buf(),
            },
        ))
    }

    /// The tree of revision `rev` of the git repository containing `root`, limited to `root`.
    pub fn at_rev(root: &Path, rev: &str, exclude: &GlobSet) -> Result<Self, Error> {
        let bad = |reason: String| Error::BadRev {
            rev: rev.to_string(),
            root: root.to_path_buf(),
            reason,
        };
        let repo = git2::Repository::discover(root).map_err(|e| bad(e.message().to_string()))?;
        let workdir = repo
            .workdir()
            .ok_or_else(|| bad("the repository is bare".to_string()))?;
        let canon_root = root.canonicalize().map_err(|e| Error::Read {
            path: root.to_path_buf(),
            reason: e.to_string(),
        })?;
        let canon_work = workdir.canonicalize().map_err(|e| Error::Read {
            path: workdir.to_path_buf(),
            reason: e.to_string(),
        })?;
        let prefix = rel_of(&canon_work, &canon_root);
        let prefix = if prefix.is_empty() {
            String::new()
        } else {
            format!("{prefix}/")
        };
        let mut blobs = HashMap::new();
        let id = {
            let object = repo
                .revparse_single(rev)
                .map_err(|e| bad(e.message().to_string()))?;
            let commit = object
                .peel_to_commit()
                .map_err(|e| bad(e.message().to_string()))?;
            let tree = commit.tree().map_err(|e| bad(e.message().to_string()))?;
            tree.walk(git2::TreeWalkMode::PreOrder, |dir, entry| {
                // submodules (gitlinks) have no blob to read; they are not citation targets
                if entry.kind() == Some(git2::ObjectType::Blob) {
                    if let Some(name) = entry.name() {
                        let full = format!("{dir}{name}");
                        if let Some(rel) = full.strip_prefix(&prefix) {
                            if !exclude.is_match(rel) {
                                blobs.insert(rel.to_string(), entry.id());
                            }
                        }
                    }
                }
                git2::TreeWalkResult::Ok
            })
            .map_err(|e| bad(e.message().to_string()))?;
            commit.id().to_string()
        };
        let files = blobs.keys().cloned().collect();
        Ok(Self::new(
            rev.to_string(),
            Some(id),
            files,
            Backend::Git { repo, blobs },
        ))
    }

    /// An in-memory tree (tests, self-test, benchmark).
    pub fn in_memory(label: &str, files: BTreeMap<String, Vec<u8>>) -> Self {
        let names = files.keys().cloned().collect();
        Self::new(
            label.to_string(),
            None,
            names,
            Backend::Memory {
                files: files.into_iter().collect(),
            },
        )
    }

    pub fn files(&self) -> &[String] {
        &self.files
    }

    pub fn contains(&self, path: &str) -> bool {
        self.files
            .binary_search_by(|f| f.as_str().cmp(path))
            .is_ok()
    }

    /// Every listed path whose basename is `name`, sorted.
    pub fn named(&self, name: &str) -> Vec<&str> {
        self.by_name
            .get(name)
            .map(|v| v.iter().map(|&i| self.files[i].as_str()).collect())
            .unwrap_or_default()
    }

    /// How many distinct files have been read so far.
    pub fn reads(&self) -> usize {
        self.cache.borrow().len()
    }

    /// The text of a listed file, read once and cached.
    pub fn text(&self, path: &str) -> Result<Rc<SourceText>, Error> {
        if let Some(t) = self.cache.borrow().get(path) {
            return Ok(Rc::clone(t));
        }
        let bytes = match &self.backend {
            Backend::Worktree { root } => {
                let p = root.join(path);
                diag::walk::read(&p).map_err(|e| Error::Read {
                    path: p,
                    reason: e.to_string(),
                })?
            }
            Backend::Git { repo, blobs } => {
                let oid = blobs.get(path).ok_or_else(|| Error::Read {
                    path: PathBuf::from(path),
                    reason: format!("not in the tree of {}", self.label),
                })?;
                let blob = repo.find_blob(*oid).map_err(|e| Error::Read {
                    path: PathBuf::from(format!("{}:{path}", self.label)),
                    reason: e.message().to_string(),
                })?;
                blob.content().to_vec()
            }
            Backend::Memory { files } => files.get(path).cloned().ok_or_else(|| Error::Read {
                path: PathBuf::from(path),
                reason: "not in the in-memory tree".to_string(),
            })?,
        };
        let text = Rc::new(SourceText::from_bytes(&bytes));
        self.cache
            .borrow_mut()
            .insert(path.to_string(), Rc::clone(&text));
        Ok(text)
    }
}

/// `path` relative to `root` with forward slashes ("" for the root itself).
pub fn rel_of(root: &Path, path: &Path) -> String {
    let p = path.strip_prefix(root).unwrap_or(path);
    p.to_string_lossy().replace('\\', "/")
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn line_count_follows_upstream() {
        assert_eq!(SourceText::from_bytes(b"a\nb\n").line_count(), 2);
        assert_eq!(SourceText::from_bytes(b"a\nb").line_count(), 2);
        assert_eq!(SourceText::from_bytes(b"").line_count(), 0);
        assert!(SourceText::from_bytes(b"\x7fELF\0\0").binary);
    }

    #[test]
    fn reads_once() {
        let mut m = BTreeMap::new();
        m.insert("a/B.cpp".to_string(), b"x\n".to_vec());
        let t = SourceTree::in_memory("MEM", m);
        t.text("a/B.cpp").unwrap();
        t.text("a/B.cpp").unwrap();
        assert_eq!(t.reads(), 1);
        assert_eq!(t.named("B.cpp"), vec!["a/B.cpp"]);
        assert!(t.text("nope.cpp").is_err());
    }
}
