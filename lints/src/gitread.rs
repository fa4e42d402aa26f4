//! The only place the region, preprocessor and commit lints touch git (through git2, in process).
//!
//! A workspace may sit anywhere inside a repository (the embedded `driver/` is a folder of
//! mgctl's own repository), so every path here is workspace-relative and is translated through
//! the workspace's prefix inside the repository's work tree.

use std::path::{Path, PathBuf};

use git2::{ErrorCode, ObjectType, Oid, Repository};

#[derive(Debug, thiserror::Error)]
pub enum GitError {
    #[error("{}: not inside a git repository ({msg})", .path.display())]
    NotARepo { path: PathBuf, msg: String },
    #[error("{}: the repository is bare; a work tree is needed", .path.display())]
    Bare { path: PathBuf },
    #[error("{}: the repository has no commits yet", .path.display())]
    NoCommits { path: PathBuf },
    #[error("{}: no commit '{rev}' ({msg})", .path.display())]
    BadRev {
        path: PathBuf,
        rev: String,
        msg: String,
    },
    #[error("{path}: not present at '{rev}'")]
    MissingFile { path: String, rev: String },
    #[error("{}: {what}: {msg}", .path.display())]
    Git {
        path: PathBuf,
        what: String,
        msg: String,
    },
}

/// A resolved commit: full id plus the spelling the user typed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommitRef {
    pub rev: String,
    pub id: String,
}

impl CommitRef {
    pub fn short(&self) -> &str {
        &self.id[..self.id.len().min(10)]
    }
}

/// A commit as the commit-style lint sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommitInfo {
    pub id: String,
    pub message: String,
    pub parents: usize,
}

pub struct GitWorkspace {
    repo: Repository,
    workdir: PathBuf,
    /// Workspace root relative to the work tree, with forward slashes; empty at the top.
    prefix: String,
}

impl std::fmt::Debug for GitWorkspace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GitWorkspace")
            .field("workdir", &self.workdir)
            .field("prefix", &self.prefix)
            .finish()
    }
}

impl GitWorkspace {
    /// The repository enclosing `root` (searching upwards).
    pub fn discover(root: &Path) -> Result<Self, GitError> {
        // libgit2 re-hashes every object it reads (SHA-1 with collision detection): most of the
        // time of a blame or a history walk. git itself trusts its object store on read; so does
        // a read-only audit. Process-wide and idempotent.
        git2::opts::strict_hash_verification(false);
        let repo = Repository::discover(root).map_err(|e| GitError::NotARepo {
            path: root.to_path_buf(),
            msg: e.message().to_string(),
        })?;
        let workdir = repo
            .workdir()
            .ok_or_else(|| GitError::Bare {
                path: repo.path().to_path_buf(),
            })?
            .to_path_buf();
        let canon = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
        let (wd, r) = (canon(&workdir), canon(root));
        // An empty prefix would silently widen every query to the whole repository.
        let prefix = r
            .strip_prefix(&wd)
            .map(|p| p.to_string_lossy().replace('\\', "/"))
            .map_err(|_| GitError::Git {
                path: root.to_path_buf(),
                what: "workspace".into(),
                msg: format!("not inside the work tree {}", wd.display()),
            })?;
        Ok(GitWorkspace {
            repo,
            workdir,
            prefix,
        })
    }

    pub fn workdir(&self) -> &Path {
        &self.workdir
    }

    /// The clone filter when this is a partial clone (`git clone --filter=blob:none`, what
    /// `actions/checkout` with `filter:` makes): its objects are fetched lazily by git, which
    /// libgit2 cannot do, so history questions must not be answered from what happens to be here.
    pub fn partial_clone(&self) -> Option<String> {
        let cfg = self.repo.config().ok()?;
        let remote = cfg.get_string("extensions.partialclone").ok().or_else(|| {
            let mut names = Vec::new();
            if let Ok(mut entries) = cfg.entries(Some(r"remote\..*\.promisor")) {
                while let Some(Ok(e)) = entries.next() {
                    if e.value().is_some_and(|v| v.eq_ignore_ascii_case("true")) {
                        names.push(e.name().unwrap_or_default().to_string());
                    }
                }
            }
            let name = names.into_iter().next()?;
            Some(
                name.trim_start_matches("remote.")
                    .trim_end_matches(".promisor")
                    .to_string(),
            )
        })?;
        let filter = cfg
            .get_string(&format!("remote.{remote}.partialclonefilter"))
            .unwrap_or_else(|_| "unknown".into());
        Some(format!("filter {filter} from remote {remote}"))
    }

