//! Gates `symbols` (the G1 symbol diff of two builds, with the changes a commit admits) and
//! `symbol-rules` (purity gate B). The analyses, their config and their controls live in the
//! `symbols` library; this file only maps their outcomes to findings.

use std::path::Path;

use serde_json::json;

use symbols::check::{self, PairAnalysis, Which};
use symbols::codes::{SymbolRulesCode as R, SymbolsCode as S};
use symbols::diff::Bucket;
use symbols::model::{Identity, Table};
use symbols::rules::{self, Mode, RuleOutcome};
use symbols::selftest::{self};

pub use symbols::cfg::{
    mobilegl_profile, mobilegl_rules_profile, SymbolRulesConfig, SymbolsConfig,
};

use crate::gate::{CheckCtx, Finding, Gate, GateReport, Location, Neutered, SelfTest};

const GATE: &str = "symbols";
const RULES_GATE: &str = "symbol-rules";
/// At most this many findings per bucket; the rest are summarised in one note.
const MAX_PER_BUCKET: usize = 200;

fn hint(h: Option<&str>) -> String {
    h.map_or_else(
        || "build the libraries first".to_string(),
        |h| format!("run {h}"),
    )
}

/// Every verdict of the diff as a finding.
fn diff_findings(a: &PairAnalysis, cfg: &SymbolsConfig, unit_path: &str) -> Vec<Finding> {
    let mut out = Vec::new();
    let admitted: std::collections::BTreeSet<(Bucket, &str)> = a
        .outcome
        .admitted
        .iter()
        .map(|x| (x.entry.bucket, x.change.name.as_str()))
        .collect();
    let codes = [
        (Bucket::Removed, S::Sym001),
        (Bucket::Added, S::Sym002),
        (Bucket::Resized, S::Sym003),
        (Bucket::Renamed, S::Sym004),
    ];
    for (bucket, code) in codes {
        let code = code.as_str();
        let rows: Vec<_> = a
            .diff
            .gate_view()
            .get(bucket)
            .iter()
            .filter(|c| !admitted.contains(&(bucket, c.name.as_str())))
            .collect();
        for c in rows.iter().take(MAX_PER_BUCKET) {
            let msg = match bucket {
                Bucket::Renamed => format!(
                    "renamed `{}` ({} -> {})",
                    c.name, c.before_mangled, c.after_mangled
                ),
                _ => format!(
                    "{} `{}` ({} -> {} bytes, {:+})",
                    bucket.as_str(),
                    c.name,
                    c.before,
                    c.after,
                    c.delta
                ),
            };
            let f = if cfg.fail_on_symbol_set_change {
                Finding::error(GATE, code, msg)
            } else {
                Finding::note(GATE, code, msg)
            };
            out.push(
                f.at(Location::file(unit_path))
                    .in_unit(c.name.clone())
                    .with_detail(json!({"bucket": bucket.as_str(), "before_mangled": c.before_mangled, "after_mangled": c.after_mangled, "delta": c.delta})),
            );
        }
        if rows.len() > MAX_PER_BUCKET {
            out.push(Finding::note(
                GATE,
                code,
                format!(
                    "… and {} more {} symbol(s); run `mgctl symbols diff` for the full list",
                    rows.len() - MAX_PER_BUCKET,
                    bucket.as_str()
                ),
            ));
        }
    }
    for r in
        a.outcome.reasons.iter().filter(|r| {
            r.starts_with("--fail-on-text-delta") || r.starts_with("--fail-on-added-bytes")
        })
    {
        out.push(Finding::error(GATE, S::Sym005.as_str(), r.clone()).at(Location::file(unit_path)));
    }
    for s in &a.outcome.stale {
        let msg = format!(
            "allow entry `{} {}` ({}) matched no change (stale: remove it)",
            s.bucket.as_str(),
            s.name,
            s.origin
        );
        out.push(if cfg.strict_allow {
            Finding::error(GATE, S::Sym006.as_str(), msg)
        } else {
            Finding::warning(GATE, S::Sym006.as_str(), msg)
        });
    }
    for w in &a.warnings {
        out.push(Finding::warning(GATE, S::Sym007.as_str(), w.clone()));
    }
    for x in &a.outcome.admitted {
        out.push(
            Finding::note(
                GATE,
                S::Sym009.as_str(),
                format!(
                    "admitted {} `{}` ({:+}) by {}",
                    x.entry.bucket.as_str(),
                    x.change.name,
                    x.change.delta,
                    x.entry.origin
                ),
            )
            .in_unit(x.change.name.clone()),
        );
    }
    out
}

