//! One `check` run as every format sees it, and what the text formats share: counts, the bounded
//! listing of a gate's findings, the summary line.

use std::io;
use std::path::PathBuf;

use serde::Serialize;

use crate::model::{Finding, GateReport, Location, Severity, Verdict};

/// One `check` (or `check --self-test`) run, as every format sees it.
#[derive(Debug, Serialize)]
pub struct CheckRun {
    pub schema: u32,
    pub tool: &'static str,
    pub version: &'static str,
    pub mode: Mode,
    pub workspace: String,
    /// The mgctl.toml read, or "built-in MobileGL profile".
    pub config: String,
    pub passed: bool,
    pub wall_ms: f64,
    pub gates: Vec<GateReport>,
    /// What `check` did about the workspace's `[build]` (docs/json.md), absent without one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub build: Option<serde_json::Value>,
    /// How this run is shown (not part of the JSON).
    #[serde(skip)]
    pub view: View,
}

/// What the environment says about how to show a run.
#[derive(Debug, Clone)]
pub struct View {
    /// The workspace's path from the repository top level (git, or `$GITHUB_WORKSPACE`), with a
    /// trailing `/`; empty when the workspace is the top level or not inside a repository.
    pub repo_prefix: String,
    /// Width the human table must fit.
    pub columns: usize,
    /// Text and Markdown list every note (`check -v`) instead of a count per code.
    pub verbose: bool,
    /// The workspace root, absolute (HTML links point at it, so a moved page still works).
    pub root: PathBuf,
    /// Where the user stands: text and Markdown paths are relative to it, as cargo's and ruff's
    /// are, so a printed `path:line` opens from the shell it was printed in. None: workspace-relative.
    pub cwd: Option<PathBuf>,
}

impl Default for View {
    fn default() -> Self {
        View {
            repo_prefix: String::new(),
            columns: 100,
            verbose: false,
            root: PathBuf::new(),
            cwd: None,
        }
    }
}

