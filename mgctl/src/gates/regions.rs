//! Gate `regions`: untouched regions (MobileGL's G5). In `check` the subject is the working tree;
//! the baseline is each row's pinned SHA-256 and, when `base` is configured, that git ref for
//! unpinned rows. `mgctl lint regions BASE [HEAD]` compares two refs. The analysis, its config,
//! codes and controls live in `lints::regions`.

use lints::regions::check as regions;

use super::lint_map;
use crate::gate::{CheckCtx, Control, Gate, GateReport, Neutered, SelfTest};

pub const GATE: &str = "regions";

pub struct RegionsGate;

impl Gate for RegionsGate {
    fn name(&self) -> &'static str {
        GATE
    }

    fn description(&self) -> &'static str {
        "untouched regions: protected function/namespace bodies hash to their pins (G5)"
    }

    fn skip_reason(&self, ctx: &CheckCtx) -> Option<String> {
        lints::diag::skip_reason(ctx.config.regions.as_ref())
    }

    fn run(&self, ctx: &CheckCtx) -> GateReport {
        lint_map::run(GATE, ctx, ctx.config.regions.as_ref(), |cfg| {
            regions::check(&lint_map::disk(ctx), cfg, &ctx.config_text)
        })
    }

    fn self_test(&self, neutered: &Neutered) -> SelfTest {
        crate::gate::self_test(regions::run_controls(&|c| neutered.contains(GATE, c)))
    }

    fn live_controls(&self, ctx: &CheckCtx, neutered: &Neutered) -> Vec<Control> {
        lint_map::live(ctx.config.regions.as_ref(), |cfg| {
            let src = lint_map::disk(ctx);
            regions::live_controls(&src, cfg, &ctx.config_text, &|c| neutered.contains(GATE, c))
        })
    }
}
