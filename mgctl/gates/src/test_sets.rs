//! Gate `test-sets` (issue 33, mechanism 2): set rules over the normalised test lists of several
//! lanes — equal groups (split = spawn = tcp) and subsets with an exemption table (monolith ⊆
//! split ∪ exempt). The analysis, config and controls live in `lints::test_sets`.

use crate::gate::Gate;
use crate::section::SectionGate;

pub const GATE: &str = "test-sets";

pub fn gate() -> impl Gate {
    SectionGate::lint(
        GATE,
        "normalised test lists per lane: equal groups, subsets with owned exemptions, no empty or stale set",
        |c| c.test_sets.as_ref(),
        |ctx, cfg| ctx.report(GATE, lints::test_sets::outcome(&ctx.root, cfg)),
        lints::test_sets::controls::run_controls,
    )
    .live(|ctx, cfg, n| lints::test_sets::controls::live(&ctx.root, cfg, n))
}
