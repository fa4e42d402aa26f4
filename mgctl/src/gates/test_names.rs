//! Gate `test-names`: the registered ctest names (MobileGL's G2 and G14). The current list must
//! keep every name of the checked-in baseline (ratchet) and equal each `same_as` list. The
//! analysis, config and controls live in `lints::test_names::gate`.

use super::lint_map;
use crate::gate::{CheckCtx, Gate, GateReport, Neutered, SelfTest};

pub const GATE: &str = "test-names";

pub struct TestNamesGate;

impl Gate for TestNamesGate {
    fn name(&self) -> &'static str {
        GATE
    }

    fn description(&self) -> &'static str {
        "registered ctest names: none removed against the baseline (G14), pull = push (G2)"
    }

    fn skip_reason(&self, ctx: &CheckCtx) -> Option<String> {
        lints::diag::skip_reason(ctx.config.test_names.as_ref())
    }

    fn run(&self, ctx: &CheckCtx) -> GateReport {
        lint_map::run(GATE, ctx, ctx.config.test_names.as_ref(), |cfg| {
            lints::test_names::gate::outcome(&ctx.root, cfg)
        })
    }

    fn self_test(&self, neutered: &Neutered) -> SelfTest {
        crate::gate::self_test(lints::test_names::gate::run_controls(&|c| {
            neutered.contains(GATE, c)
        }))
    }
}
