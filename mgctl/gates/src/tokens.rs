//! Gate `tokens`: forbidden-token rules (MobileGL's purity gate C and stdio gate); the analysis,
//! its config and its controls live in `lints::tokens`.

use crate::gate::Gate;
use crate::section::SectionGate;

const GATE: &str = "tokens";

pub fn gate() -> impl Gate {
    SectionGate::lint(
        GATE,
        "forbidden identifiers and patterns per path glob (purity gate C, stdio instrumentation)",
        |c| c.tokens.as_ref(),
        |ctx, cfg| ctx.report(GATE, lints::tokens::check(&ctx.root, cfg)),
        lints::tokens::controls::run_controls,
    )
    .live(|ctx, cfg, n| lints::tokens::live::live_controls(&ctx.disk(), cfg, n))
}
