//! Gate `tokens`: forbidden-token rules (MobileGL's purity gate C and stdio gate); the analysis,
//! its config and its controls live in `lints::tokens`.

use super::lint_map;
use crate::gate::{CheckCtx, Control, Gate, GateReport, Neutered, SelfTest};

const GATE: &str = "tokens";

pub struct TokensGate;

impl Gate for TokensGate {
    fn name(&self) -> &'static str {
        GATE
    }

    fn description(&self) -> &'static str {
        "forbidden identifiers and patterns per path glob (purity gate C, stdio instrumentation)"
    }

    fn skip_reason(&self, ctx: &CheckCtx) -> Option<String> {
        lints::diag::skip_reason(ctx.config.tokens.as_ref())
    }

    fn run(&self, ctx: &CheckCtx) -> GateReport {
        lint_map::run(GATE, ctx, ctx.config.tokens.as_ref(), |cfg| {
            lints::tokens::check(&ctx.root, cfg)
        })
    }

    fn self_test(&self, neutered: &Neutered) -> SelfTest {
        crate::gate::self_test(lints::tokens::controls::run_controls(&|c| {
            neutered.contains(GATE, c)
        }))
    }

    fn live_controls(&self, ctx: &CheckCtx, neutered: &Neutered) -> Vec<Control> {
        lint_map::live(ctx.config.tokens.as_ref(), |cfg| {
            let src = lint_map::disk(ctx);
            lints::tokens::live::live_controls(&src, cfg, &|c| neutered.contains(GATE, c))
        })
    }
}
