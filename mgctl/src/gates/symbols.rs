//! Gates `symbols` (the G1 symbol diff of two builds, with the changes a commit admits) and
//! `symbol-rules` (purity gate B). The analyses, their config, their findings and their controls
//! live in the `symbols` library; this file only maps its violations to findings.

use symbols::findings::{rules_gate, symbols_gate};
use symbols::selftest;

use symbols::cfg::{SymbolRulesConfig, SymbolsConfig};

use crate::gate::{CheckCtx, Finding, Gate, GateReport, Neutered, SelfTest};

const GATE: &str = "symbols";
const RULES_GATE: &str = "symbol-rules";

pub struct SymbolsGate;

impl Gate for SymbolsGate {
    fn name(&self) -> &'static str {
        GATE
    }

    fn description(&self) -> &'static str {
        "symbol diff of two builds (G1): no added/removed/resized/renamed symbol beyond the admitted ones"
    }

    fn artifacts(&self, ctx: &CheckCtx) -> Vec<String> {
        ctx.config
            .symbols
            .as_ref()
            .map_or_else(Vec::new, SymbolsConfig::artifacts)
    }

    fn skip_reason(&self, ctx: &CheckCtx) -> Option<String> {
        match &ctx.config.symbols {
            None => Some("no [symbols] section in mgctl.toml".into()),
            Some(cfg) => cfg.skip_reason(&ctx.root),
        }
    }

    fn run(&self, ctx: &CheckCtx) -> GateReport {
        match (&ctx.config.symbols, self.skip_reason(ctx)) {
            (Some(cfg), None) => match with_base(ctx, cfg) {
                Ok(cfg) => ctx.report(GATE, symbols_gate(&cfg, &ctx.root, &|p| ctx.rel(p))),
                Err((true, why)) => GateReport::skipped(GATE, why),
                Err((false, why)) => GateReport::from_findings(
                    GATE,
                    vec![Finding::error(
                        GATE,
                        workspace_build::Code::Bld005.as_str(),
                        why,
                    )],
                    "base not built",
                ),
            },
            (_, reason) => GateReport::skipped(GATE, reason.unwrap_or_default()),
        }
    }

    fn self_test(&self, neutered: &Neutered) -> SelfTest {
        let neutered = |c: &str| neutered.contains(GATE, c);
        let mut controls = selftest::run_controls(&neutered);
        controls.extend(selftest::transcript_controls(&neutered));
        crate::gate::self_test(controls)
    }
}

/// `[symbols] base = "REV"`: the section with `before` set to REV's build of `after` (made in a
/// throw-away worktree with the workspace's `[build]`, or taken from its cache).
/// Err `(skip, why)`: skip when `--no-build` refused to fill the cache.
fn with_base(ctx: &CheckCtx, cfg: &SymbolsConfig) -> Result<SymbolsConfig, (bool, String)> {
    let Some(rev) = &cfg.base else {
        return Ok(cfg.clone());
    };
    let Some(build) = &ctx.config.build else {
        return Err((
            false,
            format!(
                "[symbols] base = \"{rev}\" builds the base with [build], and mgctl.toml has none"
            ),
        ));
    };
    let plan = workspace_build::plan(build, &|at| ctx.config_location(at))
        .map_err(|e| (false, e.to_string()))?;
    let mut display = crate::progress::Progress::new(ctx.quiet);
    let progress = &mut |s: workspace_build::Step<'_>| display.step(s);
    let base = workspace_build::base::build(&ctx.root, &plan, rev, !ctx.no_build, progress)
        .map_err(|e| (e.not_built(), e.to_string()))?;
    let mut cfg = cfg.clone();
    cfg.before = base.output(&cfg.after).to_string_lossy().into_owned();
    Ok(cfg)
}

pub struct SymbolRulesGate;

impl Gate for SymbolRulesGate {
    fn name(&self) -> &'static str {
        RULES_GATE
    }

    fn description(&self) -> &'static str {
        "per-library symbol rules (purity gate B): forbid/require defined, undefined or exported symbols"
    }

    fn artifacts(&self, ctx: &CheckCtx) -> Vec<String> {
        ctx.config
            .symbol_rules
            .as_ref()
            .map_or_else(Vec::new, SymbolRulesConfig::libraries)
    }

    fn skip_reason(&self, ctx: &CheckCtx) -> Option<String> {
        match &ctx.config.symbol_rules {
            None => Some("no [symbol_rules] section in mgctl.toml".into()),
            Some(cfg) => cfg.skip_reason(&ctx.root),
        }
    }

    fn run(&self, ctx: &CheckCtx) -> GateReport {
        match (&ctx.config.symbol_rules, self.skip_reason(ctx)) {
            (Some(cfg), None) => {
                ctx.report(RULES_GATE, rules_gate(cfg, &ctx.root, &|p| ctx.rel(p)))
            }
            (_, reason) => GateReport::skipped(RULES_GATE, reason.unwrap_or_default()),
        }
    }

    fn self_test(&self, neutered: &Neutered) -> SelfTest {
        crate::gate::self_test(selftest::run_rule_controls(&|c| {
            neutered.contains(RULES_GATE, c)
        }))
    }
}