impl CheckRun {
    /// Why every gate was skipped, in a few words: the distinct reasons with their counts, and
    /// a configured gate that skipped itself by name with its own reason (issue 29: a shallow
    /// clone's `--only commits` said "1 not configured").
    pub fn skip_causes(&self) -> String {
        let mut causes: Vec<(String, usize)> = Vec::new();
        let mut own = Vec::new();
        for r in &self.gates {
            if let Verdict::Skipped { reason } = &r.verdict {
                let cause = if reason.starts_with("skipped by --skip")
                    || reason.starts_with("not selected by --only")
                {
                    "by --only/--skip".to_string()
                } else if reason.ends_with("not built: --no-build given") {
                    "by --no-build".to_string()
                } else if reason.starts_with("no [")
                    || reason.starts_with("the built-in MobileGL profile has no [")
                {
                    "not configured".to_string()
                } else {
                    own.push(format!("{}: {reason}", r.gate));
                    continue;
                };
                match causes.iter_mut().find(|(c, _)| *c == cause) {
                    Some((_, n)) => *n += 1,
                    None => causes.push((cause, 1)),
                }
            }
        }
        causes
            .iter()
            .map(|(c, n)| format!("{n} {c}"))
            .chain(own)
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// A finding's path as CI and code scanning resolve it: from the repository top level.
    pub fn repo_path(&self, workspace_path: &str) -> String {
        format!("{}{workspace_path}", self.view.repo_prefix)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    Check,
    SelfTest,
}

/// The JSON document: every location's `path` is repository-relative (as in GitHub, SARIF and
/// JUnit output) and `workspace_path` keeps the workspace-relative one.
pub(crate) fn json(run: &CheckRun) -> io::Result<serde_json::Value> {
    let mut v = serde_json::to_value(run)?;
    if let Some(gates) = v.get_mut("gates").and_then(|g| g.as_array_mut()) {
        for f in gates
            .iter_mut()
            .filter_map(|g| g.get_mut("findings").and_then(|f| f.as_array_mut()))
            .flatten()
        {
            if let Some(loc) = f.get_mut("location").and_then(|l| l.as_object_mut()) {
                if let Some(p) = loc.get("path").and_then(|p| p.as_str()).map(String::from) {
                    loc.insert("path".into(), run.repo_path(&p).into());
                    loc.insert("workspace_path".into(), p.into());
                }
            }
        }
    }
    Ok(v)
}

/// `3 errors, 1 warning`-style counts for one report.
pub fn counts(r: &GateReport) -> (usize, usize, usize) {
    use Severity::{Error, Note, Warning};
    (r.count(Error), r.count(Warning), r.count(Note))
}

/// Errors and warnings of one gate a text report lists: enough to act on, bounded so 16,000 hits
/// do not print 16,000 lines. JSON, JUnit and SARIF carry every finding.
const FINDINGS_SHOWN: usize = 100;

/// The findings of one gate a text report lists, in report order, and exact counts of the rest.
pub struct Listing<'a> {
    pub shown: Vec<&'a Finding>,
    /// `(errors, warnings)` left out.
    pub hidden: (usize, usize),
    /// Notes not listed, counted per code in first-seen order.
    pub notes: Vec<(&'a str, usize)>,
}

/// Notes of one code a text report lists before it only counts them.
const NOTES_OF_A_CODE: usize = 3;

/// The findings a text report lists: errors and warnings up to a cap; notes (context, not
/// problems) listed when a code has a few, else counted on one line unless `verbose` — a run
/// would otherwise open with the 33 changes symbols.allow admits.
pub fn listing(r: &GateReport, verbose: bool) -> Listing<'_> {
    // Notes per code, counted once (a gate has few codes, however many findings).
    let mut note_counts: Vec<(&str, usize)> = Vec::new();
    for f in r.findings.iter().filter(|f| f.severity == Severity::Note) {
        match note_counts.iter_mut().find(|(c, _)| *c == f.code) {
            Some((_, n)) => *n += 1,
            None => note_counts.push((f.code, 1)),
        }
    }
    let per_code = |code: &str| {
        note_counts
            .iter()
            .find(|(c, _)| *c == code)
            .map_or(0, |(_, n)| *n)
    };
    let mut problems = 0;
    let mut listing = Listing {
        shown: Vec::new(),
        hidden: (0, 0),
        notes: Vec::new(),
    };
    for f in &r.findings {
        let left_out = match f.severity {
            Severity::Note if verbose || per_code(f.code) <= NOTES_OF_A_CODE => {
                listing.shown.push(f);
                continue;
            }
            Severity::Note => {
                match listing.notes.iter_mut().find(|(c, _)| *c == f.code) {
                    Some((_, n)) => *n += 1,
                    None => listing.notes.push((f.code, 1)),
                }
                continue;
            }
            Severity::Error => &mut listing.hidden.0,
            Severity::Warning => &mut listing.hidden.1,
        };
        if problems < FINDINGS_SHOWN {
            problems += 1;
            listing.shown.push(f);
        } else {
            *left_out += 1;
        }
    }
    listing
}

fn plural(n: usize, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}

impl Listing<'_> {
    /// "… and 3,900 more (3,900 errors), every one in --format json", or None when all are listed.
    pub fn rest(&self) -> Option<String> {
        let (e, w) = self.hidden;
        if e + w == 0 {
            return None;
        }
        let parts: Vec<String> = [(e, "error"), (w, "warning")]
            .iter()
            .filter(|(k, _)| *k > 0)
            .map(|(k, word)| plural(*k, word))
            .collect();
        Some(format!(
            "… and {} more ({}), every one in --format json",
            e + w,
            parts.join(", ")
        ))
    }

    /// One line per note code left out: "33 notes SYM009 (a change an allow entry admitted); -v lists them".
    pub fn note_lines(&self, summary: &dyn Fn(&str) -> Option<&'static str>) -> Vec<String> {
        self.notes
            .iter()
            .map(|(code, n)| {
                let what = summary(code).map(|s| format!(" ({s})")).unwrap_or_default();
                format!("{} {code}{what}; -v lists them", plural(*n, "note"))
            })
            .collect()
    }
}

impl View {
    /// How paths are shown from the user's directory (one rule for every command: `diag::Shown`).
    fn shown(&self) -> diag::Shown {
        diag::Shown::new(self.root.clone(), self.cwd.clone())
    }

    /// A workspace-relative path as the user should type it from where they stand.
    pub fn shown_path(&self, workspace_path: &str) -> String {
        self.shown().path(workspace_path)
    }

    /// A location as text and Markdown print it: the path from the user's directory.
    pub fn shown_location(&self, l: &Location) -> String {
        self.shown().location(l)
    }

    /// A link that still works when the page is moved: the file's absolute `file://` address.
    pub fn link(&self, l: &Location) -> String {
        let abs = self.root.join(&l.path);
        diag::escape::href(&format!("file://{}", abs.to_string_lossy()), l.line)
    }
}