fn identity_input(ctx: &CheckCtx, path: &Path, id: &Identity, table: Table) -> String {
    format!(
        "{} ({} bytes, {} ELF{}, build-id {}, {})",
        ctx.rel(path),
        id.file_bytes,
        id.machine,
        id.class_bits,
        id.build_id.as_deref().unwrap_or("none"),
        table.as_str()
    )
}

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
            .map_or_else(Vec::new, |c| vec![c.before.clone(), c.after.clone()])
    }

    fn skip_reason(&self, ctx: &CheckCtx) -> Option<String> {
        let Some(cfg) = &ctx.config.symbols else {
            return Some("no [symbols] section in mgctl.toml".into());
        };
        let missing = cfg.missing(&ctx.root);
        if missing.is_empty() {
            None
        } else {
            Some(format!(
                "{} not built: {}",
                missing.join(" and "),
                hint(cfg.build_hint.as_deref())
            ))
        }
    }

    fn run(&self, ctx: &CheckCtx) -> GateReport {
        let Some(cfg) = &ctx.config.symbols else {
            return GateReport::skipped(GATE, "no [symbols] section in mgctl.toml");
        };
        if let Some(reason) = self.skip_reason(ctx) {
            return GateReport::skipped(GATE, reason);
        }
        let req = match check::request_from_config(cfg, &ctx.root) {
            Ok(r) => r,
            Err(e) => {
                let at = match &e {
                    check::ConfigProblem::AllowFile { file, .. } => Some(Location::file(file)),
                    check::ConfigProblem::Setting(_) => {
                        ctx.config_path.as_ref().map(|p| Location::file(ctx.rel(p)))
                    }
                };
                return GateReport::could_not_run(GATE, S::Sym010.as_str(), e.to_string(), at);
            }
        };
        let run = match check::run_pair(&req) {
            Ok(r) => r,
            Err(e) => {
                let file = match e.which {
                    Which::Before => &cfg.before,
                    Which::After => &cfg.after,
                };
                return GateReport::could_not_run(
                    GATE,
                    S::Sym008.as_str(),
                    e.to_string(),
                    Some(Location::file(file.clone())),
                );
            }
        };
        let a = &run.analysis;
        let h = a.headline();
        let mut r =
            GateReport::from_findings(GATE, diff_findings(a, cfg, &cfg.after), h.to_string());
        r.figures = vec![
            ("defined_before".into(), json!(h.defined_before)),
            ("defined_after".into(), json!(h.defined_after)),
            ("added".into(), json!(h.added)),
            ("removed".into(), json!(h.removed)),
            ("resized".into(), json!(h.resized)),
            ("renamed".into(), json!(h.renamed)),
            ("admitted".into(), json!(h.admitted)),
            ("text_delta".into(), json!(h.text_delta)),
        ];
        r.inputs = vec![
            identity_input(
                ctx,
                &req.before,
                &run.before_lib.identity,
                run.before_lib.table,
            ),
            identity_input(
                ctx,
                &req.after,
                &run.after_lib.identity,
                run.after_lib.table,
            ),
        ];
        r.units = vec![cfg.after.clone()];
        r
    }

    fn self_test(&self, neutered: &Neutered) -> SelfTest {
        crate::gate::self_test(selftest::run_controls(&|c| neutered.contains(GATE, c)))
    }
}

pub struct SymbolRulesGate;

