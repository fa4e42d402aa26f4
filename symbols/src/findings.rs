//! The `symbols` and `symbol-rules` gates as typed findings: every code, severity, message,
//! location and detail is decided here, so `mgctl check` maps each [`Violation`] field for field
//! and the gate's figures and inputs come from the same run as `mgctl symbols diff`'s.

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::json;

use crate::cfg::{SymbolRulesConfig, SymbolsConfig};
use crate::check::{self, ConfigProblem, PairAnalysis, Which};
use crate::codes::{SymbolRulesCode as R, SymbolsCode as S};
use crate::diff::Bucket;
use crate::gate::GateOptions;
use crate::model::{Identity, Table};
use crate::rules::{self, Mode, RuleOutcome, RuleResult};

/// At most this many findings per bucket; the rest are summarised in one note.
pub const MAX_PER_BUCKET: usize = 200;

pub use diag::Severity;

/// One finding of a gate, `C` its code enum.
pub type Violation<C> = diag::Diag<C>;

/// A gate run that could look at its inputs: its findings and what it measured and read.
pub type GateRun<C> = diag::Outcome<C>;

/// One input line: `build/push/libMobileGL.so (216952 bytes, x86-64 ELF64, build-id none, .symtab)`.
fn input_line(shown: &str, id: &Identity, table: Table) -> String {
    format!(
        "{} ({} bytes, {} ELF{}, build-id {}, {})",
        shown,
        id.file_bytes,
        id.machine,
        id.class_bits,
        id.build_id.as_deref().unwrap_or("none"),
        table.as_str()
    )
}

/// The `symbols` gate on the `[symbols]` section of the workspace at `root`. `rel` shows a path
/// workspace-relative.
pub fn symbols_gate(cfg: &SymbolsConfig, root: &Path, rel: &dyn Fn(&Path) -> String) -> GateRun<S> {
    symbols_run(cfg, root, rel).unwrap_or_else(|v| GateRun::could_not_run(vec![*v]))
}

