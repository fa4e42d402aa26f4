//! Gate `commits`: MobileGL's commit style over a configured range (`mgctl lint commits RANGE`
//! checks any range by hand). The analysis, config and controls live in `lints::commits::gate`.

use crate::gate::{Gate, GateReport};
use crate::section::SectionGate;

pub const GATE: &str = "commits";

pub fn gate() -> impl Gate {
    SectionGate::lint(
        GATE,
        "commit messages: one line, `[Type] (Scope): description`, known Type, no attribution trailers",
        |c| c.commits.as_ref(),
        |ctx, cfg| {
            let Some(range) = &cfg.range else {
                return GateReport::skipped(GATE, "no [commits] range in mgctl.toml");
            };
            match lints::commits::gate::outcome(&ctx.root, range, &cfg.rules()) {
                Ok(o) => ctx.report(GATE, o),
                Err(why) => GateReport::skipped(GATE, why.to_string()),
            }
        },
        lints::commits::gate::run_controls,
    )
}
