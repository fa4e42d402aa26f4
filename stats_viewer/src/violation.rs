//! What the stats gates (`budgets`, `counters`, `fatals`) report: `diag` diagnostics, so the
//! binary maps each one with the one `From` and decides nothing.

pub use diag::Severity;

/// One violation of a stats gate; `C` is the gate's code enum.
pub type Violation<C> = diag::Diag<C>;

/// A violation of the budget, contract or log `unit`.
pub(crate) fn violation<C: diag::Code>(
    code: C,
    severity: Severity,
    unit: &str,
    message: String,
) -> Violation<C> {
    Violation::new(code, severity, message).in_unit(unit)
}

/// Placed at `path` (and `line`) when known; a line without a path points nowhere.
pub(crate) fn placed<C: diag::Code>(
    v: Violation<C>,
    path: Option<String>,
    line: Option<usize>,
) -> Violation<C> {
    match (path, line) {
        (Some(p), Some(l)) => v.at(p, u32::try_from(l).unwrap_or(u32::MAX), None),
        (Some(p), None) => v.file(p),
        (None, _) => v,
    }
}