    /// The workspace folder inside the repository ("" at the top).
    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    /// The repository, for the other git readers of this crate (pin.rs).
    pub(crate) fn repo(&self) -> &Repository {
        &self.repo
    }

    pub(crate) fn repo_path(&self, rel: &str) -> String {
        if self.prefix.is_empty() {
            rel.to_string()
        } else {
            format!("{}/{}", self.prefix, rel)
        }
    }

    fn err(&self, what: &str, e: &git2::Error) -> GitError {
        GitError::Git {
            path: self.workdir.clone(),
            what: what.to_string(),
            msg: e.message().to_string(),
        }
    }

    fn ensure_has_commits(&self) -> Result<(), GitError> {
        match self.repo.head() {
            Err(e) if matches!(e.code(), ErrorCode::UnbornBranch | ErrorCode::NotFound) => {
                Err(GitError::NoCommits {
                    path: self.workdir.clone(),
                })
            }
            _ => Ok(()),
        }
    }

    /// Resolve a revision (`HEAD~2`, a branch, a sha) to a commit.
    pub fn resolve(&self, rev: &str) -> Result<CommitRef, GitError> {
        self.ensure_has_commits()?;
        let obj = self
            .repo
            .revparse_single(rev)
            .map_err(|e| GitError::BadRev {
                path: self.workdir.clone(),
                rev: rev.to_string(),
                msg: e.message().to_string(),
            })?;
        let commit = obj.peel_to_commit().map_err(|e| GitError::BadRev {
            path: self.workdir.clone(),
            rev: rev.to_string(),
            msg: e.message().to_string(),
        })?;
        Ok(CommitRef {
            rev: rev.to_string(),
            id: commit.id().to_string(),
        })
    }

    /// Whether this clone's history is cut short (`git clone --depth N`).
    pub fn is_shallow(&self) -> bool {
        self.repo.is_shallow()
    }

    /// How many commits `HEAD` reaches (as far as this clone's history goes).
    pub fn history_len(&self) -> Result<usize, GitError> {
        self.ensure_has_commits()?;
        let mut walk = self
            .repo
            .revwalk()
            .map_err(|e| self.err("walking history", &e))?;
        walk.push_head()
            .map_err(|e| self.err("walking history", &e))?;
        // A walk that meets a missing or corrupt commit yields an error item: the history is not
        // short, it is unreadable, and counting the items would say otherwise.
        let mut n = 0;
        for step in walk {
            step.map_err(|e| self.err("walking history", &e))?;
            n += 1;
        }
        Ok(n)
    }

    /// The bytes of workspace-relative `rel` in commit `at`.
    pub fn read_at(&self, at: &CommitRef, rel: &str) -> Result<Vec<u8>, GitError> {
        let oid = Oid::from_str(&at.id).map_err(|e| self.err("bad commit id", &e))?;
        let commit = self
            .repo
            .find_commit(oid)
            .map_err(|e| self.err("reading commit", &e))?;
        let tree = commit.tree().map_err(|e| self.err("reading tree", &e))?;
        let missing = || GitError::MissingFile {
            path: rel.to_string(),
            rev: at.rev.clone(),
        };
        let entry = match tree.get_path(Path::new(&self.repo_path(rel))) {
            Ok(e) => e,
            Err(e) if e.code() == ErrorCode::NotFound => return Err(missing()),
            Err(e) => return Err(self.err(&format!("looking up {rel}"), &e)),
        };
        if entry.kind() != Some(ObjectType::Blob) {
            return Err(missing());
        }
        let blob = self
            .repo
            .find_blob(entry.id())
            .map_err(|e| self.err(&format!("reading {rel}"), &e))?;
        Ok(blob.content().to_vec())
    }

