//! Gate `regions`: untouched regions (MobileGL's G5). In `check` the subject is the working tree;
//! the baseline is each row's pinned SHA-256 and, when `base` is configured, that git ref for
//! unpinned rows. `mgctl lint regions BASE [HEAD]` compares two refs. The analysis, its config,
//! codes and controls live in `lints::regions`.

pub use lints::regions::cfg::{mobilegl_profile, RegionsConfig};
use lints::regions::check as regions;
use lints::source::Disk;

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
        match &ctx.config.regions {
            None => Some("no [regions] section in mgctl.toml".into()),
            Some(c) if c.regions.is_empty() => Some("[regions] lists no region".into()),
            Some(_) => None,
        }
    }

    fn run(&self, ctx: &CheckCtx) -> GateReport {
        let Some(cfg) = &ctx.config.regions else {
            return GateReport::skipped(GATE, "no [regions] section in mgctl.toml");
        };
        let src = Disk {
            root: ctx.root.clone(),
        };
        lint_map::report(GATE, ctx, regions::check(&src, cfg, &ctx.config_text))
    }

    fn self_test(&self, neutered: &Neutered) -> SelfTest {
        crate::gate::self_test(regions::run_controls(&|c| neutered.contains(GATE, c)))
    }

    fn live_controls(&self, ctx: &CheckCtx, neutered: &Neutered) -> Vec<Control> {
        let Some(cfg) = ctx
            .config
            .regions
            .as_ref()
            .filter(|c| !c.regions.is_empty())
        else {
            return vec![Control::not_configured()];
        };
        let src = Disk {
            root: ctx.root.clone(),
        };
        regions::live_controls(&src, cfg, &ctx.config_text, &|c| neutered.contains(GATE, c))
            .into_iter()
            .map(crate::gate::IntoControl::into_control)
            .collect()
    }
}
