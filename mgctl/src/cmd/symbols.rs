//! `mgctl symbols …`: the pre-merge symbol report (`diff`), `list`, `undefined`, `self-test` and
//! the `bench` against the nm/size/c++filt pipeline upstream shells out to.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::{bail, Context};
use clap::{Args, Subcommand, ValueEnum};
use serde_json::json;

use symbols::diff::{self, DiffOptions};
use symbols::gate::{self as sgate, AllowEntry, GateOptions};
use symbols::listing::{self, ListSort};
use symbols::report::{self, ReportInput, SortOrder};
use symbols::{elf, group, selftest, Library, TableChoice};

use crate::cmd::Outcome;
use crate::settings::Settings;

#[derive(Debug, Args)]
#[command(
    about = "ELF symbol diff, listings and symbol rules, read in process",
    long_about = "Reads ELF libraries in process (memory-mapped; .symtab, or .dynsym for a stripped \
library), demangles every name the way GNU c++filt prints it, and answers: what changed between two \
builds (`diff`, the replacement of MobileGL's scripts/symbol_report.py with its `symbol-report:` lines, \
Markdown and JSON), what a library defines (`list`) or needs from outside (`undefined`). `self-test` \
proves every gate flag can go red; `bench` times mgctl against the nm/size/c++filt pipeline.",
    after_help = "Examples:\n  mgctl symbols diff --before pull/libMobileGL.so --after push/libMobileGL.so --fail-on-symbol-set-change --allow-resize 'MobileGL::RenderState::Apply()'\n  mgctl symbols list libMobileGL.so --top 20\n  mgctl symbols undefined libMobileGLServer.so\n  mgctl symbols self-test\n  mgctl symbols bench /usr/lib/x86_64-linux-gnu/libLLVM-14.so.1 /usr/lib/x86_64-linux-gnu/libLLVM-15.so.1"
)]
pub struct SymbolsArgs {
    #[command(subcommand)]
    pub command: SymbolsCommand,
}

// Parsed once per process; boxing the diff flags would buy nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Subcommand)]
pub enum SymbolsCommand {
    Diff(DiffArgs),
    List(ListArgs),
    Undefined(UndefinedArgs),
    SelfTest(SelfTestArgs),
    Bench(BenchArgs),
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
pub enum DiffFormat {
    /// upstream's `symbol-report:` lines followed by the Markdown report
    Text,
    /// only the Markdown report
    Markdown,
    /// only the JSON report (`"schema": 1`)
    Json,
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
    after_help = "Examples:\n  mgctl symbols diff --before old.so --after new.so\n  mgctl symbols diff --before old.so --after new.so --fail-on-symbol-set-change --fail-on-added-bytes 0\n  mgctl symbols diff --before old.so --after new.so --strip-scope 'MobileGL::MG_State::GLState::ProgramObject::' --markdown report.md --json report.json\n  mgctl symbols diff --before old.so --after new.so --sort delta --group namespace:2"
)]
pub struct DiffArgs {
    /// Baseline library.
    #[arg(long)]
    pub before: PathBuf,
    /// Library under test.
    #[arg(long)]
    pub after: PathBuf,
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
    /// Write the Markdown report to FILE.
    #[arg(long, value_name = "FILE")]
    pub markdown: Option<PathBuf>,
    /// Write the JSON report to FILE.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Write every change the gates see as allow-file lines to FILE (then trim it to what the commit admits).
    #[arg(long, value_name = "FILE")]
    pub emit_allow: Option<PathBuf>,
    /// What to print on stdout.
    #[arg(long, value_enum, default_value_t = DiffFormat::Text)]
    pub format: DiffFormat,
    /// Listing order inside each bucket.
    #[arg(long, value_enum, default_value_t = SortArg::Abs)]
    pub sort: SortArg,
    /// Total the changes per namespace: `namespace` or `namespace:DEPTH` (default depth 1).
    #[arg(long, value_name = "namespace[:DEPTH]")]
    pub group: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ListSortArg {
    Size,
    Name,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ListFormat {
    Text,
    Json,
}

#[derive(Debug, Args)]
#[command(
    long_about = "Lists the defined symbols of one library, demangled, with nm's type letter and the \
size: largest first (--sort size) or by name, optionally only the --top N. The header says which \
symbol table was read.",
    after_help = "Examples:\n  mgctl symbols list libMobileGL.so --top 20\n  mgctl symbols list libMobileGL.so --sort name --format json"
)]
pub struct ListArgs {
    /// The ELF library or object to list (`.symtab`, or `.dynsym` when stripped).
    pub library: PathBuf,
    #[arg(long, value_enum, default_value_t = TableArg::Auto)]
    pub table: TableArg,
    #[arg(long, value_enum, default_value_t = ListSortArg::Size)]
    pub sort: ListSortArg,
    /// Only the first N rows.
    #[arg(long, value_name = "N")]
    pub top: Option<usize>,
    #[arg(long, value_enum, default_value_t = ListFormat::Text)]
    pub format: ListFormat,
}

