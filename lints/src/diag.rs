//! The one shape every lint analysis reports in, so `mgctl/src/gates/*.rs` only maps each
//! [`Diag`] to a `Finding` and each [`ControlResult`] to a self-test control.

/// How bad a diagnostic is (the gate's finding severity).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    Error,
    Warning,
    Note,
}

/// One fact an analysis found, with its stable code (docs/codes.md).
#[derive(Debug, Clone)]
pub struct Diag {
    pub code: &'static str,
    pub severity: Severity,
    pub message: String,
    /// Workspace-relative path (forward slashes), 1-based line and column.
    pub path: Option<String>,
    pub line: Option<u32>,
    pub column: Option<u32>,
    /// Byte offset in the configuration text this diagnostic is about (a `toml::Spanned`
    /// start): the gate turns it into `mgctl.toml:line:column`.
    pub config_at: Option<usize>,
    /// The checked unit (file, rule, region…) it belongs to.
    pub unit: Option<String>,
    pub detail: Option<serde_json::Value>,
}

impl Diag {
    pub fn new(code: &'static str, severity: Severity, message: impl Into<String>) -> Self {
        Diag {
            code,
            severity,
            message: message.into(),
            path: None,
            line: None,
            column: None,
            config_at: None,
            unit: None,
            detail: None,
        }
    }
    pub fn error(code: &'static str, message: impl Into<String>) -> Self {
        Self::new(code, Severity::Error, message)
    }
    pub fn warning(code: &'static str, message: impl Into<String>) -> Self {
        Self::new(code, Severity::Warning, message)
    }
    pub fn note(code: &'static str, message: impl Into<String>) -> Self {
        Self::new(code, Severity::Note, message)
    }
    pub fn at(mut self, path: impl Into<String>, line: u32, column: Option<u32>) -> Self {
        self.path = Some(path.into());
        self.line = Some(line);
        self.column = column;
        self
    }
    pub fn file(mut self, path: impl Into<String>) -> Self {
        self.path = Some(path.into());
        self
    }
    pub fn in_config(mut self, at: usize) -> Self {
        self.config_at = Some(at);
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

/// What one analysis run over a workspace found: its diagnostics and the figures it measured.
/// The verdict follows from the diagnostics (any error fails).
#[derive(Debug, Clone, Default)]
pub struct Outcome {
    pub diags: Vec<Diag>,
    /// The headline figure, e.g. "2 rules / 41 files / 0 forbidden, 0 allowed".
    pub headline: String,
    pub figures: Vec<(String, serde_json::Value)>,
    /// Every unit checked (one JUnit testcase each).
    pub units: Vec<String>,
    /// The inputs read (paths, refs), so a mismatched pair is visible.
    pub inputs: Vec<String>,
}

impl Outcome {
    /// An analysis that could not run: its error diagnostics and nothing measured.
    pub fn could_not_run(diags: Vec<Diag>) -> Self {
        Outcome {
            diags,
            headline: "could not run".into(),
            ..Outcome::default()
        }
    }
    pub fn passed(&self) -> bool {
        !self.diags.iter().any(|d| d.severity == Severity::Error)
    }
    pub fn errors(&self) -> usize {
        self.diags
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .count()
    }
    pub fn figure(mut self, name: &str, value: impl Into<serde_json::Value>) -> Self {
        self.figures.push((name.to_string(), value.into()));
        self
    }
}

/// One self-test control, run through the same entry point as a real run. A neutered negative
/// control is fed its clean twin, so it cannot trip.
#[derive(Debug, Clone)]
pub struct ControlResult {
    pub name: String,
    /// true: a negative control, the analysis must go red on it.
    pub expect_trip: bool,
    pub tripped: bool,
    /// What the analysis said (first diagnostic) or why it did not trip.
    pub detail: String,
}

impl ControlResult {
    /// A control from the diagnostics its input produced: a negative control trips only on an
    /// error with its own code; a positive control trips on any error.
    pub fn from_diags(name: &str, expect_trip: bool, want: &str, diags: &[Diag]) -> Self {
        let first = diags
            .iter()
            .find(|d| d.severity == Severity::Error && (!expect_trip || d.code == want));
        ControlResult {
            name: name.to_string(),
            expect_trip,
            tripped: first.is_some(),
            detail: first.map_or_else(|| "no finding".to_string(), |d| d.message.clone()),
        }
    }
}
