//! Gate `preproc`: retired preprocessor switches and banned identifiers (upstream
//! `retired_switches.py`, generalised) over the workspace's tracked C/C++ files. The analysis,
//! config and controls live in `lints::preproc::gate`.

use crate::gate::Gate;
use crate::section::SectionGate;

pub const GATE: &str = "preproc";

pub fn gate() -> impl Gate {
    SectionGate::lint(
        GATE,
        "retired preprocessor switches stay retired; banned identifiers stay out (tracked files)",
        |c| c.preproc.as_ref(),
        |ctx, cfg| ctx.report(GATE, lints::preproc::gate::outcome(&ctx.root, cfg)),
        lints::preproc::gate::run_controls,
    )
}
