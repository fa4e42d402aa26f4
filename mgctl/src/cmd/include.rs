//! `mgctl include …`: the include graph's queries, the probes and layering rules behind the
//! `include-probes` / `include-layering` gates, compiler cross-checks and the benchmark.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{bail, Context};
use clap::{Args, Subcommand, ValueEnum};

use include_graph::analysis;
use include_graph::report::Query;
use include_graph::report::{self, ErrorStyle};
use include_graph::workspace::{pick_compiler, ProbeRequest};
use include_graph::{Graph, Workspace};

use crate::cmd::Outcome;
use crate::flags::DataFormat;
use crate::settings::Settings;
use include_graph::cfg::IncludeConfig;

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
    after_help = "Examples:\n  mgctl include -C driver why DirectGLES/Managers.cpp MGPipeValueTypes.h\n  mgctl include -C driver probes --require-all --expect-probes 2\n  mgctl include -C driver rules\n  mgctl include -C driver graph --under MobileGL/MG_Pipe | dot -Tsvg > p.svg"
)]
pub struct IncludeArgs {
    #[arg(short = 'C', long = "workspace", value_name = "DIR", default_value = ".", global = true, help = crate::flags::WORKSPACE_HELP)]
    pub workspace: PathBuf,
    /// Take include directories from this compile_commands.json (merged, first-seen order).
    #[arg(long, value_name = "FILE", global = true)]
    pub compile_commands: Option<PathBuf>,
    /// Extra -I directory (repeatable; workspace-relative or absolute).
    #[arg(short = 'I', long = "include-dir", value_name = "DIR", global = true)]
    pub include_dirs: Vec<String>,
    #[arg(long, help = crate::flags::SELF_TEST_HELP)]
    pub self_test: bool,
    /// Test hook: neuter a negative control (GATE/CONTROL) so it cannot trip.
    #[arg(long, hide = true, value_name = "GATE/CONTROL")]
    pub neuter: Vec<String>,
    #[command(subcommand)]
    pub command: Option<IncludeCommand>,
}

