//! `mgctl include …`: the include graph's queries, the probes and layering rules behind the
//! `include-probes` / `include-layering` gates, compiler cross-checks and the benchmark.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Context};
use clap::{Args, Subcommand, ValueEnum};
use rayon::prelude::*;
use serde_json::json;

use include_graph::compiler::{self, Comparison};
use include_graph::graph::{Issue, Unresolvable};
use include_graph::probe::{Probe, ProbeResult, Status};
use include_graph::query::{self, chain_text};
use include_graph::{pp, report, rules, Graph, GraphOptions};

use crate::cmd::Outcome;
use crate::gate::{Neutered, Severity};
use crate::gates::include::{self as gate, ConfigSource, IncludeConfig};
use crate::settings::Settings;

#[derive(Debug, Args)]
#[command(
    about = "Include graph: closure probes, layering rules, witness chains, queries",
    long_about = "Builds the include graph of a workspace once (every C/C++ file scanned in parallel \
by a real directive lexer: comments, strings, raw strings, line splices and `#if 0` are honoured, other \
conditionals are marked, computed includes and #include_next are reported) and answers questions from \
it: the shortest chain between two files, a file's closure, cycles, the whole graph as DOT or JSON. \
`probes` and `rules` run the include-probes and include-layering gates with full witness chains; \
`--mode compiler|both` checks the static closure against the real preprocessor (`$CXX -H -E`). Search \
directories come from the [include] section of mgctl.toml, from --compile-commands, or from -I.",
    after_help = "Examples:\n  mgctl include -C driver why MobileGL/MG_Backend/DirectGLES/Draw.cpp MobileGL/MG_State/GLState/Core.h\n  mgctl include -C driver probes --require-all --expect-probes 4\n  mgctl include -C driver rules\n  mgctl include -C driver graph --format dot --under MobileGL/MG_Pipe | dot -Tsvg > pipe.svg\n  mgctl include bench"
)]
pub struct IncludeArgs {
    /// The workspace root (its mgctl.toml [include] section is read when present).
    #[arg(short = 'C', long = "workspace", default_value = ".", global = true)]
    pub workspace: PathBuf,
    /// Take include directories from this compile_commands.json (merged, first-seen order).
    #[arg(long, value_name = "FILE", global = true)]
    pub compile_commands: Option<PathBuf>,
    /// Extra -I directory (repeatable; workspace-relative or absolute).
    #[arg(short = 'I', long = "include-dir", value_name = "DIR", global = true)]
    pub include_dirs: Vec<String>,
    #[command(subcommand)]
    pub command: IncludeCommand,
}

#[derive(Debug, Subcommand)]
pub enum IncludeCommand {
    Why(WhyArgs),
    Closure(ClosureArgs),
    Graph(GraphArgs),
    Cycles(CyclesArgs),
    Probes(ProbesArgs),
    Rules(RulesArgs),
    SelfTest(SelfTestArgs),
    Bench(BenchArgs),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutFormat {
    Human,
    Json,
}

#[derive(Debug, Args)]
#[command(
    long_about = "Prints the shortest include chain from FROM to TO, one hop per line as `path:line` \
(the line of the #include that leads to the next hop). Exit 0 when FROM reaches TO, 1 when it does not. \
Files are named workspace-relative, absolute, or by a unique path suffix.",
    after_help = "Examples:\n  mgctl include -C driver why MobileGL/MG_Backend/DirectGLES/Draw.cpp MobileGL/MG_State/GLState/Core.h"
)]
pub struct WhyArgs {
    pub from: String,
    pub to: String,
}

#[derive(Debug, Args)]
#[command(
    long_about = "Lists every file FILE reaches through includes, with its shortest depth; marks \
external headers (outside the workspace, not walked) and files reached only through conditional \
includes.",
    after_help = "Examples:\n  mgctl include -C driver closure MobileGL/MG_Pipe/MGPipeValueTypes.h\n  mgctl include -C driver closure MobileGL/MG_Pipe/PipeInputs.h --format json"
)]
pub struct ClosureArgs {
    pub file: String,
    #[arg(long, value_enum, default_value_t = OutFormat::Human)]
    pub format: OutFormat,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum GraphFormat {
    Dot,
    Json,
}

#[derive(Debug, Args)]
#[command(
    long_about = "Writes the include graph as GraphViz DOT or JSON (`\"schema\": 1`: files, edges with \
line and conditional flag, unresolved includes, includes skipped by #if 0, input issues). --under \
restricts it to the includes made by files under a directory.",
    after_help = "Examples:\n  mgctl include -C driver graph --format dot | dot -Tsvg > includes.svg\n  mgctl include -C driver graph --format json --under MobileGL/MG_Pipe"
)]
pub struct GraphArgs {
    #[arg(long, value_enum, default_value_t = GraphFormat::Dot)]
    pub format: GraphFormat,
    /// Only includes made by files under this workspace-relative directory.
    #[arg(long, value_name = "DIR")]
    pub under: Option<String>,
}

