//! Gates `symbols` (the G1 symbol diff of two builds, with the changes a commit admits) and
//! `symbol-rules` (purity gate B). The analyses, their config, their findings and their controls
//! live in the `symbols` library; this file only maps its violations to findings.

use symbols::findings::{rules_gate, symbols_gate};
use symbols::selftest;

use symbols::cfg::{SymbolRulesConfig, SymbolsConfig};

use crate::gate::{CheckCtx, Finding, Gate, GateReport};
use crate::section::SectionGate;

const GATE: &str = "symbols";
const RULES_GATE: &str = "symbol-rules";

pub fn symbols() -> impl Gate {
    SectionGate::new(
        GATE,
        "symbol diff of two builds (G1): no added/removed/resized/renamed symbol beyond the admitted ones",
        "no [symbols] section in mgctl.toml",
        |c| c.symbols.as_ref(),
        |ctx, cfg| match with_base(ctx, cfg) {
            Ok(cfg) => ctx.report(GATE, symbols_gate(&cfg, &ctx.root, &|p| ctx.rel(p))),
            Err((true, why)) => GateReport::skipped(GATE, why),
            Err((false, why)) => {
                let code = workspace_build::Code::Bld005.as_str();
                let findings = vec![Finding::error(GATE, code, why)];
                GateReport::from_findings(GATE, findings, "base not built")
            }
        },
        |n| {
            let mut controls = selftest::run_controls(n);
            controls.extend(selftest::transcript_controls(n));
            controls
        },
    )
    .idle(|ctx, cfg| cfg.skip_reason(&ctx.root))
    .artifacts(SymbolsConfig::artifacts)
}

pub fn rules() -> impl Gate {
    SectionGate::new(
        RULES_GATE,
        "per-library symbol rules (purity gate B): forbid/require defined, undefined or exported symbols",
        "no [symbol_rules] section in mgctl.toml",
        |c| c.symbol_rules.as_ref(),
        |ctx, cfg| ctx.report(RULES_GATE, rules_gate(cfg, &ctx.root, &|p| ctx.rel(p))),
        selftest::run_rule_controls,
    )
    .idle(|ctx, cfg| cfg.skip_reason(&ctx.root))
    .artifacts(SymbolRulesConfig::libraries)
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
    let mut display = workspace_build::progress::Progress::new(ctx.quiet);
    let progress = &mut |s: workspace_build::Step<'_>| display.step(s);
    let base = workspace_build::base::build(&ctx.root, &plan, rev, !ctx.no_build, progress)
        .map_err(|e| (e.not_built(), e.to_string()))?;
    let mut cfg = cfg.clone();
    cfg.before = base.output(&cfg.after).to_string_lossy().into_owned();
    Ok(cfg)
}
