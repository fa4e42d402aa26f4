//! Gates `include-probes` (MobileGL's include-closure gate) and `include-layering` (checkdeps-style
//! rules with witness chains). Both read the `[include]` section and share one graph per run.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Deserialize;

use include_graph::graph::{Issue, Unresolvable};
use include_graph::probe::{self, Probe, ProbeResult, Status};
use include_graph::query::chain_text;
use include_graph::rules::{self, LayeringReport, Origin, Rule, RuleGroup};
use include_graph::{compdb, Graph, GraphOptions};

use crate::gate::{
    CheckCtx, Control, Finding, Gate, GateReport, Location, Neutered, SelfTest, Severity,
};

pub const PROBES: &str = "include-probes";
pub const LAYERING: &str = "include-layering";

/// `[include]` in mgctl.toml.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IncludeConfig {
    /// `-I` directories (workspace-relative or absolute), searched for `"…"` and `<…>`.
    #[serde(default)]
    pub dirs: Vec<String>,
    /// `-iquote` directories, searched for `"…"` only (before `dirs`).
    #[serde(default)]
    pub quote_dirs: Vec<String>,
    /// `-isystem` directories, searched after `dirs`.
    #[serde(default)]
    pub system_dirs: Vec<String>,
    /// A compile_commands.json whose include flags are merged into the search path (first-seen order).
    pub compile_commands: Option<String>,
    /// Directories to walk (default: the whole workspace).
    #[serde(default)]
    pub scan: Vec<String>,
    /// Workspace-relative prefixes not walked (still scanned when included).
    #[serde(default)]
    pub exclude: Vec<String>,
    /// Also scan headers found outside the workspace (normally they are leaves, recorded only).
    #[serde(default)]
    pub walk_external: bool,
    /// Extra flags for `--mode compiler|both` (e.g. `-std=gnu++17`, `-DFOO`).
    #[serde(default)]
    pub compiler_flags: Vec<String>,
    /// A probe whose header is missing fails instead of skipping.
    #[serde(default)]
    pub require_all: bool,
    /// Fail unless exactly this many probes actually ran (SKIPs do not count).
    pub expect_probes: Option<usize>,
    /// `text` (the static graph) or `both` (also the real preprocessor per probe, failing on any
    /// disagreement the macro-aware walk cannot explain), like upstream's CI `--mode both`.
    #[serde(default)]
    pub mode: ProbeMode,
    /// Compiler for `mode = "both"` (default: $CXX, then c++, g++, clang++).
    pub compiler: Option<String>,
    #[serde(default, rename = "probe")]
    pub probes: Vec<ProbeConfig>,
    #[serde(default, rename = "layer")]
    pub layers: Vec<LayerConfig>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ProbeMode {
    #[default]
    Text,
    Both,
}

/// `[[include.probe]]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProbeConfig {
    pub name: String,
    pub header: String,
    pub forbidden: Vec<String>,
    #[serde(default)]
    pub allow: Vec<AllowConfig>,
    #[serde(default)]
    pub text_limits: Vec<TextLimitConfig>,
    #[serde(default)]
    pub required: bool,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AllowConfig {
    pub path: String,
    pub reason: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TextLimitConfig {
    pub token: String,
    pub max: usize,
}

/// `[[include.layer]]`: the rules of one directory.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LayerConfig {
    pub dir: toml::Spanned<String>,
    /// Check what each file reaches through any chain, not only its own includes.
    #[serde(default)]
    pub transitive: bool,
    /// `+path` allow, `-path` forbid, `!path` temporary allowance.
    pub rules: Vec<toml::Spanned<String>>,
    /// Known uses of this layer's `!` rules, `from -> header`; any other use is new and fails.
    #[serde(default)]
    pub known_uses: Vec<String>,
}

/// The upstream script's defaults for a real MobileGL checkout: its search directories and its
/// four probes (spec §2.2), plus the layering rule the design docs name.
pub fn mobilegl_profile() -> Option<IncludeConfig> {
    Some(IncludeConfig {
        dirs: [
            "include",
            "MobileGL",
            "MobileGL/MG_Pipe",
            "3rdparty/xxHash",
            "3rdparty/Vulkan-Headers/include",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect(),
        scan: vec!["MobileGL".into()],
        compiler_flags: vec!["-std=gnu++23".into()],
        probes: probe::mobilegl_probes()
            .into_iter()
            .map(ProbeConfig::from)
            .collect(),
        layers: vec![LayerConfig {
            dir: toml::Spanned::new(0..0, "MobileGL/MG_Backend".into()),
            transitive: true,
            rules: vec![toml::Spanned::new(
                0..0,
                "-MobileGL/MG_State/GLState".into(),
            )],
            known_uses: Vec::new(),
        }],
        ..IncludeConfig::default()
    })
}

impl From<Probe> for ProbeConfig {
    fn from(p: Probe) -> Self {
        ProbeConfig {
            name: p.name,
            header: p.header,
            forbidden: p.forbidden,
            allow: p
                .allow
                .into_iter()
                .map(|(path, reason)| AllowConfig { path, reason })
                .collect(),
            text_limits: p
                .text_limits
                .into_iter()
                .map(|(token, max)| TextLimitConfig { token, max })
                .collect(),
            required: p.required,
        }
    }
}

impl ProbeConfig {
    pub fn to_probe(&self) -> Probe {
        Probe {
            name: self.name.clone(),
            header: self.header.clone(),
            forbidden: self.forbidden.clone(),
            allow: self
                .allow
                .iter()
                .map(|a| (a.path.clone(), a.reason.clone()))
                .collect(),
            text_limits: self
                .text_limits
                .iter()
                .map(|t| (t.token.clone(), t.max))
                .collect(),
            required: self.required,
        }
    }
}

/// Where config values came from: the mgctl.toml text (for lines), or the built-in profile.
pub struct ConfigSource<'a> {
    pub path: Option<String>,
    pub text: &'a str,
}

