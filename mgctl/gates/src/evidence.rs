//! Gate `evidence` (issue 33, mechanism 5): each `[[evidence]]` set's selected ctest entries have
//! fresh role logs that hold every required line, no forbidden one, and counts within range. The
//! analysis, its config and its controls live in `lints::evidence`.

use crate::gate::Gate;
use crate::section::SectionGate;

const GATE: &str = "evidence";

pub fn gate() -> impl Gate {
    SectionGate::new(
        GATE,
        "per-test role logs: fresh, required lines present, forbidden lines absent, counts in range (issue 33)",
        "no [[evidence]] in mgctl.toml",
        |c| (!c.evidence.is_empty()).then_some(&c.evidence),
        |ctx, c| ctx.report(GATE, lints::evidence::check(&ctx.root, c)),
        lints::evidence::controls::run_controls,
    )
    .live(|ctx, c, n| lints::evidence::controls::live_controls(&ctx.root, c, n))
}
