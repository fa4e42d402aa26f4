//! What the stats gates (`budgets`, `counters`, `fatals`) report: typed violations in the shape
//! of a `mgctl check` finding (code, severity, message, location, unit, detail), so the binary
//! maps each one field for field and decides nothing.

/// How a violation weighs on its gate's verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    Error,
    Warning,
    /// Said, but does not fail the gate.
    Note,
}

/// One violation of a stats gate; `C` is the gate's code enum.
#[derive(Debug, Clone, PartialEq)]
pub struct Violation<C> {
    pub code: C,
    pub severity: Severity,
    pub message: String,
    /// Where it points: a workspace-relative path (mgctl.toml, an input, a log), a 1-based line
    /// and column; a line without a path points nowhere.
    pub path: Option<String>,
    pub line: Option<u32>,
    pub column: Option<u32>,
    /// The budget, contract or log it belongs to.
    pub unit: Option<String>,
    /// Machine-readable detail (the `Fatal{…}` fields of a Fatal line).
    pub detail: Option<serde_json::Value>,
}

impl<C> Violation<C> {
    pub(crate) fn new(code: C, severity: Severity, unit: &str, message: String) -> Self {
        Violation {
            code,
            severity,
            message,
            path: None,
            line: None,
            column: None,
            unit: Some(unit.to_string()),
            detail: None,
        }
    }

    pub(crate) fn at(mut self, path: Option<String>, line: Option<usize>) -> Self {
        self.path = path;
        self.line = line.map(|l| u32::try_from(l).unwrap_or(u32::MAX));
        self
    }
}
