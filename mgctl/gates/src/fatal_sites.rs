//! Gate `fatal-sites`: maps the fatal census (library: `lints::fatal_sites`; upstream:
//! `scripts/ci/fatal_census.py`) to findings.

use lints::fatal_sites;

use crate::gate::Gate;
use crate::section::SectionGate;

pub const GATE: &str = "fatal-sites";

pub fn gate() -> impl Gate {
    SectionGate::lint(
        GATE,
        "every std::abort() and WireLogFatal( under MG_Remote names a Fatal{Family} the baseline records",
        |c| c.fatal_sites.as_ref(),
        |ctx, cfg| ctx.report(GATE, fatal_sites::report::outcome(&ctx.root, cfg)),
        fatal_sites::run_controls,
    )
    .live(|ctx, cfg, n| fatal_sites::live_controls(&ctx.disk(), cfg, n))
}
