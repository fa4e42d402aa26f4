//! Gate `test-sets` (issue 33, mechanism 2): set rules over the normalised test lists of several
//! lanes — equal groups (split = spawn = tcp) and subsets with an exemption table (monolith ⊆
//! split ∪ exempt). The analysis, config and controls live in `lints::test_sets`.

use super::lint_map;
use crate::gate::{CheckCtx, Control, Gate, GateReport, Neutered, SelfTest};

pub const GATE: &str = "test-sets";

pub struct TestSetsGate;

impl Gate for TestSetsGate {
    fn name(&self) -> &'static str {
        GATE
    }

    fn description(&self) -> &'static str {
        "normalised test lists per lane: equal groups, subsets with owned exemptions, no empty or stale set"
    }

    fn skip_reason(&self, ctx: &CheckCtx) -> Option<String> {
        lints::diag::skip_reason(ctx.config.test_sets.as_ref())
    }

    fn run(&self, ctx: &CheckCtx) -> GateReport {
        lint_map::run(GATE, ctx, ctx.config.test_sets.as_ref(), |cfg| {
            lints::test_sets::outcome(&ctx.root, cfg)
        })
    }

    fn self_test(&self, neutered: &Neutered) -> SelfTest {
        crate::gate::self_test(lints::test_sets::controls::run_controls(&|c| {
            neutered.contains(GATE, c)
        }))
    }

    fn live_controls(&self, ctx: &CheckCtx, neutered: &Neutered) -> Vec<Control> {
        lint_map::live(ctx.config.test_sets.as_ref(), |cfg| {
            lints::test_sets::controls::live(&ctx.root, cfg, &|c| neutered.contains(GATE, c))
        })
    }
}
