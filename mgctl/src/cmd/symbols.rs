//! `mgctl symbols …`: the pre-merge symbol report (`diff`), `list`, `undefined` and `self-test`.
//! The analyses are the `symbols` library's; this file turns flags into requests and renders.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use clap::{Args, Subcommand, ValueEnum};

use symbols::check::{self, PairFlags};
use symbols::gate as sgate;
use symbols::listing::{self, ListSort};
use symbols::report::{self, Format, Outputs, ReportInput, SortOrder, Totals};
use symbols::{elf, TableChoice};

use crate::cmd::Outcome;
use crate::settings::Settings;

#[derive(Debug, Args)]
#[command(
    about = "ELF symbol diff, listings and symbol rules, read in process",
    long_about = "Reads ELF libraries in process (never mapped; .symtab, or .dynsym for a stripped \
library), demangles every name the way GNU c++filt prints it, and answers: what changed between two \
builds (`diff`, the replacement of MobileGL's scripts/symbol_report.py with its `symbol-report:` lines, \
Markdown and JSON), what a library defines (`list`) or needs from outside (`undefined`). `--self-test` \
proves every gate flag can go red. The benchmark against the nm/size/c++filt pipeline is \
`cargo bench -p symbols --bench diff_vs_binutils`.",
    after_help = "Examples:\n  mgctl symbols diff --before driver/build/pull/libMobileGL.so \\\n      --after driver/build/push/libMobileGL.so --sort delta\n  mgctl symbols list driver/build/pull/libMobileGL.so --top 20\n  mgctl symbols undefined driver/build/pull/libMobileGL.so\n  mgctl symbols ratchet -C driver\n  mgctl symbols --self-test"
)]
pub struct SymbolsArgs {
    #[arg(long, help = crate::flags::SELF_TEST_HELP)]
    pub self_test: bool,
    /// Test hook: neuter a negative control so it cannot trip (the self-test must then fail).
    #[arg(long, hide = true, value_name = "CONTROL")]
    pub neuter: Vec<String>,
    #[command(subcommand)]
    pub command: Option<SymbolsCommand>,
}

