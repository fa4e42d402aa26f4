//! Gates `symbols` (the G1 symbol diff of two builds, with the changes a commit admits) and
//! `symbol-rules` (purity gate B: forbid/require demangled defined, undefined or exported symbols).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::json;

use symbols::diff::{self, Bucket, DiffOptions, Side};
use symbols::gate::{self as sgate, AllowEntry, GateOptions};
use symbols::model::{Binding, Identity, Library, Symbol, Table, Visibility};
use symbols::rules::{self, Mode, Rule, Scope};
use symbols::{elf, report, TableChoice};

use crate::gate::{CheckCtx, Control, Finding, Gate, GateReport, Location, Neutered, SelfTest};

const GATE: &str = "symbols";
const RULES_GATE: &str = "symbol-rules";
/// At most this many findings per bucket; the rest are summarised in one note.
const MAX_PER_BUCKET: usize = 200;

fn yes() -> bool {
    true
}

/// `[symbols]`: one before/after pair of builds and what the commit admits.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SymbolsConfig {
    /// Baseline library, workspace-relative (e.g. the pull build).
    pub before: String,
    /// Library under test, workspace-relative (e.g. the push build).
    pub after: String,
    /// `auto` (default), `symtab` or `dynsym`.
    #[serde(default)]
    pub table: Option<String>,
    #[serde(default)]
    pub keep_versions: bool,
    #[serde(default)]
    pub strip_scope: Vec<String>,
    /// `OLD=NEW` entries.
    #[serde(default)]
    pub rename_map: Vec<String>,
    #[serde(default = "yes")]
    pub fail_on_symbol_set_change: bool,
    #[serde(default)]
    pub fail_on_text_delta: bool,
    #[serde(default)]
    pub fail_on_added_bytes: Option<u64>,
    /// Normalised names whose resize the commit admits.
    #[serde(default)]
    pub allow_resize: Vec<String>,
    /// Allow file (workspace-relative): `[resized|added|removed|renamed] NAME` lines.
    #[serde(default)]
    pub allow_file: Option<String>,
    /// A stale allow entry fails the gate (default true: an admission must name a real change).
    #[serde(default = "yes")]
    pub strict_allow: bool,
    /// What to run when the libraries are missing (shown in the skip reason).
    #[serde(default)]
    pub build_hint: Option<String>,
}

/// `[symbol_rules]`: per-library rules.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SymbolRulesConfig {
    #[serde(default, rename = "rule")]
    pub rules: Vec<SymbolRuleConfig>,
    #[serde(default)]
    pub build_hint: Option<String>,
}

/// One `[[symbol_rules.rule]]`: exactly one of `forbid` / `require` names the scope.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SymbolRuleConfig {
    pub name: String,
    /// Workspace-relative library path.
    pub library: String,
    /// `defined`, `undefined` or `exported`: no symbol of that scope may match.
    #[serde(default)]
    pub forbid: Option<String>,
    /// `defined`, `undefined` or `exported`: at least one symbol of that scope must match.
    #[serde(default)]
    pub require: Option<String>,
    /// Regex over the demangled text (and the mangled name).
    pub pattern: String,
    #[serde(default)]
    pub table: Option<String>,
    #[serde(default)]
    pub message: Option<String>,
}

/// No built-in diff pair: upstream's symbol_report.py always takes `--before/--after` explicitly.
pub fn mobilegl_profile() -> Option<SymbolsConfig> {
    None
}

/// MobileGL's purity gate B and its two byte-level companions, on the default CMake build dir.
pub fn mobilegl_rules_profile() -> Option<SymbolRulesConfig> {
    let r = |name: &str,
             library: &str,
             forbid: Option<&str>,
             require: Option<&str>,
             pattern: &str,
             message: &str| SymbolRuleConfig {
        name: name.into(),
        library: library.into(),
        forbid: forbid.map(String::from),
        require: require.map(String::from),
        pattern: pattern.into(),
        table: None,
        message: Some(message.into()),
    };
    Some(SymbolRulesConfig {
        rules: vec![
            r(
                "purity-b",
                "build/libMobileGLServer.so",
                Some("undefined"),
                None,
                "MG_State::GLState::|glslang",
                "the server must not need the frontend state or glslang (interface-purity gate B)",
            ),
            r(
                "no-remote-in-monolith",
                "build/libMobileGL.so",
                Some("defined"),
                None,
                "MG_Remote",
                "the monolith defines no MG_Remote symbol",
            ),
            r(
                "server-entry-exported",
                "build/libMobileGLServer.so",
                None,
                Some("exported"),
                "^mobilegl_server_main$",
                "the server exports its entry point",
            ),
        ],
        build_hint: Some("build MobileGL first (cmake --build build)".into()),
    })
}

