//! Gate `counters`: every `[[counters.expect]]` contract over its logs (issue 20). Evaluation
//! lives in `stats_viewer::counters`; this file maps the outcome to findings.

use stats_viewer::counters;

use crate::gate::{Gate, GateReport};
use crate::section::SectionGate;

const GATE: &str = "counters";

pub fn gate() -> impl Gate {
    SectionGate::new(
        GATE,
        "device logs: every [[counters.expect]] contract holds per session and role (absent = fail)",
        "no [counters] section in mgctl.toml",
        |c| c.counters.as_ref(),
        |ctx, cfg| {
            let o = counters::run(&ctx.root, cfg);
            let (headline, broken) = (o.headline(), o.broken());
            let findings = o.findings.into_iter().map(|v| ctx.finding(GATE, v));
            let mut r = GateReport::from_findings(GATE, findings.collect(), headline)
                .figure("contracts", o.contracts)
                .figure("checks", o.checks)
                .figure("broken", broken);
            r.units = cfg.expect.iter().map(|c| c.name.clone()).collect();
            r.inputs = o.logs;
            r
        },
        counters::run_controls,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::Neutered;

    #[test]
    fn self_test_passes_and_can_fail() {
        assert!(gate().self_test(&Neutered::default()).passed());
        let mut n = Neutered::default();
        n.0.insert("counters/contract-broken".into());
        assert!(!gate().self_test(&n).passed());
    }
}
