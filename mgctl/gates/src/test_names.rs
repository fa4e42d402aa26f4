//! Gate `test-names`: the registered ctest names (MobileGL's G2 and G14). The current list must
//! keep every name of the checked-in baseline (ratchet) and equal each `same_as` list. The
//! analysis, config and controls live in `lints::test_names::gate`.

use crate::gate::Gate;
use crate::section::SectionGate;

pub const GATE: &str = "test-names";

pub fn gate() -> impl Gate {
    SectionGate::lint(
        GATE,
        "registered ctest names: none removed against the baseline (G14), pull = push (G2)",
        |c| c.test_names.as_ref(),
        |ctx, cfg| ctx.report(GATE, lints::test_names::gate::outcome(&ctx.root, cfg)),
        lints::test_names::gate::run_controls,
    )
}