// Parsed once per process; boxing the diff flags would buy nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Subcommand)]
pub enum SymbolsCommand {
    Diff(DiffArgs),
    List(ListArgs),
    Undefined(UndefinedArgs),
    Ratchet(crate::cmd::link_ratchet::RatchetArgs),
    // The first spelling of --self-test, kept (hidden) for old scripts.
    #[command(hide = true)]
    SelfTest(SelfTestArgs),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TableArg {
    Auto,
    Symtab,
    Dynsym,
}

impl From<TableArg> for TableChoice {
    fn from(t: TableArg) -> Self {
        match t {
            TableArg::Auto => TableChoice::Auto,
            TableArg::Symtab => TableChoice::Symtab,
            TableArg::Dynsym => TableChoice::Dynsym,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SortArg {
    /// largest absolute delta first (upstream)
    Abs,
    /// largest growth first, largest shrink last
    Delta,
    /// by normalised name
    Name,
}

#[derive(Debug, Args)]
#[command(
    long_about = "Compares two builds of a library symbol by symbol (spec: MobileGL's \
scripts/symbol_report.py): demangled names are normalised (--strip-scope, --rename-map) and folded, \
then bucketed into added, removed, resized, renamed-only and unchanged. Prints upstream's \
`symbol-report:` lines and Markdown (or JSON). Informational by default; --fail-on-symbol-set-change, \
--fail-on-text-delta and --fail-on-added-bytes make it a gate (exit 1), always judged at threshold 0 \
over every symbol. --allow-resize / --allow admit the changes a commit names; an entry that matches \
nothing is reported stale (a failure with --strict-allow). Unreadable input exits 2.",
    after_help = "Examples:\n  mgctl symbols diff --before driver/build/pull/libMobileGL.so \\\n      --after driver/build/push/libMobileGL.so\n  mgctl symbols diff --before driver/build/pull/libMobileGL.so \\\n      --after driver/build/push/libMobileGL.so --fail-on-added-bytes 0 \\\n      # exits 1: push adds code\n  mgctl symbols diff --before driver/build/pull/libMobileGL.so \\\n      --after driver/build/push/libMobileGL.so --format json > diff.json\n  mgctl symbols diff --before driver/build/pull/libMobileGL.so \\\n      --after driver/build/push/libMobileGL.so --group namespace:2"
)]
pub struct DiffArgs {
    /// Baseline library.
    #[arg(long, required_unless_present = "base", conflicts_with = "base")]
    pub before: Option<PathBuf>,
    /// Library under test; with --base, a [build] output (workspace-relative, default [symbols] after).
    #[arg(long, required_unless_present = "base")]
    pub after: Option<PathBuf>,
    /// Baseline: this git revision's build of the library, made in a throw-away worktree with
    /// the workspace's [build] and cached by tree id; the current build is made first if stale.
    #[arg(long, value_name = "REV")]
    pub base: Option<String>,
    #[arg(short = 'C', long = "workspace", value_name = "DIR", requires = "base", help = crate::flags::WORKSPACE_HELP)]
    pub workspace: Option<PathBuf>,
    /// Symbol table to read: .symtab when present else .dynsym (auto), or one of them.
    #[arg(long, value_enum, default_value_t = TableArg::Auto)]
    pub table: TableArg,
    /// Compare `name@@VERSION` verbatim instead of matching names without their version.
    #[arg(long)]
    pub keep_versions: bool,
    /// De-nest: every `A::B::C::` becomes `A::B::` (repeatable, applied in order).
    #[arg(long, value_name = "PREFIX")]
    pub strip_scope: Vec<String>,
    /// Plain substring replacement OLD=NEW on demangled names, after strip-scope (repeatable).
    #[arg(long, value_name = "OLD=NEW")]
    pub rename_map: Vec<String>,
    /// List only names containing one of these (comma-separated); never narrows the gates.
    #[arg(long, value_name = "A,B,...")]
    pub only_names: Option<String>,
    /// Size deltas of at most N bytes are not listed as resized (the gates still see them).
    #[arg(long, default_value_t = 0)]
    pub threshold: u64,
    /// Gate on .text: 0 = byte-identical either way; N = fail if it grew by more than N.
    #[arg(long, value_name = "N")]
    pub fail_on_added_bytes: Option<u64>,
    /// Gate: fail if .text moved at all.
    #[arg(long)]
    pub fail_on_text_delta: bool,
    /// Gate: fail on any added, removed, resized or renamed symbol not admitted by an allow entry.
    #[arg(long)]
    pub fail_on_symbol_set_change: bool,
    /// Admit a resize of this normalised name (repeatable).
    #[arg(long, value_name = "NAME")]
    pub allow_resize: Vec<String>,
    /// Allow file: lines `[resized|added|removed|renamed] NAME`, `#` comments (repeatable).
    #[arg(long, value_name = "FILE")]
    pub allow: Vec<PathBuf>,
    /// An allow entry that matched nothing fails the run.
    #[arg(long)]
    pub strict_allow: bool,
    // The first spellings of --format markdown|json --output FILE, kept (hidden) for old
    // scripts: they write that report to FILE besides what --format prints.
    #[arg(long, hide = true, value_name = "FILE")]
    pub markdown: Option<PathBuf>,
    #[arg(long, hide = true, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Also write one self-contained HTML page: bytes by scope, the top symbols and the section
    /// deltas (docs/html.md).
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Write every change the gates see as allow-file lines to FILE (then trim it to what the commit admits).
    #[arg(long, value_name = "FILE")]
    pub emit_allow: Option<PathBuf>,
    // `human` is upstream's `symbol-report:` lines followed by the Markdown report.
    #[arg(long, value_enum, default_value_t = Format::Human, help = crate::flags::FORMAT_HELP)]
    pub format: Format,
    /// Listing order inside each bucket.
    #[arg(long, value_enum, default_value_t = SortArg::Abs)]
    pub sort: SortArg,
    /// Total the changes per scope (a namespace or a class: the mangling does not always say
    /// which) in the JSON too: `namespace` or `namespace:DEPTH` (default depth 1). The Markdown
    /// always leads with these totals (depth 1 unless given).
    #[arg(long, value_name = "namespace[:DEPTH]")]
    pub group: Option<String>,
    /// At most N rows per Markdown table (the JSON lists every one).
    #[arg(long, value_name = "N")]
    pub top: Option<usize>,
    /// Cut the Markdown to at most CHARS characters (default: what a GitHub PR comment holds;
    /// 0 for no limit); rows left out are counted, and the JSON lists every one.
    #[arg(long, value_name = "CHARS", default_value_t = report::PR_COMMENT_CHARS)]
    pub markdown_budget: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ListSortArg {
    Size,
    Name,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ListFormat {
    /// Text for people (colour on a terminal).
    #[value(alias = "text")]
    Human,
    /// Versioned JSON (`"schema": 1`), documented in docs/.
    Json,
}

#[derive(Debug, Args)]
#[command(
    long_about = "Lists the defined symbols of one library, demangled, with nm's type letter and the \
size: largest first (--sort size) or by name, optionally only the --top N. The header says which \
symbol table was read.",
    after_help = "Examples:\n  mgctl symbols list driver/build/pull/libMobileGL.so --top 20\n  mgctl symbols list driver/build/pull/libMobileGL.so --sort name \\\n      --format json"
)]
pub struct ListArgs {
    /// The ELF library or object to list (`.symtab`, or `.dynsym` when stripped).
    pub library: PathBuf,
    /// Symbol table to read: .symtab when present else .dynsym (auto), or one of them.
    #[arg(long, value_enum, default_value_t = TableArg::Auto)]
    pub table: TableArg,
    /// Row order: largest first (size), or by name.
    #[arg(long, value_enum, default_value_t = ListSortArg::Size)]
    pub sort: ListSortArg,
    /// Only the first N rows.
    #[arg(long, value_name = "N")]
    pub top: Option<usize>,
    #[arg(long, value_enum, default_value_t = ListFormat::Human, help = crate::flags::FORMAT_HELP)]
    pub format: ListFormat,
}

#[derive(Debug, Args)]
#[command(
    long_about = "Lists what a library needs from outside (its undefined symbols), demangled and \
grouped by namespace, so a forbidden dependency (e.g. the server reaching MG_State::GLState or glslang, \
MobileGL's purity gate B) is visible at a glance.",
    after_help = "Examples:\n  mgctl symbols undefined driver/build/pull/libMobileGL.so\n  mgctl symbols undefined driver/build/pull/libMobileGL.so --depth 2 \\\n      --format json"
)]
pub struct UndefinedArgs {
    /// The ELF library whose undefined symbols to list.
    pub library: PathBuf,
    /// Symbol table to read: .symtab when present else .dynsym (auto), or one of them.
    #[arg(long, value_enum, default_value_t = TableArg::Auto)]
    pub table: TableArg,
    /// Namespace components to group by.
    #[arg(long, default_value_t = 1)]
    pub depth: usize,
    #[arg(long, value_enum, default_value_t = ListFormat::Human, help = crate::flags::FORMAT_HELP)]
    pub format: ListFormat,
}

