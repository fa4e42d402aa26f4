//! The `commits` analysis as one entry point ([`outcome`]), its `[commits]` config, finding
//! codes and self-test controls.

use std::path::Path;

use serde::Deserialize;

use super::{check_message, default_trailers, default_types, StyleRules, Violation};
use crate::diag::{Control, Diag, Outcome};
use crate::gitread::fixture::{self, FixtureError};
use crate::gitread::{CommitInfo, GitError, GitWorkspace};

diag::codes! {
    /// Finding codes of the `commits` gate (docs/codes.md).
    pub enum Code: "CMT" {
        Cmt001 = "CMT001": "a commit message has more than one line",
        Cmt002 = "CMT002": "a subject is not `[Type] (Scope): description`",
        Cmt003 = "CMT003": "an unknown commit Type",
        Cmt004 = "CMT004": "an attribution trailer",
        Cmt005 = "CMT005": "the commit range could not be read",
    }
}

impl Code {
    fn of(v: &Violation) -> Code {
        match v {
            Violation::MultiLine { .. } => Code::Cmt001,
            Violation::Shape { .. } => Code::Cmt002,
            Violation::UnknownType { .. } => Code::Cmt003,
            Violation::Trailer { .. } => Code::Cmt004,
        }
    }
}

/// `[commits]` in mgctl.toml.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CommitsConfig {
    /// The range `check` verifies, e.g. `origin/main..HEAD`; without it the gate is skipped
    /// (a fresh clone's history is not the workspace's to judge).
    pub range: Option<String>,
    /// Known Types (default: Feat, Fix, Refactor, Test, Docs, Perf, CI).
    #[serde(default = "default_types")]
    pub types: Vec<String>,
    /// Attribution trailer keys that must not appear (case-insensitive).
    #[serde(default = "default_trailers")]
    pub forbidden_trailers: Vec<String>,
}

/// The rules and the configured range of a `[commits]` section, the default rules without one.
pub fn rules_and_range(cfg: Option<&CommitsConfig>) -> (StyleRules, Option<String>) {
    cfg.map_or_else(
        || (StyleRules::default(), None),
        |c| (c.rules(), c.range.clone()),
    )
}

impl crate::diag::Section for CommitsConfig {
    const NAME: &'static str = "[commits]";
    fn nothing_to_check(&self) -> Option<String> {
        (self.range.is_none()).then(|| {
            "[commits] has no range (check one with `mgctl lint commits RANGE`)".to_string()
        })
    }
}

impl CommitsConfig {
    pub fn rules(&self) -> StyleRules {
        StyleRules {
            types: self.types.clone(),
            forbidden_trailers: self.forbidden_trailers.clone(),
        }
    }
}

pub fn mobilegl_profile() -> Option<CommitsConfig> {
    Some(CommitsConfig {
        range: None,
        types: default_types(),
        forbidden_trailers: default_trailers(),
    })
}

/// One diagnostic per violation, naming the commit and the rule.
pub fn diags(commits: &[CommitInfo], rules: &StyleRules) -> Vec<Diag<Code>> {
    let mut out = Vec::new();
    for c in commits {
        let short = &c.id[..c.id.len().min(10)];
        let subject = c.message.lines().next().unwrap_or("");
        let subject = diag::escape::shorten(subject, diag::escape::QUOTE_CHARS);
        for v in check_message(&c.message, rules) {
            out.push(
                Diag::error(
                    Code::of(&v),
                    format!("{short} [{}] {v}: \"{subject}\"", v.rule()),
                )
                .in_unit(short.to_string())
                .with_detail(
                    serde_json::json!({ "commit": c.id, "rule": v.rule(), "violation": v }),
                ),
            );
        }
    }
    out
}

/// A range checked: its commits, oldest first, and one diagnostic per violation.
#[derive(Debug)]
pub struct RangeCheck {
    pub commits: Vec<CommitInfo>,
    pub diags: Vec<Diag<Code>>,
}

/// Why this checkout cannot hold a range (no repository, or history cut short before its base):
/// the gate is skipped saying so, never passed.
#[derive(Debug, thiserror::Error)]
pub enum Unavailable {
    #[error("{error}; the commits of {range} are checked in a git clone")]
    NotARepo { error: GitError, range: String },
    #[error("{error}, so {range} cannot be checked")]
    NoCommits { error: GitError, range: String },
    #[error("{rev} does not exist, so {range} cannot be checked: this is a shallow clone holding {len} commit(s) from HEAD (fetch more history with `git fetch --deepen` or `--unshallow`)")]
    Shallow {
        rev: String,
        range: String,
        len: usize,
    },
    #[error("{rev} does not exist, so {range} cannot be checked: the history has only {len} commit(s) from HEAD")]
    ShortHistory {
        rev: String,
        range: String,
        len: usize,
    },
}