impl ConfigSource<'_> {
    fn line(&self, span_start: usize) -> Origin {
        match &self.path {
            Some(p) => Origin {
                file: p.clone(),
                line: crate::config::line_col(self.text, span_start).0,
            },
            None => Origin {
                file: "<mobilegl-profile>".into(),
                line: 0,
            },
        }
    }
}

/// The layer groups with each rule's mgctl.toml line; a malformed rule is an error at its line.
pub fn rule_groups(
    cfg: &IncludeConfig,
    src: &ConfigSource<'_>,
) -> Result<Vec<RuleGroup>, (String, Origin)> {
    cfg.layers
        .iter()
        .map(|l| {
            let rules = l
                .rules
                .iter()
                .map(|r| {
                    let origin = src.line(r.span().start);
                    Rule::parse(r.get_ref(), origin.clone()).map_err(|e| (e, origin))
                })
                .collect::<Result<Vec<_>, _>>()?;
            Ok(RuleGroup {
                dir: l.dir.get_ref().trim_end_matches('/').to_string(),
                transitive: l.transitive,
                rules,
                known_uses: l.known_uses.clone(),
                origin: src.line(l.dir.span().start),
            })
        })
        .collect()
}

/// Graph options from the config (and optionally a compile_commands.json given on the command line).
pub fn graph_options(
    root: &Path,
    cfg: &IncludeConfig,
    compile_commands: Option<&Path>,
) -> Result<GraphOptions, String> {
    let mut o = GraphOptions::new(root);
    let p = |v: &[String]| v.iter().map(PathBuf::from).collect::<Vec<_>>();
    o.search.user = p(&cfg.dirs);
    o.search.quote = p(&cfg.quote_dirs);
    o.search.system = p(&cfg.system_dirs);
    o.scan = p(&cfg.scan);
    o.exclude = cfg.exclude.clone();
    o.walk_external = cfg.walk_external;
    if let Some((_, units)) = compile_units(root, cfg, compile_commands)? {
        // Each unit resolves its own includes with its own flags; headers use the union
        // (first-seen order), since a header has no flags of its own.
        for u in &units {
            o.search.merge(&u.search);
            o.units.insert(u.file.clone(), u.search.clone());
        }
    }
    Ok(o)
}

/// The compile database named on the command line or in `[include] compile_commands`, parsed.
pub fn compile_units(
    root: &Path,
    cfg: &IncludeConfig,
    compile_commands: Option<&Path>,
) -> Result<Option<(PathBuf, Vec<compdb::CompileUnit>)>, String> {
    let cc = compile_commands
        .map(Path::to_path_buf)
        .or_else(|| cfg.compile_commands.as_ref().map(|c| root.join(c)));
    let Some(cc) = cc else { return Ok(None) };
    let text =
        std::fs::read_to_string(&cc).map_err(|e| format!("{}: cannot read: {e}", cc.display()))?;
    let units = compdb::parse(&text, &cc).map_err(|e| e.to_string())?;
    Ok(Some((cc, units)))
}

/// The run's include graph: built by whichever include gate asks first (the other waits for
/// it), then shared.
fn shared_graph(ctx: &CheckCtx, cfg: &IncludeConfig) -> Result<Arc<Graph>, String> {
    ctx.include_graph
        .get_or_init(|| {
            let opts = graph_options(&ctx.root, cfg, None)?;
            Ok(Arc::new(Graph::build(&opts).map_err(|e| e.to_string())?))
        })
        .clone()
}

