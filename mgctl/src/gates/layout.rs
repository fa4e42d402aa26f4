//! Gate `layout` (G10, the `ResidualValueBlock` tripwire): every data member of a configured
//! struct has a `static_assert(offsetof(…))`, and each configured size macro is a ratchet (at most
//! its `max`, never above its value at `[layout] base`). The analysis, its config and its
//! controls live in `lints::layout`.

use lints::layout::check::{Base, GitBase};

use crate::gate::{CheckCtx, Control, Gate, GateReport, Neutered, SelfTest};

const GATE: &str = "layout";

pub struct LayoutGate;

impl Gate for LayoutGate {
    fn name(&self) -> &'static str {
        GATE
    }

    fn description(&self) -> &'static str {
        "struct layout tripwires: an offsetof assertion per data member, size macros that only go down (G10)"
    }

    fn skip_reason(&self, ctx: &CheckCtx) -> Option<String> {
        lints::diag::skip_reason(ctx.config.layout.as_ref())
    }

    fn run(&self, ctx: &CheckCtx) -> GateReport {
        match ctx.config.layout.as_ref() {
            None => GateReport::skipped(GATE, "no [layout] section in mgctl.toml"),
            Some(cfg) => ctx.report(GATE, lints::layout::check(&ctx.root, cfg)),
        }
    }

    fn self_test(&self, neutered: &Neutered) -> SelfTest {
        crate::gate::self_test(lints::layout::controls::run_controls(&|c| {
            neutered.contains(GATE, c)
        }))
    }

    fn live_controls(&self, ctx: &CheckCtx, neutered: &Neutered) -> Vec<Control> {
        let Some(cfg) = ctx
            .config
            .layout
            .as_ref()
            .filter(|c| lints::diag::Section::nothing_to_check(*c).is_none())
        else {
            return vec![Control::not_configured()];
        };
        let src = super::lint_map::disk(ctx);
        let base = cfg
            .base
            .as_ref()
            .map(|b| GitBase::open(&ctx.root, b.get_ref()));
        lints::layout::live::live_controls(&src, base.as_ref().map(|b| b as &dyn Base), cfg, &|c| {
            neutered.contains(GATE, c)
        })
    }
}