fn table_choice(t: Option<&str>) -> Result<TableChoice, String> {
    t.unwrap_or("auto").parse::<TableChoice>()
}

fn hint(h: Option<&str>) -> String {
    h.map_or_else(
        || "build the libraries first".to_string(),
        |h| format!("run {h}"),
    )
}

fn resolve(ctx: &CheckCtx, p: &str) -> PathBuf {
    ctx.root.join(p)
}

/// Everything the diff gate decided, as findings.
fn diff_findings(
    before: &Side,
    after: &Side,
    cfg: &SymbolsConfig,
    allow: Vec<AllowEntry>,
    unit_path: &str,
) -> (Vec<Finding>, String, Vec<(String, serde_json::Value)>) {
    let rename_map = cfg
        .rename_map
        .iter()
        .filter_map(|e| diff::parse_rename(e))
        .collect();
    let opts = DiffOptions {
        strip_scopes: cfg.strip_scope.clone(),
        rename_map,
        only_names: Vec::new(),
        threshold: 0,
    };
    let gates = GateOptions {
        fail_on_symbol_set_change: cfg.fail_on_symbol_set_change,
        fail_on_text_delta: cfg.fail_on_text_delta,
        fail_on_added_bytes: cfg.fail_on_added_bytes,
        allow,
        strict_allow: cfg.strict_allow,
    };
    let d = diff::diff(before, after, &opts);
    let outcome = sgate::evaluate(&d, &gates);
    let mut out = Vec::new();
    let admitted: std::collections::BTreeSet<(Bucket, &str)> = outcome
        .admitted
        .iter()
        .map(|a| (a.entry.bucket, a.change.name.as_str()))
        .collect();
    let codes = [
        (Bucket::Removed, "SYM001"),
        (Bucket::Added, "SYM002"),
        (Bucket::Resized, "SYM003"),
        (Bucket::Renamed, "SYM004"),
    ];
    for (bucket, code) in codes {
        let rows: Vec<_> = d
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
    for r in outcome
        .reasons
        .iter()
        .filter(|r| r.starts_with("--fail-on-text-delta") || r.starts_with("--fail-on-added-bytes"))
    {
        out.push(Finding::error(GATE, "SYM005", r.clone()).at(Location::file(unit_path)));
    }
    for s in &outcome.stale {
        let msg = format!(
            "allow entry `{} {}` ({}) matched no change (stale: remove it)",
            s.bucket.as_str(),
            s.name,
            s.origin
        );
        out.push(if cfg.strict_allow {
            Finding::error(GATE, "SYM006", msg)
        } else {
            Finding::warning(GATE, "SYM006", msg)
        });
    }
    for w in report::pair_warnings(before, after) {
        out.push(Finding::warning(GATE, "SYM007", w));
    }
    for a in &outcome.admitted {
        out.push(
            Finding::note(
                GATE,
                "SYM009",
                format!(
                    "admitted {} `{}` ({:+}) by {}",
                    a.entry.bucket.as_str(),
                    a.change.name,
                    a.change.delta,
                    a.entry.origin
                ),
            )
            .in_unit(a.change.name.clone()),
        );
    }
    let [ad, rm, rs, rn] = d.gate_view().counts();
    let t = d.text();
    let headline = format!(
        "{} -> {} symbols: {ad} added, {rm} removed, {rs} resized ({} admitted), {rn} renamed; .text {:+}",
        d.defined_before,
        d.defined_after,
        outcome.admitted.len(),
        t.delta
    );
    let figures = vec![
        ("defined_before".into(), json!(d.defined_before)),
        ("defined_after".into(), json!(d.defined_after)),
        ("added".into(), json!(ad)),
        ("removed".into(), json!(rm)),
        ("resized".into(), json!(rs)),
        ("renamed".into(), json!(rn)),
        ("admitted".into(), json!(outcome.admitted.len())),
        ("text_delta".into(), json!(t.delta)),
    ];
    (out, headline, figures)
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

    fn skip_reason(&self, ctx: &CheckCtx) -> Option<String> {
        let Some(cfg) = &ctx.config.symbols else {
            return Some("no [symbols] section in mgctl.toml".into());
        };
        let missing: Vec<&str> = [cfg.before.as_str(), cfg.after.as_str()]
            .into_iter()
            .filter(|p| !resolve(ctx, p).exists())
            .collect();
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
        let table = match table_choice(cfg.table.as_deref()) {
            Ok(t) => t,
            Err(e) => {
                return GateReport::could_not_run(
                    GATE,
                    "SYM010",
                    format!("[symbols] table: {e}"),
                    ctx.config_path.as_ref().map(|p| Location::file(ctx.rel(p))),
                )
            }
        };
        for e in &cfg.rename_map {
            if diff::parse_rename(e).is_none() {
                return GateReport::could_not_run(
                    GATE,
                    "SYM010",
                    format!("[symbols] rename_map entry {e:?}: expected OLD=NEW"),
                    None,
                );
            }
        }
        let mut allow: Vec<AllowEntry> = cfg
            .allow_resize
            .iter()
            .map(|n| AllowEntry {
                bucket: Bucket::Resized,
                name: n.clone(),
                origin: "mgctl.toml allow_resize".into(),
            })
            .collect();
        if let Some(f) = &cfg.allow_file {
            let path = resolve(ctx, f);
            let parsed = std::fs::read_to_string(&path)
                .map_err(|e| format!("{f}: cannot read allow file: {e}"))
                .and_then(|text| {
                    sgate::parse_allow(&text, Path::new(f)).map_err(|e| e.to_string())
                });
            match parsed {
                Ok(v) => allow.extend(v),
                Err(e) => {
                    return GateReport::could_not_run(
                        GATE,
                        "SYM010",
                        e,
                        Some(Location::file(f.clone())),
                    )
                }
            }
        }
        let (pb, pa) = (resolve(ctx, &cfg.before), resolve(ctx, &cfg.after));
        let (lb, la) = rayon::join(
            || elf::read_library(&pb, table),
            || elf::read_library(&pa, table),
        );
        let (lb, la) = match (lb, la) {
            (Ok(b), Ok(a)) => (b, a),
            (Err(e), _) => {
                return GateReport::could_not_run(
                    GATE,
                    "SYM008",
                    e.to_string(),
                    Some(Location::file(cfg.before.clone())),
                )
            }
            (_, Err(e)) => {
                return GateReport::could_not_run(
                    GATE,
                    "SYM008",
                    e.to_string(),
                    Some(Location::file(cfg.after.clone())),
                )
            }
        };
        let (before, after) = diff::sides_from_libraries(&lb, &la, cfg.keep_versions);
        let (findings, headline, figures) = diff_findings(&before, &after, cfg, allow, &cfg.after);
        let mut r = GateReport::from_findings(GATE, findings, headline);
        r.figures = figures;
        r.inputs = vec![
            identity_input(ctx, &pb, &lb.identity, lb.table),
            identity_input(ctx, &pa, &la.identity, la.table),
        ];
        r.units = vec![cfg.after.clone()];
        r
    }

    fn self_test(&self, neutered: &Neutered) -> SelfTest {
        let (before, after) = symbols::selftest::canned();
        let cfg = SymbolsConfig {
            before: "pull.so".into(),
            after: "push.so".into(),
            table: None,
            keep_versions: false,
            strip_scope: vec!["MobileGL::MG_State::GLState::ProgramObject::".into()],
            rename_map: Vec::new(),
            fail_on_symbol_set_change: true,
            fail_on_text_delta: false,
            fail_on_added_bytes: None,
            allow_resize: Vec::new(),
            allow_file: None,
            strict_allow: true,
            build_hint: None,
        };
        let grew = |a: &Side| {
            let mut a = a.clone();
            for r in &mut a.rows {
                if &*r.demangled == "MobileGL::Grew()" {
                    r.size = 0x50;
                }
            }
            a
        };
        let only_grew = grew(&before);
        let mut text_moved = before.clone();
        text_moved.sections[0].size += 64;
        let allow = |n: &str| {
            vec![AllowEntry {
                bucket: Bucket::Resized,
                name: n.into(),
                origin: "self-test".into(),
            }]
        };
        let budget0 = SymbolsConfig {
            fail_on_added_bytes: Some(0),
            ..cfg.clone()
        };
        type Case<'a> = (&'a str, bool, &'a Side, SymbolsConfig, Vec<AllowEntry>);
        let cases: Vec<Case<'_>> = vec![
            ("set-change", true, &after, cfg.clone(), Vec::new()),
            (
                "unadmitted-resize",
                true,
                &only_grew,
                cfg.clone(),
                allow("MobileGL::Gone()"),
            ),
            ("text-budget-0", true, &text_moved, budget0, Vec::new()),
            (
                "stale-allow",
                true,
                &before,
                cfg.clone(),
                allow("MobileGL::Nothing()"),
            ),
            ("identical-pair", false, &before, cfg.clone(), Vec::new()),
            (
                "admitted-resize",
                false,
                &only_grew,
                cfg.clone(),
                allow("MobileGL::Grew()"),
            ),
        ];
        let mut controls = Vec::new();
        for (name, expect_trip, subject, c, allow) in cases {
            let (subject, allow) = if expect_trip && neutered.contains(GATE, name) {
                (&before, Vec::new())
            } else {
                (subject, allow)
            };
            let (f, _, _) = diff_findings(&before, subject, &c, allow, "push.so");
            let tripped = f.iter().any(|f| f.severity == crate::gate::Severity::Error);
            controls.push(Control {
                name: name.into(),
                expect_trip,
                tripped,
                detail: f
                    .iter()
                    .find(|f| f.severity == crate::gate::Severity::Error)
                    .map_or_else(|| "clean".into(), |f| f.message.clone()),
            });
        }
        SelfTest::from_controls(controls)
    }
}

