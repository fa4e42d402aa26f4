//! The one vocabulary every gate reports in (DESIGN.md "One vocabulary across gates").
//!
//! Libraries return their own domain results; `gates/<gate>.rs` maps them into [`Finding`]s and a
//! [`GateReport`]. `check` aggregates reports without knowing which gate produced them.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Serialize;

use crate::config::Config;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
    Note,
}

/// Where a finding points: a workspace-relative path (forward slashes), 1-based line and column.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Location {
    pub path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<u32>,
}

impl Location {
    pub fn file(path: impl Into<String>) -> Self {
        Location {
            path: path.into(),
            line: None,
            column: None,
        }
    }
    pub fn at(path: impl Into<String>, line: u32, column: Option<u32>) -> Self {
        Location {
            path: path.into(),
            line: Some(line),
            column,
        }
    }
}

impl std::fmt::Display for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.path)?;
        if let Some(l) = self.line {
            write!(f, ":{l}")?;
            if let Some(c) = self.column {
                write!(f, ":{c}")?;
            }
        }
        Ok(())
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Finding {
    pub gate: &'static str,
    /// Stable code, e.g. `TOK001`; documented in docs/codes.md.
    pub code: &'static str,
    pub severity: Severity,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub location: Option<Location>,
    /// The checked unit (file, probe, citation, symbol…) this finding belongs to; JUnit groups by it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unit: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<serde_json::Value>,
}

impl Finding {
    pub fn new(
        gate: &'static str,
        code: &'static str,
        severity: Severity,
        message: impl Into<String>,
    ) -> Self {
        Finding {
            gate,
            code,
            severity,
            message: message.into(),
            location: None,
            unit: None,
            detail: None,
        }
    }
    pub fn error(gate: &'static str, code: &'static str, message: impl Into<String>) -> Self {
        Self::new(gate, code, Severity::Error, message)
    }
    pub fn warning(gate: &'static str, code: &'static str, message: impl Into<String>) -> Self {
        Self::new(gate, code, Severity::Warning, message)
    }
    pub fn note(gate: &'static str, code: &'static str, message: impl Into<String>) -> Self {
        Self::new(gate, code, Severity::Note, message)
    }
    pub fn at(mut self, location: Location) -> Self {
        self.location = Some(location);
        self
    }
    pub fn in_unit(mut self, unit: impl Into<String>) -> Self {
        self.unit = Some(unit.into());
        self
    }
    pub fn with_detail(mut self, detail: serde_json::Value) -> Self {
        self.detail = Some(detail);
        self
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "verdict", rename_all = "lowercase")]
pub enum Verdict {
    Pass,
    Fail,
    Skipped { reason: String },
}

/// One negative (must trip) or positive (must stay clean) control of a gate's self-test.
#[derive(Debug, Clone, Serialize)]
pub struct Control {
    pub name: String,
    /// true: a negative control, the gate must go red on it.
    pub expect_trip: bool,
    pub tripped: bool,
    /// What the gate said (first finding) or why it did not trip.
    pub detail: String,
}

impl Control {
    pub fn ok(&self) -> bool {
        self.expect_trip == self.tripped
    }

    /// The live control of a gate the audited workspace does not configure (it passes).
    pub fn not_configured() -> Self {
        Control {
            name: "live".into(),
            expect_trip: false,
            tripped: false,
            detail: "no live control: gate not configured".into(),
        }
    }
}

/// The result of `--self-test` for one gate: it passes only when every control behaves and at
/// least one negative control tripped (a self-test that trips nothing is itself a failure).
#[derive(Debug, Clone, Serialize)]
pub struct SelfTest {
    pub controls: Vec<Control>,
}

impl SelfTest {
    /// The one way a gate turns its library's control results into a self-test: each library
    /// runs its controls through the same entry point as a real run, and the gate converts the
    /// library's result type into [`Control`] (a `From` impl in `gates/<gate>.rs`).
    pub fn from_controls<T: Into<Control>>(controls: impl IntoIterator<Item = T>) -> Self {
        SelfTest {
            controls: controls.into_iter().map(Into::into).collect(),
        }
    }

    pub fn passed(&self) -> bool {
        self.controls.iter().all(Control::ok)
            && self.controls.iter().any(|c| c.expect_trip && c.tripped)
    }
}

/// Names of negative controls to neuter (run on clean input) — the hook that proves `--self-test`
/// itself fails when a control stops tripping. Names are `gate/control`.
#[derive(Debug, Clone, Default)]
pub struct Neutered(pub BTreeSet<String>);

