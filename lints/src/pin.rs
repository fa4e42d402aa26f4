//! "Pinned before the run": the git facts of a budget (issue 20). The lines of a `[[budget]]`
//! table must have last changed in a commit that is a strict ancestor of the commit that first
//! added the budget's inputs; a bound tightened or loosened after its data landed passes
//! trivially. Blame (git2, in process) gives each line's last-changing commit, over the working
//! tree's text, so an uncommitted edit counts as the newest change of all.
//!
//! Passing is the common case and needs no blame (issue 16): when the budget's lines, as the
//! working tree has them, already stand verbatim in the config at a parent of that first-added
//! commit, they predate the data and the budget is pinned. Only otherwise does the blame run, to
//! name the commit that changed them. The two differ only where the text is older than its
//! blame: lines removed and re-added identically (or a table moved) after the data, committed or
//! not, pass; the bound a reader sees is the one set before the run, which is what the pin
//! guards. A shallow clone always takes the blame, which knows its oldest commit.
//!
//! Lives here rather than in stats_viewer because this crate already owns git2 and the
//! workspace-prefix translation ([`GitWorkspace`]); stats_viewer decides the verdict from [`BudgetPin`].

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::Path;

use git2::{BlameOptions, Oid, Sort};

use crate::gitread::GitWorkspace;
/// The answer is the budget's own type: stats_viewer decides the verdict from it.
pub use stats_viewer::budget::BudgetPin;

fn describe(ws: &GitWorkspace, id: Oid) -> String {
    let short = id.to_string()[..10].to_string();
    match ws.repo().find_commit(id) {
        Ok(c) => format!(
            "commit {short} ({})",
            c.summary()
                .unwrap_or("")
                .chars()
                .take(72)
                .collect::<String>()
        ),
        Err(_) => format!("commit {short}"),
    }
}

/// In a shallow clone the oldest commit present stands for all the history cut away: a file or
/// line dated to it may be older, so no order can be read from it.
fn is_shallow_root(ws: &GitWorkspace, id: Oid) -> bool {
    ws.repo().is_shallow()
        && ws
            .repo()
            .find_commit(id)
            .is_ok_and(|c| c.parent_count() == 0)
}

fn shallow(desc: &str) -> BudgetPin {
    BudgetPin::NotChecked(format!(
        "this is a shallow clone and {desc} is its oldest commit, which stands for the history cut \
         away, so whether the budget precedes its data cannot be told (git fetch --unshallow)"
    ))
}

/// What one run learnt of HEAD's history, kept for every query of the run: trees are
/// content-addressed and consecutive commits share every subtree they did not touch, so the
/// answer "does tree T hold path suffix R" is memoised by T and R, and a later query (a budget
/// over other inputs) re-walks the same commits at the cost of lookups, not reads.
#[derive(Default)]
struct Trees {
    /// The root tree of each commit of the history, by position (None: not read yet).
    roots: Vec<Option<Oid>>,
    /// Per tree: each path suffix asked of it and whether the tree holds it.
    memo: HashMap<Oid, HashMap<Box<str>, bool>>,
}

impl Trees {
    /// Whether the tree `tree` holds the path `rest` (slash-separated), memoised.
    fn holds(
        &mut self,
        repo: &git2::Repository,
        tree: Oid,
        rest: &str,
    ) -> Result<bool, git2::Error> {
        if let Some(&known) = self.memo.get(&tree).and_then(|asked| asked.get(rest)) {
            return Ok(known);
        }
        let here = self.holds_in(repo, &repo.find_tree(tree)?, rest)?;
        self.memo.entry(tree).or_default().insert(rest.into(), here);
        Ok(here)
    }

