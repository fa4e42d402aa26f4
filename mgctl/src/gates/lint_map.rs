//! Maps the `lints` library's diagnostics, outcomes and controls to the gate vocabulary; every
//! lint gate uses it, so none of them builds a finding by hand.

use diag::{Code, Outcome};
use lints::diag::Section;
use lints::source::Disk;

use crate::gate::{CheckCtx, Control, GateReport};

/// A gate's run over its section: skipped without one (saying so), else the analysis's report.
pub fn run<S: Section, C: Code>(
    gate: &'static str,
    ctx: &CheckCtx,
    section: Option<&S>,
    analyse: impl FnOnce(&S) -> Outcome<C>,
) -> GateReport {
    match section {
        None => GateReport::skipped(gate, format!("no {} section in mgctl.toml", S::NAME)),
        Some(cfg) => ctx.report(gate, analyse(cfg)),
    }
}

/// A gate's live controls over its section, or the one passing "not configured" control when
/// the section is absent or checks nothing.
pub fn live<S: Section>(
    section: Option<&S>,
    controls: impl FnOnce(&S) -> Vec<Control>,
) -> Vec<Control> {
    match section.filter(|s| s.nothing_to_check().is_none()) {
        None => vec![Control::not_configured()],
        Some(cfg) => controls(cfg),
    }
}

/// The workspace on disk, as the libraries read it.
pub fn disk(ctx: &CheckCtx) -> Disk {
    Disk {
        root: ctx.root.clone(),
    }
}