/// Input problems met while building the graph, as findings (INC010; unreadable files are errors).
pub fn issue_findings(gate: &'static str, g: &Graph) -> Vec<Finding> {
    let mut out = Vec::new();
    for i in &g.issues {
        let (sev, loc) = match i {
            Issue::Unreadable { path, .. } => (Severity::Error, Location::file(path.clone())),
            Issue::InvalidUtf8 { path, line, column } => (
                Severity::Warning,
                Location::at(path.clone(), *line, Some(*column)),
            ),
            Issue::Directive { path, line, .. } => {
                (Severity::Warning, Location::at(path.clone(), *line, None))
            }
            Issue::MissingSearchDir { path } | Issue::SymlinkLoop { path } => {
                (Severity::Warning, Location::file(path.clone()))
            }
        };
        out.push(Finding::new(gate, "INC010", sev, i.to_string()).at(loc));
    }
    // Computed includes and #include_next cannot be followed statically: say so, once each.
    for u in g
        .unresolved
        .iter()
        .filter(|u| u.reason != Unresolvable::NotFound && !g.nodes[u.from].external)
    {
        let what = if u.reason == Unresolvable::Computed {
            "computed include"
        } else {
            "#include_next"
        };
        out.push(
            Finding::note(gate, "INC012", format!("{what} `{}` not followed by the static graph (use --mode both to compare with the compiler)", u.spelling))
                .at(Location::at(g.rel(u.from), u.line, None)),
        );
    }
    out
}

/// What a probe run concluded, as findings (INC001–INC004), upstream semantics with the fixes of
/// spec §2.11 (`expect_probes` counts probes that actually ran).
pub fn probe_findings(
    gate: &'static str,
    results: &[ProbeResult],
    probes: &[Probe],
    require_all: bool,
    expect: Option<usize>,
) -> Vec<Finding> {
    let mut out = Vec::new();
    for (r, p) in results.iter().zip(probes) {
        match r.status {
            Status::Skip => {
                let sev = if require_all {
                    Severity::Error
                } else {
                    Severity::Warning
                };
                let tail = if require_all {
                    " (a failure under require_all)"
                } else {
                    ""
                };
                out.push(
                    Finding::new(
                        gate,
                        "INC003",
                        sev,
                        format!(
                            "probe `{}` SKIP: header not present: {}{tail}",
                            r.probe, r.header
                        ),
                    )
                    .in_unit(r.probe.clone()),
                );
            }
            Status::Ok | Status::Forbidden => {
                for v in &r.violations {
                    // Point at the include that brings the forbidden header in (the last hop with a line).
                    let loc = v
                        .chain
                        .iter()
                        .rev()
                        .find_map(|h| h.line.map(|l| Location::at(h.path.clone(), l, None)))
                        .unwrap_or_else(|| Location::file(r.header.clone()));
                    out.push(
                        Finding::error(
                            gate,
                            "INC001",
                            format!(
                                "probe `{}`: {} reaches forbidden {} (rule {}): {}",
                                r.probe,
                                r.header,
                                v.path,
                                v.rule,
                                chain_text(&v.chain)
                            ),
                        )
                        .at(loc)
                        .in_unit(r.probe.clone())
                        .with_detail(
                            serde_json::json!({"probe": r.probe, "rule": v.rule, "chain": v.chain}),
                        ),
                    );
                }
                for t in &r.text_problems {
                    out.push(
                        Finding::error(
                            gate,
                            "INC002",
                            format!("probe `{}`: text limit: {t}", r.probe),
                        )
                        .at(Location::file(p.header.clone()))
                        .in_unit(r.probe.clone()),
                    );
                }
                for (path, why) in &r.allowed {
                    out.push(
                        Finding::note(
                            gate,
                            "INC011",
                            format!("probe `{}`: ALLOW {path} - {why}", r.probe),
                        )
                        .in_unit(r.probe.clone()),
                    );
                }
            }
        }
    }
    if let Some(n) = expect {
        let ran = results.iter().filter(|r| r.status != Status::Skip).count();
        if ran != n {
            out.push(Finding::error(
                gate,
                "INC004",
                format!("expected {n} probe(s) to run, ran {ran}"),
            ));
        }
    }
    out
}

/// Layering results as findings (INC005–INC009, INC013 cycles).
pub fn layering_findings(gate: &'static str, rep: &LayeringReport) -> Vec<Finding> {
    let at_origin = |o: &Origin| {
        if o.line == 0 {
            Location::file(o.file.clone())
        } else {
            Location::at(o.file.clone(), o.line as u32, None)
        }
    };
    let mut out = Vec::new();
    for v in &rep.violations {
        let first = v.chain.first().and_then(|h| h.line).unwrap_or(0);
        let also = if v.also > 0 {
            format!(" (and {} more header(s) under the same rule)", v.also)
        } else {
            String::new()
        };
        let how = if v.transitive { "reaches" } else { "includes" };
        out.push(
            Finding::error(
                gate,
                "INC005",
                format!("{} {how} {} forbidden by `{}` ({}): {}{also}", v.from, v.header, v.rule.text, v.rule.origin, chain_text(&v.chain)),
            )
            .at(Location::at(v.from.clone(), first, None))
            .in_unit(v.from.clone())
            .with_detail(serde_json::json!({"rule": v.rule.text, "rule_at": v.rule.origin.to_string(), "chain": v.chain, "transitive": v.transitive})),
        );
    }
    for t in &rep.temporary {
        let first = t.chain.first().and_then(|h| h.line).unwrap_or(0);
        let (code, sev, what) = if t.known {
            (
                "INC007",
                Severity::Warning,
                "known use of temporary allowance",
            )
        } else {
            ("INC006", Severity::Error, "NEW use of temporary allowance")
        };
        out.push(
            Finding::new(
                gate,
                code,
                sev,
                format!(
                    "{what} `{}` ({}): {} (known_uses key: \"{}\")",
                    t.rule.text,
                    t.rule.origin,
                    chain_text(&t.chain),
                    t.key()
                ),
            )
            .at(Location::at(t.from.clone(), first, None))
            .in_unit(t.from.clone()),
        );
    }
    for s in &rep.stale {
        out.push(
            Finding::error(gate, "INC008", format!("stale {}: {}", s.what, s.reason))
                .at(at_origin(&s.origin)),
        );
    }
    for s in &rep.gone {
        out.push(
            Finding::warning(gate, "INC009", format!("{}: {}", s.what, s.reason))
                .at(at_origin(&s.origin)),
        );
    }
    out
}

