//! Gate `dirty-surface`: maps the library's `--check` outcome to findings (library:
//! `dirty_surface`; upstream: `scripts/gen_pipe_dirty_surface.py --check`).

use dirty_surface::audit;
use dirty_surface::selftest;
use dirty_surface::surface::Mode;
use dirty_surface::Code;

use crate::gate::{CheckCtx, Control, Gate, GateReport, Location, Neutered, SelfTest};

const GATE: &str = "dirty-surface";

pub struct DirtySurfaceGate;

impl Gate for DirtySurfaceGate {
    fn name(&self) -> &'static str {
        GATE
    }

    /// The longest gate: lexes and analyses every scanned and written file.
    fn cost(&self) -> u32 {
        8
    }

    fn description(&self) -> &'static str {
        "every frontend mutator mapped in DirtySurface.def to what publishes it; render and shutter answers derived"
    }

    fn skip_reason(&self, ctx: &CheckCtx) -> Option<String> {
        ctx.config
            .dirty_surface
            .is_none()
            .then(|| "no [dirty_surface] section in mgctl.toml".to_string())
    }

    fn run(&self, ctx: &CheckCtx) -> GateReport {
        let Some(cfg) = &ctx.config.dirty_surface else {
            return GateReport::skipped(GATE, "no [dirty_surface] section in mgctl.toml");
        };
        let settings = match cfg.settings() {
            Ok(s) => s,
            Err(e) => {
                return GateReport::could_not_run(
                    GATE,
                    Code::Dsf012.as_str(),
                    e,
                    ctx.config_path.as_ref().map(|p| Location::file(ctx.rel(p))),
                )
            }
        };
        let run = match audit::check(&ctx.root, &settings, Mode::Accurate) {
            Ok(run) => run,
            Err(e) => {
                return GateReport::could_not_run(GATE, Code::Dsf012.as_str(), e.to_string(), None)
            }
        };
        let findings = run.violations().into_iter().map(|v| ctx.finding(GATE, v));
        let mut gr = GateReport::from_findings(GATE, findings.collect(), run.summary.clone());
        for (name, v) in run.figures() {
            gr = gr.figure(name, v);
        }
        gr.units = run.first_site.keys().cloned().collect();
        gr.inputs = run.inputs.clone();
        gr
    }

    fn self_test(&self, neutered: &Neutered) -> SelfTest {
        crate::gate::self_test(selftest::run_controls(&|c| neutered.contains(GATE, c)))
    }

    fn live_controls(&self, ctx: &CheckCtx, neutered: &Neutered) -> Vec<Control> {
        let Some(cfg) = &ctx.config.dirty_surface else {
            return vec![Control::not_configured()];
        };
        dirty_surface::live::live_controls_for(&ctx.root, cfg, &|c| neutered.contains(GATE, c))
            .into_iter()
            .collect()
    }
}
