//! Gate `commits`: MobileGL's commit style over a configured range (`mgctl lint commits RANGE`
//! checks any range by hand). The analysis, config and controls live in `lints::commits::gate`.

use crate::gate::{CheckCtx, Gate, GateReport, Neutered, SelfTest};

pub const GATE: &str = "commits";

pub struct CommitsGate;

impl Gate for CommitsGate {
    fn name(&self) -> &'static str {
        GATE
    }

    fn description(&self) -> &'static str {
        "commit messages: one line, `[Type] (Scope): description`, known Type, no attribution trailers"
    }

    fn skip_reason(&self, ctx: &CheckCtx) -> Option<String> {
        lints::diag::skip_reason(ctx.config.commits.as_ref())
    }

    fn run(&self, ctx: &CheckCtx) -> GateReport {
        let Some((cfg, range)) = ctx
            .config
            .commits
            .as_ref()
            .and_then(|c| c.range.as_ref().map(|r| (c, r)))
        else {
            return GateReport::skipped(GATE, "no [commits] range in mgctl.toml");
        };
        match lints::commits::gate::outcome(&ctx.root, range, &cfg.rules()) {
            Ok(o) => ctx.report(GATE, o),
            Err(why) => GateReport::skipped(GATE, why),
        }
    }

    fn self_test(&self, neutered: &Neutered) -> SelfTest {
        crate::gate::self_test(lints::commits::gate::run_controls(&|c| {
            neutered.contains(GATE, c)
        }))
    }
}