/// Why a range could not be checked.
#[derive(Debug, thiserror::Error)]
pub enum RangeProblem {
    /// This checkout cannot hold the range: a skip, not a failure.
    #[error(transparent)]
    Unavailable(#[from] Unavailable),
    /// The range is wrong (a misspelt ref, a bad shape): an error.
    #[error(transparent)]
    Git(#[from] GitError),
}

/// The one path of the `commits` gate and `mgctl lint commits`: every commit of `range` in the
/// repository holding `root`, checked.
pub fn check_range(
    root: &Path,
    range: &str,
    rules: &StyleRules,
) -> Result<RangeCheck, RangeProblem> {
    let ws = GitWorkspace::discover(root).map_err(|e| match e {
        GitError::NotARepo { .. } => Unavailable::NotARepo {
            error: e,
            range: range.to_string(),
        }
        .into(),
        e => RangeProblem::Git(e),
    })?;
    let commits = match ws.commits(range) {
        Ok(c) => c,
        Err(e @ GitError::BadRev { .. }) => {
            return Err(missing_ancestor(&ws, range).unwrap_or(RangeProblem::Git(e)))
        }
        Err(e @ GitError::NoCommits { .. }) => {
            return Err(Unavailable::NoCommits {
                error: e,
                range: range.to_string(),
            }
            .into())
        }
        Err(e) => return Err(e.into()),
    };
    let diags = diags(&commits, rules);
    Ok(RangeCheck { commits, diags })
}

/// A range end spelt `REV~N` / `REV^` whose REV exists but whose ancestor does not: the history
/// of this clone is too short (a shallow clone, or a young repository), which is not the range's fault.
fn missing_ancestor(ws: &GitWorkspace, range: &str) -> Option<RangeProblem> {
    let ends = match range.split_once("..") {
        Some((a, b)) => vec![
            if a.is_empty() { "HEAD" } else { a },
            if b.is_empty() { "HEAD" } else { b },
        ],
        None => vec![range],
    };
    let rev = ends.into_iter().find(|r| ws.resolve(r).is_err())?;
    let base = &rev[..rev.find(['~', '^'])?];
    ws.resolve(if base.is_empty() { "HEAD" } else { base })
        .ok()?;
    let len = match ws.history_len() {
        Ok(n) => n,
        Err(e) => return Some(RangeProblem::Git(e)),
    };
    let (rev, range) = (rev.to_string(), range.to_string());
    let why = if ws.is_shallow() {
        Unavailable::Shallow { rev, range, len }
    } else {
        Unavailable::ShortHistory { rev, range, len }
    };
    Some(why.into())
}

/// Every commit of `range` in the repository holding `root`, checked; Err when this checkout
/// cannot hold the range (the gate's skip reason).
pub fn outcome(root: &Path, range: &str, rules: &StyleRules) -> Result<Outcome<Code>, Unavailable> {
    let RangeCheck {
        commits: list,
        diags: ds,
    } = match check_range(root, range, rules) {
        Ok(c) => c,
        Err(RangeProblem::Unavailable(why)) => return Err(why),
        Err(e) => {
            return Ok(Outcome::could_not_run(vec![Diag::error(
                Code::Cmt005,
                e.to_string(),
            )]))
        }
    };
    let bad: std::collections::BTreeSet<_> = ds.iter().filter_map(|d| d.unit.clone()).collect();
    Ok(Outcome {
        diags: ds,
        headline: format!(
            "{} commits in {range} / {} off-style",
            list.len(),
            bad.len()
        ),
        units: list
            .iter()
            .map(|c| c.id[..c.id.len().min(10)].to_string())
            .collect(),
        inputs: vec![format!("range {range}")],
        ..Outcome::default()
    }
    .figure("commits", list.len())
    .figure("off_style", bad.len()))
}

/// The gate's controls; `neutered(name)` feeds that negative control a clean message.
pub fn run_controls(neutered: &dyn Fn(&str) -> bool) -> Vec<Control> {
    let rules = StyleRules::default();
    let good = "[Fix] (MG_Pipe): flush pending ranges before present";
    let cases: [(&str, bool, &str, Code); 7] = [
        (
            "multi-line-message",
            true,
            "[Fix] (MG_Pipe): flush\n\nA body that explains.",
            Code::Cmt001,
        ),
        (
            "bad-subject-shape",
            true,
            "fix: flush pending ranges",
            Code::Cmt002,
        ),
        (
            "unknown-type",
            true,
            "[Bugfix] (MG_Pipe): flush",
            Code::Cmt003,
        ),
        (
            "co-authored-by",
            true,
            "[Fix] (MG_Pipe): flush\nCo-Authored-By: Someone <s@x>",
            Code::Cmt004,
        ),
        ("good-message", false, good, Code::Cmt001),
        (
            "scope-with-slash",
            false,
            "[CI] (ci/run): cache cargo",
            Code::Cmt001,
        ),
        (
            "trailing-newline",
            false,
            "[Docs] (lint): regions\n",
            Code::Cmt001,
        ),
    ];
    let mut out: Vec<Control> = cases
        .iter()
        .map(|&(name, expect_trip, msg, want)| {
            let msg = if expect_trip && neutered(name) {
                good
            } else {
                msg
            };
            let c = CommitInfo {
                id: "0123456789abcdef".into(),
                message: msg.into(),
                parents: 1,
            };
            Control::from_diags(name, expect_trip, want, &diags(&[c], &rules))
        })
        .collect();
    out.push(range_control(neutered));
    out
}

/// A temporary repository: the off-style commit inside `HEAD~1..HEAD` must be found through git2,
/// and the off-style commit outside the range must not.
fn range_control(neutered: &dyn Fn(&str) -> bool) -> Control {
    const NAME: &str = "off-style-commit-in-range";
    let run = || -> Result<Vec<Diag<Code>>, FixtureError> {
        let msg = if neutered(NAME) {
            "[Test] (ci): clean"
        } else {
            "wip"
        };
        let dir = fixture::temp_repo(&[
            (&[("a.txt", "1")], "initial commit, outside the range"),
            (&[("a.txt", "2")], msg),
        ])?;
        let ws = GitWorkspace::discover(dir.path())?;
        let list = ws.commits("HEAD~1..HEAD")?;
        Ok(diags(&list, &StyleRules::default()))
    };
    match run() {
        Ok(ds) => Control {
            name: NAME.into(),
            expect_trip: true,
            tripped: ds.len() == 1 && ds[0].code == Code::Cmt002,
            detail: ds
                .first()
                .map_or_else(|| "no finding".into(), |d| d.message.clone()),
        },
        Err(e) => Control {
            name: NAME.into(),
            expect_trip: true,
            tripped: false,
            detail: format!("fixture failed: {e}"),
        },
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_range_past_the_start_of_history_is_unavailable_and_a_misspelt_ref_is_an_error() {
        use super::{check_range, RangeProblem, StyleRules};
        let dir = crate::gitread::fixture::temp_repo(&[
            (&[("a.txt", "1")], "[Feat] (a): one"),
            (&[("a.txt", "2")], "[Feat] (a): two"),
        ])
        .unwrap_or_else(|e| panic!("{e}"));
        let rules = StyleRules::default();
        match check_range(dir.path(), "HEAD~20..HEAD", &rules) {
            Err(RangeProblem::Unavailable(why)) => assert!(
                why.to_string().starts_with("HEAD~20 does not exist, so HEAD~20..HEAD cannot be checked: the history has only 2 commit(s)"),
                "{why}"
            ),
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            check_range(dir.path(), "mian..HEAD", &rules),
            Err(RangeProblem::Git(_))
        ));
        let ok = check_range(dir.path(), "HEAD~1..HEAD", &rules).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((ok.commits.len(), ok.diags.len()), (1, 0));
    }

    #[test]
    fn controls_behave() {
        let all = super::run_controls(&|_| false);
        assert!(all.iter().all(|c| c.expect_trip == c.tripped), "{all:?}");
        let proven =
            diag::controls_can_fail(&|n| super::run_controls(n)).unwrap_or_else(|e| panic!("{e}"));
        assert!(proven > 0);
    }

    /// Issue 29: a missing commit object is not a short history: the range could not be read
    /// (CMT005, an error), never a skip naming `HEAD~20`.
    #[test]
    fn a_corrupt_history_is_an_error_not_a_skip() {
        use crate::commits::gate::{check_range, outcome, RangeProblem};
        use crate::commits::StyleRules;
        let commits: Vec<(Vec<(&str, String)>, String)> = (0..5)
            .map(|i| {
                (
                    vec![("f.txt", format!("{i}"))],
                    format!("[Feat] (x): change {i}"),
                )
            })
            .collect();
        let refs: Vec<(Vec<(&str, &str)>, &str)> = commits
            .iter()
            .map(|(f, m)| {
                (
                    f.iter().map(|(p, t)| (*p, t.as_str())).collect(),
                    m.as_str(),
                )
            })
            .collect();
        let slices: Vec<(&[(&str, &str)], &str)> =
            refs.iter().map(|(f, m)| (f.as_slice(), *m)).collect();
        let dir = crate::gitread::fixture::temp_repo(&slices).unwrap_or_else(|e| panic!("{e}"));
        let repo = git2::Repository::open(dir.path()).unwrap_or_else(|e| panic!("{e}"));
        let mut c = repo
            .head()
            .and_then(|h| h.peel_to_commit())
            .unwrap_or_else(|e| panic!("{e}"));
        for _ in 0..2 {
            c = c.parent(0).unwrap_or_else(|e| panic!("{e}"));
        }
        let id = c.id().to_string();
        drop(c);
        drop(repo);
        let obj = dir
            .path()
            .join(".git/objects")
            .join(&id[..2])
            .join(&id[2..]);
        std::fs::remove_file(&obj).unwrap_or_else(|e| panic!("{}: {e}", obj.display()));
        match check_range(dir.path(), "HEAD~20..HEAD", &StyleRules::default()) {
            Err(RangeProblem::Git(e)) => assert!(e.to_string().contains("walking history"), "{e}"),
            other => panic!("{other:?}"),
        }
        assert!(
            outcome(dir.path(), "HEAD~20..HEAD", &StyleRules::default()).is_ok_and(|o| !o.passed())
        );
    }
}
