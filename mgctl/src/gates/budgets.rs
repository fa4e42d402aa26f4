//! Gate `budgets`: every `[[budget]]` of mgctl.toml over its inputs, pinned before its run
//! (issue 20). Evaluation lives in `stats_viewer::budget`, the git facts in `lints::pin`; this
//! file maps the outcome to findings.

use stats_viewer::budget::{self, Code, Pin, PinQuery, Workspace};

use crate::gate::{CheckCtx, Finding, Gate, GateReport, Location, Neutered, SelfTest};

pub use stats_viewer::budget::BudgetConfig;

const GATE: &str = "budgets";

/// A MobileGL checkout commits no run artifacts (device runs live in per-lane result
/// directories), so the built-in profile pins no budget: the gate is skipped, saying so.
pub fn mobilegl_profile() -> Vec<BudgetConfig> {
    Vec::new()
}

/// A library finding as a gate finding (shared with the counters gate).
pub(crate) fn finding(
    gate: &'static str,
    code: &'static str,
    error: bool,
    message: String,
    unit: &str,
    path: Option<&str>,
    line: Option<usize>,
) -> Finding {
    let f = if error {
        Finding::error(gate, code, message)
    } else {
        Finding::note(gate, code, message)
    };
    let f = f.in_unit(unit);
    match (path, line) {
        (Some(p), Some(l)) => f.at(Location::at(p, u32::try_from(l).unwrap_or(u32::MAX), None)),
        (Some(p), None) => f.at(Location::file(p)),
        _ => f,
    }
}

pub struct BudgetsGate;

impl Gate for BudgetsGate {
    fn name(&self) -> &'static str {
        GATE
    }

    fn description(&self) -> &'static str {
        "run artifacts: every [[budget]] holds on its inputs and was pinned before its run"
    }

    fn skip_reason(&self, ctx: &CheckCtx) -> Option<String> {
        ctx.config
            .budget
            .is_empty()
            .then(|| "no [[budget]] in mgctl.toml".to_string())
    }

    fn run(&self, ctx: &CheckCtx) -> GateReport {
        let config_rel = ctx.config_path.as_ref().map(|p| ctx.rel(p));
        let ws = Workspace {
            root: &ctx.root,
            config_rel: config_rel.as_deref(),
            config_text: &ctx.config_text,
        };
        let pinner = lints::pin::Pinner::new(&ctx.root);
        let pin = |q: &PinQuery<'_>| match pinner.check(q.config, q.lines, q.inputs) {
            lints::pin::Pin::Pinned { budget, inputs } => Pin::Pinned { budget, inputs },
            lints::pin::Pin::EditedAfter { budget, inputs } => Pin::EditedAfter { budget, inputs },
            lints::pin::Pin::NotChecked(why) => Pin::NotChecked(why),
        };
        let o = budget::run(&ws, &ctx.config.budget, &pin);
        let findings: Vec<Finding> = o
            .findings
            .into_iter()
            .map(|f| {
                finding(
                    GATE,
                    f.code.as_str(),
                    f.code.is_error(),
                    f.message,
                    &f.budget,
                    f.path.as_deref(),
                    f.line,
                )
            })
            .collect();
        let measured: usize = o.verdicts.iter().map(|v| v.measured.len()).sum();
        let failed = findings
            .iter()
            .filter(|f| f.code == Code::Bud001.as_str())
            .count();
        let mut r = GateReport::from_findings(
            GATE,
            findings,
            format!(
                "{} budgets / {measured} measurements / {failed} exceeded",
                ctx.config.budget.len()
            ),
        )
        .figure("budgets", ctx.config.budget.len())
        .figure("measurements", measured)
        .figure("exceeded", failed);
        r.units = ctx
            .config
            .budget
            .iter()
            .map(|b| b.name().to_string())
            .collect();
        r.inputs = o.inputs;
        r
    }

    fn self_test(&self, neutered: &Neutered) -> SelfTest {
        crate::gate::self_test(budget::run_controls(&|c| neutered.contains(GATE, c)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn self_test_passes_and_can_fail() {
        assert!(BudgetsGate.self_test(&Neutered::default()).passed());
        let mut n = Neutered::default();
        n.0.insert("budgets/edited-after-data".into());
        assert!(!BudgetsGate.self_test(&n).passed());
    }
}
