//! Gate `fatal-sites`: maps the fatal census (library: `lints::fatal_sites`; upstream:
//! `scripts/ci/fatal_census.py`) to findings.

use lints::fatal_sites::{self, Census, Code};

use crate::gate::{CheckCtx, Control, Finding, Gate, GateReport, Location, Neutered, SelfTest};

pub use lints::fatal_sites::cfg::{mobilegl_profile, FatalSitesConfig};

const GATE: &str = "fatal-sites";

/// One error finding per unmarked abort, unnamed funnel call and unrecorded family.
fn findings(c: &Census) -> Vec<Finding> {
    c.problems
        .iter()
        .map(|p| {
            Finding::error(GATE, p.code.as_str(), p.message.clone())
                .at(Location::at(p.path.clone(), p.line as u32, None))
                .in_unit(p.path.clone())
        })
        .collect()
}

pub struct FatalSitesGate;

impl Gate for FatalSitesGate {
    fn name(&self) -> &'static str {
        GATE
    }

    fn description(&self) -> &'static str {
        "every std::abort() and WireLogFatal( under MG_Remote names a Fatal{Family} the baseline records"
    }

    fn skip_reason(&self, ctx: &CheckCtx) -> Option<String> {
        ctx.config
            .fatal_sites
            .is_none()
            .then(|| "no [fatal_sites] section in mgctl.toml".to_string())
    }

    fn run(&self, ctx: &CheckCtx) -> GateReport {
        let Some(cfg) = &ctx.config.fatal_sites else {
            return GateReport::skipped(GATE, "no [fatal_sites] section in mgctl.toml");
        };
        let c = match fatal_sites::census(&ctx.root, cfg, true) {
            Ok(c) => c,
            Err(e) => {
                return GateReport::could_not_run(GATE, Code::Fsi004.as_str(), e.to_string(), None)
            }
        };
        let mut gr = GateReport::from_findings(GATE, findings(&c), c.headline())
            .figure("files", c.files)
            .figure("abort_sites", c.abort_sites.len())
            .figure("families", c.families.len())
            .figure("unmarked", c.unmarked);
        gr.units = c.inputs.clone();
        gr.inputs = c.inputs;
        gr
    }

    fn self_test(&self, neutered: &Neutered) -> SelfTest {
        crate::gate::self_test(fatal_sites::run_controls(&|c| neutered.contains(GATE, c)))
    }

    fn live_controls(&self, ctx: &CheckCtx, neutered: &Neutered) -> Vec<Control> {
        let Some(cfg) = &ctx.config.fatal_sites else {
            return vec![Control::not_configured()];
        };
        let src = lints::source::Disk {
            root: ctx.root.clone(),
        };
        fatal_sites::live_controls(&src, cfg, &|c| neutered.contains(GATE, c))
            .into_iter()
            .map(crate::gate::IntoControl::into_control)
            .collect()
    }
}