#[derive(Debug, Subcommand)]
pub enum IncludeCommand {
    Why(WhyArgs),
    Closure(ClosureArgs),
    Graph(GraphArgs),
    Cycles(CyclesArgs),
    Probes(ProbesArgs),
    Rules(RulesArgs),
    // The first spelling of --self-test, kept (hidden) for old scripts.
    #[command(hide = true)]
    SelfTest(SelfTestArgs),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutFormat {
    /// Text for people (colour on a terminal).
    Human,
    /// Versioned JSON (`"schema": 1`), documented in docs/.
    Json,
    /// GitHub workflow annotations (`::error …::`) with the text report.
    Github,
}

#[derive(Debug, Args)]
#[command(
    long_about = "Prints the shortest include chain from FROM to TO, one hop per line as `path:line` \
(the line of the #include that leads to the next hop). Exit 0 when FROM reaches TO, 1 when it does not. \
Files are named workspace-relative, absolute, or by a unique path suffix.",
    after_help = "Examples:\n  mgctl include -C driver why DirectGLES/Managers.cpp MGPipeValueTypes.h\n  mgctl include -C driver why --format json Managers.cpp MGPipeValueTypes.h"
)]
pub struct WhyArgs {
    /// The including file: workspace-relative, absolute, or a unique path suffix.
    pub from: String,
    /// The header it reaches: workspace-relative, absolute, or a unique path suffix.
    pub to: String,
    #[arg(long, value_enum, default_value_t = crate::flags::DataFormat::Human, help = crate::flags::FORMAT_HELP)]
    pub format: crate::flags::DataFormat,
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
    #[arg(long, value_enum, default_value_t = OutFormat::Human, help = crate::flags::FORMAT_HELP)]
    pub format: OutFormat,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum GraphFormat {
    /// GraphViz DOT.
    Dot,
    /// Versioned JSON (`"schema": 1`), documented in docs/.
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
    #[arg(long, value_enum, default_value_t = GraphFormat::Dot, help = crate::flags::FORMAT_HELP)]
    pub format: GraphFormat,
    /// Only includes made by files under this workspace-relative directory.
    #[arg(long, value_name = "DIR")]
    pub under: Option<String>,
}

#[derive(Debug, Args)]
#[command(
    long_about = "Lists include cycles (strongly connected groups of files), each with one concrete \
loop as `path:line` hops. Exit 1 when there is a cycle, 0 when there is none.",
    after_help = "Examples:\n  mgctl include -C driver cycles\n  mgctl include -C driver cycles --format json"
)]
pub struct CyclesArgs {
    #[arg(long, value_enum, default_value_t = crate::flags::DataFormat::Human, help = crate::flags::FORMAT_HELP)]
    pub format: crate::flags::DataFormat,
}

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
--expect-probes N fails unless N probes are selected (a SKIP counts, as upstream counts it). Error \
lines are plain text; `--format github` prints them as GitHub annotations (`::error::`), as upstream does. With --mode compiler|both the real preprocessor is \
run on a one-line translation unit per probe; `both` compares closures and explains every difference \
(conditional include, computed include, #include_next) or fails on it.",
    after_help = "Examples:\n  mgctl include -C driver probes\n  mgctl include -C driver probes --mode both --require-all --expect-probes 2\n  mgctl include -C driver probes --probe value-header --format json"
)]
pub struct ProbesArgs {
    /// Run only these probes (repeatable); unknown names are an error.
    #[arg(long = "probe", value_name = "NAME")]
    pub probes: Vec<String>,
    /// A probe whose header does not exist fails instead of being a SKIP (also `require_all`
    /// in [include]); probes marked `required` fail when missing even when not selected.
    #[arg(long)]
    pub require_all: bool,
    /// Fail unless exactly N probes are selected (a SKIP counts, as upstream).
    #[arg(long, value_name = "N")]
    pub expect_probes: Option<usize>,
    #[arg(long, value_enum, default_value_t = Mode::Text)]
    pub mode: Mode,
    /// Compiler for --mode compiler|both (default: $CXX, then c++, g++, clang++).
    #[arg(long, value_name = "CXX")]
    pub compiler: Option<String>,
    #[arg(long, value_enum, default_value_t = OutFormat::Human, help = crate::flags::FORMAT_HELP)]
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
    #[arg(long, value_enum, default_value_t = OutFormat::Human, help = crate::flags::FORMAT_HELP)]
    pub format: OutFormat,
}

#[derive(Debug, Args)]
#[command(
    long_about = "Builds small temporary trees and proves both include gates trip: a direct forbidden \
include, a three-hop transitive one, a new use of a `!` rule, a stale rule, a forbidden include \
behind a quoted-relative resolution, a probe reaching a forbidden header, a text budget, a SKIP under \
--require-all; and that an include hidden by #if 0, a comment or a string does NOT trip. Exit 1 when \
any control misbehaves.",
    after_help = "Examples:\n  mgctl include --self-test"
)]
pub struct SelfTestArgs {
    /// Test hook: neuter a negative control (GATE/CONTROL) so it cannot trip.
    #[arg(long, hide = true, value_name = "GATE/CONTROL")]
    pub neuter: Vec<String>,
}

