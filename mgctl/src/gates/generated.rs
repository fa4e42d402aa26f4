//! Gate `generated` (issue 33, mechanism 4): each `[[generated]]` generator, run in a throw-away
//! copy, writes exactly the committed outputs, and each `[[pin]]` holds. The analysis, its config
//! and its controls live in `lints::generated`.

use crate::gate::{CheckCtx, Control, Gate, GateReport, Neutered, SelfTest};

const GATE: &str = "generated";

pub struct GeneratedGate;

impl Gate for GeneratedGate {
    fn name(&self) -> &'static str {
        GATE
    }

    fn description(&self) -> &'static str {
        "generated files are what their generator writes today, and sha256 pins hold (issue 33)"
    }

    /// Copies the workspace and runs each generator.
    fn cost(&self) -> u32 {
        4
    }

    fn skip_reason(&self, ctx: &CheckCtx) -> Option<String> {
        (ctx.config.generated.is_empty() && ctx.config.pin.is_empty())
            .then(|| "no [[generated]] or [[pin]] in mgctl.toml".to_string())
    }

    fn run(&self, ctx: &CheckCtx) -> GateReport {
        let c = &ctx.config;
        ctx.report(
            GATE,
            lints::generated::check(&ctx.root, &c.generated, &c.pin),
        )
    }

    fn self_test(&self, neutered: &Neutered) -> SelfTest {
        crate::gate::self_test(lints::generated::controls::run_controls(&|c| {
            neutered.contains(GATE, c)
        }))
    }

    fn live_controls(&self, ctx: &CheckCtx, neutered: &Neutered) -> Vec<Control> {
        let c = &ctx.config;
        if c.generated.is_empty() && c.pin.is_empty() {
            return vec![Control::not_configured()];
        }
        lints::generated::controls::live_controls(&ctx.root, &c.generated, &c.pin, &|n| {
            neutered.contains(GATE, n)
        })
    }
}