    /// Every file in the index under the workspace, sorted: its workspace-relative name for
    /// reports (lossy when the name is not UTF-8) and its relative path exactly as tracked (issue
    /// 29: a non-UTF-8 name was dropped from the list, so its file was never scanned).
    pub fn tracked_files(&self) -> Result<Vec<(String, PathBuf)>, GitError> {
        let index = self
            .repo
            .index()
            .map_err(|e| self.err("reading the index", &e))?;
        let pre = if self.prefix.is_empty() {
            String::new()
        } else {
            format!("{}/", self.prefix)
        };
        let mut out: Vec<(String, PathBuf)> = index
            .iter()
            .filter_map(|e| e.path.strip_prefix(pre.as_bytes()).map(<[u8]>::to_vec))
            .map(|p| (String::from_utf8_lossy(&p).into_owned(), bytes_path(p)))
            .collect();
        out.sort();
        out.dedup();
        Ok(out)
    }

    /// Commits of `range`: `A..B` (reachable from B, not from A, oldest first) or a single
    /// revision (that one commit).
    pub fn commits(&self, range: &str) -> Result<Vec<CommitInfo>, GitError> {
        self.ensure_has_commits()?;
        let mut walk = self
            .repo
            .revwalk()
            .map_err(|e| self.err("walking history", &e))?;
        walk.set_sorting(git2::Sort::TOPOLOGICAL | git2::Sort::REVERSE)
            .map_err(|e| self.err("walking history", &e))?;
        if let Some((a, b)) = range.split_once("..") {
            if b.starts_with('.') {
                return Err(GitError::BadRev {
                    path: self.workdir.clone(),
                    rev: range.to_string(),
                    msg: "symmetric ranges (A...B) are not supported; use A..B".into(),
                });
            }
            let from = self.resolve(if a.is_empty() { "HEAD" } else { a })?;
            let to = self.resolve(if b.is_empty() { "HEAD" } else { b })?;
            let oid =
                |c: &CommitRef| Oid::from_str(&c.id).map_err(|e| self.err("bad commit id", &e));
            walk.push(oid(&to)?)
                .map_err(|e| self.err("walking history", &e))?;
            walk.hide(oid(&from)?)
                .map_err(|e| self.err("walking history", &e))?;
        } else {
            let one = self.resolve(range)?;
            let oid = Oid::from_str(&one.id).map_err(|e| self.err("bad commit id", &e))?;
            let c = self
                .repo
                .find_commit(oid)
                .map_err(|e| self.err("reading commit", &e))?;
            return Ok(vec![commit_info(&c)]);
        }
        let mut out = Vec::new();
        for oid in walk {
            let oid = oid.map_err(|e| self.err("walking history", &e))?;
            let c = self
                .repo
                .find_commit(oid)
                .map_err(|e| self.err("reading commit", &e))?;
            out.push(commit_info(&c));
        }
        Ok(out)
    }
}

fn commit_info(c: &git2::Commit<'_>) -> CommitInfo {
    CommitInfo {
        id: c.id().to_string(),
        message: String::from_utf8_lossy(c.message_bytes()).into_owned(),
        parents: c.parent_count(),
    }
}

/// Builds small repositories for self-tests and tests (no `git` program needed).
pub mod fixture {
    use std::path::Path;

    use git2::{IndexAddOption, Repository, Signature};

    /// Why a fixture repository could not be made, changed or read back.
    #[derive(Debug, thiserror::Error)]
    pub enum FixtureError {
        #[error("creating a temp dir: {0}")]
        TempDir(std::io::Error),
        /// git's own message, without its class and code.
        #[error("{}", .0.message())]
        Git(git2::Error),
        /// Writing into its working tree.
        #[error("{0}")]
        Write(std::io::Error),
        /// Reading it back through [`super::GitWorkspace`].
        #[error(transparent)]
        Read(#[from] super::GitError),
    }

    /// An empty repository (no commits) at `dir`.
    pub fn init(dir: &Path) -> Result<(), FixtureError> {
        Repository::init(dir).map(|_| ()).map_err(FixtureError::Git)
    }