#[derive(Debug, Args)]
#[command(
    long_about = "Lists what a library needs from outside (its undefined symbols), demangled and \
grouped by namespace, so a forbidden dependency (e.g. the server reaching MG_State::GLState or glslang, \
MobileGL's purity gate B) is visible at a glance.",
    after_help = "Examples:\n  mgctl symbols undefined libMobileGLServer.so\n  mgctl symbols undefined libMobileGLServer.so --depth 2 --format json"
)]
pub struct UndefinedArgs {
    /// The ELF library whose undefined symbols to list.
    pub library: PathBuf,
    #[arg(long, value_enum, default_value_t = TableArg::Auto)]
    pub table: TableArg,
    /// Namespace components to group by.
    #[arg(long, default_value_t = 1)]
    pub depth: usize,
    #[arg(long, value_enum, default_value_t = ListFormat::Text)]
    pub format: ListFormat,
}

#[derive(Debug, Args)]
#[command(
    long_about = "Runs upstream's canned transcripts through the fold/bucket code (five-bucket \
expectations) and every gate flag through a negative control that must trip and positive controls \
that must stay quiet. Exit 0 when all behave, 1 otherwise.",
    after_help = "Examples:\n  mgctl symbols self-test"
)]
pub struct SelfTestArgs {
    /// Test hook: neuter a negative control so it cannot trip (the self-test must then fail).
    #[arg(long, hide = true, value_name = "CONTROL")]
    pub neuter: Vec<String>,
}

#[derive(Debug, Args)]
#[command(
    long_about = "Times, on the same pair, mgctl's whole diff (read, demangle, fold, bucket, render) \
and the reference pipeline upstream shells out to (nm --defined-only -S, or nm -D for a stripped \
library; size --format=sysv; one c++filt over all names; for both libraries), and prints them side by \
side with the speed-up and peak RSS. Run it on an idle machine; it is a benchmark, not a test.",
    after_help = "Examples:\n  mgctl symbols bench /usr/lib/x86_64-linux-gnu/libLLVM-14.so.1 /usr/lib/x86_64-linux-gnu/libLLVM-15.so.1\n  mgctl symbols bench old.so new.so --runs 10"
)]
pub struct BenchArgs {
    /// The older library of the pair (what `symbols diff --before` would get).
    pub before: PathBuf,
    /// The newer library of the pair.
    pub after: PathBuf,
    /// Timed runs of each side (the median is reported; one untimed warm-up run first).
    #[arg(long, default_value_t = 5)]
    pub runs: usize,
}

pub fn run(
    args: &SymbolsArgs,
    _settings: &Settings,
    out: &mut dyn Write,
) -> anyhow::Result<Outcome> {
    match &args.command {
        SymbolsCommand::Diff(a) => run_diff(a, out),
        SymbolsCommand::List(a) => run_list(a, out),
        SymbolsCommand::Undefined(a) => run_undefined(a, out),
        SymbolsCommand::SelfTest(a) => run_self_test(a, out),
        SymbolsCommand::Bench(a) => run_bench(a, out),
    }
}

/// Parse `namespace` / `namespace:DEPTH`.
pub fn parse_group(spec: &str) -> anyhow::Result<usize> {
    match spec.split_once(':') {
        None if spec == "namespace" => Ok(1),
        Some(("namespace", d)) => match d.parse::<usize>() {
            Ok(n) if n > 0 => Ok(n),
            _ => bail!("--group {spec}: DEPTH must be a positive integer"),
        },
        _ => bail!("--group {spec}: expected namespace or namespace:DEPTH"),
    }
}

