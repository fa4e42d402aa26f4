//! Gate `census` (issue 33, mechanism 1): each `[[census]]` registry's entries and the call sites
//! naming them agree. The analysis, its config and its controls live in `lints::census`.

use crate::gate::Gate;
use crate::section::SectionGate;

const GATE: &str = "census";

pub fn gate() -> impl Gate {
    SectionGate::new(
        GATE,
        "registry entries and their call sites agree: every entry counted, every site named, \
         markers in their own block, nothing forbidden in scope (issue 33)",
        "no [[census]] in mgctl.toml",
        |c| (!c.census.is_empty()).then_some(&c.census),
        |ctx, c| ctx.report(GATE, lints::census::check(&ctx.root, c)),
        lints::census::controls::run_controls,
    )
    .live(|ctx, c, n| lints::census::controls::live_controls(&ctx.root, c, n))
}