#[derive(Debug, Args)]
#[command(
    long_about = "Runs upstream's canned transcripts through the fold/bucket code (five-bucket \
expectations) and every gate flag through a negative control that must trip and positive controls \
that must stay quiet. Exit 0 when all behave, 1 otherwise.",
    after_help = "Examples:\n  mgctl symbols --self-test"
)]
pub struct SelfTestArgs {
    /// Test hook: neuter a negative control so it cannot trip (the self-test must then fail).
    #[arg(long, hide = true, value_name = "CONTROL")]
    pub neuter: Vec<String>,
}

pub fn run(
    args: &SymbolsArgs,
    settings: &Settings,
    out: &mut dyn Write,
) -> anyhow::Result<Outcome> {
    match &args.command {
        Some(SymbolsCommand::Diff(a)) => run_diff(a, settings, out),
        Some(SymbolsCommand::List(a)) => run_list(a, out),
        Some(SymbolsCommand::Undefined(a)) => run_undefined(a, out),
        Some(SymbolsCommand::Ratchet(a)) => crate::cmd::link_ratchet::run(a, settings, out),
        Some(SymbolsCommand::SelfTest(a)) => run_self_test(&a.neuter, settings, out),
        None if args.self_test => run_self_test(&args.neuter, settings, out),
        None => bail!(
            "give a subcommand (diff, list, undefined, ratchet) or --self-test (see mgctl symbols --help)"
        ),
    }
}