fn read(path: &Path, table: TableArg) -> anyhow::Result<Library> {
    Ok(elf::read_library(path, table.into())?)
}

fn run_diff(a: &DiffArgs, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    let mut rename_map = Vec::new();
    for e in &a.rename_map {
        match diff::parse_rename(e) {
            Some(p) => rename_map.push(p),
            None => bail!("--rename-map {e:?}: expected OLD=NEW"),
        }
    }
    let groups_depth = a.group.as_deref().map(parse_group).transpose()?;
    let mut allow: Vec<AllowEntry> = a
        .allow_resize
        .iter()
        .map(|n| AllowEntry {
            bucket: diff::Bucket::Resized,
            name: n.clone(),
            origin: "--allow-resize".into(),
        })
        .collect();
    for f in &a.allow {
        let text = std::fs::read_to_string(f)
            .with_context(|| format!("{}: cannot read allow file", f.display()))?;
        allow.extend(sgate::parse_allow(&text, f)?);
    }
    let opts = DiffOptions {
        strip_scopes: a.strip_scope.clone(),
        rename_map,
        only_names: a
            .only_names
            .as_deref()
            .map(|s| {
                s.split(',')
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(String::from)
                    .collect()
            })
            .unwrap_or_default(),
        threshold: a.threshold,
    };
    let gates = GateOptions {
        fail_on_symbol_set_change: a.fail_on_symbol_set_change,
        fail_on_text_delta: a.fail_on_text_delta,
        fail_on_added_bytes: a.fail_on_added_bytes,
        allow,
        strict_allow: a.strict_allow,
    };
    let (lb, la) = rayon::join(|| read(&a.before, a.table), || read(&a.after, a.table));
    let (lb, la) = (lb?, la?);
    let (before, after) = diff::sides_from_libraries(&lb, &la, a.keep_versions);
    // The process ends with this command: freeing ~100k strings one by one would cost ~15 ms
    // of a ~100 ms run for nothing, so the large structures are left to the exit (as ripgrep
    // does). Nothing here holds a file, a lock or unflushed output.
    std::mem::forget((lb, la));
    let d = diff::diff(&before, &after, &opts);
    let outcome = sgate::evaluate(&d, &gates);
    let warnings = report::pair_warnings(&before, &after);
    let groups = groups_depth.map(|depth| (depth, group::group(&d.listing, depth)));
    let input = ReportInput {
        before: &before,
        after: &after,
        diff: &d,
        opts: &opts,
        gates: &gates,
        outcome: &outcome,
        keep_versions: a.keep_versions,
        warnings: &warnings,
        groups: groups.as_ref().map(|(d, g)| (*d, g.as_slice())),
        sort: match a.sort {
            SortArg::Abs => SortOrder::Abs,
            SortArg::Delta => SortOrder::Delta,
            SortArg::Name => SortOrder::Name,
        },
    };
    // Render only what is asked for: the JSON of a 45k-symbol diff is not free.
    let need_md = a.markdown.is_some() || a.format != DiffFormat::Json;
    let need_js = a.json.is_some() || a.format == DiffFormat::Json;
    let md = if need_md {
        report::markdown(&input)
    } else {
        String::new()
    };
    let js = if need_js {
        report::json_string(&input)?
    } else {
        String::new()
    };
    match a.format {
        DiffFormat::Text => {
            for l in report::summary_lines(&input) {
                writeln!(out, "{l}")?;
            }
            if a.markdown.is_none() {
                writeln!(out, "{md}")?;
            }
        }
        DiffFormat::Markdown => write!(out, "{md}")?,
        DiffFormat::Json => writeln!(out, "{js}")?,
    }
    let announce = a.format == DiffFormat::Text;
    if let Some(p) = &a.markdown {
        std::fs::write(p, &md)
            .with_context(|| format!("{}: cannot write Markdown report", p.display()))?;
        if announce {
            writeln!(out, "symbol-report: markdown written to {}", p.display())?;
        }
    }
    if let Some(p) = &a.json {
        std::fs::write(p, js + "\n")
            .with_context(|| format!("{}: cannot write JSON report", p.display()))?;
        if announce {
            writeln!(out, "symbol-report: json written to {}", p.display())?;
        }
    }
    if let Some(p) = &a.emit_allow {
        std::fs::write(p, sgate::allow_lines(&d))
            .with_context(|| format!("{}: cannot write allow file", p.display()))?;
        if announce {
            writeln!(
                out,
                "symbol-report: allow entries written to {}",
                p.display()
            )?;
        }
    }
    for r in &outcome.reasons {
        if announce {
            writeln!(out, "symbol-report: FAIL {r}")?;
        } else {
            eprintln!("symbol-report: FAIL {r}");
        }
    }
    let pass = !outcome.failed();
    std::mem::forget((before, after, d, md, groups));
    Ok(Outcome::from_pass(pass))
}

