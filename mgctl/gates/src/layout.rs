//! Gate `layout` (G10, the `ResidualValueBlock` tripwire): every data member of a configured
//! struct has a `static_assert(offsetof(…))`, and each configured size macro is a ratchet (at most
//! its `max`, never above its value at `[layout] base`). The analysis, its config and its
//! controls live in `lints::layout`.

use lints::layout::check::{Base, GitBase};

use crate::gate::Gate;
use crate::section::SectionGate;

const GATE: &str = "layout";

pub fn gate() -> impl Gate {
    SectionGate::lint(
        GATE,
        "struct layout tripwires: an offsetof assertion per data member, size macros that only go down (G10)",
        |c| c.layout.as_ref(),
        |ctx, cfg| ctx.report(GATE, lints::layout::check(&ctx.root, cfg)),
        lints::layout::controls::run_controls,
    )
    .live(|ctx, cfg, n| {
        let base = cfg.base.as_ref().map(|b| GitBase::open(&ctx.root, b.get_ref()));
        let base = base.as_ref().map(|b| b as &dyn Base);
        lints::layout::live::live_controls(&ctx.disk(), base, cfg, n)
    })
}
