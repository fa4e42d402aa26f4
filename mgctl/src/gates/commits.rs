//! Gate `commits`: MobileGL's commit style over a configured range (`mgctl lint commits RANGE`
//! checks any range by hand).

use serde::Deserialize;

use lints::commits::{self, StyleRules, Violation};
use lints::gitread::{fixture, CommitInfo, GitWorkspace};

use crate::gate::{CheckCtx, Control, Finding, Gate, GateReport, Neutered, SelfTest};

pub const GATE: &str = "commits";

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CommitsConfig {
    /// The range `check` verifies, e.g. `origin/main..HEAD`; without it the gate is skipped
    /// (a fresh clone's history is not the workspace's to judge).
    pub range: Option<String>,
    /// Known Types (default: Feat, Fix, Refactor, Test, Docs, Perf, CI).
    #[serde(default = "commits::default_types")]
    pub types: Vec<String>,
    /// Attribution trailer keys that must not appear (case-insensitive).
    #[serde(default = "commits::default_trailers")]
    pub forbidden_trailers: Vec<String>,
}

pub fn mobilegl_profile() -> Option<CommitsConfig> {
    Some(CommitsConfig {
        range: None,
        types: commits::default_types(),
        forbidden_trailers: commits::default_trailers(),
    })
}

fn code(v: &Violation) -> &'static str {
    match v {
        Violation::MultiLine { .. } => "CMT001",
        Violation::Shape { .. } => "CMT002",
        Violation::UnknownType { .. } => "CMT003",
        Violation::Trailer { .. } => "CMT004",
    }
}

/// One finding per violation, naming the commit and the rule.
pub fn findings(commits: &[CommitInfo], rules: &StyleRules) -> Vec<Finding> {
    let mut out = Vec::new();
    for c in commits {
        let short = &c.id[..c.id.len().min(10)];
        let subject = c.message.lines().next().unwrap_or("");
        for v in commits::check_message(&c.message, rules) {
            out.push(
                Finding::error(
                    GATE,
                    code(&v),
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

impl CommitsConfig {
    pub fn rules(&self) -> StyleRules {
        StyleRules {
            types: self.types.clone(),
            forbidden_trailers: self.forbidden_trailers.clone(),
        }
    }
}

pub struct CommitsGate;

impl Gate for CommitsGate {
    fn name(&self) -> &'static str {
        GATE
    }

    fn description(&self) -> &'static str {
        "commit messages: one line, `[Type] (Scope): description`, known Type, no attribution trailers"
    }

    fn skip_reason(&self, ctx: &CheckCtx) -> Option<String> {
        match &ctx.config.commits {
            None => Some("no [commits] section in mgctl.toml".into()),
            Some(c) if c.range.is_none() => {
                Some("[commits] has no range (check one with `mgctl lint commits RANGE`)".into())
            }
            Some(_) => None,
        }
    }

    fn run(&self, ctx: &CheckCtx) -> GateReport {
        let Some((cfg, range)) = ctx
            .config
            .commits
            .as_ref()
            .and_then(|c| c.range.as_ref().map(|r| (c, r)))
        else {
            return GateReport::skipped(GATE, "no [commits] range in mgctl.toml");
        };
        let list = GitWorkspace::discover(&ctx.root).and_then(|ws| ws.commits(range));
        let list = match list {
            Ok(l) => l,
            Err(e) => return GateReport::could_not_run(GATE, "CMT005", e.to_string(), None),
        };
        let fs = findings(&list, &cfg.rules());
        let bad: std::collections::BTreeSet<_> = fs.iter().filter_map(|f| f.unit.clone()).collect();
        let mut r = GateReport::from_findings(
            GATE,
            fs,
            format!(
                "{} commits in {range} / {} off-style",
                list.len(),
                bad.len()
            ),
        )
        .figure("commits", list.len())
        .figure("off_style", bad.len());
        r.units = list
            .iter()
            .map(|c| c.id[..c.id.len().min(10)].to_string())
            .collect();
        r.inputs = vec![format!("range {range}")];
        r
    }

    fn self_test(&self, neutered: &Neutered) -> SelfTest {
        let rules = StyleRules::default();
        let good = "[Fix] (MG_Pipe): flush pending ranges before present";
        let cases: [(&str, bool, &str, &str); 7] = [
            (
                "multi-line-message",
                true,
                "[Fix] (MG_Pipe): flush\n\nA body that explains.",
                "CMT001",
            ),
            (
                "bad-subject-shape",
                true,
                "fix: flush pending ranges",
                "CMT002",
            ),
            ("unknown-type", true, "[Bugfix] (MG_Pipe): flush", "CMT003"),
            (
                "co-authored-by",
                true,
                "[Fix] (MG_Pipe): flush\nCo-Authored-By: Someone <s@x>",
                "CMT004",
            ),
            ("good-message", false, good, ""),
            ("scope-with-slash", false, "[CI] (ci/run): cache cargo", ""),
            ("trailing-newline", false, "[Docs] (lint): regions\n", ""),
        ];
        let mut controls: Vec<Control> = cases
            .iter()
            .map(|&(name, expect_trip, msg, want)| {
                let msg = if expect_trip && neutered.contains(GATE, name) {
                    good
                } else {
                    msg
                };
                let c = CommitInfo {
                    id: "0123456789abcdef".into(),
                    message: msg.into(),
                    parents: 1,
                };
                let fs = findings(&[c], &rules);
                let first = fs.iter().find(|f| !expect_trip || f.code == want);
                Control {
                    name: name.to_string(),
                    expect_trip,
                    tripped: first.is_some(),
                    detail: first.map_or_else(|| "no finding".to_string(), |f| f.message.clone()),
                }
            })
            .collect();
        controls.push(range_control(neutered));
        SelfTest::from_controls(controls)
    }
}

/// A temporary repository: the off-style commit inside `HEAD~1..HEAD` must be found through git2,
/// and the off-style commit outside the range must not.
fn range_control(neutered: &Neutered) -> Control {
    const NAME: &str = "off-style-commit-in-range";
    let run = || -> Result<Vec<Finding>, String> {
        let msg = if neutered.contains(GATE, NAME) {
            "[Test] (ci): clean"
        } else {
            "wip"
        };
        let dir = fixture::temp_repo(&[
            (&[("a.txt", "1")], "initial commit, outside the range"),
            (&[("a.txt", "2")], msg),
        ])?;
        let ws = GitWorkspace::discover(dir.path()).map_err(|e| e.to_string())?;
        let list = ws.commits("HEAD~1..HEAD").map_err(|e| e.to_string())?;
        Ok(findings(&list, &StyleRules::default()))
    };
    match run() {
        Ok(fs) => Control {
            name: NAME.into(),
            expect_trip: true,
            tripped: fs.len() == 1 && fs[0].code == "CMT002",
            detail: fs
                .first()
                .map_or_else(|| "no finding".into(), |f| f.message.clone()),
        },
        Err(e) => Control {
            name: NAME.into(),
            expect_trip: true,
            tripped: false,
            detail: format!("fixture failed: {e}"),
        },
    }
}