fn run_list(a: &ListArgs, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    let lib = read(&a.library, a.table)?;
    let sort = match a.sort {
        ListSortArg::Size => ListSort::Size,
        ListSortArg::Name => ListSort::Name,
    };
    let rows = listing::list(&lib.defined, sort, a.top);
    match a.format {
        ListFormat::Json => {
            let v = json!({"schema": 1, "library": lib.identity, "table": lib.table.as_str(),
                           "defined": lib.defined.len(), "symbols": rows});
            writeln!(out, "{}", serde_json::to_string_pretty(&v)?)?;
        }
        ListFormat::Text => {
            writeln!(
                out,
                "{}: {} defined symbols from {} ({} {}-bit), showing {}",
                lib.identity.path,
                lib.defined.len(),
                lib.table.as_str(),
                lib.identity.machine,
                lib.identity.class_bits,
                rows.len()
            )?;
            for r in &rows {
                let ver = r
                    .version
                    .as_deref()
                    .map(|v| format!(" @{v}"))
                    .unwrap_or_default();
                writeln!(out, "{:>10} {} {}{ver}", r.size, r.kind, r.name)?;
            }
        }
    }
    Ok(Outcome::Pass)
}

fn run_undefined(a: &UndefinedArgs, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    if a.depth == 0 {
        bail!("--depth must be at least 1");
    }
    let lib = read(&a.library, a.table)?;
    let groups = listing::by_namespace(&lib.undefined, a.depth);
    match a.format {
        ListFormat::Json => {
            let v = json!({"schema": 1, "library": lib.identity, "table": lib.table.as_str(),
                           "undefined": lib.undefined.len(), "groups": groups});
            writeln!(out, "{}", serde_json::to_string_pretty(&v)?)?;
        }
        ListFormat::Text => {
            writeln!(
                out,
                "{}: {} undefined symbols from {} in {} namespaces",
                lib.identity.path,
                lib.undefined.len(),
                lib.table.as_str(),
                groups.len()
            )?;
            for g in &groups {
                writeln!(out, "{} ({})", g.namespace, g.symbols.len())?;
                for s in &g.symbols {
                    let ver = s
                        .version
                        .as_deref()
                        .map(|v| format!("@{v}"))
                        .unwrap_or_default();
                    writeln!(out, "  {} {}{ver}", s.kind, s.name)?;
                }
            }
        }
    }
    Ok(Outcome::Pass)
}

fn run_self_test(a: &SelfTestArgs, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    let checks = selftest::run(&|name| a.neuter.iter().any(|n| n == name));
    let mut failed = 0;
    for c in &checks {
        if !c.ok {
            failed += 1;
            let what = if c.expect_trip {
                "negative control did not trip"
            } else {
                "check failed"
            };
            writeln!(
                out,
                "symbol-report: self-test: {}: {what}: {}",
                c.name, c.detail
            )?;
        }
    }
    let trips = checks.iter().filter(|c| c.expect_trip && c.ok).count();
    if failed == 0 && trips > 0 {
        writeln!(
            out,
            "symbol-report: self-test: OK (2 canned transcripts, 5 buckets, 3 gates; {} checks, {trips} negative controls tripped)",
            checks.len()
        )?;
        Ok(Outcome::Pass)
    } else {
        writeln!(out, "symbol-report: self-test: FAILED")?;
        Ok(Outcome::Fail)
    }
}