pub struct SymbolRulesGate;

fn compile_rules(cfg: &SymbolRulesConfig) -> Result<Vec<(usize, Rule, TableChoice)>, String> {
    let mut out = Vec::new();
    for (i, r) in cfg.rules.iter().enumerate() {
        let (mode, scope) = match (&r.forbid, &r.require) {
            (Some(s), None) => (Mode::Forbid, s),
            (None, Some(s)) => (Mode::Require, s),
            _ => {
                return Err(format!(
                    "rule `{}`: give exactly one of forbid = SCOPE or require = SCOPE",
                    r.name
                ))
            }
        };
        let scope: Scope = scope
            .parse()
            .map_err(|e| format!("rule `{}`: {e}", r.name))?;
        let pattern = regex::Regex::new(&r.pattern)
            .map_err(|e| format!("rule `{}`: bad pattern: {e}", r.name))?;
        let table =
            table_choice(r.table.as_deref()).map_err(|e| format!("rule `{}`: {e}", r.name))?;
        out.push((
            i,
            Rule {
                mode,
                scope,
                pattern,
                why: r.message.clone(),
            },
            table,
        ));
    }
    Ok(out)
}

fn rule_findings(
    cfg: &SymbolRulesConfig,
    compiled: &[(usize, Rule, TableChoice)],
    libs: &BTreeMap<(String, TableChoice), Result<Library, String>>,
) -> Vec<Finding> {
    let mut out = Vec::new();
    for (i, rule, table) in compiled {
        let rc = &cfg.rules[*i];
        let lib = match libs.get(&(rc.library.clone(), *table)) {
            Some(Ok(l)) => l,
            Some(Err(e)) => {
                out.push(
                    Finding::error(RULES_GATE, "SYR003", e.clone())
                        .at(Location::file(rc.library.clone()))
                        .in_unit(rc.library.clone()),
                );
                continue;
            }
            None => continue,
        };
        let why = rc
            .message
            .as_deref()
            .map(|m| format!(": {m}"))
            .unwrap_or_default();
        for v in rules::check(lib, std::slice::from_ref(rule)) {
            let f = match v.mode {
                Mode::Forbid => Finding::error(
                    RULES_GATE,
                    "SYR001",
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
                    "SYR002",
                    format!(
                        "rule `{}`: no {} symbol matches /{}/{why}",
                        rc.name,
                        v.scope.as_str(),
                        v.pattern
                    ),
                ),
            };
            out.push(
                f.at(Location::file(rc.library.clone()))
                    .in_unit(rc.library.clone())
                    .with_detail(
                        json!({"rule": rc.name, "demangled": v.demangled, "mangled": v.mangled}),
                    ),
            );
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

    fn skip_reason(&self, ctx: &CheckCtx) -> Option<String> {
        let Some(cfg) = &ctx.config.symbol_rules else {
            return Some("no [symbol_rules] section in mgctl.toml".into());
        };
        if cfg.rules.is_empty() {
            return Some("[symbol_rules] has no rules".into());
        }
        if cfg.rules.iter().all(|r| !resolve(ctx, &r.library).exists()) {
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
        let compiled = match compile_rules(cfg) {
            Ok(c) => c,
            Err(e) => {
                return GateReport::could_not_run(
                    RULES_GATE,
                    "SYR004",
                    e,
                    ctx.config_path.as_ref().map(|p| Location::file(ctx.rel(p))),
                )
            }
        };
        let mut libs = BTreeMap::new();
        for (i, _, table) in &compiled {
            let p = &cfg.rules[*i].library;
            libs.entry((p.clone(), *table)).or_insert_with(|| {
                elf::read_library(&resolve(ctx, p), *table).map_err(|e| e.to_string())
            });
        }
        let findings = rule_findings(cfg, &compiled, &libs);
        let n = compiled.len();
        let mut r = GateReport::from_findings(
            RULES_GATE,
            findings,
            format!(
                "{n} rule(s) over {} librar{}",
                libs.len(),
                if libs.len() == 1 { "y" } else { "ies" }
            ),
        );
        r.inputs = libs
            .iter()
            .map(|((p, _), l)| match l {
                Ok(l) => identity_input(ctx, &resolve(ctx, p), &l.identity, l.table),
                Err(_) => format!("{p} (unreadable)"),
            })
            .collect();
        r.units = libs.keys().map(|(p, _)| p.clone()).collect();
        r
    }

    fn self_test(&self, neutered: &Neutered) -> SelfTest {
        let sym = |name: &str, defined: bool| Symbol {
            name: name.into(),
            version: None,
            version_hidden: false,
            kind: if defined { 'T' } else { 'U' },
            address: 0,
            size: 0,
            binding: Binding::Global,
            visibility: Visibility::Default,
            defined,
        };
        let lib = |defined: Vec<Symbol>, undefined: Vec<Symbol>| Library {
            identity: Identity {
                path: "canned.so".into(),
                file_bytes: 0,
                machine: "x86-64".into(),
                class_bits: 64,
                little_endian: true,
                build_id: None,
                has_symtab: true,
                has_dynsym: true,
            },
            table: Table::Dynsym,
            dynamic: Vec::new(),
            defined,
            undefined,
            sections: Vec::new(),
        };
        let clean = lib(
            vec![
                sym("mobilegl_server_main", true),
                sym("_ZN8MobileGL6MG_Net4SendEv", true),
            ],
            vec![sym("_ZN8MobileGL7MG_Pipe4PushEv", false)],
        );
        let reaches_state = lib(
            clean.defined.clone(),
            vec![sym("_ZN8MobileGL8MG_State7GLState4CoreEv", false)],
        );
        let uses_glslang = lib(
            clean.defined.clone(),
            vec![sym("_ZN7glslang8TProgram4linkEv", false)],
        );
        let no_entry = lib(vec![sym("_ZN8MobileGL6MG_Net4SendEv", true)], Vec::new());
        let defines_remote = lib(
            vec![
                sym("mobilegl_server_main", true),
                sym("_ZN8MobileGL9MG_Remote4PingEv", true),
            ],
            Vec::new(),
        );
        let Some(cfg) = mobilegl_rules_profile() else {
            return SelfTest {
                controls: Vec::new(),
            };
        };
        let Ok(compiled) = compile_rules(&cfg) else {
            return SelfTest {
                controls: vec![Control {
                    name: "compile".into(),
                    expect_trip: false,
                    tripped: true,
                    detail: "profile rules do not compile".into(),
                }],
            };
        };
        let cases: Vec<(&str, bool, &Library)> = vec![
            ("undefined-glstate", true, &reaches_state),
            ("undefined-glslang", true, &uses_glslang),
            ("entry-not-exported", true, &no_entry),
            ("monolith-defines-remote", true, &defines_remote),
            ("clean-libraries", false, &clean),
        ];
        let mut controls = Vec::new();
        for (name, expect_trip, subject) in cases {
            let subject = if expect_trip && neutered.contains(RULES_GATE, name) {
                &clean
            } else {
                subject
            };
            let mut libs = BTreeMap::new();
            for r in &cfg.rules {
                libs.insert((r.library.clone(), TableChoice::Auto), Ok(subject.clone()));
            }
            let f = rule_findings(&cfg, &compiled, &libs);
            controls.push(Control {
                name: name.into(),
                expect_trip,
                tripped: !f.is_empty(),
                detail: f
                    .first()
                    .map_or_else(|| "clean".into(), |f| f.message.clone()),
            });
        }
        SelfTest::from_controls(controls)
    }
}