pub fn run(
    args: &IncludeArgs,
    settings: &Settings,
    out: &mut dyn Write,
) -> anyhow::Result<Outcome> {
    let command = match &args.command {
        Some(IncludeCommand::SelfTest(a)) => return self_test(args, &a.neuter, settings, out),
        None if args.self_test => return self_test(args, &args.neuter, settings, out),
        Some(c) => c,
        None => bail!(
            "give a subcommand (why, closure, graph, cycles, probes, rules) or --self-test (see mgctl include --help)"
        ),
    };
    let ws = workspace(args, settings)?;
    let g = ws.graph()?;
    for i in &g.issues {
        eprintln!("mgctl: warning: {i}");
    }
    let cwd = std::env::current_dir().ok();
    let find = |name: &str| g.find_named(name, cwd.as_deref());
    // Text paths from where the user stands, as `check` prints them.
    let shown = crate::output::shown(&ws.root);
    let (pass, lines) = match command {
        IncludeCommand::Why(a) => {
            let q = Query::Why(find(&a.from)?, find(&a.to)?);
            report::query(&g, q, a.format == DataFormat::Json, &shown)?
        }
        IncludeCommand::Closure(a) => {
            let q = Query::Closure(find(&a.file)?);
            report::query(&g, q, a.format == OutFormat::Json, &shown)?
        }
        IncludeCommand::Graph(a) if a.format == GraphFormat::Dot => {
            report::write_dot(&g, a.under.as_deref(), out)?;
            (true, Vec::new())
        }
        IncludeCommand::Graph(a) => {
            report::query(&g, Query::Graph(a.under.as_deref()), true, &shown)?
        }
        IncludeCommand::Cycles(a) => {
            report::query(&g, Query::Cycles, a.format == DataFormat::Json, &shown)?
        }
        IncludeCommand::Probes(a) => probes(&ws, &g, a, settings, &shown)?,
        IncludeCommand::Rules(a) => {
            report::layering_output(&ws.rules(&g)?, &g, a.format == OutFormat::Json, &shown)?
        }
        IncludeCommand::SelfTest(_) => (true, Vec::new()),
    };
    write_lines(out, &lines)?;
    Ok(Outcome::from_pass(pass))
}

fn write_lines(out: &mut dyn Write, lines: &[String]) -> std::io::Result<()> {
    lines.iter().try_for_each(|l| writeln!(out, "{l}"))
}

/// The workspace's [include] config (or an empty one when it has neither an mgctl.toml nor a
/// MobileGL layout) with the command line's -I directories and compile database.
fn workspace(args: &IncludeArgs, settings: &Settings) -> anyhow::Result<Workspace> {
    // The nearest workspace at or above -C (as `check`, cargo and git look upwards).
    let root = &settings.discover(&args.workspace);
    if !root.is_dir() {
        bail!(
            "{}: not a directory (mgctl include -C takes a workspace directory)",
            root.display()
        );
    }
    let (root, cfg, config_path, config_text) = if workspace_config::is_workspace(root) {
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
    Ok(Workspace::load(
        root,
        cfg,
        config_path,
        config_text,
        &args.include_dirs,
        args.compile_commands.as_deref(),
    )?)
}

fn probes(
    ws: &Workspace,
    g: &Graph,
    a: &ProbesArgs,
    settings: &Settings,
    shown: &diag::Shown,
) -> anyhow::Result<(bool, Vec<String>)> {
    let mode = match a.mode {
        Mode::Text => analysis::Mode::Text,
        Mode::Compiler => analysis::Mode::Compiler,
        Mode::Both => analysis::Mode::Both,
    };
    let compiler = match a.mode {
        Mode::Text => None,
        _ => Some(
            pick_compiler(a.compiler.as_deref(), &settings.compiler)
                .context("no C++ preprocessor found (tried $CXX, c++, g++, clang++)")?,
        ),
    };
    let req = ProbeRequest {
        only: a.probes.clone(),
        require_all: a.require_all,
        expect_probes: a.expect_probes,
        mode: Some(mode),
        compiler,
    };
    let o = ws.probes(g, &req)?;
    // Workflow annotations keep workspace paths (GitHub resolves them, not a shell).
    let (style, shown) = match a.format {
        OutFormat::Github => (ErrorStyle::Github, &diag::Shown::default()),
        _ => (ErrorStyle::Plain, shown),
    };
    let unused = a.compiler.as_deref().filter(|_| a.mode == Mode::Text);
    Ok(report::probes_output(
        &o,
        g,
        style,
        unused,
        a.format == OutFormat::Json,
        shown,
    )?)
}

fn self_test(
    args: &IncludeArgs,
    neuter: &[String],
    settings: &Settings,
    out: &mut dyn Write,
) -> anyhow::Result<Outcome> {
    let gates = ["include-probes", "include-layering"];
    super::gate_self_test(&gates, Some(&args.workspace), settings, neuter, false, out)
}