    /// [`Trees::holds`] for a tree already read (not memoised at this level: a commit's root
    /// tree is new in almost every commit, and read once for all the paths asked of it).
    fn holds_in(
        &mut self,
        repo: &git2::Repository,
        tree: &git2::Tree<'_>,
        rest: &str,
    ) -> Result<bool, git2::Error> {
        let (name, below) = match rest.split_once('/') {
            Some((n, b)) => (n, Some(b)),
            None => (rest, None),
        };
        Ok(
            match (tree.get_name(name).map(|e| (e.id(), e.kind())), below) {
                (None, _) => false,
                (Some(_), None) => true,
                (Some((id, Some(git2::ObjectType::Tree))), Some(b)) => self.holds(repo, id, b)?,
                (Some(_), Some(_)) => false,
            },
        )
    }

    /// The root tree of `commit`, the `at`-th of the history: read from the commit's raw
    /// header (the history walk left the object in libgit2's cache, so no inflate and no full
    /// parse of signatures and message), once per run.
    fn root(
        &mut self,
        odb: &git2::Odb<'_>,
        repo: &git2::Repository,
        at: usize,
        commit: Oid,
    ) -> Result<Oid, git2::Error> {
        if self.roots.len() <= at {
            self.roots.resize(at + 1, None);
        }
        if let Some(id) = self.roots[at] {
            return Ok(id);
        }
        let raw = odb.read(commit)?;
        let id = match raw
            .data()
            .strip_prefix(b"tree ")
            // Exactly a SHA-1 id and its newline; any other header goes the parsing way.
            .and_then(|d| d.get(..41))
            .and_then(|d| d.strip_suffix(b"\n"))
            .and_then(|hex| std::str::from_utf8(hex).ok())
            .and_then(|hex| Oid::from_str(hex).ok())
        {
            Some(id) => id,
            None => repo.find_commit(commit)?.tree_id(),
        };
        self.roots[at] = Some(id);
        Ok(id)
    }
}

/// Every commit reachable from HEAD, oldest first (reverse topological order).
fn history(ws: &GitWorkspace) -> Result<Vec<Oid>, git2::Error> {
    let mut walk = ws.repo().revwalk()?;
    walk.push_head()?;
    walk.set_sorting(Sort::TOPOLOGICAL | Sort::REVERSE)?;
    walk.collect()
}

/// The oldest commit of `history` whose tree holds each of `repo_paths`, in one pass (stopping
/// once every path is found); None for a path never committed.
fn first_added(
    ws: &GitWorkspace,
    history: &[Oid],
    trees: &mut Trees,
    repo_paths: &[String],
) -> Result<HashMap<String, Option<Oid>>, git2::Error> {
    let repo = ws.repo();
    let odb = repo.odb()?;
    let mut found: HashMap<String, Option<Oid>> =
        repo_paths.iter().map(|p| (p.clone(), None)).collect();
    let mut pending: Vec<&String> = repo_paths.iter().collect();
    pending.sort();
    pending.dedup();
    for (at, &id) in history.iter().enumerate() {
        if pending.is_empty() {
            break;
        }
        let root = repo.find_tree(trees.root(&odb, repo, at, id)?)?;
        let mut still = Vec::with_capacity(pending.len());
        for p in pending {
            if trees.holds_in(repo, &root, p)? {
                found.insert(p.clone(), Some(id));
            } else {
                still.push(p);
            }
        }
        pending = still;
    }
    Ok(found)
}

/// The 1-based `lines` of `text` (without their newlines); None when the range is not all there.
fn block(text: &[u8], lines: (usize, usize)) -> Option<Vec<&[u8]>> {
    let all: Vec<&[u8]> = text.split(|&b| b == b'\n').collect();
    let from = lines.0.checked_sub(1)?;
    (lines.0 <= lines.1 && lines.1 <= all.len()).then(|| all[from..lines.1].to_vec())
}

/// A file's bytes in one commit, None when the commit does not hold it.
type Blob = Option<Vec<u8>>;