/// `mode = "both"`: the preprocessor's closure of every probe that ran, its violations (INC001,
/// mode compiler) and every difference from the macro-aware walk (INC015 unexplained, INC016 explained).
fn compiler_findings(
    g: &Graph,
    cfg: &IncludeConfig,
    probes: &[Probe],
    results: &[ProbeResult],
) -> Vec<Finding> {
    use include_graph::compiler;
    let Some(cxx) = compiler::pick_compiler(cfg.compiler.as_deref()) else {
        return vec![Finding::error(
            PROBES,
            "INC015",
            "mode = \"both\" but no C++ preprocessor found (tried $CXX, c++, g++, clang++)",
        )];
    };
    let mut flags = cfg.compiler_flags.clone();
    flags.extend(compiler::search_flags(&g.search));
    let predefs = match compiler::predefined(&cxx, &flags) {
        Ok(m) => m,
        Err(e) => return vec![Finding::error(PROBES, "INC015", e.to_string())],
    };
    let mut out = Vec::new();
    for (p, _) in probes
        .iter()
        .zip(results)
        .filter(|(_, r)| r.status != Status::Skip)
    {
        let Some(start) = g.id(Path::new(&p.header)) else {
            continue;
        };
        let run = match compiler::run_h(&cxx, &flags, &g.root.join(&p.header), &g.root) {
            Ok(run) => run,
            Err(e) => {
                out.push(Finding::error(PROBES, "INC015", e.to_string()).in_unit(p.name.clone()));
                continue;
            }
        };
        if !run.success {
            let why = run.diagnostics.first().cloned().unwrap_or_default();
            out.push(
                Finding::error(
                    PROBES,
                    "INC015",
                    format!("probe `{}`: {cxx} preprocessing failed: {why}", p.name),
                )
                .at(Location::file(p.header.clone()))
                .in_unit(p.name.clone()),
            );
            continue;
        }
        let cr = compiler::probe_from_run(&g.root, p, &run);
        for v in &cr.violations {
            out.push(
                Finding::error(
                    PROBES,
                    "INC001",
                    format!("probe `{}` (mode=compiler, cxx={cxx}): {} reaches forbidden {} (rule {}): {}", p.name, p.header, v.path, v.rule, chain_text(&v.chain)),
                )
                .at(Location::file(p.header.clone()))
                .in_unit(p.name.clone()),
            );
        }
        let walked = include_graph::pp::walk(g, start, predefs.clone());
        let cmp = compiler::compare(g, start, &run, Some(&walked));
        for d in &cmp.differences {
            let side = if d.static_only {
                "static only"
            } else {
                "compiler only"
            };
            let (code, sev) = if d.explanation.explained() {
                ("INC016", Severity::Note)
            } else {
                ("INC015", Severity::Error)
            };
            out.push(
                Finding::new(
                    PROBES,
                    code,
                    sev,
                    format!(
                        "probe `{}`: {} ({side}) - {}",
                        p.name, d.path, d.explanation
                    ),
                )
                .at(Location::file(p.header.clone()))
                .in_unit(p.name.clone()),
            );
        }
    }
    out
}

fn probes_of(cfg: &IncludeConfig) -> Vec<Probe> {
    cfg.probes.iter().map(ProbeConfig::to_probe).collect()
}

/// Runs every probe over a graph (header text read here, the only file access).
pub fn run_probes(g: &Graph, probes: &[Probe]) -> Vec<ProbeResult> {
    probes
        .iter()
        .map(|p| {
            let text = std::fs::read(g.root.join(&p.header)).ok();
            probe::run(g, p, text.as_deref())
        })
        .collect()
}

fn config_source(ctx: &CheckCtx) -> ConfigSource<'_> {
    ConfigSource {
        path: ctx.config_path.as_ref().map(|p| ctx.rel(p)),
        text: &ctx.config_text,
    }
}

pub struct IncludeProbesGate;
pub struct IncludeLayeringGate;

