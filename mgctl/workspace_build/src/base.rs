//! The build of a base revision (issue 30, "G1's before library, built by mgctl"): the revision
//! is checked out into a throw-away `git worktree`, the workspace's `[build]` runs there, and its
//! outputs are kept in a cache keyed by the tree id of the workspace at that revision, so a second
//! run with the same base costs no build. A cache entry whose files do not match the digests it
//! recorded is rebuilt, never trusted. The worktree is removed afterwards, on a signal too.
//!
//! The cache lives in the repository's git directory (`.git/mgctl-base/<tree-id>/`): private to
//! the clone, never in `git status`, shared by every worktree of it, gone with the clone.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::{Plan, State};

/// Why the base build could not be had; one sentence naming the revision.
#[derive(Debug, thiserror::Error)]
#[error("base {rev}: {message}")]
pub struct BaseError {
    pub rev: String,
    pub message: String,
}

impl BaseError {
    /// A miss of the cache that `--no-build` refused to fill (a skip, not a failure).
    pub fn not_built(&self) -> bool {
        self.message.starts_with("not built: --no-build given")
    }
}

/// The outputs of the base build, in the cache.
#[derive(Debug, Clone)]
pub struct BaseBuild {
    /// The cache entry: each output at its workspace-relative path under it.
    pub dir: PathBuf,
    pub commit: String,
    pub tree: String,
    /// False when the cache answered.
    pub built: bool,
}

impl BaseBuild {
    /// Where output `rel` of the base build is.
    pub fn output(&self, rel: &str) -> PathBuf {
        self.dir.join(rel)
    }
}

#[derive(Debug, Serialize, Deserialize, PartialEq)]
struct Entry {
    schema: u32,
    commit: String,
    tree: String,
    command: Vec<String>,
    /// (output, sha256) in `outputs` order.
    outputs: Vec<(String, String)>,
}

const ENTRY: &str = "entry.json";

fn sha256_file(p: &Path) -> std::io::Result<String> {
    let bytes = std::fs::read(p)?;
    Ok(crate::stale::hex(&Sha256::digest(&bytes)))
}

/// Why a cache entry cannot be used (a progress note, or part of the `--no-build` error).
#[derive(Debug, thiserror::Error)]
enum Miss {
    #[error("not cached")]
    NotCached,
    #[error("its {ENTRY} does not parse ({0})")]
    Unparsable(serde_json::Error),
    #[error("it was built by another [build] command")]
    OtherCommand,
    #[error("it holds other outputs")]
    OtherOutputs,
    #[error("its {output} does not match its recorded digest")]
    Changed { output: String },
    #[error("its {output} is missing")]
    Missing { output: String },
}

/// Whether `dir` holds a whole entry for `want` (same tree, command and outputs, every file
/// matching its recorded digest); the reason when not.
fn check_entry(dir: &Path, tree: &str, plan: &Plan) -> Result<(), Miss> {
    let text = std::fs::read_to_string(dir.join(ENTRY)).map_err(|_| Miss::NotCached)?;
    let e: Entry = serde_json::from_str(&text).map_err(Miss::Unparsable)?;
    if e.schema != 1 || e.tree != tree || e.command != plan.command {
        return Err(Miss::OtherCommand);
    }
    let names: Vec<&String> = e.outputs.iter().map(|(o, _)| o).collect();
    if names != plan.outputs.iter().collect::<Vec<_>>() {
        return Err(Miss::OtherOutputs);
    }
    for (o, digest) in &e.outputs {
        let output = o.clone();
        match sha256_file(&dir.join(o)) {
            Ok(d) if d == *digest => {}
            Ok(_) => return Err(Miss::Changed { output }),
            Err(_) => return Err(Miss::Missing { output }),
        }
    }
    Ok(())
}

/// A throw-away worktree: removed when dropped, and on a signal (teardown).
struct Worktree {
    top: PathBuf,
    path: PathBuf,
    _on_signal: teardown::Guard,
}