/// The pins of every budget of one run: the repository is opened once, the history walked once
/// per query for the inputs not seen before, the config blamed once (a run with several budgets
/// over the same logs used to walk the history once per input and budget).
pub struct Pinner {
    root: std::path::PathBuf,
    /// The repository, or the answer every budget gets without one.
    ws: Result<GitWorkspace, BudgetPin>,
    first: RefCell<HashMap<String, Option<Oid>>>,
    /// HEAD's history, oldest first, listed once per run: sorting it parses every commit, and
    /// each budget whose inputs are new would otherwise list it again.
    history: RefCell<Option<Vec<Oid>>>,
    /// The history's root trees and the memo of what each tree holds, shared by every query.
    trees: RefCell<Trees>,
    /// Per config: each working-tree line's last-changing commit (zero: uncommitted), or None
    /// when the config was never committed.
    blame: RefCell<HashMap<String, Option<Vec<Oid>>>>,
    /// Per config: its working-tree bytes.
    text: RefCell<HashMap<String, Vec<u8>>>,
    /// Per config and commit: the config's bytes in that commit (None: not there).
    blobs: RefCell<HashMap<(String, Oid), Blob>>,
}

impl Pinner {
    pub fn new(root: &Path) -> Self {
        Pinner {
            root: root.to_path_buf(),
            ws: open(root),
            first: RefCell::default(),
            history: RefCell::default(),
            trees: RefCell::default(),
            blame: RefCell::default(),
            text: RefCell::default(),
            blobs: RefCell::default(),
        }
    }

    /// The oldest first-added commit over `inputs` (the budget must precede all its data).
    fn inputs_first(
        &self,
        ws: &GitWorkspace,
        inputs: &[String],
    ) -> Result<Option<Oid>, git2::Error> {
        let paths: Vec<String> = inputs.iter().map(|r| ws.repo_path(r)).collect();
        let unseen: Vec<String> = {
            let known = self.first.borrow();
            paths
                .iter()
                .filter(|p| !known.contains_key(*p))
                .cloned()
                .collect()
        };
        if !unseen.is_empty() {
            let mut history = self.history.borrow_mut();
            let history = match history.as_mut() {
                Some(h) => h,
                None => history.insert(self::history(ws)?),
            };
            let found = first_added(ws, history, &mut self.trees.borrow_mut(), &unseen)?;
            self.first.borrow_mut().extend(found);
        }
        let known = self.first.borrow();
        let mut first: Option<Oid> = None;
        for id in paths.iter().filter_map(|p| known.get(p).copied().flatten()) {
            let older = match first {
                None => true,
                Some(f) => ws.repo().graph_descendant_of(f, id).unwrap_or(false),
            };
            if older {
                first = Some(id);
            }
        }
        Ok(first)
    }

    /// The working-tree bytes of `config`, read once per run.
    fn text(&self, config: &str) -> Result<Vec<u8>, ReadError> {
        if let Some(t) = self.text.borrow().get(config) {
            return Ok(t.clone());
        }
        let text = std::fs::read(self.root.join(config)).map_err(|reason| ReadError::Read {
            config: config.to_string(),
            reason,
        })?;
        self.text
            .borrow_mut()
            .insert(config.to_string(), text.clone());
        Ok(text)
    }

    /// The bytes of `config` in commit `at`, None when it is not there.
    fn blob_at(&self, ws: &GitWorkspace, config: &str, at: Oid) -> Blob {
        let key = (config.to_string(), at);
        if let Some(b) = self.blobs.borrow().get(&key) {
            return b.clone();
        }
        let repo = ws.repo();
        let bytes = repo
            .find_commit(at)
            .and_then(|c| c.tree())
            .and_then(|t| t.get_path(Path::new(&ws.repo_path(config))))
            .and_then(|e| repo.find_blob(e.id()))
            .ok()
            .map(|b| b.content().to_vec());
        self.blobs.borrow_mut().insert(key, bytes.clone());
        bytes
    }