    /// A temporary repository with one commit per `(files, message)`, oldest first.
    pub fn temp_repo(
        commits: &[(&[(&str, &str)], &str)],
    ) -> Result<tempfile::TempDir, FixtureError> {
        let dir = tempfile::tempdir().map_err(FixtureError::TempDir)?;
        for (files, message) in commits {
            commit_files(dir.path(), files, message).map_err(FixtureError::Git)?;
        }
        Ok(dir)
    }

    /// Write `files` (path, content) into `dir`, stage everything and commit with `message`.
    /// Returns the new commit id.
    pub fn commit_files(
        dir: &Path,
        files: &[(&str, &str)],
        message: &str,
    ) -> Result<String, git2::Error> {
        let repo = match Repository::open(dir) {
            Ok(r) => r,
            Err(_) => Repository::init(dir)?,
        };
        for (path, content) in files {
            let p = dir.join(path);
            if let Some(parent) = p.parent() {
                std::fs::create_dir_all(parent)
                    .map_err(|e| git2::Error::from_str(&e.to_string()))?;
            }
            std::fs::write(&p, content).map_err(|e| git2::Error::from_str(&e.to_string()))?;
        }
        let mut index = repo.index()?;
        index.add_all(["*"], IndexAddOption::DEFAULT, None)?;
        index.write()?;
        let tree_id = index.write_tree()?;
        let tree = repo.find_tree(tree_id)?;
        let sig = Signature::now("mgctl self-test", "self-test@mgctl.invalid")?;
        let parent = repo.head().ok().and_then(|h| h.peel_to_commit().ok());
        let parents: Vec<&git2::Commit<'_>> = parent.iter().collect();
        let id = repo.commit(Some("HEAD"), &sig, &sig, message, &tree, &parents)?;
        Ok(id.to_string())
    }
}

/// A path git stores as bytes, as the platform's path: the bytes themselves on Unix.
#[cfg(unix)]
fn bytes_path(p: Vec<u8>) -> PathBuf {
    use std::os::unix::ffi::OsStringExt;
    PathBuf::from(std::ffi::OsString::from_vec(p))
}

#[cfg(not(unix))]
fn bytes_path(p: Vec<u8>) -> PathBuf {
    PathBuf::from(String::from_utf8_lossy(&p).into_owned())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn reads_blobs_relative_to_a_nested_workspace() {
        let dir = tempfile::tempdir().unwrap();
        fixture::commit_files(
            dir.path(),
            &[("ws/a.txt", "one"), ("b.txt", "x")],
            "[Test] (git): one",
        )
        .unwrap();
        fixture::commit_files(dir.path(), &[("ws/a.txt", "two")], "[Test] (git): two").unwrap();
        let ws = GitWorkspace::discover(&dir.path().join("ws")).unwrap();
        assert_eq!(ws.prefix(), "ws");
        let head = ws.resolve("HEAD~1").unwrap();
        assert_eq!(ws.read_at(&head, "a.txt").unwrap(), b"one");
        assert!(matches!(
            ws.read_at(&head, "b.txt"),
            Err(GitError::MissingFile { .. })
        ));
        assert!(matches!(ws.resolve("nope"), Err(GitError::BadRev { .. })));
        assert_eq!(
            ws.tracked_files().unwrap(),
            vec![("a.txt".to_string(), PathBuf::from("a.txt"))]
        );
        let cs = ws.commits("HEAD~1..HEAD").unwrap();
        assert_eq!(cs.len(), 1);
        assert_eq!(cs[0].message, "[Test] (git): two");
        assert_eq!(ws.commits("HEAD").unwrap().len(), 1);
    }

    #[test]
    fn empty_repository_is_named() {
        let dir = tempfile::tempdir().unwrap();
        Repository::init(dir.path()).unwrap();
        let ws = GitWorkspace::discover(dir.path()).unwrap();
        let e = ws.resolve("HEAD").unwrap_err();
        assert!(e.to_string().contains("no commits"), "{e}");
    }
}
