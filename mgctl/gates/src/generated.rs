//! Gate `generated` (issue 33, mechanism 4): each `[[generated]]` generator, run in a throw-away
//! copy, writes exactly the committed outputs, and each `[[pin]]` holds. The analysis, its config
//! and its controls live in `lints::generated`.

use crate::gate::Gate;
use crate::section::SectionGate;

const GATE: &str = "generated";

pub fn gate() -> impl Gate {
    SectionGate::new(
        GATE,
        "generated files are what their generator writes today, and sha256 pins hold (issue 33)",
        "no [[generated]] or [[pin]] in mgctl.toml",
        // The gate reads two lists of the configuration: either makes it run.
        |c| (!c.generated.is_empty() || !c.pin.is_empty()).then_some(c),
        |ctx, c| {
            ctx.report(
                GATE,
                lints::generated::check(&ctx.root, &c.generated, &c.pin),
            )
        },
        lints::generated::controls::run_controls,
    )
    .live(|ctx, c, n| lints::generated::controls::live_controls(&ctx.root, &c.generated, &c.pin, n))
    // Copies the workspace and runs each generator.
    .cost(4)
}