    /// The common, passing case without a blame: the budget's lines, as the working tree has
    /// them, already stood verbatim (in one run of lines) in `config` at a parent of `inputs_id`,
    /// and `config` is committed at HEAD. None when that cannot be shown, so the caller blames
    /// and names the commit that changed the budget (and in a shallow clone). Unlike blame, a line removed and re-added
    /// identically after the data (or a budget table moved) still passes here: what is pinned is
    /// the budget's text, and that text predates the data.
    fn present_before(
        &self,
        ws: &GitWorkspace,
        config: &str,
        lines: (usize, usize),
        inputs_id: Oid,
    ) -> Option<BudgetPin> {
        let repo = ws.repo();
        // A shallow clone dates lines to its oldest commit, and the blame says what that means.
        if repo.is_shallow() {
            return None;
        }
        let head = repo.head().ok()?.peel_to_commit().ok()?.id();
        self.blob_at(ws, config, head)?;
        let text = self.text(config).ok()?;
        let want = block(&text, lines)?;
        for parent in repo.find_commit(inputs_id).ok()?.parent_ids() {
            let Some(old) = self.blob_at(ws, config, parent) else {
                continue;
            };
            let old: Vec<&[u8]> = old.split(|&b| b == b'\n').collect();
            if old.windows(want.len()).any(|w| w == want.as_slice()) {
                return Some(BudgetPin::Pinned {
                    budget: format!("its text, already in {}", describe(ws, parent)),
                    inputs: describe(ws, inputs_id),
                });
            }
        }
        None
    }

    /// Each line's last-changing commit over the working-tree text of `config`.
    fn line_commits(&self, ws: &GitWorkspace, config: &str) -> Result<Option<Vec<Oid>>, ReadError> {
        if let Some(b) = self.blame.borrow().get(config) {
            return Ok(b.clone());
        }
        let text = self.text(config)?;
        let cfg_path = ws.repo_path(config);
        let mut opts = BlameOptions::new();
        let ids = match ws.repo().blame_file(Path::new(&cfg_path), Some(&mut opts)) {
            // Never committed: the whole budget is newer than any commit.
            Err(_) => None,
            Ok(committed) => {
                let blame = committed.blame_buffer(&text).map_err(ReadError::Blame)?;
                let lines = text.split(|&b| b == b'\n').count();
                Some(
                    (1..=lines)
                        .map_while(|l| blame.get_line(l).map(|h| h.final_commit_id()))
                        .collect(),
                )
            }
        };
        self.blame
            .borrow_mut()
            .insert(config.to_string(), ids.clone());
        Ok(ids)
    }

    /// Checks the pin of the budget at 1-based `lines` of `config` (workspace-relative), whose
    /// inputs are `inputs` (workspace-relative).
    pub fn check(&self, config: &str, lines: (usize, usize), inputs: &[String]) -> BudgetPin {
        let ws = match &self.ws {
            Ok(w) => w,
            Err(p) => return p.clone(),
        };
        let inputs_id = match self.inputs_first(ws, inputs) {
            Ok(Some(id)) => id,
            Ok(None) => {
                return BudgetPin::NotChecked(format!(
                "none of its inputs is committed ({}{}), so there is no commit to be older than",
                inputs.first().map_or("", String::as_str),
                if inputs.len() > 1 {
                    format!(" and {} more", inputs.len() - 1)
                } else {
                    String::new()
                }
            ))
            }
            Err(e) => return BudgetPin::Unreadable(format!("listing history: {}", e.message())),
        };
        let inputs_desc = describe(ws, inputs_id);
        if is_shallow_root(ws, inputs_id) {
            return shallow(&inputs_desc);
        }
        if let Some(pinned) = self.present_before(ws, config, lines, inputs_id) {
            return pinned;
        }
        let ids = match self.line_commits(ws, config) {
            Ok(Some(ids)) => ids,
            Ok(None) => {
                return BudgetPin::EditedAfter {
                    budget: format!("uncommitted {config}"),
                    inputs: inputs_desc,
                }
            }
            Err(e) => return BudgetPin::Unreadable(e.to_string()),
        };
        let mut newest: Option<Oid> = None;
        for line in lines.0..=lines.1 {
            let Some(&id) = line.checked_sub(1).and_then(|i| ids.get(i)) else {
                continue;
            };
            if id.is_zero() {
                return BudgetPin::EditedAfter {
                    budget: format!("an uncommitted change to {config}:{line}"),
                    inputs: inputs_desc,
                };
            }
            if is_shallow_root(ws, id) {
                return shallow(&describe(ws, id));
            }
            let pinned = id != inputs_id
                && ws
                    .repo()
                    .graph_descendant_of(inputs_id, id)
                    .unwrap_or(false);
            if !pinned {
                return BudgetPin::EditedAfter {
                    budget: describe(ws, id),
                    inputs: inputs_desc,
                };
            }
            if newest.is_none_or(|n| ws.repo().graph_descendant_of(id, n).unwrap_or(false)) {
                newest = Some(id);
            }
        }
        match newest {
            Some(id) => BudgetPin::Pinned {
                budget: describe(ws, id),
                inputs: inputs_desc,
            },
            None => {
                BudgetPin::NotChecked(format!("{config}:{}-{}: no such lines", lines.0, lines.1))
            }
        }
    }
}

