//! Gate `retrace`: MobileGL's G3 over the retrace runner's results, decided by
//! `stats_viewer::retrace` (case list × backends minus exclusions, each case once at or above its
//! SSIM threshold, the LFS preflight first, stale results never green); this file only maps its
//! `diag::Outcome` to a report. Docs: docs/retrace.md.

use stats_viewer::retrace;

use crate::gate::Gate;
use crate::section::SectionGate;

const GATE: &str = "retrace";

pub fn gate() -> impl Gate {
    SectionGate::new(
        GATE,
        "retrace results: every expected case once, SSIM at or above threshold, no LFS pointers, none stale (MobileGL G3)",
        "no [retrace] section in mgctl.toml",
        |c| c.retrace.as_ref(),
        |ctx, cfg| ctx.report(GATE, retrace::check(&ctx.root, cfg)),
        retrace::run_controls,
    )
    .live(|ctx, cfg, n| retrace::live_controls(&ctx.root, cfg, n))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::Neutered;

    #[test]
    fn self_test_passes_and_can_fail() {
        let st = gate().self_test(&Neutered::default());
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
            assert!(!gate().self_test(&n).passed(), "{c}");
        }
    }
}