impl Gate for IncludeProbesGate {
    fn name(&self) -> &'static str {
        PROBES
    }
    fn description(&self) -> &'static str {
        "named headers must not reach forbidden paths through any include chain (MobileGL's include-closure gate)"
    }
    fn skip_reason(&self, ctx: &CheckCtx) -> Option<String> {
        match &ctx.config.include {
            None => Some("no [include] section in mgctl.toml".into()),
            Some(c) if c.probes.is_empty() => Some("[include] has no [[include.probe]]".into()),
            Some(_) => None,
        }
    }
    fn run(&self, ctx: &CheckCtx) -> GateReport {
        let Some(cfg) = &ctx.config.include else {
            return GateReport::skipped(PROBES, "no [include] section in mgctl.toml");
        };
        let g = match shared_graph(ctx, cfg) {
            Ok(g) => g,
            Err(e) => return GateReport::could_not_run(PROBES, "INC014", e, None),
        };
        let probes = probes_of(cfg);
        let results = run_probes(&g, &probes);
        let mut fs = probe_findings(
            PROBES,
            &results,
            &probes,
            cfg.require_all,
            cfg.expect_probes,
        );
        fs.extend(
            issue_findings(PROBES, &g)
                .into_iter()
                .filter(|f| f.code != "INC012"),
        );
        if cfg.mode == ProbeMode::Both {
            fs.extend(compiler_findings(&g, cfg, &probes, &results));
        }
        let ran = results.iter().filter(|r| r.status != Status::Skip).count();
        let forbidden: usize = results.iter().map(|r| r.violations.len()).sum();
        let mut rep = GateReport::from_findings(
            PROBES,
            fs,
            format!(
                "{} probes / {ran} ran / {forbidden} forbidden / {} files graphed",
                probes.len(),
                g.scanned_count()
            ),
        )
        .figure("probes", probes.len())
        .figure("ran", ran)
        .figure("skipped", probes.len() - ran)
        .figure("forbidden", forbidden)
        .figure("files", g.scanned_count())
        .figure("edges", g.edge_count());
        rep.units = results.iter().map(|r| r.probe.clone()).collect();
        rep.inputs = vec![ctx.root.display().to_string()];
        rep
    }
    fn self_test(&self, neutered: &Neutered) -> SelfTest {
        selftest::probes(neutered)
    }
}

impl Gate for IncludeLayeringGate {
    fn name(&self) -> &'static str {
        LAYERING
    }
    fn description(&self) -> &'static str {
        "checkdeps-style +/-/! include rules per directory, direct or transitive, with witness chains and stale-rule detection"
    }
    fn skip_reason(&self, ctx: &CheckCtx) -> Option<String> {
        match &ctx.config.include {
            None => Some("no [include] section in mgctl.toml".into()),
            Some(c) if c.layers.is_empty() => Some("[include] has no [[include.layer]]".into()),
            Some(_) => None,
        }
    }
    fn run(&self, ctx: &CheckCtx) -> GateReport {
        let Some(cfg) = &ctx.config.include else {
            return GateReport::skipped(LAYERING, "no [include] section in mgctl.toml");
        };
        let src = config_source(ctx);
        let groups = match rule_groups(cfg, &src) {
            Ok(g) => g,
            Err((e, o)) => {
                return GateReport::could_not_run(
                    LAYERING,
                    "INC008",
                    format!("invalid rule: {e}"),
                    Some(Location::at(o.file, o.line as u32, None)),
                )
            }
        };
        let g = match shared_graph(ctx, cfg) {
            Ok(g) => g,
            Err(e) => return GateReport::could_not_run(LAYERING, "INC014", e, None),
        };
        let rep = rules::check(&g, &groups);
        let mut fs = layering_findings(LAYERING, &rep);
        fs.extend(issue_findings(LAYERING, &g));
        for c in include_graph::query::cycles(&g) {
            let loc = c
                .witness
                .first()
                .map(|h| Location::at(h.path.clone(), h.line.unwrap_or(0), None));
            let mut f = Finding::warning(
                LAYERING,
                "INC013",
                format!(
                    "include cycle of {} file(s): {}",
                    c.files.len(),
                    chain_text(&c.witness)
                ),
            );
            f.location = loc;
            fs.push(f);
        }
        let rules_n: usize = groups.iter().map(|g| g.rules.len()).sum();
        let mut r = GateReport::from_findings(
            LAYERING,
            fs,
            format!(
                "{} layers, {rules_n} rules / {} files checked / {} violations, {} temporary uses",
                groups.len(),
                rep.files_checked,
                rep.violations.len(),
                rep.temporary.len()
            ),
        )
        .figure("layers", groups.len())
        .figure("rules", rules_n)
        .figure("files_checked", rep.files_checked)
        .figure("violations", rep.violations.len())
        .figure("temporary_uses", rep.temporary.len())
        .figure("stale", rep.stale.len())
        .figure("files", g.scanned_count())
        .figure("edges", g.edge_count());
        r.units = groups.iter().map(|g| g.dir.clone()).collect();
        r.inputs = vec![ctx.root.display().to_string()];
        r
    }
    fn self_test(&self, neutered: &Neutered) -> SelfTest {
        selftest::layering(neutered)
    }
}