#[derive(Debug, Args)]
#[command(
    long_about = "Lists include cycles (strongly connected groups of files), each with one concrete \
loop as `path:line` hops. Exit 1 when there is a cycle, 0 when there is none.",
    after_help = "Examples:\n  mgctl include -C driver cycles"
)]
pub struct CyclesArgs {}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Mode {
    /// The static graph only.
    Text,
    /// The real preprocessor's `-H` transcript only.
    Compiler,
    /// Both, failing on any disagreement the static graph cannot explain.
    Both,
}

#[derive(Debug, Args)]
#[command(
    long_about = "Runs the closure probes (MobileGL's check_include_closure.py, same `include-closure:` \
lines): each probed header's closure must not contain a forbidden path prefix, and its own text must \
stay within its token budgets. A missing header is a visible SKIP (a failure with --require-all). \
--expect-probes counts probes that actually ran. With --mode compiler|both the real preprocessor is \
run on a one-line translation unit per probe; `both` compares closures and explains every difference \
(conditional include, computed include, #include_next) or fails on it.",
    after_help = "Examples:\n  mgctl include -C driver probes\n  mgctl include -C driver probes --mode both --require-all --expect-probes 4\n  mgctl include -C ~/MobileGL probes --probe value-header --format json"
)]
pub struct ProbesArgs {
    /// Run only these probes (repeatable); unknown names are an error.
    #[arg(long = "probe", value_name = "NAME")]
    pub probes: Vec<String>,
    #[arg(long)]
    pub require_all: bool,
    /// Fail unless exactly N probes ran (SKIPs do not count).
    #[arg(long, value_name = "N")]
    pub expect_probes: Option<usize>,
    #[arg(long, value_enum, default_value_t = Mode::Text)]
    pub mode: Mode,
    /// Compiler for --mode compiler|both (default: $CXX, then c++, g++, clang++).
    #[arg(long, value_name = "CXX")]
    pub compiler: Option<String>,
    #[arg(long, value_enum, default_value_t = OutFormat::Human)]
    pub format: OutFormat,
}

#[derive(Debug, Args)]
#[command(
    long_about = "Checks the [[include.layer]] rules of mgctl.toml (checkdeps-style: `+path` allows, \
`-path` forbids, `!path` is a temporary allowance that warns on every known use and fails on a new \
one; the most specific rule wins; `transitive = true` checks everything a file reaches). Every \
violation prints its shortest witness chain and the mgctl.toml line of the rule; stale rules are all \
reported at once. Exit 1 on any violation, new temporary use or stale rule.",
    after_help = "Examples:\n  mgctl include -C driver rules\n  mgctl include -C driver rules --format json"
)]
pub struct RulesArgs {
    #[arg(long, value_enum, default_value_t = OutFormat::Human)]
    pub format: OutFormat,
}

#[derive(Debug, Args)]
#[command(
    long_about = "Builds small temporary trees and proves both include gates trip: a direct forbidden \
include, a three-hop transitive one, a new use of a `!` rule, a stale rule, a forbidden include \
behind a quoted-relative resolution, a probe reaching a forbidden header, a text budget, a SKIP under \
--require-all; and that an include hidden by #if 0, a comment or a string does NOT trip. Exit 1 when \
any control misbehaves.",
    after_help = "Examples:\n  mgctl include self-test"
)]
pub struct SelfTestArgs {
    /// Test hook: neuter a negative control (GATE/CONTROL) so it cannot trip.
    #[arg(long, hide = true, value_name = "GATE/CONTROL")]
    pub neuter: Vec<String>,
}

#[derive(Debug, Args)]
#[command(
    long_about = "Benchmarks the graph build on a real header tree and prints files, edges and \
milliseconds beside the targets (the LLVM headers of Debian's llvm-14-dev, ~1,700 files: <= 1 s on 2 \
cores; a MobileGL-sized tree of 400 files: <= 50 ms). Then runs g++ -H on a sample of headers and \
prints how many closures agree exactly with the static graph (target >= 99 %), explaining every \
difference. DIR defaults to the llvm-14-dev include root found with `dpkg -L llvm-14-dev`.",
    after_help = "Examples:\n  mgctl include bench\n  mgctl include bench /usr/include/llvm-14 --sample 200\n  mgctl include bench --synthetic 400"
)]
pub struct BenchArgs {
    /// Header tree to graph (searched with -I DIR).
    pub dir: Option<PathBuf>,
    /// Timed builds (the minimum and median are printed).
    #[arg(long, default_value_t = 5)]
    pub runs: usize,
    /// Headers to cross-check with the compiler (0 skips the check).
    #[arg(long, default_value_t = 100)]
    pub sample: usize,
    #[arg(long, value_name = "CXX")]
    pub compiler: Option<String>,
    /// Graph a generated MobileGL-shaped tree of N files instead of DIR.
    #[arg(long, value_name = "N")]
    pub synthetic: Option<usize>,
}

