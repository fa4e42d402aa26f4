//! Gate `regions`: untouched regions (MobileGL's G5). In `check` the subject is the working tree;
//! the baseline is each row's pinned SHA-256 and, when `base` is configured, that git ref for
//! unpinned rows. `mgctl lint regions BASE [HEAD]` compares two refs. The analysis, its config,
//! codes and controls live in `lints::regions`.

use lints::regions::check as regions;

use crate::gate::Gate;
use crate::section::SectionGate;

pub const GATE: &str = "regions";

pub fn gate() -> impl Gate {
    SectionGate::lint(
        GATE,
        "untouched regions: protected function/namespace bodies hash to their pins (G5)",
        |c| c.regions.as_ref(),
        |ctx, cfg| ctx.report(GATE, regions::check(&ctx.disk(), cfg, &ctx.config_text)),
        regions::run_controls,
    )
    .live(|ctx, cfg, n| regions::live_controls(&ctx.disk(), cfg, &ctx.config_text, n))
}
