//! Maps the `lints` library's diagnostics, outcomes and controls to the gate vocabulary; every
//! lint gate uses it, so none of them builds a finding by hand.

use lints::diag::{Diag, Outcome, Section, Severity as LintSeverity};
use lints::source::Disk;

use crate::gate::{CheckCtx, Control, Finding, GateReport, IntoControl, Location, Severity};

/// One diagnostic as a finding; a diagnostic about the configuration points into mgctl.toml.
pub fn finding(gate: &'static str, ctx: Option<&CheckCtx>, d: Diag) -> Finding {
    let severity = match d.severity {
        LintSeverity::Error => Severity::Error,
        LintSeverity::Warning => Severity::Warning,
        LintSeverity::Note => Severity::Note,
    };
    let mut f = Finding::new(gate, d.code, severity, d.message);
    f.location = match (d.config_at, ctx, d.path) {
        (Some(at), Some(ctx), _) => Some(ctx.config_location(at)),
        (_, _, Some(path)) => Some(match d.line {
            Some(line) => Location::at(path, line, d.column),
            None => Location::file(path),
        }),
        _ => None,
    };
    f.unit = d.unit;
    f.detail = d.detail;
    f
}

/// A finished analysis as the gate's report: the verdict follows from the diagnostics.
pub fn report(gate: &'static str, ctx: &CheckCtx, o: Outcome) -> GateReport {
    let findings = o
        .diags
        .into_iter()
        .map(|d| finding(gate, Some(ctx), d))
        .collect();
    let mut r = GateReport::from_findings(gate, findings, o.headline);
    r.figures = o.figures;
    r.units = o.units;
    r.inputs = o.inputs;
    r
}

/// A gate's run over its section: skipped without one (saying so), else the analysis's report.
pub fn run<S: Section>(
    gate: &'static str,
    ctx: &CheckCtx,
    section: Option<&S>,
    analyse: impl FnOnce(&S) -> Outcome,
) -> GateReport {
    match section {
        None => GateReport::skipped(gate, format!("no {} section in mgctl.toml", S::NAME)),
        Some(cfg) => report(gate, ctx, analyse(cfg)),
    }
}

/// A gate's live controls over its section, or the one passing "not configured" control when
/// the section is absent or checks nothing.
pub fn live<S: Section, T: IntoControl>(
    section: Option<&S>,
    controls: impl FnOnce(&S) -> Vec<T>,
) -> Vec<Control> {
    match section.filter(|s| s.nothing_to_check().is_none()) {
        None => vec![Control::not_configured()],
        Some(cfg) => controls(cfg)
            .into_iter()
            .map(IntoControl::into_control)
            .collect(),
    }
}

/// The workspace on disk, as the libraries read it.
pub fn disk(ctx: &CheckCtx) -> Disk {
    Disk {
        root: ctx.root.clone(),
    }
}
