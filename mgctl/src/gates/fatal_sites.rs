//! Gate `fatal-sites`: maps the fatal census (library: `lints::fatal_sites`; upstream:
//! `scripts/ci/fatal_census.py`) to findings.

use lints::fatal_sites;

use super::lint_map;
use crate::gate::{CheckCtx, Control, Gate, GateReport, Neutered, SelfTest};

pub const GATE: &str = "fatal-sites";

pub struct FatalSitesGate;

impl Gate for FatalSitesGate {
    fn name(&self) -> &'static str {
        GATE
    }

    fn description(&self) -> &'static str {
        "every std::abort() and WireLogFatal( under MG_Remote names a Fatal{Family} the baseline records"
    }

    fn skip_reason(&self, ctx: &CheckCtx) -> Option<String> {
        lints::diag::skip_reason(ctx.config.fatal_sites.as_ref())
    }

    fn run(&self, ctx: &CheckCtx) -> GateReport {
        lint_map::run(GATE, ctx, ctx.config.fatal_sites.as_ref(), |cfg| {
            fatal_sites::report::outcome(&ctx.root, cfg)
        })
    }

    fn self_test(&self, neutered: &Neutered) -> SelfTest {
        crate::gate::self_test(fatal_sites::run_controls(&|c| neutered.contains(GATE, c)))
    }

    fn live_controls(&self, ctx: &CheckCtx, neutered: &Neutered) -> Vec<Control> {
        lint_map::live(ctx.config.fatal_sites.as_ref(), |cfg| {
            let src = lint_map::disk(ctx);
            fatal_sites::live_controls(&src, cfg, &|c| neutered.contains(GATE, c))
        })
    }
}