/// Write a report to `p` (atomically); on the human format, say so.
fn write_report(
    out: &mut dyn Write,
    announce: bool,
    p: &Path,
    bytes: &[u8],
    what: &str,
    context: Option<&'static str>,
) -> anyhow::Result<()> {
    let written = crate::output::write_file(p, bytes);
    match context {
        Some(c) => written.context(c)?,
        None => written?,
    }
    if announce {
        writeln!(out, "symbol-report: {what} written to {}", p.display())?;
    }
    Ok(())
}

/// `--base REV`: the base revision's build and the current one of the same library.
fn base_pair(a: &DiffArgs, rev: &str, settings: &Settings) -> anyhow::Result<(PathBuf, PathBuf)> {
    let dir = a.workspace.clone().unwrap_or_else(|| PathBuf::from("."));
    let ctx = settings.workspace(&settings.discover(&dir))?;
    let Some(build) = &ctx.config.build else {
        bail!(
            "symbols diff --base builds {rev} with the workspace's [build], and {} has none",
            ctx.root.display()
        );
    };
    let plan = workspace_build::plan(build, &|at| ctx.config_location(at))?;
    let lib = match (&a.after, &ctx.config.symbols) {
        (Some(p), _) => p.to_string_lossy().replace('\\', "/"),
        (None, Some(s)) => s.after.clone(),
        (None, None) => {
            bail!("symbols diff --base: give --after (a [build] output) or set [symbols] after")
        }
    };
    if !plan.outputs.contains(&lib) {
        bail!(
            "symbols diff --base: {lib} is not one of [build] outputs ({})",
            plan.outputs.join(", ")
        );
    }
    let mut display = workspace_build::progress::Progress::new(settings.quiet);
    let mut progress = |s: workspace_build::Step<'_>| display.step(s);
    plan.ensure(&ctx.root, &mut progress)
        .map_err(anyhow::Error::msg)?;
    let base = workspace_build::base::build(&ctx.root, &plan, rev, true, &mut progress)?;
    Ok((base.output(&lib), ctx.root.join(&lib)))
}