/// Canned trees that prove each gate trips for the reason it exists.
pub mod selftest {
    use super::*;

    type Files = Vec<(&'static str, &'static str)>;

    fn control(
        name: &str,
        expect_trip: bool,
        outcome: Result<Vec<Finding>, String>,
        codes: &[&str],
    ) -> Control {
        match outcome {
            Err(e) => Control {
                name: name.into(),
                expect_trip,
                tripped: !expect_trip,
                detail: format!("could not build the control: {e}"),
            },
            Ok(fs) => {
                let hit = fs.iter().find(|f| {
                    f.severity == Severity::Error && (codes.is_empty() || codes.contains(&f.code))
                });
                Control {
                    name: name.into(),
                    expect_trip,
                    tripped: hit.is_some(),
                    detail: hit.map_or_else(
                        || "no finding".to_string(),
                        |f| format!("{} {}", f.code, f.message),
                    ),
                }
            }
        }
    }

    /// Builds a canned tree and its graph; the returned guard keeps the tree alive.
    fn build(files: &[(&str, &str)], dirs: &[&str]) -> Result<(Graph, impl Sized), String> {
        let d = include_graph::temp_tree(files).map_err(|e| e.to_string())?;
        let mut o = GraphOptions::new(d.path());
        o.search.user = dirs.iter().map(PathBuf::from).collect();
        let g = Graph::build(&o).map_err(|e| e.to_string())?;
        Ok((g, d))
    }

    fn layer(dir: &str, transitive: bool, rules: &[&str], known: &[&str]) -> RuleGroup {
        RuleGroup {
            dir: dir.into(),
            transitive,
            rules: rules
                .iter()
                .enumerate()
                .filter_map(|(i, r)| {
                    Rule::parse(
                        r,
                        Origin {
                            file: "self-test.toml".into(),
                            line: i + 1,
                        },
                    )
                    .ok()
                })
                .collect(),
            known_uses: known.iter().map(|s| s.to_string()).collect(),
            origin: Origin {
                file: "self-test.toml".into(),
                line: 0,
            },
        }
    }

    fn layering_run(
        files: &[(&str, &str)],
        dirs: &[&str],
        groups: &[RuleGroup],
    ) -> Result<Vec<Finding>, String> {
        let (g, _guard) = build(files, dirs)?;
        let rep = rules::check(&g, groups);
        Ok(layering_findings(LAYERING, &rep))
    }

    const TEX: (&str, &str) = ("State/GLState/Tex.h", "#pragma once\n");
    const PUBLIC: (&str, &str) = ("State/GLState/Public.h", "#pragma once\n");