/// Why the text of a budget's config, or its blame, cannot be had.
#[derive(Debug, thiserror::Error)]
enum ReadError {
    #[error("{config}: cannot read: {reason}")]
    Read {
        config: String,
        reason: std::io::Error,
    },
    /// git's own message, without its class and code.
    #[error("blaming the working-tree text: {}", .0.message())]
    Blame(git2::Error),
}

/// The repository holding `root` for pin questions: outside git, or in a partial clone whose
/// history libgit2 cannot complete, every budget is NotChecked (saying why); a repository that
/// exists but cannot be opened is Unreadable.
fn open(root: &Path) -> Result<GitWorkspace, BudgetPin> {
    use crate::gitread::GitError;
    match GitWorkspace::discover(root) {
        Ok(ws) => match ws.partial_clone() {
            Some(filter) => Err(BudgetPin::NotChecked(format!(
                "this is a partial clone ({filter}): its history is fetched lazily, which mgctl \
                 does not do, so no commit order can be read; check the pins in a full clone"
            ))),
            // An unborn HEAD (a fresh `git init`) has no history to be older than.
            None if ws.repo().head().is_err() => Err(BudgetPin::NotChecked(format!(
                "the repository {} has no commits yet",
                ws.workdir().display()
            ))),
            None => Ok(ws),
        },
        Err(e @ GitError::NotARepo { .. }) => Err(BudgetPin::NotChecked(e.to_string())),
        Err(e) => Err(BudgetPin::Unreadable(e.to_string())),
    }
}