fn run_diff(a: &DiffArgs, settings: &Settings, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    let (before, after) = match (&a.base, &a.before, &a.after) {
        (Some(rev), _, _) => base_pair(a, rev, settings)?,
        (None, Some(b), Some(af)) => (b.clone(), af.clone()),
        _ => bail!("symbols diff: give --before and --after, or --base REV"),
    };
    let (req, group_depth) = check::request_from_flags(&PairFlags {
        before: &before,
        after: &after,
        table: a.table.into(),
        keep_versions: a.keep_versions,
        strip_scope: &a.strip_scope,
        rename_map: &a.rename_map,
        only_names: a.only_names.as_deref(),
        threshold: a.threshold,
        group: a.group.as_deref(),
        fail_on_symbol_set_change: a.fail_on_symbol_set_change,
        fail_on_text_delta: a.fail_on_text_delta,
        fail_on_added_bytes: a.fail_on_added_bytes,
        strict_allow: a.strict_allow,
        allow_resize: &a.allow_resize,
        allow_files: &a.allow,
    })?;
    let run = check::run_pair(&req)?;
    let an = &run.analysis;
    let format = a.format;
    let (md_file, json_file) = (a.markdown.is_some(), a.json.is_some());
    let outputs = Outputs::new(format, md_file, json_file, a.html.is_some());
    let totals = Totals::new(&an.diff, group_depth, outputs.rollup());
    let sort = match a.sort {
        SortArg::Abs => SortOrder::Abs,
        SortArg::Delta => SortOrder::Delta,
        SortArg::Name => SortOrder::Name,
    };
    let input = ReportInput::new(an, &req, &totals, sort, a.top, a.markdown_budget);
    let rendered = report::render(&input, &outputs)?;
    report::print(&input, &outputs, &rendered, out)?;
    let announce = a.format == Format::Human;
    if let Some(p) = &a.markdown {
        let (md, context) = (
            rendered.markdown.as_bytes(),
            "cannot write the Markdown report",
        );
        write_report(out, announce, p, md, "markdown", Some(context))?;
    }
    if let Some(p) = &a.json {
        let context = Some("cannot write the JSON report");
        write_report(out, announce, p, rendered.json.as_bytes(), "json", context)?;
    }
    if let Some(p) = &a.html {
        let page = html_report::symbols_page(&input, crate::report::VERSION);
        write_report(out, announce, p, page.as_bytes(), "html", None)?;
    }
    if let Some(p) = &a.emit_allow {
        let lines = sgate::allow_lines(&an.diff);
        let context = Some("cannot write the allow file");
        write_report(out, announce, p, lines.as_bytes(), "allow entries", context)?;
    }
    let fails = report::fail_lines(&an.outcome);
    if announce {
        write!(out, "{fails}")?;
    } else {
        eprint!("{fails}");
    }
    let pass = !an.failed();
    // The process ends with this command: freeing ~100k strings one by one would cost ~15 ms
    // of a ~100 ms run for nothing, so the large structures are left to the exit (as ripgrep
    // does). Nothing here holds a file, a lock or unflushed output.
    std::mem::forget((run, rendered, totals));
    Ok(Outcome::from_pass(pass))
}

fn run_list(a: &ListArgs, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    let lib = elf::read_library(&a.library, a.table.into())?;
    let sort = match a.sort {
        ListSortArg::Size => ListSort::Size,
        ListSortArg::Name => ListSort::Name,
    };
    let rows = listing::list(&lib.defined, sort, a.top);
    match a.format {
        ListFormat::Json => writeln!(out, "{}", listing::list_json(&lib, &rows)?)?,
        ListFormat::Human => write!(out, "{}", listing::list_text(&lib, &rows))?,
    }
    Ok(Outcome::Pass)
}

fn run_undefined(a: &UndefinedArgs, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    if a.depth == 0 {
        bail!("--depth must be at least 1");
    }
    let lib = elf::read_library(&a.library, a.table.into())?;
    let groups = listing::by_namespace(&lib.undefined, a.depth);
    match a.format {
        ListFormat::Json => writeln!(out, "{}", listing::undefined_json(&lib, &groups)?)?,
        ListFormat::Human => write!(out, "{}", listing::undefined_text(&lib, &groups))?,
    }
    Ok(Outcome::Pass)
}

/// The controls of both symbol gates, as `check --self-test --only symbols,symbol-rules` runs
/// them (live ones too, in a workspace found at or above the current directory).
fn run_self_test(
    neuter: &[String],
    settings: &Settings,
    out: &mut dyn Write,
) -> anyhow::Result<Outcome> {
    let here = Some(std::path::Path::new("."));
    super::gate_self_test(
        &["symbols", "symbol-rules"],
        here,
        settings,
        neuter,
        false,
        out,
    )
}
