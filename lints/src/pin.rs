//! "Pinned before the run": the git facts of a budget (issue 20). The lines of a `[[budget]]`
//! table must have last changed in a commit that is a strict ancestor of the commit that first
//! added the budget's inputs; a bound tightened or loosened after its data landed passes
//! trivially. Blame (git2, in process) gives each line's last-changing commit, over the working
//! tree's text, so an uncommitted edit counts as the newest change of all.
//!
//! Lives here rather than in stats_viewer because this crate already owns git2 and the
//! workspace-prefix translation ([`GitWorkspace`]); stats_viewer decides the verdict from [`Pin`].

use std::path::Path;

use git2::{BlameOptions, Oid, Sort};

use crate::gitread::GitWorkspace;

/// What git says about one budget.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pin {
    /// Every line's last change is an ancestor of the inputs' first-added commit.
    Pinned {
        budget: String,
        inputs: String,
    },
    /// A line changed in, or after, the inputs' first-added commit (or is uncommitted).
    EditedAfter {
        budget: String,
        inputs: String,
    },
    NotChecked(String),
}

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

fn shallow(desc: &str) -> Pin {
    Pin::NotChecked(format!(
        "this is a shallow clone and {desc} is its oldest commit, which stands for the history cut \
         away, so whether the budget precedes its data cannot be told (git fetch --unshallow)"
    ))
}

/// The oldest commit (reachable from HEAD) whose tree holds `repo_path`.
fn first_added(ws: &GitWorkspace, repo_path: &str) -> Result<Option<Oid>, git2::Error> {
    let repo = ws.repo();
    let mut walk = repo.revwalk()?;
    walk.push_head()?;
    walk.set_sorting(Sort::TOPOLOGICAL | Sort::REVERSE)?;
    for id in walk {
        let id = id?;
        let tree = repo.find_commit(id)?.tree()?;
        if tree.get_path(Path::new(repo_path)).is_ok() {
            return Ok(Some(id));
        }
    }
    Ok(None)
}

/// Checks the pin of the budget at 1-based `lines` of `config` (workspace-relative), whose
/// inputs are `inputs` (workspace-relative), in the repository enclosing `root`.
pub fn check(root: &Path, config: &str, lines: (usize, usize), inputs: &[String]) -> Pin {
    let ws = match GitWorkspace::discover(root) {
        Ok(w) => w,
        Err(e) => return Pin::NotChecked(format!("{e}")),
    };
    let fail = |what: &str, e: git2::Error| Pin::NotChecked(format!("{what}: {}", e.message()));
    // The inputs' first-added commit: the oldest over all inputs (the budget must precede all data).
    let mut first: Option<Oid> = None;
    for rel in inputs {
        match first_added(&ws, &ws.repo_path(rel)) {
            Ok(Some(id)) => {
                let older = match first {
                    None => true,
                    Some(f) => ws.repo().graph_descendant_of(f, id).unwrap_or(false),
                };
                if older {
                    first = Some(id);
                }
            }
            Ok(None) => {}
            Err(e) => return fail("listing history", e),
        }
    }
    let Some(inputs_id) = first else {
        return Pin::NotChecked(format!(
            "none of its inputs is committed ({}{}), so there is no commit to be older than",
            inputs.first().map_or("", String::as_str),
            if inputs.len() > 1 {
                format!(" and {} more", inputs.len() - 1)
            } else {
                String::new()
            }
        ));
    };
    let inputs_desc = describe(&ws, inputs_id);
    if is_shallow_root(&ws, inputs_id) {
        return shallow(&inputs_desc);
    }
    let cfg_path = ws.repo_path(config);
    let text = match std::fs::read(root.join(config)) {
        Ok(t) => t,
        Err(e) => return Pin::NotChecked(format!("{config}: cannot read: {e}")),
    };
    let mut opts = BlameOptions::new();
    let committed = match ws.repo().blame_file(Path::new(&cfg_path), Some(&mut opts)) {
        Ok(b) => b,
        Err(_) => {
            // Never committed: the whole budget is newer than any commit.
            return Pin::EditedAfter {
                budget: format!("uncommitted {config}"),
                inputs: inputs_desc,
            };
        }
    };
    let blame = match committed.blame_buffer(&text) {
        Ok(b) => b,
        Err(e) => return fail("blaming the working-tree text", e),
    };
    let mut newest: Option<Oid> = None;
    for line in lines.0..=lines.1 {
        let Some(h) = blame.get_line(line) else {
            continue;
        };
        let id = h.final_commit_id();
        if id.is_zero() {
            return Pin::EditedAfter {
                budget: format!("an uncommitted change to {config}:{line}"),
                inputs: inputs_desc,
            };
        }
        if is_shallow_root(&ws, id) {
            return shallow(&describe(&ws, id));
        }
        let pinned = id != inputs_id
            && ws
                .repo()
                .graph_descendant_of(inputs_id, id)
                .unwrap_or(false);
        if !pinned {
            return Pin::EditedAfter {
                budget: describe(&ws, id),
                inputs: inputs_desc,
            };
        }
        if newest.is_none_or(|n| ws.repo().graph_descendant_of(id, n).unwrap_or(false)) {
            newest = Some(id);
        }
    }
    match newest {
        Some(id) => Pin::Pinned {
            budget: describe(&ws, id),
            inputs: inputs_desc,
        },
        None => Pin::NotChecked(format!("{config}:{}-{}: no such lines", lines.0, lines.1)),
    }
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
        assert!(matches!(p, Pin::Pinned { .. }), "{p:?}");

        let id = fixture::commit_files(
            dir.path(),
            &[("ws/mgctl.toml", &TOML.replace("max = 1", "max = 2"))],
            "[Fix] (ws): loosen",
        )
        .unwrap();
        match check(&root, "mgctl.toml", (3, 5), &inputs) {
            Pin::EditedAfter { budget, inputs } => {
                assert!(budget.contains(&id[..10]), "{budget}");
                assert!(inputs.contains("data"), "{inputs}");
            }
            other => panic!("{other:?}"),
        }
        // Lines outside the budget's table do not matter.
        assert!(matches!(
            check(&root, "mgctl.toml", (1, 1), &inputs),
            Pin::Pinned { .. }
        ));
        // An uncommitted edit is newer than everything.
        std::fs::write(root.join("mgctl.toml"), TOML.replace("max = 1", "max = 3")).unwrap();
        assert!(matches!(
            check(&root, "mgctl.toml", (1, 1), &inputs),
            Pin::Pinned { .. }
        ));
        assert!(matches!(
            check(&root, "mgctl.toml", (3, 5), &inputs),
            Pin::EditedAfter { .. }
        ));
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
            Pin::EditedAfter { .. }
        ));
        let plain = tempfile::tempdir().unwrap();
        std::fs::write(plain.path().join("mgctl.toml"), TOML).unwrap();
        assert!(matches!(
            check(plain.path(), "mgctl.toml", (3, 5), &inputs),
            Pin::NotChecked(_)
        ));
    }
}
