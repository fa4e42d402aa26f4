//! Gate `preproc`: retired preprocessor switches and banned identifiers (upstream
//! `retired_switches.py`, generalised) over the workspace's tracked C/C++ files. The analysis,
//! config and controls live in `lints::preproc::gate`.

use super::lint_map;
use crate::gate::{CheckCtx, Gate, GateReport, Neutered, SelfTest};

pub const GATE: &str = "preproc";

pub struct PreprocGate;

impl Gate for PreprocGate {
    fn name(&self) -> &'static str {
        GATE
    }

    fn description(&self) -> &'static str {
        "retired preprocessor switches stay retired; banned identifiers stay out (tracked files)"
    }

    fn skip_reason(&self, ctx: &CheckCtx) -> Option<String> {
        lints::diag::skip_reason(ctx.config.preproc.as_ref())
    }

    fn run(&self, ctx: &CheckCtx) -> GateReport {
        lint_map::run(GATE, ctx, ctx.config.preproc.as_ref(), |cfg| {
            lints::preproc::gate::outcome(&ctx.root, cfg)
        })
    }

    fn self_test(&self, neutered: &Neutered) -> SelfTest {
        crate::gate::self_test(lints::preproc::gate::run_controls(&|c| {
            neutered.contains(GATE, c)
        }))
    }
}
