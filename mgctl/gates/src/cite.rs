//! Gate `cite`: every `path:line` citation in the design docs still points at the code it names.
//! The analysis, its config and its controls live in `lints::cite`.

use crate::gate::Gate;
use crate::section::SectionGate;

const GATE: &str = "cite";

pub fn gate() -> impl Gate {
    SectionGate::lint(
        GATE,
        "every path:line citation in the design docs resolves, is in range and still shows the code it names",
        |c| c.cite.as_ref(),
        |ctx, cfg| ctx.report(GATE, lints::cite::outcome(&ctx.root, cfg)),
        lints::cite::controls::run_controls,
    )
}
