//! Gate `cite`: every `path:line` citation in the design docs still points at the code it names.
//! The analysis, its config and its controls live in `lints::cite`.

pub use lints::cite::cfg::{mobilegl_profile, CiteConfig};

use super::lint_map;
use crate::gate::{CheckCtx, Gate, GateReport, Neutered, SelfTest};

const GATE: &str = "cite";

pub struct CiteGate;

impl Gate for CiteGate {
    fn name(&self) -> &'static str {
        GATE
    }

    fn description(&self) -> &'static str {
        "every path:line citation in the design docs resolves, is in range and still shows the code it names"
    }

    fn skip_reason(&self, ctx: &CheckCtx) -> Option<String> {
        match &ctx.config.cite {
            None => Some("no [cite] section in mgctl.toml".into()),
            Some(c) if c.docs.is_empty() => Some("[cite] lists no documents".into()),
            Some(_) => None,
        }
    }

    fn run(&self, ctx: &CheckCtx) -> GateReport {
        let Some(cfg) = &ctx.config.cite else {
            return GateReport::skipped(GATE, "no [cite] section in mgctl.toml");
        };
        lint_map::report(GATE, ctx, lints::cite::outcome(&ctx.root, cfg))
    }

    fn self_test(&self, neutered: &Neutered) -> SelfTest {
        crate::gate::self_test(lints::cite::controls::run_controls(&|c| {
            neutered.contains(GATE, c)
        }))
    }
}
