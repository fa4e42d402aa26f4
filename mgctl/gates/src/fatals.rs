//! Gate `fatals`: MobileGL's G4 over the configured device/test logs, decided by
//! `stats_viewer::g4` (the same verdict `mgctl stats fatals --verify` prints); this file only maps
//! it to findings.

use stats_viewer::g4;

use crate::gate::{Gate, GateReport};
use crate::section::SectionGate;

const GATE: &str = "fatals";

pub fn gate() -> impl Gate {
    SectionGate::new(
        GATE,
        "device/test logs: zero Fatal{…} lines, and every log armed verify (MobileGL G4)",
        "no [fatals] section in mgctl.toml",
        |c| c.fatals.as_ref(),
        |ctx, cfg| {
            let run = match g4::check(&ctx.root, cfg) {
                Ok(r) => r,
                Err(e) => {
                    return GateReport::could_not_run(GATE, e.code().as_str(), e.to_string(), None)
                }
            };
            let findings = run.violations().into_iter().map(|v| ctx.finding(GATE, v));
            let mut r = GateReport::from_findings(GATE, findings.collect(), run.headline())
                .figure("logs", run.logs.len())
                .figure("windows", run.windows())
                .figure("fatal_lines", run.fatal_lines())
                .figure("armed", run.armed());
            r.units = run.rels();
            r.inputs = run.rels();
            r
        },
        g4::run_controls,
    )
    .live(|ctx, cfg, n| g4::live_controls(&ctx.root, cfg, n))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::Neutered;

    #[test]
    fn self_test_passes_and_can_fail() {
        let st = gate().self_test(&Neutered::default());
        assert!(st.passed(), "{st:?}");
        let mut n = Neutered::default();
        n.0.insert("fatals/fatal-line".into());
        assert!(!gate().self_test(&n).passed());
    }
}