/// The gates `--only`/`--skip` left out, as one line ("14 gates not selected by --only: a, b, …"),
/// and the gates the table shows: a selection is said once, not as a row per gate left out.
pub(crate) fn not_selected(run: &CheckRun) -> (Option<String>, Vec<&GateReport>) {
    let left_out = |r: &GateReport| match &r.verdict {
        Verdict::Skipped { reason } => {
            if reason.starts_with("not selected by --only") {
                Some("not selected by --only")
            } else if reason.starts_with("skipped by --skip") {
                Some("skipped by --skip")
            } else {
                None
            }
        }
        _ => None,
    };
    let mut causes: Vec<(&str, Vec<&str>)> = Vec::new();
    let mut shown = Vec::new();
    for r in &run.gates {
        match left_out(r) {
            Some(cause) => match causes.iter_mut().find(|(c, _)| *c == cause) {
                Some((_, gates)) => gates.push(r.gate),
                None => causes.push((cause, vec![r.gate])),
            },
            None => shown.push(r),
        }
    }
    let line = causes
        .iter()
        .map(|(cause, gates)| {
            format!(
                "{} {cause}: {}",
                plural(gates.len(), "gate"),
                gates.join(", ")
            )
        })
        .collect::<Vec<_>>();
    ((!line.is_empty()).then(|| line.join("; ")), shown)
}

pub fn verdict_word(r: &GateReport) -> &'static str {
    match r.verdict {
        Verdict::Pass => "pass",
        Verdict::Fail => "FAIL",
        Verdict::Skipped { .. } => "skipped",
    }
}

/// The one-line summary every human-facing format ends with.
pub fn summary_line(run: &CheckRun) -> String {
    let n = run.gates.len();
    let failed = run
        .gates
        .iter()
        .filter(|g| g.verdict == Verdict::Fail)
        .count();
    let skipped = run
        .gates
        .iter()
        .filter(|g| matches!(g.verdict, Verdict::Skipped { .. }))
        .count();
    let what = if run.mode == Mode::SelfTest {
        "check --self-test"
    } else {
        "check"
    };
    format!(
        "mgctl {what}: {} — {n} gates: {} passed, {failed} failed, {skipped} skipped ({:.0} ms)",
        if run.passed { "PASS" } else { "FAIL" },
        n - failed - skipped,
        run.wall_ms
    )
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
pub(crate) mod tests {
    use super::*;
    use crate::model::Location;
    use crate::{write, Format};

    pub(crate) fn sample() -> CheckRun {
        let failing = GateReport::from_findings(
            "tokens",
            vec![Finding::error(
                "tokens",
                "TOK001",
                "`printf` forbidden, <really> & \"truly\"\nsecond line",
            )
            .at(Location::at("MobileGL/MG_State/A.cpp", 3, Some(5)))
            .in_unit("MobileGL/MG_State/A.cpp")],
            "2 rules / 3 files / 1 forbidden, 0 allowed",
        );
        let mut failing = failing;
        failing.units = vec![
            "MobileGL/MG_State/A.cpp".into(),
            "MobileGL/MG_State/B.cpp".into(),
        ];
        CheckRun {
            schema: 1,
            tool: "mgctl",
            version: "0.0.0 (test)",
            mode: Mode::Check,
            workspace: "/w".into(),
            config: "/w/mgctl.toml".into(),
            passed: false,
            wall_ms: 3.0,
            gates: vec![
                failing,
                GateReport::skipped("symbols", "no [symbols] section in mgctl.toml"),
            ],
            build: None,
            view: View::default(),
        }
    }

    fn render(format: Format) -> String {
        let mut buf = Vec::new();
        write(format, &sample(), &mut buf, false, &|_| None).unwrap();
        String::from_utf8(buf).unwrap()
    }

    #[test]
    fn json_round_trips_with_schema() {
        let v: serde_json::Value = serde_json::from_str(&render(Format::Json)).unwrap();
        assert_eq!(v["schema"], 1);
        assert_eq!(v["gates"][0]["verdict"], "fail");
        assert_eq!(v["gates"][0]["findings"][0]["location"]["line"], 3);
        assert_eq!(
            v["gates"][1]["reason"],
            "no [symbols] section in mgctl.toml"
        );
    }

    #[test]
    fn no_escape_codes_without_color() {
        for f in [
            Format::Human,
            Format::Json,
            Format::Junit,
            Format::Github,
            Format::Markdown,
        ] {
            assert!(!render(f).contains('\u{1b}'), "{f:?}");
        }
    }

    #[test]
    fn human_lists_every_gate_and_finding() {
        let text = render(Format::Human);
        assert!(text.contains("tokens") && text.contains("symbols") && text.contains("skipped"));
        assert!(text.contains("MobileGL/MG_State/A.cpp:3:5"));
        assert!(text.contains("1 passed") || text.contains("0 passed"));
    }
}