fn symbols_run(
    cfg: &SymbolsConfig,
    root: &Path,
    rel: &dyn Fn(&Path) -> String,
) -> Result<GateRun<S>, Box<Violation<S>>> {
    if cfg.before.is_empty() {
        return Err(Box::new(
            Violation::new(
                S::Sym010,
                Severity::Error,
                "[symbols] names no baseline: give `before` (a library) or `base` (a revision to build)",
            )
            .about_config(),
        ));
    }
    let req = check::request_from_config(cfg, root).map_err(|e| {
        let v = Violation::new(S::Sym010, Severity::Error, e.to_string());
        Box::new(match e {
            ConfigProblem::AllowFile { file, .. } => v.file(file),
            ConfigProblem::Setting(_) => v.about_config(),
        })
    })?;
    let run = check::run_pair(&req).map_err(|e| {
        let file = match e.which {
            Which::Before => &cfg.before,
            Which::After => &cfg.after,
        };
        Box::new(Violation::new(S::Sym008, Severity::Error, e.to_string()).file(file.clone()))
    })?;
    let a = &run.analysis;
    let h = a.headline();
    Ok(GateRun {
        diags: pair_violations(a, &req.gates, &cfg.after),
        headline: h.to_string(),
        figures: [
            ("defined_before", json!(h.defined_before)),
            ("defined_after", json!(h.defined_after)),
            ("added", json!(h.added)),
            ("removed", json!(h.removed)),
            ("resized", json!(h.resized)),
            ("renamed", json!(h.renamed)),
            ("admitted", json!(h.admitted)),
            ("text_delta", json!(h.text_delta)),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect(),
        inputs: vec![
            input_line(
                &rel(&req.before),
                &run.before_lib.identity,
                run.before_lib.table,
            ),
            input_line(
                &rel(&req.after),
                &run.after_lib.identity,
                run.after_lib.table,
            ),
        ],
        units: vec![cfg.after.clone()],
    })
}

/// Every verdict of a diff as a finding at `unit_path` (the library under test): the changes no
/// allow entry admitted (error under `fail_on_symbol_set_change`, else note), the `.text` gates,
/// stale allow entries, pair warnings and the admitted changes.
pub fn pair_violations(
    a: &PairAnalysis,
    gates: &GateOptions,
    unit_path: &str,
) -> Vec<Violation<S>> {
    let mut out = Vec::new();
    let admitted: BTreeSet<(Bucket, &str)> = a
        .outcome
        .admitted
        .iter()
        .map(|x| (x.entry.bucket, &*x.change.name))
        .collect();
    let codes = [
        (Bucket::Removed, S::Sym001),
        (Bucket::Added, S::Sym002),
        (Bucket::Resized, S::Sym003),
        (Bucket::Renamed, S::Sym004),
    ];
    let set_severity = if gates.fail_on_symbol_set_change {
        Severity::Error
    } else {
        Severity::Note
    };
    for (bucket, code) in codes {
        let rows: Vec<_> = a
            .diff
            .gate_view()
            .get(bucket)
            .iter()
            .filter(|c| !admitted.contains(&(bucket, &*c.name)))
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
            out.push(Violation {
                detail: Some(
                    json!({"bucket": bucket.as_str(), "before_mangled": c.before_mangled, "after_mangled": c.after_mangled, "delta": c.delta}),
                ),
                ..Violation::new(code, set_severity, msg)
                    .file(unit_path)
                    .in_unit(c.name.to_string())
            });
        }
        if rows.len() > MAX_PER_BUCKET {
            out.push(Violation::new(
                code,
                Severity::Note,
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
        out.push(Violation::new(S::Sym005, Severity::Error, r.clone()).file(unit_path));
    }
    let stale_severity = if gates.strict_allow {
        Severity::Error
    } else {
        Severity::Warning
    };
    for s in &a.outcome.stale {
        let msg = format!(
            "allow entry `{} {}` ({}) matched no change (stale: remove it)",
            s.bucket.as_str(),
            s.name,
            s.origin
        );
        out.push(Violation::new(S::Sym006, stale_severity, msg));
    }
    for w in &a.warnings {
        out.push(Violation::new(S::Sym007, Severity::Warning, w.clone()));
    }
    for x in &a.outcome.admitted {
        let msg = format!(
            "admitted {} `{}` ({:+}) by {}",
            x.entry.bucket.as_str(),
            x.change.name,
            x.change.delta,
            x.entry.origin
        );
        let mut v =
            Violation::new(S::Sym009, Severity::Note, msg).in_unit(x.change.name.to_string());
        // The admission's own line (`symbols.allow:8`), not the config that names the file.
        if let Some((file, line)) = x.entry.origin.rsplit_once(':') {
            if let Ok(line) = line.parse::<u32>() {
                v = v.at(file, line, None);
            }
        }
        out.push(v);
    }
    out
}

/// The `symbol-rules` gate on the `[symbol_rules]` section of the workspace at `root`.
pub fn rules_gate(
    cfg: &SymbolRulesConfig,
    root: &Path,
    rel: &dyn Fn(&Path) -> String,
) -> GateRun<R> {
    rules_run(cfg, root, rel).unwrap_or_else(|v| GateRun::could_not_run(vec![*v]))
}

fn rules_run(
    cfg: &SymbolRulesConfig,
    root: &Path,
    rel: &dyn Fn(&Path) -> String,
) -> Result<GateRun<R>, Box<Violation<R>>> {
    let run = rules::run_rules(cfg, root)
        .map_err(|e| Box::new(Violation::error(R::Syr004, e.message).in_config(e.span_start)))?;
    let libs = &run.libraries;
    Ok(GateRun {
        diags: rule_violations(cfg, &run.rules),
        headline: format!(
            "{} rule(s) over {} librar{}",
            run.rules.len(),
            libs.len(),
            if libs.len() == 1 { "y" } else { "ies" }
        ),
        figures: Vec::new(),
        inputs: libs
            .iter()
            .map(|((p, _), l)| match l {
                Ok(l) => input_line(&rel(&root.join(p)), &l.identity, l.table),
                Err(_) => format!("{p} (unreadable)"),
            })
            .collect(),
        units: libs.keys().map(|(p, _)| p.clone()).collect(),
    })
}

/// Every rule result as findings at the rule's library: an unreadable library (SYR003), each
/// forbidden symbol (SYR001), a required pattern that matched nothing (SYR002).
pub fn rule_violations(cfg: &SymbolRulesConfig, results: &[RuleResult]) -> Vec<Violation<R>> {
    let mut out = Vec::new();
    for res in results {
        let Some(rc) = cfg.rules.get(res.index) else {
            continue;
        };
        let at = |v: Violation<R>| v.file(rc.library.clone()).in_unit(rc.library.clone());
        let violations = match &res.outcome {
            RuleOutcome::Unreadable(e) => {
                out.push(at(Violation::new(R::Syr003, Severity::Error, e.clone())));
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
            let (code, msg) = match v.mode {
                Mode::Forbid => (
                    R::Syr001,
                    format!(
                        "rule `{}`: {} symbol `{}` ({}) matches /{}/{why}",
                        rc.name,
                        v.scope.as_str(),
                        v.demangled,
                        v.mangled,
                        v.pattern
                    ),
                ),
                Mode::Require => (
                    R::Syr002,
                    format!(
                        "rule `{}`: no {} symbol matches /{}/{why}",
                        rc.name,
                        v.scope.as_str(),
                        v.pattern
                    ),
                ),
            };
            out.push(Violation {
                detail: Some(
                    json!({"rule": rc.name, "demangled": v.demangled, "mangled": v.mangled}),
                ),
                ..at(Violation::new(code, Severity::Error, msg))
            });
        }
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::check::{allow_resizes, analyse_pair};
    use crate::diff::DiffOptions;
    use crate::selftest::canned;

    fn violations(gates: &GateOptions) -> Vec<Violation<S>> {
        let (before, after) = canned();
        let a = analyse_pair(before, after, &DiffOptions::default(), gates);
        pair_violations(&a, gates, "build/after.so")
    }

    #[test]
    fn set_changes_are_errors_at_the_library_only_when_gated() {
        let gated = GateOptions {
            fail_on_symbol_set_change: true,
            ..GateOptions::default()
        };
        let v = violations(&gated);
        let gone = v.iter().find(|v| v.code == S::Sym001).unwrap();
        assert_eq!(gone.severity, Severity::Error);
        assert_eq!(
            gone.message,
            "removed `MobileGL::Gone()` (48 -> 0 bytes, -48)"
        );
        assert_eq!(
            gone.location.as_ref().map(|l| l.path.as_str()),
            Some("build/after.so")
        );
        assert_eq!(gone.unit.as_deref(), Some("MobileGL::Gone()"));
        assert_eq!(gone.detail.as_ref().unwrap()["bucket"], "removed");
        let quiet = violations(&GateOptions::default());
        assert!(quiet
            .iter()
            .filter(|v| v.code == S::Sym001)
            .all(|v| v.severity == Severity::Note));
    }

    #[test]
    fn admitted_and_stale_entries_are_reported() {
        let mut allow = allow_resizes(&["MobileGL::Grew()".into()], "--allow-resize");
        allow.extend(allow_resizes(&["Nothing()".into()], "--allow-resize"));
        let gates = GateOptions {
            allow,
            strict_allow: true,
            ..GateOptions::default()
        };
        let v = violations(&gates);
        let admitted = v.iter().find(|v| v.code == S::Sym009).unwrap();
        assert_eq!(
            admitted.message,
            "admitted resized `MobileGL::Grew()` (+16) by --allow-resize"
        );
        let stale = v.iter().find(|v| v.code == S::Sym006).unwrap();
        assert_eq!(stale.severity, Severity::Error);
        assert!(stale.location.is_none());
        assert!(!v.iter().any(|v| v.code == S::Sym003));
    }

    #[test]
    fn an_unusable_section_is_one_error_that_could_not_run() {
        let mut cfg = SymbolsConfig::pair("a.so", "b.so");
        cfg.table = Some("both".into());
        let run = symbols_gate(&cfg, Path::new("/nonexistent"), &|p| {
            p.display().to_string()
        });
        assert_eq!(run.headline, "could not run");
        assert_eq!(run.diags.len(), 1);
        assert_eq!(run.diags[0].code, S::Sym010);
        assert_eq!(run.diags[0].config, Some(diag::ConfigAt::File));
        let cfg = SymbolsConfig::pair("a.so", "b.so");
        let run = symbols_gate(&cfg, Path::new("/nonexistent"), &|p| {
            p.display().to_string()
        });
        assert_eq!(run.diags[0].code, S::Sym008);
        assert_eq!(
            run.diags[0].location.as_ref().map(|l| l.path.as_str()),
            Some("a.so")
        );
    }
}
