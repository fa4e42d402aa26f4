//! Gate `counters`: every `[[counters.expect]]` contract over its logs (issue 20). Evaluation
//! lives in `stats_viewer::counters`; this file maps the outcome to findings.

use stats_viewer::counters;

use crate::gate::{CheckCtx, Gate, GateReport, Neutered, SelfTest};

const GATE: &str = "counters";

pub struct CountersGate;

impl Gate for CountersGate {
    fn name(&self) -> &'static str {
        GATE
    }

    fn description(&self) -> &'static str {
        "device logs: every [[counters.expect]] contract holds per session and role (absent = fail)"
    }

    fn skip_reason(&self, ctx: &CheckCtx) -> Option<String> {
        ctx.config
            .counters
            .is_none()
            .then(|| "no [counters] section in mgctl.toml".to_string())
    }

    fn run(&self, ctx: &CheckCtx) -> GateReport {
        let Some(cfg) = &ctx.config.counters else {
            return GateReport::skipped(GATE, "no [counters] section in mgctl.toml");
        };
        let o = counters::run(&ctx.root, cfg);
        let (headline, broken) = (o.headline(), o.broken());
        let findings = o
            .findings
            .into_iter()
            .map(|v| ctx.finding(GATE, v))
            .collect();
        let mut r = GateReport::from_findings(GATE, findings, headline)
            .figure("contracts", o.contracts)
            .figure("checks", o.checks)
            .figure("broken", broken);
        r.units = cfg.expect.iter().map(|c| c.name.clone()).collect();
        r.inputs = o.logs;
        r
    }

    fn self_test(&self, neutered: &Neutered) -> SelfTest {
        crate::gate::self_test(counters::run_controls(&|c| neutered.contains(GATE, c)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn self_test_passes_and_can_fail() {
        assert!(CountersGate.self_test(&Neutered::default()).passed());
        let mut n = Neutered::default();
        n.0.insert("counters/contract-broken".into());
        assert!(!CountersGate.self_test(&n).passed());
    }
}