impl Neutered {
    pub fn contains(&self, gate: &str, control: &str) -> bool {
        self.0.contains(&format!("{gate}/{control}"))
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct GateReport {
    pub gate: &'static str,
    #[serde(flatten)]
    pub verdict: Verdict,
    pub findings: Vec<Finding>,
    /// The gate's headline figure, e.g. "41 files / 926 mutator calls"; shown in the check table.
    pub headline: String,
    /// Named measurements (counts, sizes) printed in JSON and Markdown.
    pub figures: Vec<(String, serde_json::Value)>,
    /// Every unit the gate checked (files, probes, citations…): one JUnit testcase each.
    pub units: Vec<String>,
    /// The inputs the gate read (paths, sizes, commit ids), so a mismatched pair is visible.
    pub inputs: Vec<String>,
    pub wall_ms: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub self_test: Option<SelfTest>,
}

impl GateReport {
    /// A report whose verdict follows from its findings: any error → Fail.
    pub fn from_findings(
        gate: &'static str,
        findings: Vec<Finding>,
        headline: impl Into<String>,
    ) -> Self {
        let verdict = if findings.iter().any(|f| f.severity == Severity::Error) {
            Verdict::Fail
        } else {
            Verdict::Pass
        };
        GateReport {
            gate,
            verdict,
            findings,
            headline: headline.into(),
            figures: Vec::new(),
            units: Vec::new(),
            inputs: Vec::new(),
            wall_ms: 0.0,
            self_test: None,
        }
    }

    /// A gate that could not run because its input is unusable: Fail with one error finding.
    pub fn could_not_run(
        gate: &'static str,
        code: &'static str,
        message: impl Into<String>,
        location: Option<Location>,
    ) -> Self {
        let mut f = Finding::error(gate, code, message);
        f.location = location;
        Self::from_findings(gate, vec![f], "could not run")
    }

    pub fn skipped(gate: &'static str, reason: impl Into<String>) -> Self {
        let mut r = Self::from_findings(gate, Vec::new(), "");
        r.verdict = Verdict::Skipped {
            reason: reason.into(),
        };
        r
    }

    pub fn figure(mut self, name: &str, value: impl Into<serde_json::Value>) -> Self {
        self.figures.push((name.to_string(), value.into()));
        self
    }

    pub fn count(&self, severity: Severity) -> usize {
        self.findings
            .iter()
            .filter(|f| f.severity == severity)
            .count()
    }
}

/// Everything a gate may read: the workspace root and the resolved configuration, plus what
/// several gates of one run share (built once, by the first gate that needs it).
pub struct CheckCtx {
    pub root: PathBuf,
    pub config: Arc<Config>,
    /// The `mgctl.toml` that was read, or None when the built-in MobileGL profile applies.
    pub config_path: Option<PathBuf>,
    /// Its text (empty for the built-in profile), to turn `toml::Spanned` byte ranges into lines.
    pub config_text: String,
    /// The include graph of this run's workspace, shared by both include gates. Per run, not
    /// per process: a later run in the same process sees the files as they are then.
    pub include_graph: std::sync::OnceLock<Result<Arc<include_graph::Graph>, String>>,
}

impl CheckCtx {
    /// Workspace-relative display form of a path (forward slashes).
    pub fn rel(&self, path: &Path) -> String {
        let p = path.strip_prefix(&self.root).unwrap_or(path);
        p.to_string_lossy().replace('\\', "/")
    }

    /// The location in `mgctl.toml` of a `toml::Spanned` value's byte range start; for the
    /// built-in profile, the pseudo-path `<mobilegl-profile>`.
    pub fn config_location(&self, span_start: usize) -> Location {
        match &self.config_path {
            Some(p) => {
                let (line, col) = crate::config::line_col(&self.config_text, span_start);
                Location::at(
                    self.rel(p),
                    u32::try_from(line).unwrap_or(u32::MAX),
                    u32::try_from(col).ok(),
                )
            }
            None => Location::file("<mobilegl-profile>"),
        }
    }
}

/// A gate of `mgctl check`. Implementations live in `gates/<name>.rs` and are listed in
/// `gates::all()`. A gate never prints and never panics; bad input becomes an error finding.
pub trait Gate: Sync + Send {
    /// Stable gate name used by `--only`/`--skip` and in every output format.
    fn name(&self) -> &'static str;
    /// One line for `mgctl check --list`.
    fn description(&self) -> &'static str;
    /// Why this gate does not run for this configuration (its section absent), or None to run it.
    fn skip_reason(&self, ctx: &CheckCtx) -> Option<String>;
    fn run(&self, ctx: &CheckCtx) -> GateReport;
    /// Canned controls; must not depend on the workspace. Honour `neutered` by feeding a neutered
    /// negative control its clean counterpart (so it cannot trip).
    fn self_test(&self, neutered: &Neutered) -> SelfTest;
    /// Live controls (issue 18 item 7): canned mutations of an in-memory overlay of `ctx`'s
    /// workspace (never written) that must turn the gate red. None by default.
    fn live_controls(&self, _ctx: &CheckCtx, _neutered: &Neutered) -> Vec<Control> {
        Vec::new()
    }
}