/// [`Pinner::check`] for one budget.
pub fn check(root: &Path, config: &str, lines: (usize, usize), inputs: &[String]) -> BudgetPin {
    Pinner::new(root).check(config, lines, inputs)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::gitread::fixture;

    const TOML: &str = "[workspace]\n\n[[budget]]\nname = \"b\"\nmax = 1\n";

    #[test]
    fn budget_before_data_is_pinned_after_is_not() {
        let dir = fixture::temp_repo(&[
            (&[("ws/mgctl.toml", TOML)], "[Feat] (ws): budget"),
            (&[("ws/runs/a.json", "{}")], "[Feat] (ws): data"),
        ])
        .unwrap();
        let root = dir.path().join("ws");
        let inputs = vec!["runs/a.json".to_string()];
        let p = check(&root, "mgctl.toml", (3, 5), &inputs);
        assert!(matches!(p, BudgetPin::Pinned { .. }), "{p:?}");

        let id = fixture::commit_files(
            dir.path(),
            &[("ws/mgctl.toml", &TOML.replace("max = 1", "max = 2"))],
            "[Fix] (ws): loosen",
        )
        .unwrap();
        match check(&root, "mgctl.toml", (3, 5), &inputs) {
            BudgetPin::EditedAfter { budget, inputs } => {
                assert!(budget.contains(&id[..10]), "{budget}");
                assert!(inputs.contains("data"), "{inputs}");
            }
            other => panic!("{other:?}"),
        }
        // Lines outside the budget's table do not matter.
        assert!(matches!(
            check(&root, "mgctl.toml", (1, 1), &inputs),
            BudgetPin::Pinned { .. }
        ));
        // An uncommitted edit is newer than everything.
        std::fs::write(root.join("mgctl.toml"), TOML.replace("max = 1", "max = 3")).unwrap();
        assert!(matches!(
            check(&root, "mgctl.toml", (1, 1), &inputs),
            BudgetPin::Pinned { .. }
        ));
        assert!(matches!(
            check(&root, "mgctl.toml", (3, 5), &inputs),
            BudgetPin::EditedAfter { .. }
        ));
    }

    #[test]
    fn text_that_predates_the_data_is_pinned_even_if_re_added() {
        let dir = fixture::temp_repo(&[
            (&[("mgctl.toml", TOML)], "[Feat] (ws): budget"),
            (&[("runs/a.json", "{}")], "[Feat] (ws): data"),
            (&[("mgctl.toml", "[workspace]\n")], "[Fix] (ws): drop it"),
            (&[("mgctl.toml", TOML)], "[Fix] (ws): restore it"),
        ])
        .unwrap();
        let inputs = vec!["runs/a.json".to_string()];
        let p = check(dir.path(), "mgctl.toml", (3, 5), &inputs);
        assert!(matches!(p, BudgetPin::Pinned { .. }), "{p:?}");
        // Text that never stood before the data still names the commit that wrote it.
        let id = fixture::commit_files(
            dir.path(),
            &[("mgctl.toml", &TOML.replace("max = 1", "max = 2"))],
            "[Fix] (ws): loosen",
        )
        .unwrap();
        match check(dir.path(), "mgctl.toml", (5, 5), &inputs) {
            BudgetPin::EditedAfter { budget, .. } => {
                assert!(budget.contains(&id[..10]), "{budget}")
            }
            other => panic!("{other:?}"),
        }
    }

    /// The loose object of `id` removed from the repository at `dir` (a corrupt clone).
    fn drop_object(dir: &Path, id: &str) {
        let p = dir.join(".git/objects").join(&id[..2]).join(&id[2..]);
        std::fs::remove_file(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    }

    /// Issue 29: a repository that cannot be read is never a note: a missing commit object makes
    /// the pin Unreadable (BUD009, an error), not NotChecked.
    #[test]
    fn a_corrupt_repository_is_unreadable_not_unchecked() {
        let dir = fixture::temp_repo(&[
            (&[("mgctl.toml", TOML)], "[Feat] (ws): budget"),
            (&[("runs/a.json", "{}")], "[Feat] (ws): data"),
            (&[("runs/b.json", "{}")], "[Feat] (ws): more data"),
        ])
        .unwrap();
        let repo = git2::Repository::open(dir.path()).unwrap();
        let head = repo.head().unwrap().peel_to_commit().unwrap();
        let parent = head.parent(0).unwrap().id().to_string();
        drop(head);
        drop(repo);
        drop_object(dir.path(), &parent);
        let inputs = vec!["runs/a.json".to_string()];
        let p = check(dir.path(), "mgctl.toml", (3, 5), &inputs);
        assert!(matches!(p, BudgetPin::Unreadable(_)), "{p:?}");
    }

    /// Issue 29: a partial clone (`--filter=blob:none`) answers no pin question from the objects
    /// that happen to be present: NotChecked, naming the filter, never a wrong commit.
    #[test]
    fn a_partial_clone_is_not_checked_naming_its_filter() {
        let dir = fixture::temp_repo(&[
            (&[("mgctl.toml", TOML)], "[Feat] (ws): budget"),
            (&[("runs/a.json", "{}")], "[Feat] (ws): data"),
        ])
        .unwrap();
        let repo = git2::Repository::open(dir.path()).unwrap();
        let mut cfg = repo.config().unwrap();
        cfg.set_str("remote.origin.url", "https://example.invalid/x.git")
            .unwrap();
        cfg.set_bool("remote.origin.promisor", true).unwrap();
        cfg.set_str("remote.origin.partialclonefilter", "blob:none")
            .unwrap();
        let inputs = vec!["runs/a.json".to_string()];
        match check(dir.path(), "mgctl.toml", (3, 5), &inputs) {
            BudgetPin::NotChecked(why) => {
                assert!(
                    why.contains("partial clone (filter blob:none from remote origin)"),
                    "{why}"
                )
            }
            p => panic!("{p:?}"),
        }
    }

    #[test]
    fn same_commit_is_not_pinned_and_outside_git_is_not_checked() {
        let dir = fixture::temp_repo(&[(
            &[("mgctl.toml", TOML), ("runs/a.json", "{}")],
            "[Feat] (ws): both",
        )])
        .unwrap();
        let inputs = vec!["runs/a.json".to_string()];
        assert!(matches!(
            check(dir.path(), "mgctl.toml", (3, 5), &inputs),
            BudgetPin::EditedAfter { .. }
        ));
        let plain = tempfile::tempdir().unwrap();
        std::fs::write(plain.path().join("mgctl.toml"), TOML).unwrap();
        assert!(matches!(
            check(plain.path(), "mgctl.toml", (3, 5), &inputs),
            BudgetPin::NotChecked(_)
        ));
    }

    /// A history of `states` (the set of files of each commit) as real commits, parents given
    /// by index (empty: a root); HEAD is the last. Files are written and the index rebuilt
    /// from exactly the state, so a file absent from a state is removed in that commit.
    fn history_of(states: &[(Vec<&str>, Vec<usize>)]) -> (tempfile::TempDir, Vec<Oid>) {
        let dir = tempfile::tempdir().unwrap();
        let repo = git2::Repository::init(dir.path()).unwrap();
        let sig = git2::Signature::now("t", "t@t.invalid").unwrap();
        let mut ids: Vec<Oid> = Vec::new();
        for (n, (files, parents)) in states.iter().enumerate() {
            let mut index = repo.index().unwrap();
            index.clear().unwrap();
            for f in files {
                let p = dir.path().join(f);
                std::fs::create_dir_all(p.parent().unwrap()).unwrap();
                std::fs::write(&p, format!("{f} in {n}")).unwrap();
                index.add_path(Path::new(f)).unwrap();
            }
            let tree = repo.find_tree(index.write_tree().unwrap()).unwrap();
            let parents: Vec<git2::Commit<'_>> = parents
                .iter()
                .map(|&i| repo.find_commit(ids[i]).unwrap())
                .collect();
            let refs: Vec<&git2::Commit<'_>> = parents.iter().collect();
            let id = repo
                .commit(None, &sig, &sig, &format!("c{n}"), &tree, &refs)
                .unwrap();
            ids.push(id);
        }
        repo.set_head_detached(*ids.last().unwrap()).unwrap();
        (dir, ids)
    }

    /// The reference: the first commit of HEAD's reverse topological order whose tree holds
    /// the path, each commit's tree looked up from scratch.
    fn first_added_plain(ws: &GitWorkspace, path: &str) -> Option<Oid> {
        history(ws).unwrap().into_iter().find(|&id| {
            let tree = ws.repo().find_commit(id).unwrap().tree().unwrap();
            tree.get_path(Path::new(path)).is_ok()
        })
    }

    /// The memoised walk, asked in several queries over one run's memo, answers every path as
    /// the plain lookup does, on generated histories with paths added, removed, re-added and
    /// merged in from a branch, directories turned into files and paths never committed.
    #[test]
    fn memoised_walk_answers_like_plain_lookups() {
        let pool = [
            "a/x/1.json",
            "a/x/2.json",
            "a/y/3.log",
            "b/4",
            "c",
            "d/e/f/5",
        ];
        let asked: Vec<&str> = pool
            .iter()
            .copied()
            .chain(["c/6", "a/x", "a/z/7", "zz"])
            .collect();
        let mut next = crate::xorshift(0x2545_f491_u64);
        for round in 0..12 {
            let mut states: Vec<(Vec<&str>, Vec<usize>)> = Vec::new();
            let n = 4 + (next() % 8) as usize;
            for i in 0..n {
                let files: Vec<&str> = pool
                    .iter()
                    .copied()
                    .filter(|_| next() % 3 == 0)
                    .chain(["keep"])
                    .collect();
                // Every third round branches off early and merges back at the end.
                let parents = match i {
                    0 => vec![],
                    _ if round % 3 == 0 && i == 2 => vec![0],
                    _ if round % 3 == 0 && i == n - 1 => vec![i - 1, 2],
                    _ => vec![i - 1],
                };
                states.push((files, parents));
            }
            let (dir, _) = history_of(&states);
            let ws = GitWorkspace::discover(dir.path()).unwrap();
            let want: Vec<Option<Oid>> = asked.iter().map(|p| first_added_plain(&ws, p)).collect();
            let walk = history(&ws).unwrap();
            for split in [1, 3, asked.len()] {
                let mut trees = Trees::default();
                let mut got = HashMap::new();
                for chunk in asked.chunks(split) {
                    let paths: Vec<String> = chunk.iter().map(|p| p.to_string()).collect();
                    got.extend(first_added(&ws, &walk, &mut trees, &paths).unwrap());
                }
                let got: Vec<Option<Oid>> = asked.iter().map(|p| got[*p]).collect();
                assert_eq!(got, want, "round {round}, queries of {split}: {states:?}");
            }
        }
    }

    /// One Pinner over several budgets lists the history once and answers each budget as a
    /// fresh one (a new Pinner per budget) does, whichever budget comes first.
    #[test]
    fn shared_history_answers_like_a_fresh_walk() {
        let two = "[workspace]\n\n[[budget]]\nname = \"a\"\nmax = 1\n\n[[budget]]\nname = \"b\"\nmax = 1\n";
        let dir = fixture::temp_repo(&[
            (&[("mgctl.toml", two)], "[Feat] (ws): budgets"),
            (&[("runs/a.json", "{}")], "[Feat] (ws): data a"),
            (
                &[("mgctl.toml", &two.replace("max = 1\n\n", "max = 2\n\n"))],
                "[Fix] (ws): loosen a",
            ),
            (&[("runs/b.log", "x")], "[Feat] (ws): data b"),
        ])
        .unwrap();
        let a = (vec!["runs/a.json".to_string()], (3, 5));
        let b = (vec!["runs/b.log".to_string()], (7, 9));
        let fresh: Vec<BudgetPin> = [&a, &b]
            .iter()
            .map(|(i, l)| check(dir.path(), "mgctl.toml", *l, i))
            .collect();
        assert!(
            matches!(fresh[0], BudgetPin::EditedAfter { .. }),
            "{:?}",
            fresh[0]
        );
        assert!(
            matches!(fresh[1], BudgetPin::Pinned { .. }),
            "{:?}",
            fresh[1]
        );
        for order in [[&a, &b], [&b, &a]] {
            let p = Pinner::new(dir.path());
            let mut got: Vec<BudgetPin> = order
                .iter()
                .map(|(i, l)| p.check("mgctl.toml", *l, i))
                .collect();
            if order[0].1 == b.1 {
                got.reverse();
            }
            assert_eq!(got, fresh);
            assert_eq!(p.history.borrow().as_ref().map(Vec::len), Some(4));
        }
    }
}
