//! Gate `budgets`: every `[[budget]]` of mgctl.toml over its inputs, pinned before its run
//! (issue 20). Evaluation lives in `stats_viewer::budget`, the git facts in `lints::pin`; this
//! file maps the outcome to findings.

use stats_viewer::budget::{self, PinQuery, Workspace};

use crate::gate::{Gate, GateReport};
use crate::section::SectionGate;

const GATE: &str = "budgets";

pub fn gate() -> impl Gate {
    SectionGate::new(
        GATE,
        "run artifacts: every [[budget]] holds on its inputs and was pinned before its run",
        "no [[budget]] in mgctl.toml",
        |c| (!c.budget.is_empty()).then_some(&c.budget),
        |ctx, budgets| {
            let config_rel = ctx.config_path.as_ref().map(|p| ctx.rel(p));
            let ws = Workspace {
                root: &ctx.root,
                config_rel: config_rel.as_deref(),
                config_text: &ctx.config_text,
            };
            let pinner = lints::pin::Pinner::new(&ctx.root);
            let pin = |q: &PinQuery<'_>| pinner.check(q.config, q.lines, q.inputs);
            let o = budget::run(&ws, budgets, &pin);
            let n = budgets.len();
            let (headline, measured, exceeded) = (o.headline(n), o.measurements(), o.exceeded());
            let findings = o.findings.into_iter().map(|v| ctx.finding(GATE, v));
            let mut r = GateReport::from_findings(GATE, findings.collect(), headline)
                .figure("budgets", n)
                .figure("measurements", measured)
                .figure("exceeded", exceeded);
            r.units = o.names;
            r.inputs = o.inputs;
            r
        },
        budget::run_controls,
    )
    // Lists HEAD's whole history for the pins.
    .cost(6)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::Neutered;

    #[test]
    fn a_violation_maps_field_for_field() {
        use crate::gate::{Finding, Location};
        use diag::Severity;
        use stats_viewer::violation::Violation;
        let v = Violation::note(stats_viewer::budget::Code::Bud007, "m")
            .at("mgctl.toml", 3, None)
            .in_unit("b")
            .with_detail(serde_json::json!({"k": 1}));
        let r = GateReport::from_findings(GATE, vec![Finding::from(v.clone())], "");
        let f = &r.findings[0];
        assert_eq!(
            (f.gate, f.code, f.severity),
            (GATE, "BUD007", Severity::Note)
        );
        assert_eq!((f.message.as_str(), f.unit.as_deref()), ("m", Some("b")));
        assert_eq!(f.location, Some(Location::at("mgctl.toml", 3, None)));
        assert_eq!(f.detail, v.detail);
        let f = Finding::from(v.clone().file("mgctl.toml"));
        assert_eq!(f.location, Some(Location::file("mgctl.toml")));
        let f = Finding::from(Violation {
            location: None,
            ..v
        });
        assert_eq!(f.location, None);
    }

    #[test]
    fn self_test_passes_and_can_fail() {
        assert!(gate().self_test(&Neutered::default()).passed());
        let mut n = Neutered::default();
        n.0.insert("budgets/edited-after-data".into());
        assert!(!gate().self_test(&n).passed());
    }
}