fn remove_worktree(top: &Path, path: &Path) {
    let _ = Command::new("git")
        .arg("-C")
        .arg(top)
        .args(["worktree", "remove", "--force"])
        .arg(path)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    let _ = std::fs::remove_dir_all(path);
    let _ = Command::new("git")
        .arg("-C")
        .arg(top)
        .args(["worktree", "prune"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
}

impl Drop for Worktree {
    fn drop(&mut self) {
        remove_worktree(&self.top, &self.path);
    }
}

/// Builds the workspace at `root` as it is at revision `rev` (or takes it from the cache).
/// `plan` is the current `[build]`, run with the workspace's directory in the worktree as cwd.
/// With `may_build` false (`check --no-build`) only the cache answers: a miss is
/// [`BaseError::not_built`].
pub fn build(
    root: &Path,
    plan: &Plan,
    rev: &str,
    may_build: bool,
    progress: &mut dyn FnMut(crate::Step<'_>),
) -> Result<BaseBuild, BaseError> {
    let fail = |message: String| BaseError {
        rev: rev.to_string(),
        message,
    };
    let repo = git2::Repository::discover(root).map_err(|e| {
        fail(format!(
            "the workspace is not in a git repository ({})",
            e.message()
        ))
    })?;
    let top = repo
        .workdir()
        .ok_or_else(|| fail("the repository is bare".into()))?
        .canonicalize()
        .map_err(|e| fail(format!("cannot resolve the repository's directory: {e}")))?;
    let canon = root
        .canonicalize()
        .map_err(|e| fail(format!("cannot resolve the workspace: {e}")))?;
    let prefix = canon
        .strip_prefix(&top)
        .map_err(|_| fail("the workspace is not inside the repository's work tree".into()))?
        .to_path_buf();
    let commit = repo
        .revparse_single(rev)
        .and_then(|o| o.peel_to_commit())
        .map_err(|e| fail(format!("not a commit of this repository ({})", e.message())))?;
    let tree = commit
        .tree()
        .map_err(|e| fail(format!("its tree cannot be read ({})", e.message())))?;
    let tree_id = if prefix.as_os_str().is_empty() {
        tree.id()
    } else {
        tree.get_path(&prefix)
            .map_err(|_| fail(format!("it has no {}", prefix.display())))?
            .id()
    }
    .to_string();
    let commit_id = commit.id().to_string();
    let short = |s: &str| s.chars().take(12).collect::<String>();
    let cache = repo.commondir().join("mgctl-base");
    let dir = cache.join(&tree_id);
    match check_entry(&dir, &tree_id, plan) {
        Ok(()) => {
            progress(crate::Step::Note(&format!(
                "base {rev} (commit {}, tree {}): cached in {}",
                short(&commit_id),
                short(&tree_id),
                dir.display()
            )));
            return Ok(BaseBuild {
                dir,
                commit: commit_id,
                tree: tree_id,
                built: false,
            });
        }
        Err(why) if !may_build => {
            return Err(BaseError {
                rev: rev.to_string(),
                message: format!("not built: --no-build given ({why})"),
            })
        }
        Err(why) => progress(crate::Step::Note(&format!(
            "base {rev} (commit {}, tree {}): building in a throw-away worktree ({why})",
            short(&commit_id),
            short(&tree_id)
        ))),
    }
    std::fs::create_dir_all(&cache)
        .map_err(|e| fail(format!("cannot create {}: {e}", cache.display())))?;
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let wt_path = cache.join(format!("wt-{}-{nanos}", std::process::id()));
    let wt = {
        let (t, p) = (top.clone(), wt_path.clone());
        Worktree {
            top: top.clone(),
            path: wt_path.clone(),
            _on_signal: teardown::on_signal(move || remove_worktree(&t, &p)),
        }
    };
    let added = Command::new("git")
        .arg("-C")
        .arg(&top)
        .args(["worktree", "add", "--detach", "--quiet"])
        .arg(&wt.path)
        .arg(&commit_id)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| fail(format!("cannot run git worktree add: {e}")))?;
    if !added.status.success() {
        return Err(fail(format!(
            "git worktree add failed: {}",
            check_report::text::escape(String::from_utf8_lossy(&added.stderr).trim())
        )));
    }
    let ws = wt.path.join(&prefix);
    let rec = plan.run(&ws, &State::unjudged(plan.outputs.clone()), progress);
    if !rec.success {
        return Err(fail(format!(
            "its build failed: {}",
            rec.failure.clone().unwrap_or_default()
        )));
    }
    if !rec.missing_after.is_empty() {
        return Err(fail(format!(
            "its build did not make {}",
            rec.missing_after.join(", ")
        )));
    }
    // Into a fresh directory, then renamed over any invalid entry: a reader never sees half.
    let staging = cache.join(format!("new-{}-{nanos}", std::process::id()));
    let _staging_guard = teardown::on_signal({
        let s = staging.clone();
        move || {
            let _ = std::fs::remove_dir_all(&s);
        }
    });
    let mut outputs = Vec::new();
    for o in &plan.outputs {
        let to = staging.join(o);
        let copied = to
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| std::fs::copy(ws.join(o), &to))
            .and_then(|_| sha256_file(&to));
        match copied {
            Ok(d) => outputs.push((o.clone(), d)),
            Err(e) => {
                let _ = std::fs::remove_dir_all(&staging);
                return Err(fail(format!("cannot keep its {o} in the cache: {e}")));
            }
        }
    }
    let entry = Entry {
        schema: 1,
        commit: commit_id.clone(),
        tree: tree_id.clone(),
        command: plan.command.clone(),
        outputs,
    };
    let written = serde_json::to_vec_pretty(&entry)
        .map_err(std::io::Error::other)
        .and_then(|b| std::fs::write(staging.join(ENTRY), b))
        .and_then(|()| {
            if dir.exists() {
                std::fs::remove_dir_all(&dir)?;
            }
            std::fs::rename(&staging, &dir)
        });
    if let Err(e) = written {
        let _ = std::fs::remove_dir_all(&staging);
        return Err(fail(format!(
            "cannot write the cache entry {}: {e}",
            dir.display()
        )));
    }
    drop(wt);
    Ok(BaseBuild {
        dir,
        commit: commit_id,
        tree: tree_id,
        built: true,
    })
}
