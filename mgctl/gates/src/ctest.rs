//! Gate `ctest` (G6/G8, the ctest expectations and the skip ratchet): every lane's ctest JUnit
//! covers its `-N` listing, named entries have their expected outcome (an expectation that
//! matches nothing fails), failed entries are findings at their source line, and the status
//! baseline by lane and name lets skips only shrink and names only grow. The analysis, its
//! config and its controls live in `lints::ctest`.

use lints::ctest::check::Disk;

use crate::gate::Gate;
use crate::section::SectionGate;

pub const GATE: &str = "ctest";

pub fn gate() -> impl Gate {
    SectionGate::lint(
        GATE,
        "ctest JUnit per lane: named entries pass (or fail), nothing matches nothing, skips only shrink against the baseline (G6/G8)",
        |c| c.ctest.as_ref(),
        |ctx, cfg| ctx.report(GATE, lints::ctest::check(&ctx.root, cfg)),
        lints::ctest::controls::run_controls,
    )
    .live(|ctx, cfg, n| lints::ctest::controls::live_controls(&Disk(ctx.root.clone()), cfg, n))
}
