//! Gate `retrace`: MobileGL's G3 over the retrace runner's results, decided by
//! `stats_viewer::retrace` (case list × backends minus exclusions, each case once at or above its
//! SSIM threshold, the LFS preflight first, stale results never green); this file only maps its
//! `diag::Outcome` to a report. Docs: docs/retrace.md.

use stats_viewer::retrace;

use crate::gate::{CheckCtx, Control, Gate, GateReport, Neutered, SelfTest};

const GATE: &str = "retrace";

pub struct RetraceGate;

impl Gate for RetraceGate {
    fn name(&self) -> &'static str {
        GATE
    }

    fn description(&self) -> &'static str {
        "retrace results: every expected case once, SSIM at or above threshold, no LFS pointers, none stale (MobileGL G3)"
    }

    fn skip_reason(&self, ctx: &CheckCtx) -> Option<String> {
        ctx.config
            .retrace
            .is_none()
            .then(|| "no [retrace] section in mgctl.toml".to_string())
    }

    fn run(&self, ctx: &CheckCtx) -> GateReport {
        let Some(cfg) = &ctx.config.retrace else {
            return GateReport::skipped(GATE, "no [retrace] section in mgctl.toml");
        };
        ctx.report(GATE, retrace::check(&ctx.root, cfg))
    }

    fn self_test(&self, neutered: &Neutered) -> SelfTest {
        crate::gate::self_test(retrace::run_controls(&|c| neutered.contains(GATE, c)))
    }

    fn live_controls(&self, ctx: &CheckCtx, neutered: &Neutered) -> Vec<Control> {
        let Some(cfg) = &ctx.config.retrace else {
            return vec![Control::not_configured()];
        };
        retrace::live_controls(&ctx.root, cfg, &|c| neutered.contains(GATE, c))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn self_test_passes_and_can_fail() {
        let st = RetraceGate.self_test(&Neutered::default());
        assert!(st.passed(), "{st:?}");
        for c in [
            "below-threshold",
            "missing-case",
            "zero-selected",
            "ssim-none",
            "lfs-pointers",
        ] {
            let mut n = Neutered::default();
            n.0.insert(format!("retrace/{c}"));
            assert!(!RetraceGate.self_test(&n).passed(), "{c}");
        }
    }
}