pub fn run(
    args: &IncludeArgs,
    settings: &Settings,
    out: &mut dyn Write,
) -> anyhow::Result<Outcome> {
    match &args.command {
        IncludeCommand::SelfTest(a) => return self_test(a, out),
        IncludeCommand::Bench(a) => return bench(a, out),
        _ => {}
    }
    let ws = Workspace::load(args, settings)?;
    let g = ws.graph()?;
    for i in &g.issues {
        eprintln!("mgctl: warning: {i}");
    }
    match &args.command {
        IncludeCommand::Why(a) => why(&g, a, out),
        IncludeCommand::Closure(a) => closure(&g, a, out),
        IncludeCommand::Graph(a) => {
            match a.format {
                GraphFormat::Dot => report::write_dot(&g, a.under.as_deref(), out)?,
                GraphFormat::Json => writeln!(
                    out,
                    "{}",
                    serde_json::to_string_pretty(&report::graph_json(&g, a.under.as_deref()))?
                )?,
            }
            Ok(Outcome::Pass)
        }
        IncludeCommand::Cycles(_) => cycles(&g, out),
        IncludeCommand::Probes(a) => probes(&ws, &g, a, out),
        IncludeCommand::Rules(a) => layering(&ws, &g, a, out),
        IncludeCommand::SelfTest(_) | IncludeCommand::Bench(_) => Ok(Outcome::Pass),
    }
}

/// The workspace, its [include] config (or an empty one), and where the config came from.
struct Workspace {
    root: PathBuf,
    cfg: IncludeConfig,
    config_path: Option<String>,
    config_text: String,
    compile_commands: Option<PathBuf>,
}

impl Workspace {
    fn load(args: &IncludeArgs, settings: &Settings) -> anyhow::Result<Workspace> {
        let root = &args.workspace;
        if !root.is_dir() {
            bail!(
                "{}: not a directory (mgctl include -C takes a workspace directory)",
                root.display()
            );
        }
        let has_config = root.join(crate::config::FILE_NAME).is_file()
            || crate::config::MOBILEGL_MARKERS
                .iter()
                .any(|m| root.join(m).is_dir());
        let (root, mut cfg, config_path, config_text) = if has_config {
            let ctx = settings.workspace(root)?;
            let cfg = ctx.config.include.clone().unwrap_or_default();
            let cp = ctx.config_path.as_ref().map(|p| ctx.rel(p));
            (ctx.root.clone(), cfg, cp, ctx.config_text.clone())
        } else {
            let r = root
                .canonicalize()
                .with_context(|| format!("{}: cannot resolve path", root.display()))?;
            (r, IncludeConfig::default(), None, String::new())
        };
        cfg.dirs.extend(args.include_dirs.iter().cloned());
        Ok(Workspace {
            root,
            cfg,
            config_path,
            config_text,
            compile_commands: args.compile_commands.clone(),
        })
    }

    fn options(&self) -> anyhow::Result<GraphOptions> {
        gate::graph_options(&self.root, &self.cfg, self.compile_commands.as_deref())
            .map_err(anyhow::Error::msg)
    }

    fn graph(&self) -> anyhow::Result<Graph> {
        Ok(Graph::build(&self.options()?)?)
    }
}

fn why(g: &Graph, a: &WhyArgs, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    let from = g.find(&a.from)?;
    let to = g.find(&a.to)?;
    let hops = query::why(g, from, to);
    if hops.is_empty() {
        writeln!(out, "{} does not reach {}", g.rel(from), g.rel(to))?;
        return Ok(Outcome::Fail);
    }
    for (i, h) in hops.iter().enumerate() {
        let arrow = if i == 0 { "" } else { "-> " };
        writeln!(out, "{}{arrow}{h}", "  ".repeat(i))?;
    }
    writeln!(out, "{} hop(s), shortest chain", hops.len() - 1)?;
    Ok(Outcome::Pass)
}