    pub fn layering(neutered: &Neutered) -> SelfTest {
        let gate = LAYERING;
        let fence = || {
            vec![layer(
                "Backend",
                false,
                &["-State/GLState", "+State/GLState/Public.h"],
                &[],
            )]
        };
        let fence_t = || {
            vec![layer(
                "Backend",
                true,
                &["-State/GLState", "+State/GLState/Public.h"],
                &[],
            )]
        };
        let temp = |known: &[&str]| {
            vec![layer(
                "Backend",
                false,
                &["-State/GLState", "+State/GLState/Public.h", "!Impl"],
                known,
            )]
        };
        let base: Files = vec![
            TEX,
            PUBLIC,
            (
                "Backend/Uses.cpp",
                "#include \"../State/GLState/Public.h\"\n",
            ),
        ];
        let with = |extra: Files| -> Files { base.iter().copied().chain(extra).collect() };
        let hops = |last: &'static str| -> Files {
            with(vec![
                ("Backend/Draw.cpp", "#include <Pipe/Handles.h>\n"),
                ("Pipe/Handles.h", "#include \"Values.h\"\n"),
                ("Pipe/Values.h", last),
            ])
        };
        let glue = || {
            with(vec![
                ("Backend/Glue.cpp", "#include \"../Impl/Legacy.h\"\n"),
                ("Impl/Legacy.h", ""),
            ])
        };
        let bridge = |draw: &'static str| -> Files {
            // "Bridge.h" resolves next to the includer first (Backend/Bridge.h, dirty), not in Clean/.
            with(vec![
                ("Backend/Draw.cpp", draw),
                ("Backend/Bridge.h", "#include \"../State/GLState/Tex.h\"\n"),
                ("Clean/Bridge.h", "// clean\n"),
            ])
        };
        // (name, negative?, (bad files, rules), (clean twin files, rules), search dirs, codes that count)
        type Input = (Files, Vec<RuleGroup>);
        type Case = (
            &'static str,
            bool,
            Input,
            Input,
            Vec<&'static str>,
            Vec<&'static str>,
        );
        let cases: Vec<Case> = vec![
            (
                "direct-forbidden-include",
                true,
                (with(vec![("Backend/Draw.cpp", "#include \"../State/GLState/Tex.h\"\n")]), fence()),
                (with(vec![("Backend/Draw.cpp", "#include \"../State/GLState/Public.h\"\n")]), fence()),
                vec![],
                vec!["INC005"],
            ),
            (
                "three-hop-transitive",
                true,
                (hops("#include \"../State/GLState/Tex.h\"\n"), fence_t()),
                (hops("// no state here\n"), fence_t()),
                vec!["."],
                vec!["INC005"],
            ),
            ("new-use-of-temporary-rule", true, (glue(), temp(&[])), (glue(), temp(&["Backend/Glue.cpp -> Impl/Legacy.h"])), vec![], vec!["INC006"]),
            (
                "stale-rule",
                true,
                (with(vec![]), vec![layer("Backend", false, &["-State/GLState", "+State/GLState/Public.h", "+State/GLState/Gone.h"], &[])]),
                (with(vec![]), fence()),
                vec![],
                vec!["INC008"],
            ),
            (
                "forbidden-behind-quoted-relative",
                true,
                (bridge("#include \"Bridge.h\"\n"), vec![layer("Backend/Draw.cpp", true, &["-State/GLState"], &[])]),
                (bridge("#include <Bridge.h>\n"), vec![layer("Backend/Draw.cpp", true, &["-State/GLState"], &[])]),
                vec!["Clean"],
                vec!["INC005"],
            ),
            (
                "hidden-by-if0-comment-and-string",
                false,
                (
                    with(vec![(
                        "Backend/Draw.cpp",
                        "#if 0\n#include \"../State/GLState/Tex.h\"\n#endif\n/*\n#include \"../State/GLState/Tex.h\"\n*/\nconst char* s = \"#include \\\"../State/GLState/Tex.h\\\"\";\n",
                    )]),
                    fence_t(),
                ),
                (vec![], vec![]),
                vec![],
                vec![],
            ),
            (
                "allowed-by-more-specific-rule",
                false,
                (with(vec![("Backend/Draw.cpp", "#include \"../State/GLState/Public.h\"\n")]), fence_t()),
                (vec![], vec![]),
                vec![],
                vec![],
            ),
            ("known-temporary-use-only-warns", false, (glue(), temp(&["Backend/Glue.cpp -> Impl/Legacy.h"])), (vec![], vec![]), vec![], vec![]),
        ];
        let controls: Vec<Control> = cases
            .into_iter()
            .map(|(name, negative, bad, clean, dirs, codes)| {
                let (files, groups) = if negative && neutered.contains(gate, name) {
                    clean
                } else {
                    bad
                };
                control(name, negative, layering_run(&files, &dirs, &groups), &codes)
            })
            .collect();
        SelfTest::from_controls(controls)
    }

    fn probe_run(
        files: &[(&str, &str)],
        probes: &[Probe],
        require_all: bool,
    ) -> Result<Vec<Finding>, String> {
        let (g, _guard) = build(files, &["MobileGL", "MobileGL/MG_Pipe"])?;
        let results = run_probes(&g, probes);
        Ok(probe_findings(PROBES, &results, probes, require_all, None))
    }

    pub fn probes(neutered: &Neutered) -> SelfTest {
        let gate = PROBES;
        let all = probe::mobilegl_probes();
        let value = vec![all[0].clone()];
        let artifacts = vec![all[1].clone()];
        let clean_value: Files = vec![
            (
                "MobileGL/MG_Pipe/MGPipeValueTypes.h",
                "#pragma once\n#include <MG_Pipe/MGPipeHandles.h>\n",
            ),
            (
                "MobileGL/MG_Pipe/MGPipeHandles.h",
                "#pragma once\n#include \"Includes.h\"\n",
            ),
            ("MobileGL/Includes.h", "#pragma once\n"),
            (
                "MobileGL/MG_State/GLState/RenderState/RenderState.h",
                "#pragma once\n",
            ),
        ];
        let dirty_value: Files = vec![
            ("MobileGL/MG_Pipe/MGPipeValueTypes.h", "#pragma once\n#include <MG_Pipe/MGPipeHandles.h>\n"),
            ("MobileGL/MG_Pipe/MGPipeHandles.h", "#pragma once\n#include \"Includes.h\"\n"),
            ("MobileGL/Includes.h", "#pragma once\n#include \"MG_State/GLState/TextureState/../RenderState/RenderState.h\"\n"),
            ("MobileGL/MG_State/GLState/RenderState/RenderState.h", "#pragma once\n"),
        ];
        let hidden_value: Files = vec![
            ("MobileGL/MG_Pipe/MGPipeValueTypes.h", "#pragma once\n#if 0\n#include <MG_State/GLState/RenderState/RenderState.h>\n#endif\n// #include <MG_State/GLState/RenderState/RenderState.h>\n"),
            ("MobileGL/MG_State/GLState/RenderState/RenderState.h", "#pragma once\n"),
        ];
        let art3 = "#pragma once\n// glslang::A\n// glslang::B\n// glslang::C\n";
        let art2 = "#pragma once\n// glslang::A\n// glslang::B\n";
        type Case = (
            &'static str,
            bool,
            Files,
            Files,
            Vec<Probe>,
            bool,
            Vec<&'static str>,
        );
        let cases: Vec<Case> = vec![
            (
                "value-header-reaches-state",
                true,
                dirty_value,
                clean_value.clone(),
                value.clone(),
                false,
                vec!["INC001"],
            ),
            (
                "artifacts-text-limit",
                true,
                vec![(
                    "MobileGL/MG_State/GLState/ProgramState/ProgramArtifacts.h",
                    art3,
                )],
                vec![(
                    "MobileGL/MG_State/GLState/ProgramState/ProgramArtifacts.h",
                    art2,
                )],
                artifacts.clone(),
                false,
                vec!["INC002"],
            ),
            (
                "missing-header-under-require-all",
                true,
                vec![("MobileGL/Other.h", "")],
                clean_value.clone(),
                value.clone(),
                true,
                vec!["INC003"],
            ),
            (
                "clean-value-header",
                false,
                clean_value.clone(),
                vec![],
                value.clone(),
                true,
                vec![],
            ),
            (
                "value-header-hidden-by-if0",
                false,
                hidden_value,
                vec![],
                value.clone(),
                true,
                vec![],
            ),
            (
                "missing-header-skips-without-require-all",
                false,
                vec![("MobileGL/Other.h", "")],
                vec![],
                value,
                false,
                vec![],
            ),
        ];
        let controls: Vec<Control> = cases
            .into_iter()
            .map(|(name, negative, bad, clean, probes, require_all, codes)| {
                let files = if negative && neutered.contains(gate, name) {
                    clean
                } else {
                    bad
                };
                control(
                    name,
                    negative,
                    probe_run(&files, &probes, require_all),
                    &codes,
                )
            })
            .collect();
        SelfTest::from_controls(controls)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn self_tests_pass_and_each_neutered_control_fails() {
        for (gate, st) in [
            (LAYERING, selftest::layering as fn(&Neutered) -> SelfTest),
            (PROBES, selftest::probes),
        ] {
            let r = st(&Neutered::default());
            assert!(r.passed(), "{gate}: {:#?}", r.controls);
            for c in r.controls.iter().filter(|c| c.expect_trip) {
                let mut n = Neutered::default();
                n.0.insert(format!("{gate}/{}", c.name));
                let r2 = st(&n);
                let c2 = r2.controls.iter().find(|x| x.name == c.name).unwrap();
                assert!(
                    !c2.tripped,
                    "{gate}/{} still trips when neutered: {}",
                    c.name, c2.detail
                );
                assert!(!r2.passed());
            }
        }
    }

    /// The graph is shared by the gates of one run, never across runs: a second `check` in the
    /// same process sees the include added since the first (a process-wide cache would not).
    #[test]
    fn each_run_sees_the_files_as_they_are_then() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let write = |rel: &str, text: &str| {
            let p = root.join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        };
        write(
            "mgctl.toml",
            "[include]\ndirs = [\"MobileGL\"]\nscan = [\"MobileGL\"]\n\n[[include.layer]]\ndir = \"MobileGL/MG_Backend\"\ntransitive = true\nrules = [\"-MobileGL/MG_State\"]\n",
        );
        write("MobileGL/MG_State/State.h", "#pragma once\nint state;\n");
        write("MobileGL/MG_Backend/Draw.cpp", "int draw();\n");
        let ctx = || {
            let (config, config_path, config_text) = crate::config::load(&root).unwrap();
            CheckCtx {
                root: root.clone(),
                config: Arc::new(config),
                config_path,
                config_text,
                include_graph: Default::default(),
            }
        };
        let first = IncludeLayeringGate.run(&ctx());
        assert_eq!(
            first.verdict,
            crate::gate::Verdict::Pass,
            "{:#?}",
            first.findings
        );
        write(
            "MobileGL/MG_Backend/Draw.cpp",
            "#include \"MG_State/State.h\"\nint draw();\n",
        );
        let second = IncludeLayeringGate.run(&ctx());
        assert_eq!(
            second.verdict,
            crate::gate::Verdict::Fail,
            "{:#?}",
            second.findings
        );
    }

    #[test]
    fn rule_lines_come_from_the_toml() {
        let text = "[include]\ndirs = [\"MobileGL\"]\n[[include.layer]]\ndir = \"MobileGL/MG_Backend\"\ntransitive = true\nrules = [\n  \"-MobileGL/MG_State/GLState\",\n  \"+MobileGL/MG_State/GLState/Public.h\",\n]\n";
        #[derive(Deserialize)]
        struct W {
            include: IncludeConfig,
        }
        let w: W = toml::from_str(text).unwrap();
        let src = ConfigSource {
            path: Some("mgctl.toml".into()),
            text,
        };
        let groups = rule_groups(&w.include, &src).unwrap();
        assert_eq!(groups[0].origin.line, 4);
        assert_eq!(groups[0].rules[0].origin.line, 7);
        assert_eq!(groups[0].rules[1].origin.line, 8);
    }
}