fn rule_findings(cfg: &SymbolRulesConfig, results: &[rules::RuleResult]) -> Vec<Finding> {
    let mut out = Vec::new();
    for res in results {
        let Some(rc) = cfg.rules.get(res.index) else {
            continue;
        };
        let at = || Location::file(rc.library.clone());
        let violations = match &res.outcome {
            RuleOutcome::Unreadable(e) => {
                out.push(
                    Finding::error(RULES_GATE, R::Syr003.as_str(), e.clone())
                        .at(at())
                        .in_unit(rc.library.clone()),
                );
                continue;
            }
            RuleOutcome::Checked(v) => v,
        };
        let why = rc
            .message
            .as_deref()
            .map(|m| format!(": {m}"))
            .unwrap_or_default();
        for v in violations {
            let f = match v.mode {
                Mode::Forbid => Finding::error(
                    RULES_GATE,
                    R::Syr001.as_str(),
                    format!(
                        "rule `{}`: {} symbol `{}` ({}) matches /{}/{why}",
                        rc.name,
                        v.scope.as_str(),
                        v.demangled,
                        v.mangled,
                        v.pattern
                    ),
                ),
                Mode::Require => Finding::error(
                    RULES_GATE,
                    R::Syr002.as_str(),
                    format!(
                        "rule `{}`: no {} symbol matches /{}/{why}",
                        rc.name,
                        v.scope.as_str(),
                        v.pattern
                    ),
                ),
            };
            out.push(f.at(at()).in_unit(rc.library.clone()).with_detail(
                json!({"rule": rc.name, "demangled": v.demangled, "mangled": v.mangled}),
            ));
        }
    }
    out
}

impl Gate for SymbolRulesGate {
    fn name(&self) -> &'static str {
        RULES_GATE
    }

    fn description(&self) -> &'static str {
        "per-library symbol rules (purity gate B): forbid/require defined, undefined or exported symbols"
    }

    fn artifacts(&self, ctx: &CheckCtx) -> Vec<String> {
        let mut libs: Vec<String> = ctx
            .config
            .symbol_rules
            .iter()
            .flat_map(|c| c.rules.iter().map(|r| r.library.clone()))
            .collect();
        libs.sort();
        libs.dedup();
        libs
    }

    fn skip_reason(&self, ctx: &CheckCtx) -> Option<String> {
        let Some(cfg) = &ctx.config.symbol_rules else {
            return Some("no [symbol_rules] section in mgctl.toml".into());
        };
        if cfg.rules.is_empty() {
            return Some("[symbol_rules] has no rules".into());
        }
        if cfg
            .rules
            .iter()
            .all(|r| !ctx.root.join(&r.library).exists())
        {
            let mut libs: Vec<&str> = cfg.rules.iter().map(|r| r.library.as_str()).collect();
            libs.dedup();
            return Some(format!(
                "{} not built: {}",
                libs.join(", "),
                hint(cfg.build_hint.as_deref())
            ));
        }
        None
    }

    fn run(&self, ctx: &CheckCtx) -> GateReport {
        let Some(cfg) = &ctx.config.symbol_rules else {
            return GateReport::skipped(RULES_GATE, "no [symbol_rules] section in mgctl.toml");
        };
        if let Some(reason) = self.skip_reason(ctx) {
            return GateReport::skipped(RULES_GATE, reason);
        }
        let run = match rules::run_rules(cfg, &ctx.root) {
            Ok(r) => r,
            Err(e) => {
                let at = ctx
                    .config_path
                    .as_ref()
                    .map(|_| ctx.config_location(e.span_start));
                return GateReport::could_not_run(RULES_GATE, R::Syr004.as_str(), e.message, at);
            }
        };
        let n = run.rules.len();
        let libs = &run.libraries;
        let mut r = GateReport::from_findings(
            RULES_GATE,
            rule_findings(cfg, &run.rules),
            format!(
                "{n} rule(s) over {} librar{}",
                libs.len(),
                if libs.len() == 1 { "y" } else { "ies" }
            ),
        );
        r.inputs = libs
            .iter()
            .map(|((p, _), l)| match l {
                Ok(l) => identity_input(ctx, &ctx.root.join(p), &l.identity, l.table),
                Err(_) => format!("{p} (unreadable)"),
            })
            .collect();
        r.units = libs.keys().map(|(p, _)| p.clone()).collect();
        r
    }

    fn self_test(&self, neutered: &Neutered) -> SelfTest {
        crate::gate::self_test(selftest::run_rule_controls(&|c| {
            neutered.contains(RULES_GATE, c)
        }))
    }
}