/// Peak resident set of this process so far (VmHWM), in MiB.
fn own_peak_rss_mib() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let kb: f64 = s
        .lines()
        .find(|l| l.starts_with("VmHWM:"))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()?;
    Some(kb / 1024.0)
}

/// CPU time (user + system) this process has used so far, in ms (Linux; 10 ms ticks).
fn own_cpu_ms() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/self/stat").ok()?;
    let rest = s.rsplit_once(')')?.1;
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?;
    Some(ticks * 10.0)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(0.0)
}

/// One pass of mgctl's whole diff, rendered into memory.
fn mgctl_once(before: &Path, after: &Path) -> anyhow::Result<usize> {
    let (lb, la) = rayon::join(
        || read(before, TableArg::Auto),
        || read(after, TableArg::Auto),
    );
    let (lb, la) = (lb?, la?);
    let (b, a) = diff::sides_from_libraries(&lb, &la, false);
    let opts = DiffOptions::default();
    let d = diff::diff(&b, &a, &opts);
    let gates = GateOptions {
        fail_on_symbol_set_change: true,
        ..GateOptions::default()
    };
    let outcome = sgate::evaluate(&d, &gates);
    let warnings = report::pair_warnings(&b, &a);
    let input = ReportInput {
        before: &b,
        after: &a,
        diff: &d,
        opts: &opts,
        gates: &gates,
        outcome: &outcome,
        keep_versions: false,
        warnings: &warnings,
        groups: None,
        sort: SortOrder::Abs,
    };
    Ok(report::markdown(&input).len() + report::summary_lines(&input).len())
}

/// What GNU time measured for one tool run: peak RSS (MiB) and CPU time (ms).
#[derive(Default, Clone, Copy)]
struct ToolCost {
    rss_mib: Option<f64>,
    cpu_ms: Option<f64>,
}

fn run_tool(
    cmd: &mut Command,
    input: Option<String>,
    rss: bool,
) -> anyhow::Result<(Vec<u8>, ToolCost)> {
    let mut full = if rss && Path::new("/usr/bin/time").exists() {
        let mut t = Command::new("/usr/bin/time");
        t.arg("-f")
            .arg("MGCTL_MAXRSS=%M MGCTL_CPU=%U %S")
            .arg(cmd.get_program())
            .args(cmd.get_args());
        t
    } else {
        let mut c = Command::new(cmd.get_program());
        c.args(cmd.get_args());
        c
    };
    full.stdin(if input.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    })
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
    let mut child = full
        .spawn()
        .with_context(|| format!("cannot run {:?}", cmd.get_program()))?;
    let writer = match (input, child.stdin.take()) {
        (Some(text), Some(mut stdin)) => {
            Some(std::thread::spawn(move || stdin.write_all(text.as_bytes())))
        }
        _ => None,
    };
    let o = child.wait_with_output()?;
    if let Some(w) = writer {
        let _ = w.join();
    }
    if !o.status.success() {
        bail!(
            "{:?} failed: {}",
            cmd.get_program(),
            String::from_utf8_lossy(&o.stderr).trim()
        );
    }
    let err = String::from_utf8_lossy(&o.stderr);
    let line = err
        .lines()
        .find(|l| l.starts_with("MGCTL_MAXRSS="))
        .unwrap_or("");
    let mut cost = ToolCost::default();
    if let Some((rss, cpu)) = line
        .strip_prefix("MGCTL_MAXRSS=")
        .and_then(|r| r.split_once(" MGCTL_CPU="))
    {
        cost.rss_mib = rss.trim().parse::<f64>().ok().map(|kb| kb / 1024.0);
        let secs: Option<f64> = cpu.split_whitespace().map(|x| x.parse::<f64>().ok()).sum();
        cost.cpu_ms = secs.map(|s| s * 1000.0);
    }
    Ok((o.stdout, cost))
}

