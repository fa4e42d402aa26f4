//! Gate `controls` (G7/G12): every `[[control]]` runs baseline green → perturbed red (with its
//! evidence) → restored green in a throw-away copy of the workspace. The runner, its config and
//! its controls live in `lints::control`.

use crate::gate::{CheckCtx, Control, Gate, GateReport, Neutered, SelfTest};

pub const GATE: &str = "controls";

pub struct ControlsGate;

impl Gate for ControlsGate {
    fn name(&self) -> &'static str {
        GATE
    }

    fn description(&self) -> &'static str {
        "negative controls: each [[control]] is green, red with its evidence when perturbed, green again, tree unchanged (G7/G12)"
    }

    /// Runs each control's command three times.
    fn cost(&self) -> u32 {
        8
    }

    fn skip_reason(&self, ctx: &CheckCtx) -> Option<String> {
        ctx.config
            .control
            .is_empty()
            .then(|| "no [[control]] in mgctl.toml".to_string())
    }

    fn artifacts(&self, ctx: &CheckCtx) -> Vec<String> {
        lints::control::cfg::artifacts(&ctx.config.control, None)
    }

    fn run(&self, ctx: &CheckCtx) -> GateReport {
        ctx.report(
            GATE,
            lints::control::check(&ctx.root, &ctx.config.control, None),
        )
    }

    fn self_test(&self, neutered: &Neutered) -> SelfTest {
        crate::gate::self_test(lints::control::controls::run_controls(&|c| {
            neutered.contains(GATE, c)
        }))
    }

    fn live_controls(&self, _ctx: &CheckCtx, neutered: &Neutered) -> Vec<Control> {
        lints::control::controls::live_controls(&|c| neutered.contains(GATE, c))
    }
}
