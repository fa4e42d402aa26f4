//! Gate `link-ratchet` (issue 33, mechanism 3): the frontend symbols server objects still need
//! may only shrink. The analysis, its config and its controls live in `symbols::ratchet`.

use crate::gate::Gate;
use crate::section::SectionGate;

const GATE: &str = "link-ratchet";

pub fn gate() -> impl Gate {
    SectionGate::new(
        GATE,
        "the frontend reach of server objects only falls; unclassified objects, empty roles and \
         wrong build options are refused (issue 33)",
        "no [link_ratchet] section in mgctl.toml",
        |c| c.link_ratchet.as_ref(),
        |ctx, c| ctx.report(GATE, symbols::ratchet::check(&ctx.root, c)),
        symbols::ratchet::controls::run_controls,
    )
    .live(|ctx, c, n| symbols::ratchet::controls::live_controls(&ctx.root, c, n))
    .artifacts(symbols::ratchet::cfg::LinkRatchetConfig::artifacts)
}