/// Upstream's pipeline on one library: nm (or nm -D when stripped), size, one c++filt.
/// Returns the largest peak RSS and the summed CPU time of the three tools (when measured).
fn reference_once(lib: &Path, rss: bool) -> anyhow::Result<ToolCost> {
    let stripped = !elf::read_library(lib, TableChoice::Auto)?
        .identity
        .has_symtab;
    let mut nm = Command::new("nm");
    if stripped {
        nm.arg("-D");
    }
    nm.args(["--defined-only", "-S"]).arg(lib);
    let (nm_out, c1) = run_tool(&mut nm, None, rss)?;
    let (_, c2) = run_tool(
        Command::new("size").arg("--format=sysv").arg(lib),
        None,
        rss,
    )?;
    let text = String::from_utf8_lossy(&nm_out);
    let mut names: Vec<&str> = text.lines().filter_map(|l| l.rsplit(' ').next()).collect();
    names.sort_unstable();
    names.dedup();
    let (_, c3) = run_tool(
        &mut Command::new("c++filt"),
        Some(names.join("\n") + "\n"),
        rss,
    )?;
    Ok(combine(combine(c1, c2), c3))
}

fn combine(a: ToolCost, b: ToolCost) -> ToolCost {
    let max = |x: Option<f64>, y: Option<f64>| x.into_iter().chain(y).reduce(f64::max);
    let sum = |x: Option<f64>, y: Option<f64>| x.into_iter().chain(y).reduce(|p, q| p + q);
    ToolCost {
        rss_mib: max(a.rss_mib, b.rss_mib),
        cpu_ms: sum(a.cpu_ms, b.cpu_ms),
    }
}

fn run_bench(a: &BenchArgs, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    let runs = a.runs.max(1);
    // Validate inputs first: a bad path is exit 2 before any timing.
    for p in [&a.before, &a.after] {
        read(p, TableArg::Auto)?;
    }
    mgctl_once(&a.before, &a.after)?;
    let mut ours = Vec::new();
    let cpu0 = own_cpu_ms();
    for _ in 0..runs {
        let t = Instant::now();
        mgctl_once(&a.before, &a.after)?;
        ours.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    let our_cpu = cpu0.zip(own_cpu_ms()).map(|(x, y)| (y - x) / runs as f64);
    let our_rss = own_peak_rss_mib();
    let reference = |rss: bool| -> anyhow::Result<ToolCost> {
        Ok(combine(
            reference_once(&a.before, rss)?,
            reference_once(&a.after, rss)?,
        ))
    };
    let tools = match reference(false) {
        Ok(_) => true,
        Err(e) => {
            writeln!(out, "reference pipeline unavailable: {e:#}")?;
            false
        }
    };
    let mut theirs = Vec::new();
    let mut their = ToolCost::default();
    if tools {
        for _ in 0..runs {
            let t = Instant::now();
            reference(false)?;
            theirs.push(t.elapsed().as_secs_f64() * 1000.0);
        }
        their = reference(true)?;
    }
    let (m, r) = (median(ours), median(theirs));
    let threads = rayon::current_num_threads();
    writeln!(
        out,
        "symbols bench: {} -> {} ({runs} runs each, median wall time, {threads} threads)",
        a.before.display(),
        a.after.display()
    )?;
    let mib = |v: Option<f64>| v.map_or("n/a".to_string(), |x| format!("{x:.0} MiB"));
    let ms = |v: Option<f64>| v.map_or("n/a".to_string(), |x| format!("{x:.0} ms"));
    writeln!(
        out,
        "  mgctl symbols diff (read, demangle, fold, bucket, render)  wall {m:>8.1} ms   cpu {:>8}   peak RSS {}",
        ms(our_cpu),
        mib(our_rss)
    )?;
    if tools {
        writeln!(
            out,
            "  nm + size + c++filt on both libraries (reference)           wall {r:>8.1} ms   cpu {:>8}   peak RSS {} (largest tool)",
            ms(their.cpu_ms),
            mib(their.rss_mib)
        )?;
        writeln!(
            out,
            "  mgctl is {:.1}x faster than the bare reference pipeline (wall)",
            r / m.max(f64::EPSILON)
        )?;
    }
    if let Ok(load) = std::fs::read_to_string("/proc/loadavg") {
        let l1 = load.split_whitespace().next().unwrap_or("?");
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        writeln!(out, "  load average {l1} on {cores} cores (wall figures from a busy machine overstate both sides)")?;
    }
    Ok(Outcome::Pass)
}
