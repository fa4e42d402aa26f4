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
#[derive(Debug, Clone, serde::Serialize)]
pub struct ControlResult {
    pub name: String,
    /// true: a negative control, the analysis must go red on it.
    pub expect_trip: bool,
    pub tripped: bool,
    /// What the analysis said (first diagnostic) or why it did not trip.
    pub detail: String,
}

impl ControlResult {
    /// The control behaved: a negative control tripped, a positive one stayed clean.
    pub fn ok(&self) -> bool {
        self.expect_trip == self.tripped
    }

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

/// A self-test passes when every control behaves and at least one negative control tripped (a
/// self-test that trips nothing is itself a failure).
pub fn self_test_passed(controls: &[ControlResult]) -> bool {
    controls.iter().all(ControlResult::ok) && controls.iter().any(|c| c.expect_trip && c.tripped)
}

/// `value` as indented JSON with its object keys sorted, as every `--format json` of this crate
/// prints (a `serde_json::Value` keeps its keys sorted).
pub fn pretty_json(value: &impl serde::Serialize) -> serde_json::Result<String> {
    serde_json::to_string_pretty(&serde_json::to_value(value)?)
}

#[derive(serde::Serialize)]
struct SelfTestJson<'a> {
    schema: u32,
    gate: &'a str,
    passed: bool,
    controls: &'a [ControlResult],
}

/// A lint's `--self-test` report: one line per control and a summary, or the JSON document
/// (`schema`, `gate`, `passed`, `controls`). Returns whether the self-test passed.
pub fn write_self_test(
    gate: &str,
    controls: &[ControlResult],
    json: bool,
    out: &mut dyn std::io::Write,
) -> std::io::Result<bool> {
    let passed = self_test_passed(controls);
    if json {
        let doc = SelfTestJson {
            schema: 1,
            gate,
            passed,
            controls,
        };
        writeln!(out, "{}", pretty_json(&doc)?)?;
        return Ok(passed);
    }
    for c in controls {
        let kind = if c.expect_trip {
            "negative"
        } else {
            "positive"
        };
        let verdict = match (c.expect_trip, c.ok()) {
            (true, true) => "tripped",
            (false, true) => "clean",
            (true, false) => "NEGATIVE CONTROL DID NOT TRIP",
            (false, false) => "POSITIVE CONTROL FAILED",
        };
        writeln!(out, "{kind} control {}: {verdict}: {}", c.name, c.detail)?;
    }
    let neg = controls.iter().filter(|c| c.expect_trip).count();
    let pos = controls.len() - neg;
    if passed {
        writeln!(
            out,
            "self-test passed: {neg} negative controls tripped, {pos} positive controls clean"
        )?;
    } else {
        let bad = controls.iter().filter(|c| !c.ok()).count();
        writeln!(
            out,
            "SELF-TEST FAILED: {bad} of {} controls misbehaved",
            controls.len()
        )?;
    }
    Ok(passed)
}

/// A lint's `mgctl.toml` section, as its gate sees it: present or not, and whether it asks
/// for anything to be checked.
pub trait Section {
    /// The section as mgctl.toml spells it, e.g. `[tokens]`.
    const NAME: &'static str;
    /// Why a present section checks nothing (no rules, no documents); None when it checks.
    fn nothing_to_check(&self) -> Option<String> {
        None
    }
}

/// Why the gate over `section` is skipped: the section is absent, or checks nothing.
pub fn skip_reason<S: Section>(section: Option<&S>) -> Option<String> {
    match section {
        None => Some(format!("no {} section in mgctl.toml", S::NAME)),
        Some(s) => s.nothing_to_check(),
    }
}
