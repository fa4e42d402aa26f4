//! Gate `test-names`: the registered ctest names (MobileGL's G2 and G14). The current list must
//! keep every name of the checked-in baseline (ratchet) and equal each `same_as` list. The
//! analysis, config and controls live in `lints::test_names::gate`.

pub use lints::test_names::gate::{mobilegl_profile, TestNamesConfig};

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
        match &ctx.config.test_names {
            None => Some("no [test_names] section in mgctl.toml".into()),
            Some(c) if c.baseline.is_none() && c.same_as.is_empty() => {
                Some("[test_names] has neither a baseline nor same_as lists to compare with".into())
            }
            Some(_) => None,
        }
    }

    fn run(&self, ctx: &CheckCtx) -> GateReport {
        let Some(cfg) = &ctx.config.test_names else {
            return GateReport::skipped(GATE, "no [test_names] section in mgctl.toml");
        };
        lint_map::report(GATE, ctx, lints::test_names::gate::outcome(&ctx.root, cfg))
    }

    fn self_test(&self, neutered: &Neutered) -> SelfTest {
        crate::gate::self_test(lints::test_names::gate::run_controls(&|c| {
            neutered.contains(GATE, c)
        }))
    }
}
