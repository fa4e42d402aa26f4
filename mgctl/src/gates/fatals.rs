//! Gate `fatals`: MobileGL's G4 over the configured device/test logs, decided by
//! `stats_viewer::g4` (the same verdict `mgctl stats fatals --verify` prints); this file only maps
//! it to findings.

use stats_viewer::g4;

use crate::gate::{CheckCtx, Control, Gate, GateReport, Neutered, SelfTest};

const GATE: &str = "fatals";

pub struct FatalsGate;

impl Gate for FatalsGate {
    fn name(&self) -> &'static str {
        GATE
    }

    fn description(&self) -> &'static str {
        "device/test logs: zero Fatal{…} lines, and every log armed verify (MobileGL G4)"
    }

    fn skip_reason(&self, ctx: &CheckCtx) -> Option<String> {
        ctx.config
            .fatals
            .is_none()
            .then(|| "no [fatals] section in mgctl.toml".to_string())
    }

    fn run(&self, ctx: &CheckCtx) -> GateReport {
        let Some(cfg) = &ctx.config.fatals else {
            return GateReport::skipped(GATE, "no [fatals] section in mgctl.toml");
        };
        let run = match g4::check(&ctx.root, cfg) {
            Ok(r) => r,
            Err(e) => {
                return GateReport::could_not_run(GATE, e.code().as_str(), e.to_string(), None)
            }
        };
        let findings = run.violations().into_iter().map(|v| ctx.finding(GATE, v));
        let findings = findings.collect();
        let mut r = GateReport::from_findings(GATE, findings, run.headline())
            .figure("logs", run.logs.len())
            .figure("windows", run.windows())
            .figure("fatal_lines", run.fatal_lines())
            .figure("armed", run.armed());
        r.units = run.rels();
        r.inputs = run.rels();
        r
    }

    fn self_test(&self, neutered: &Neutered) -> SelfTest {
        crate::gate::self_test(g4::run_controls(&|c| neutered.contains(GATE, c)))
    }

    fn live_controls(&self, ctx: &CheckCtx, neutered: &Neutered) -> Vec<Control> {
        let Some(cfg) = &ctx.config.fatals else {
            return vec![Control::not_configured()];
        };
        g4::live_controls(&ctx.root, cfg, &|c| neutered.contains(GATE, c))
            .into_iter()
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn self_test_passes_and_can_fail() {
        let st = FatalsGate.self_test(&Neutered::default());
        assert!(st.passed(), "{st:?}");
        let mut n = Neutered::default();
        n.0.insert("fatals/fatal-line".into());
        assert!(!FatalsGate.self_test(&n).passed());
    }
}