fn closure(g: &Graph, a: &ClosureArgs, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    let n = g.find(&a.file)?;
    let entries = query::closure(g, n);
    let unresolved: Vec<_> = {
        let r = query::reach(g, &[n], |_| true);
        g.unresolved.iter().filter(|u| r.reached(u.from)).collect()
    };
    if a.format == OutFormat::Json {
        let v = json!({
            "schema": 1,
            "file": g.rel(n),
            "closure": entries,
            "unresolved": unresolved.iter().map(|u| json!({"from": g.rel(u.from), "line": u.line, "spelling": u.spelling, "reason": u.reason})).collect::<Vec<_>>(),
        });
        writeln!(out, "{}", serde_json::to_string_pretty(&v)?)?;
        return Ok(Outcome::Pass);
    }
    writeln!(out, "{}", g.rel(n))?;
    for e in &entries {
        let mut tags = Vec::new();
        if e.external {
            tags.push("external");
        }
        if e.conditional {
            tags.push("conditional");
        }
        let tags = if tags.is_empty() {
            String::new()
        } else {
            format!("  [{}]", tags.join(", "))
        };
        writeln!(out, "{:>3}  {}{tags}", e.depth, e.path)?;
    }
    let ext = entries.iter().filter(|e| e.external).count();
    let cond = entries.iter().filter(|e| e.conditional).count();
    let computed = unresolved
        .iter()
        .filter(|u| u.reason != Unresolvable::NotFound)
        .count();
    writeln!(
        out,
        "{} file(s) reached ({ext} external, {cond} only through conditional includes); {} include(s) unresolved ({computed} computed or #include_next)",
        entries.len(),
        unresolved.len()
    )?;
    Ok(Outcome::Pass)
}

fn cycles(g: &Graph, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    let cs = query::cycles(g);
    for c in &cs {
        writeln!(
            out,
            "cycle of {} file(s): {}",
            c.files.len(),
            chain_text(&c.witness)
        )?;
    }
    writeln!(
        out,
        "{} cycle(s) among {} files",
        cs.len(),
        g.scanned_count()
    )?;
    Ok(Outcome::from_pass(cs.is_empty()))
}

const P: &str = report::PREFIX;

