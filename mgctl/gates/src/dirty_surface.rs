//! Gate `dirty-surface`: maps the library's `--check` outcome to findings (library:
//! `dirty_surface`; upstream: `scripts/gen_pipe_dirty_surface.py --check`).

use dirty_surface::surface::Mode;
use dirty_surface::{audit, selftest, Code};

use crate::gate::{Gate, GateReport, Location};
use crate::section::SectionGate;

const GATE: &str = "dirty-surface";

pub fn gate() -> impl Gate {
    SectionGate::new(
        GATE,
        "every frontend mutator mapped in DirtySurface.def to what publishes it; render and shutter answers derived",
        "no [dirty_surface] section in mgctl.toml",
        |c| c.dirty_surface.as_ref(),
        |ctx, cfg| {
            let settings = match cfg.settings() {
                Ok(s) => s,
                Err(e) => {
                    let at = ctx.config_path.as_ref().map(|p| Location::file(ctx.rel(p)));
                    let e = e.to_string();
                    return GateReport::could_not_run(GATE, Code::Dsf012.as_str(), e, at);
                }
            };
            let run = match audit::check(&ctx.root, &settings, Mode::Accurate) {
                Ok(run) => run,
                Err(e) => {
                    let e = e.to_string();
                    return GateReport::could_not_run(GATE, Code::Dsf012.as_str(), e, None);
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
        },
        selftest::run_controls,
    )
    .live(|ctx, cfg, n| dirty_surface::live::live_controls_for(&ctx.root, cfg, n))
    // The longest gate: lexes and analyses every scanned and written file.
    .cost(8)
}
