//! The one vocabulary every gate reports in (DESIGN.md "One vocabulary across gates"): findings,
//! verdicts, self-test controls and the per-gate report. Plain data; mgctl's gates build it, every
//! format renders it.

use serde::Serialize;

pub use diag::{Control, Location, Severity};

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

/// The one mapping from a library's diagnostic to a finding, field for field. The gate name is
/// the report's ([`GateReport::from_findings`] stamps it); a diagnostic that points into the
/// configuration is placed by the caller, which knows the config file's text.
impl<C: diag::Code> From<diag::Diag<C>> for Finding {
    fn from(d: diag::Diag<C>) -> Self {
        Finding {
            gate: "",
            code: d.code.as_str(),
            severity: d.severity,
            message: d.message,
            location: d.location,
            unit: d.unit,
            detail: d.detail,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "verdict", rename_all = "lowercase")]
pub enum Verdict {
    Pass,
    Fail,
    Skipped { reason: String },
}

/// The result of `--self-test` for one gate: it passes only when every control behaves and at
/// least one negative control tripped (a self-test that trips nothing is itself a failure).
#[derive(Debug, Clone, Serialize)]
pub struct SelfTest {
    pub controls: Vec<Control>,
}

impl SelfTest {
    pub fn new(controls: Vec<Control>) -> Self {
        SelfTest { controls }
    }

    pub fn passed(&self) -> bool {
        diag::self_test_passed(&self.controls)
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
        mut findings: Vec<Finding>,
        headline: impl Into<String>,
    ) -> Self {
        for f in &mut findings {
            f.gate = gate;
        }
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
