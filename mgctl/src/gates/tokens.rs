//! Gate `tokens`: forbidden-token rules (MobileGL's purity gate C and stdio gate); the analysis,
//! its config and its controls live in `lints::tokens`.

pub use lints::tokens::cfg::{mobilegl_profile, TokensConfig};

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
        match &ctx.config.tokens {
            None => Some("no [tokens] section in mgctl.toml".into()),
            Some(c) if c.rules.is_empty() => Some("[tokens] has no rules".into()),
            Some(_) => None,
        }
    }

    fn run(&self, ctx: &CheckCtx) -> GateReport {
        let Some(cfg) = &ctx.config.tokens else {
            return GateReport::skipped(GATE, "no [tokens] section in mgctl.toml");
        };
        lint_map::report(GATE, ctx, lints::tokens::check(&ctx.root, cfg))
    }

    fn self_test(&self, neutered: &Neutered) -> SelfTest {
        crate::gate::self_test(lints::tokens::controls::run_controls(&|c| {
            neutered.contains(GATE, c)
        }))
    }

    fn live_controls(&self, ctx: &CheckCtx, neutered: &Neutered) -> Vec<Control> {
        let Some(cfg) = ctx.config.tokens.as_ref().filter(|c| !c.rules.is_empty()) else {
            return vec![Control::not_configured()];
        };
        let src = lints::source::Disk {
            root: ctx.root.clone(),
        };
        lints::tokens::live::live_controls(&src, cfg, &|c| neutered.contains(GATE, c))
            .into_iter()
            .map(crate::gate::IntoControl::into_control)
            .collect()
    }
}
