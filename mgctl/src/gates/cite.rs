//! Gate `cite`: every `path:line` citation in the design docs still points at the code it names.
//! The analysis, its config and its controls live in `lints::cite`.

use super::lint_map;
use crate::gate::{CheckCtx, Gate, GateReport, Neutered, SelfTest};

const GATE: &str = "cite";

pub struct CiteGate;

impl Gate for CiteGate {
    fn name(&self) -> &'static str {
        GATE
    }

    fn description(&self) -> &'static str {
        "every path:line citation in the design docs resolves, is in range and still shows the code it names"
    }

    fn skip_reason(&self, ctx: &CheckCtx) -> Option<String> {
        lints::diag::skip_reason(ctx.config.cite.as_ref())
    }

    fn run(&self, ctx: &CheckCtx) -> GateReport {
        lint_map::run(GATE, ctx, ctx.config.cite.as_ref(), |cfg| {
            lints::cite::outcome(&ctx.root, cfg)
        })
    }

    fn self_test(&self, neutered: &Neutered) -> SelfTest {
        crate::gate::self_test(lints::cite::controls::run_controls(&|c| {
            neutered.contains(GATE, c)
        }))
    }
}
