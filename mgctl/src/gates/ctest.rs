//! Gate `ctest` (G6/G8, the ctest expectations and the skip ratchet): every lane's ctest JUnit
//! covers its `-N` listing, named entries have their expected outcome (an expectation that
//! matches nothing fails), failed entries are findings at their source line, and the status
//! baseline by lane and name lets skips only shrink and names only grow. The analysis, its
//! config and its controls live in `lints::ctest`.

use lints::ctest::check::Disk;

use super::lint_map;
use crate::gate::{CheckCtx, Control, Gate, GateReport, Neutered, SelfTest};

pub const GATE: &str = "ctest";

pub struct CtestGate;

impl Gate for CtestGate {
    fn name(&self) -> &'static str {
        GATE
    }

    fn description(&self) -> &'static str {
        "ctest JUnit per lane: named entries pass (or fail), nothing matches nothing, skips only shrink against the baseline (G6/G8)"
    }

    fn skip_reason(&self, ctx: &CheckCtx) -> Option<String> {
        lints::diag::skip_reason(ctx.config.ctest.as_ref())
    }

    fn run(&self, ctx: &CheckCtx) -> GateReport {
        lint_map::run(GATE, ctx, ctx.config.ctest.as_ref(), |cfg| {
            lints::ctest::check(&ctx.root, cfg)
        })
    }

    fn self_test(&self, neutered: &Neutered) -> SelfTest {
        crate::gate::self_test(lints::ctest::controls::run_controls(&|c| {
            neutered.contains(GATE, c)
        }))
    }

    fn live_controls(&self, ctx: &CheckCtx, neutered: &Neutered) -> Vec<Control> {
        lint_map::live(ctx.config.ctest.as_ref(), |cfg| {
            lints::ctest::controls::live_controls(&Disk(ctx.root.clone()), cfg, &|c| {
                neutered.contains(GATE, c)
            })
        })
    }
}
