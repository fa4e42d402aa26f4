//! What the stats gates (`budgets`, `counters`, `fatals`) report: typed violations in the shape
//! of a `mgctl check` finding (code, severity, message, unit, location, detail), so the binary
//! maps each one field for field and decides nothing.

/// Whether a violation fails its gate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    Error,
    /// Said, but does not fail the gate.
    Note,
}

/// A finding code of one of the stats gates.
pub trait GateCode: Copy {
    fn as_str(self) -> &'static str;
}

/// One violation of a stats gate.
#[derive(Debug, Clone, PartialEq)]
pub struct Violation<C> {
    pub code: C,
    pub severity: Severity,
    pub message: String,
    /// The budget, contract or log it belongs to.
    pub unit: String,
    /// Where it points: a workspace-relative path (mgctl.toml, an input, a log) and a 1-based
    /// line; a line without a path points nowhere.
    pub path: Option<String>,
    pub line: Option<usize>,
    /// Machine-readable detail (the `Fatal{…}` fields of a Fatal line).
    pub detail: Option<serde_json::Value>,
}

impl<C> Violation<C> {
    pub(crate) fn new(code: C, severity: Severity, unit: &str, message: String) -> Self {
        Violation {
            code,
            severity,
            message,
            unit: unit.to_string(),
            path: None,
            line: None,
            detail: None,
        }
    }

    pub(crate) fn at(mut self, path: Option<String>, line: Option<usize>) -> Self {
        self.path = path;
        self.line = line;
        self
    }
}