fn probes(
    ws: &Workspace,
    g: &Graph,
    a: &ProbesArgs,
    out: &mut dyn Write,
) -> anyhow::Result<Outcome> {
    let all: Vec<Probe> = ws
        .cfg
        .probes
        .iter()
        .map(gate::ProbeConfig::to_probe)
        .collect();
    if all.is_empty() {
        bail!(
            "no [[include.probe]] configured for {} (see docs/include.md)",
            ws.root.display()
        );
    }
    let unknown: Vec<&String> = a
        .probes
        .iter()
        .filter(|n| !all.iter().any(|p| &p.name == *n))
        .collect();
    if !unknown.is_empty() {
        bail!(
            "unknown probe(s): {}",
            unknown
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    let selected: Vec<Probe> = all
        .iter()
        .filter(|p| a.probes.is_empty() || a.probes.contains(&p.name))
        .cloned()
        .collect();
    let require_all = a.require_all || ws.cfg.require_all;
    let expect = a.expect_probes.or(ws.cfg.expect_probes);
    let use_text = a.mode != Mode::Compiler;
    let use_cc = a.mode != Mode::Text;
    let mut lines: Vec<String> = Vec::new();
    let mut problems = 0usize;
    let cxx = if use_cc {
        let c = compiler::pick_compiler(a.compiler.as_deref())
            .context("no C++ preprocessor found (tried $CXX, c++, g++, clang++)")?;
        lines.push(format!("{P}compiler: {c}"));
        Some(c)
    } else {
        if let Some(c) = &a.compiler {
            lines.push(format!(
                "{P}compiler {c} resolved but mode `text` does not use it"
            ));
        }
        None
    };
    let mut flags = ws.cfg.compiler_flags.clone();
    // Upstream borrows the flags of the first database entry under MobileGL/; so do we (its
    // defines, language and target flags and all include flags, made absolute).
    let units = gate::compile_units(&ws.root, &ws.cfg, ws.compile_commands.as_deref())
        .map_err(anyhow::Error::msg)?;
    match units.as_ref().and_then(|(cc, us)| {
        us.iter()
            .find(|u| u.file.to_string_lossy().contains("MobileGL/"))
            .or(us.first())
            .map(|u| (cc, u))
    }) {
        Some((cc, u)) if use_cc => {
            lines.push(format!(
                "{P}flags from {} ({} tokens), cwd={}",
                cc.display(),
                u.flags.len(),
                u.directory.display()
            ));
            flags.extend(u.flags.iter().cloned());
        }
        _ => flags.extend(compiler::search_flags(&g.search)),
    }
    // The known macro set of the macro-aware static walk that `both` compares with the compiler.
    let predefs = match (&cxx, a.mode) {
        (Some(c), Mode::Both) => Some(compiler::predefined(c, &flags)?),
        _ => None,
    };
    if require_all {
        for p in all.iter().filter(|p| p.required && !selected.contains(p)) {
            if !ws.root.join(&p.header).is_file() {
                problems += 1;
                lines.push(format!(
                    "{P}{} is required under --require-all but its header does not exist: {}",
                    p.name, p.header
                ));
            }
        }
    }
    let static_results = gate::run_probes(g, &selected);
    let mut json_results = Vec::new();
    let mut comparisons: Vec<Comparison> = Vec::new();
    let mut skipped = 0usize;
    for (p, sr) in selected.iter().zip(&static_results) {
        if sr.status == Status::Skip {
            skipped += 1;
            lines.extend(report::probe_lines(sr, "", ""));
            if require_all {
                problems += 1;
                lines.push(format!(
                    "{P}{} SKIP is a failure under --require-all: {} does not exist",
                    p.name, p.header
                ));
            }
            json_results.push(json!({"probe": p.name, "mode": mode_name(a.mode), "status": "SKIP", "headers": 0, "forbidden": 0}));
            continue;
        }
        let mut bad = false;
        if use_text {
            lines.extend(report::probe_lines(sr, "text", "-"));
            bad |= sr.status != Status::Ok;
            json_results.push(result_json(sr, "text"));
        }
        if let Some(cxx) = &cxx {
            let header = g.root.join(&p.header);
            let run = compiler::run_h(cxx, &flags, &header, &g.root)?;
            if !run.success {
                bad = true;
                lines.push(format!(
                    "::error::{} preprocessing failed: {}",
                    p.name,
                    run.diagnostics.join(" | ")
                ));
                json_results.push(json!({"probe": p.name, "mode": "compiler", "status": "ERROR", "headers": 0, "forbidden": 0}));
            } else {
                let mut cr = compiler::probe_from_run(&g.root, p, &run);
                cr.text_problems = sr.text_problems.clone();
                if !cr.text_problems.is_empty() {
                    cr.status = Status::Forbidden;
                }
                lines.extend(report::probe_lines(&cr, "compiler", cxx));
                bad |= cr.status != Status::Ok;
                json_results.push(result_json(&cr, "compiler"));
            }
            if a.mode == Mode::Both {
                if let Some(start) = g.id(Path::new(&p.header)) {
                    let walked = predefs.as_ref().map(|m| pp::walk(g, start, m.clone()));
                    let cmp = compiler::compare(g, start, &run, walked.as_ref());
                    for d in &cmp.differences {
                        let side = if d.static_only {
                            "static only"
                        } else {
                            "compiler only"
                        };
                        let tag = if d.explanation.explained() {
                            "explained"
                        } else {
                            "UNEXPLAINED"
                        };
                        lines.push(format!(
                            "{P}    {tag} difference ({side}): {} - {}",
                            d.path, d.explanation
                        ));
                    }
                    if cmp.unexplained() > 0 {
                        problems += 1;
                        lines.push(format!(
                            "{P}{} MODE DISAGREEMENT - {} unexplained difference(s) between the static graph and {cxx}",
                            p.name,
                            cmp.unexplained()
                        ));
                    } else {
                        lines.push(format!(
                            "{P}{} modes agree: {} static / {} compiler files in the workspace, {} explained difference(s)",
                            p.name,
                            cmp.static_files,
                            cmp.compiler_files,
                            cmp.differences.len()
                        ));
                    }
                    comparisons.push(cmp);
                }
            }
        }
        if bad {
            problems += 1;
        }
    }
    let ran = selected.len() - skipped;
    if let Some(n) = expect {
        if n != ran {
            problems += 1;
            lines.push(format!("::error::expected {n} probe(s), ran {ran}"));
        }
    }
    lines.push(format!(
        "{P}{} probes, {skipped} skipped, {problems} problem(s)",
        selected.len()
    ));
    if problems > 0 {
        lines.push(format!(
            "::error::include-closure gate failed: {problems} problem(s); see the chains above"
        ));
    }
    if a.format == OutFormat::Json {
        let v = json!({
            "schema": 1,
            "modes": match a.mode { Mode::Text => vec!["text"], Mode::Compiler => vec!["compiler"], Mode::Both => vec!["text", "compiler"] },
            "results": json_results,
            "skipped": skipped,
            "ran": ran,
            "problems": problems,
            "require_all": require_all,
            "expect_probes": expect,
            "compiler": cxx,
            "flags": if use_cc { Some(&flags) } else { None },
            "comparisons": comparisons,
            "lines": lines,
        });
        writeln!(out, "{}", serde_json::to_string_pretty(&v)?)?;
    } else {
        for l in &lines {
            writeln!(out, "{l}")?;
        }
    }
    Ok(Outcome::from_pass(problems == 0))
}

fn mode_name(m: Mode) -> &'static str {
    match m {
        Mode::Text => "text",
        Mode::Compiler => "compiler",
        Mode::Both => "text+compiler",
    }
}

fn result_json(r: &ProbeResult, mode: &str) -> serde_json::Value {
    json!({
        "probe": r.probe, "mode": mode, "status": r.status, "headers": r.headers, "forbidden": r.violations.len(),
        "violations": r.violations.iter().map(|v| &v.path).collect::<Vec<_>>(),
        "chains": r.violations, "text_problems": r.text_problems, "allowed": r.allowed,
    })
}

fn layering(
    ws: &Workspace,
    g: &Graph,
    a: &RulesArgs,
    out: &mut dyn Write,
) -> anyhow::Result<Outcome> {
    let src = ConfigSource {
        path: ws.config_path.clone(),
        text: &ws.config_text,
    };
    let groups = gate::rule_groups(&ws.cfg, &src)
        .map_err(|(e, o)| anyhow::anyhow!("{o}: invalid rule: {e}"))?;
    if groups.is_empty() {
        bail!(
            "no [[include.layer]] configured for {} (see docs/include.md)",
            ws.root.display()
        );
    }
    let rep = rules::check(g, &groups);
    let findings = gate::layering_findings(gate::LAYERING, &rep);
    let failed = findings.iter().any(|f| f.severity == Severity::Error);
    if a.format == OutFormat::Json {
        let v = json!({"schema": 1, "files_checked": rep.files_checked, "violations": rep.violations, "temporary": rep.temporary, "stale": rep.stale, "gone": rep.gone, "failed": failed});
        writeln!(out, "{}", serde_json::to_string_pretty(&v)?)?;
        return Ok(Outcome::from_pass(!failed));
    }
    for v in &rep.violations {
        let how = if v.transitive { "reaches" } else { "includes" };
        writeln!(
            out,
            "VIOLATION {} {how} {} (rule `{}` at {})",
            v.from, v.header, v.rule.text, v.rule.origin
        )?;
        write_chain(out, &v.chain)?;
        if v.also > 0 {
            writeln!(
                out,
                "    … and {} more header(s) under the same rule",
                v.also
            )?;
        }
    }
    for t in &rep.temporary {
        let what = if t.known {
            "temporary (known)"
        } else {
            "NEW temporary use"
        };
        writeln!(
            out,
            "{what}: {} (rule `{}` at {})",
            t.key(),
            t.rule.text,
            t.rule.origin
        )?;
        write_chain(out, &t.chain)?;
    }
    for s in &rep.stale {
        writeln!(out, "STALE {} at {}: {}", s.what, s.origin, s.reason)?;
    }
    for s in &rep.gone {
        writeln!(out, "gone: {} at {}: {}", s.what, s.origin, s.reason)?;
    }
    let new = rep.temporary.iter().filter(|t| !t.known).count();
    writeln!(
        out,
        "include-layering: {} layer(s), {} file(s) checked: {} violation(s), {} temporary use(s) ({new} new), {} stale rule(s) -> {}",
        groups.len(),
        rep.files_checked,
        rep.violations.len(),
        rep.temporary.len(),
        rep.stale.len(),
        if failed { "FAIL" } else { "ok" }
    )?;
    Ok(Outcome::from_pass(!failed))
}

fn write_chain(out: &mut dyn Write, hops: &[query::Hop]) -> std::io::Result<()> {
    for (i, h) in hops.iter().enumerate() {
        writeln!(out, "    {}{h}", "  ".repeat(i))?;
    }
    Ok(())
}

fn self_test(a: &SelfTestArgs, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    let neutered = Neutered(a.neuter.iter().cloned().collect());
    let mut ok = true;
    for (name, st) in [
        (gate::PROBES, gate::selftest::probes(&neutered)),
        (gate::LAYERING, gate::selftest::layering(&neutered)),
    ] {
        for c in &st.controls {
            let kind = if c.expect_trip {
                "must trip"
            } else {
                "must stay clean"
            };
            let verdict = match (c.expect_trip, c.tripped) {
                (true, true) => "tripped",
                (true, false) => "DID NOT TRIP",
                (false, false) => "clean",
                (false, true) => "TRIPPED (false positive)",
            };
            writeln!(out, "{name}: {} ({kind}): {verdict} - {}", c.name, c.detail)?;
        }
        let trips = st
            .controls
            .iter()
            .filter(|c| c.expect_trip && c.tripped)
            .count();
        writeln!(
            out,
            "{name}: self-test {} ({trips} negative control(s) tripped)",
            if st.passed() { "OK" } else { "FAILED" }
        )?;
        ok &= st.passed();
    }
    Ok(Outcome::from_pass(ok))
}

/// The include root of Debian's llvm-14-dev, found through dpkg.
fn llvm_include_root() -> anyhow::Result<PathBuf> {
    let out = std::process::Command::new("dpkg")
        .args(["-L", "llvm-14-dev"])
        .output();
    if let Ok(o) = out {
        let text = String::from_utf8_lossy(&o.stdout);
        // The package's include root holds `llvm` and `llvm-c` (symlinks into /usr/include), the
        // directory `llvm-config --includedir` names; fall back to the real llvm/ directory's parent.
        if let Some(p) = text.lines().find_map(|l| l.strip_suffix("/include/llvm-c")) {
            return Ok(PathBuf::from(format!("{p}/include")));
        }
        if let Some(p) = text
            .lines()
            .find_map(|l| l.strip_suffix("/llvm/ADT/StringRef.h"))
        {
            return Ok(PathBuf::from(p));
        }
    }
    let fallback = PathBuf::from("/usr/lib/llvm-14/include");
    if fallback.join("llvm").is_dir() {
        return Ok(fallback);
    }
    bail!("no DIR given and llvm-14-dev is not installed (dpkg -L llvm-14-dev found no llvm/ADT/StringRef.h); pass a header tree")
}

/// A deterministic MobileGL-shaped tree: layered directories, headers including lower layers.
fn synthetic_tree(n: usize) -> anyhow::Result<(impl Sized, PathBuf)> {
    let layers = [
        "MG_Util",
        "MG_Pipe",
        "MG_State/GLState",
        "MG_Impl/GLImpl",
        "MG_Backend/DirectGLES",
    ];
    let mut files: Vec<(String, String)> = Vec::new();
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut rnd = move |m: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % m.max(1) as u64) as usize
    };
    let per = n.div_ceil(layers.len());
    for (li, l) in layers.iter().enumerate() {
        for i in 0..per {
            if files.len() >= n {
                break;
            }
            let is_src = i % 4 == 3;
            let name = format!("MobileGL/{l}/F{i}.{}", if is_src { "cpp" } else { "h" });
            let mut text = String::from("#pragma once\n// generated\n");
            for _ in 0..6 {
                let tl = rnd(li + 1);
                let ti = rnd(per) / 4 * 4; // a header index (i % 4 != 3)
                text.push_str(&format!("#include <{}/F{ti}.h>\n", layers[tl]));
            }
            text.push_str(
                "#ifdef MG_DEBUG\n#include <cstdio>\n#endif\nnamespace MobileGL { int f(); }\n",
            );
            files.push((name, text));
        }
    }
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    let d = include_graph::temp_tree(&refs)?;
    let root = d.path().to_path_buf();
    Ok((d, root))
}

fn bench(a: &BenchArgs, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    let (_guard, dir, target_ms, what) = match a.synthetic {
        Some(n) => {
            let (g, root) = synthetic_tree(n)?;
            (
                Some(Box::new(g) as Box<dyn std::any::Any>),
                root,
                50.0,
                format!("generated MobileGL-shaped tree of {n} files"),
            )
        }
        None => {
            let dir = match &a.dir {
                Some(d) => d.clone(),
                None => llvm_include_root()?,
            };
            let what = if a.dir.is_none() {
                "llvm-14-dev headers (dpkg -L llvm-14-dev)".to_string()
            } else {
                "header tree".to_string()
            };
            (None, dir, 1000.0, what)
        }
    };
    if !dir.is_dir() {
        bail!("{}: not a directory", dir.display());
    }
    let mut opts = GraphOptions::new(&dir);
    opts.search.user.push(if a.synthetic.is_some() {
        dir.join("MobileGL")
    } else {
        dir.clone()
    });
    let threads = rayon::current_num_threads();
    writeln!(
        out,
        "include bench: {} ({what}), {threads} thread(s), {} run(s)",
        dir.display(),
        a.runs.max(1)
    )?;
    let mut times = Vec::new();
    let mut g = Graph::default();
    for _ in 0..a.runs.max(1) {
        let t = Instant::now();
        g = Graph::build(&opts)?;
        times.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    times.sort_by(f64::total_cmp);
    let min = times[0];
    let median = times[times.len() / 2];
    let ext = g.nodes.iter().filter(|n| n.external).count();
    let count = |r: Unresolvable| g.unresolved.iter().filter(|u| u.reason == r).count();
    writeln!(
        out,
        "graph: {} files scanned, {} external leaves, {} edges, {} unresolved ({} not found, {} computed, {} #include_next), {} includes skipped by #if 0",
        g.scanned_count(),
        ext,
        g.edge_count(),
        g.unresolved.len(),
        count(Unresolvable::NotFound),
        count(Unresolvable::Computed),
        count(Unresolvable::IncludeNext),
        g.skipped.len()
    )?;
    let issues = g
        .issues
        .iter()
        .filter(|i| !matches!(i, Issue::Directive { .. }))
        .count();
    if issues > 0 {
        writeln!(out, "input issues: {issues} (first: {})", g.issues[0])?;
    }
    writeln!(
        out,
        "time: min {min:.1} ms, median {median:.1} ms; target <= {target_ms:.0} ms: {} ({:.1}x under the target)",
        if median <= target_ms { "MET" } else { "MISSED" },
        target_ms / median
    )?;
    if a.sample == 0 || a.synthetic.is_some() {
        return Ok(Outcome::from_pass(median <= target_ms));
    }
    // Compiler agreement on a deterministic sample of headers (every k-th .h by path).
    let Some(cxx) = compiler::pick_compiler(a.compiler.as_deref().or(Some("g++"))) else {
        bail!("no compiler for the agreement check")
    };
    let mut headers: Vec<usize> = (0..g.nodes.len())
        .filter(|&n| !g.nodes[n].external && g.nodes[n].scanned && g.rel(n).ends_with(".h"))
        .collect();
    headers.sort_by(|x, y| g.rel(*x).cmp(g.rel(*y)));
    let k = (headers.len() / a.sample.max(1)).max(1);
    let sample: Vec<usize> = headers.iter().copied().step_by(k).take(a.sample).collect();
    let flags = vec![
        "-std=c++17".to_string(),
        "-I".to_string(),
        dir.display().to_string(),
    ];
    let predefs = compiler::predefined(&cxx, &flags)?;
    let t = Instant::now();
    let runs: Vec<(usize, include_graph::Result<compiler::CompilerRun>)> = sample
        .par_iter()
        .map(|&n| (n, compiler::run_h(&cxx, &flags, &g.nodes[n].path, &dir)))
        .collect();
    let cc_ms = t.elapsed().as_secs_f64() * 1000.0;
    let t = Instant::now();
    let walks: Vec<pp::Walk> = sample
        .par_iter()
        .map(|&n| pp::walk(&g, n, predefs.clone()))
        .collect();
    let walk_ms = t.elapsed().as_secs_f64() * 1000.0;
    let mut compared = 0;
    let mut equal = 0;
    let mut equal_plain = 0;
    let mut unexplained = 0;
    let mut failed = Vec::new();
    let mut diff_lines = Vec::new();
    for ((n, r), w) in runs.iter().zip(&walks) {
        let run = r.as_ref().map_err(|e| anyhow::anyhow!("{e}"))?;
        if !run.success {
            // A header that does not preprocess on its own (Windows-only, needs a generated
            // file) has no complete compiler closure to compare with: counted, listed, excluded.
            let why = run
                .diagnostics
                .iter()
                .find(|d| d.contains("error"))
                .cloned()
                .unwrap_or_default();
            failed.push(format!("  {}: {why}", g.rel(*n)));
            continue;
        }
        compared += 1;
        if compiler::compare(&g, *n, run, None).equal() {
            equal_plain += 1;
        }
        let cmp = compiler::compare(&g, *n, run, Some(w));
        if cmp.equal() {
            equal += 1;
            continue;
        }
        unexplained += usize::from(cmp.unexplained() > 0);
        for d in &cmp.differences {
            let side = if d.static_only {
                "static only"
            } else {
                "compiler only"
            };
            diff_lines.push(format!(
                "  {}: {} ({side}) - {}",
                g.rel(*n),
                d.path,
                d.explanation
            ));
        }
    }
    let pct = 100.0 * equal as f64 / compared.max(1) as f64;
    let pct_plain = 100.0 * equal_plain as f64 / compared.max(1) as f64;
    writeln!(
        out,
        "{cxx} -H agreement: {equal}/{compared} sampled headers have identical in-tree closures with the macro-aware walk ({pct:.1} %; target >= 99 %: {}); {} file(s) with an unexplained difference",
        if pct >= 99.0 { "MET" } else { "MISSED" },
        unexplained
    )?;
    writeln!(
        out,
        "  (the plain graph, which follows every conditional include, agrees on {equal_plain}/{compared} = {pct_plain:.1} %; {} sampled header(s) do not preprocess alone and are not compared)",
        failed.len()
    )?;
    writeln!(
        out,
        "{cxx} -H took {cc_ms:.0} ms for {} headers ({:.1} ms each); the macro-aware walk of the same headers took {walk_ms:.0} ms; the graph covers all {} files in {median:.1} ms",
        runs.len(),
        cc_ms / runs.len().max(1) as f64,
        g.scanned_count(),
    )?;
    if !diff_lines.is_empty() {
        writeln!(out, "differences:")?;
        for l in &diff_lines {
            writeln!(out, "{l}")?;
        }
    }
    if !failed.is_empty() {
        writeln!(out, "not compared (g++ failed on the header alone):")?;
        for l in &failed {
            writeln!(out, "{l}")?;
        }
    }
    Ok(Outcome::from_pass(
        median <= target_ms && pct >= 99.0 && unexplained == 0,
    ))
}
