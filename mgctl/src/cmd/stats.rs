//! `mgctl stats summary|diff|fatals|frames|watch`: MobileGL device logs (`MGPipe stats:` windows,
//! verify arming, `Fatal{…}`, the client/server per-frame clocks), read with the `stats_viewer`
//! library.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::{Args, Subcommand};

use stats_viewer::report::{self, SteadyRange};
use stats_viewer::{diff, g4, Log};

use super::Outcome;
use crate::flags::{DataFormat, ReportFormat, FORMAT_HELP};
use crate::output;
use crate::settings::Settings;
use html_report as html;

#[derive(Debug, Args)]
#[command(
    about = "MobileGL device logs: MGPipe stats windows, verify arming, Fatal lines",
    long_about = "Reads MobileGL device logs: the periodic `MGPipe stats:` window lines (draws per frame, \
accessor calls per draw, byte classes, CSO mints/binds, the six memo gates), the verify arming line and any \
`Fatal{…}`. Every log envelope is understood: the library's own file sink, `adb logcat` in any format \
(threadtime, time, brief, tag, with year/usec/uid variants), CRLF, ctest transcripts, records cut mid-line; \
sessions are split by pid, banner and frame-counter resets, and client/server roles are never merged. \
`stats frames` pairs a split run's client and server per-frame clocks (`P65LinkMetrics`, `P65ServerMetrics`) \
by frame id, as MobileGL's frame_stats.py does.",
    after_help = "Examples:\n  mgctl stats summary driver/MobileGL/MG_Test/runs/*/pull/mobilegl.log\n  mgctl stats diff driver/MobileGL/MG_Test/runs/*/pull/mobilegl.log \\\n      driver/MobileGL/MG_Test/runs/*/push/mobilegl.log\n  mgctl stats fatals --verify \\\n      stats_viewer/tests/data/abB-push-DirectGLES.logcat.txt\n  mgctl stats frames \\\n      --client stats_viewer/tests/data/frames/paired.client.log \\\n      --server stats_viewer/tests/data/frames/paired.server.log"
)]
pub struct StatsArgs {
    #[command(subcommand)]
    pub command: StatsCommand,
}

#[derive(Debug, Subcommand)]
pub enum StatsCommand {
    Summary(SummaryArgs),
    Diff(DiffArgs),
    Fatals(FatalsArgs),
    Frames(FramesArgs),
    Watch(super::watch::WatchArgs),
}

#[derive(Debug, Args)]
#[command(
    about = "The last complete window, steady state, totals, verify and Fatals of each log",
    long_about = "Per log: the lines read and ignored (logcat markers, foreign tags, noise, a cut last \
record), the sessions, the period, window lines and complete windows, then for the reported session (the \
last one with windows) the LAST COMPLETE WINDOW (window == period, frames a multiple of it) with every \
field per frame and per draw, the teardown window apart (partial, never complete), a steady state over a \
range of complete windows weighted by frames and draws (Σdraws/Σframes, Σacc/Σdraws), run totals (counts \
summed, gauges never summed, byte classes approximately), gate hit rates, verify armed or not, Fatal lines, \
the JSON-dump notice, and a self-check that re-derives every `draws/f` and `acc/draw` with the producer's \
rounding. Exit status: 0, 1 when a log has no window line or a line fails the self-check, 2 unreadable or \
binary input.",
    after_help = "Examples:\n  mgctl stats summary driver/MobileGL/MG_Test/runs/*/pull/mobilegl.log\n  mgctl stats summary --steady 3..5 \\\n      driver/MobileGL/MG_Test/runs/*/pull/mobilegl.log \\\n      driver/MobileGL/MG_Test/runs/*/push/mobilegl.log\n  mgctl stats summary --format json --output summary.json \\\n      driver/MobileGL/MG_Test/runs/*/pull/mobilegl.log\n  mgctl stats summary --format markdown \\\n      driver/MobileGL/MG_Test/runs/*/*/mobilegl.log >> MEASUREMENTS.md\n  mgctl stats summary stats_viewer/tests/data/abB-push-DirectGLES.logcat.txt \\\n      --dump stats_viewer/tests/data/abB-push-pipestats.json"
)]
pub struct SummaryArgs {
    /// Log files (file sink, logcat capture, role logs, ctest transcript), `-` for stdin.
    #[arg(required = true)]
    pub logs: Vec<PathBuf>,
    // `markdown` is one MEASUREMENTS.md-ready table row per log.
    #[arg(long, value_enum, default_value_t = ReportFormat::Human, help = FORMAT_HELP)]
    pub format: ReportFormat,
    // The first spellings of --format json|markdown, kept (hidden) for old scripts.
    #[arg(long, hide = true, conflicts_with_all = ["markdown", "format"])]
    pub json: bool,
    #[arg(long, hide = true, conflicts_with = "format")]
    pub markdown: bool,
    /// Also write one self-contained HTML page: a chart per counter over the complete windows,
    /// session changes and Fatal lines marked, the steady state shaded (docs/html.md).
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Complete windows forming the steady state: `FROM`, `FROM..`, `FROM..TO` (1-based).
    #[arg(long, default_value = "3..", value_name = "RANGE")]
    pub steady: String,
    /// The session's teardown JSON dump (MOBILEGL_PIPE_STATS_FILE, `-` for stdin): its run totals
    /// are checked against the window lines (counts exact, byte classes within the rounding bound).
    /// One LOG only.
    #[arg(long, value_name = "FILE")]
    pub dump: Option<PathBuf>,
}

#[derive(Debug, Args)]
#[command(
    about = "A/B of two arms: every field side by side, Δ and Δ %, same-trace validity check",
    long_about = "The A/B of two arms: every field of both last complete windows side by side with Δ and \
Δ % (gates: the hit-rate difference), keys present in one arm only shown as absent (never as 0), the \
steady-state draws/f and acc/draw of both, and a validity check: the same trace replays the same frames, \
so window lines aligned by `frames=` must carry identical `draws`. Exit status: 0 valid, 1 when the arms \
did not replay the same frames (unless --allow-mismatch) or a log has no complete window, 2 unreadable input.",
    after_help = "Examples:\n  mgctl stats diff driver/MobileGL/MG_Test/runs/*/pull/mobilegl.log \\\n      driver/MobileGL/MG_Test/runs/*/push/mobilegl.log\n  mgctl stats diff --format json \\\n      driver/MobileGL/MG_Test/runs/*/pull/mobilegl.log \\\n      driver/MobileGL/MG_Test/runs/*/push/mobilegl.log\n  mgctl stats diff \\\n      --allow-mismatch driver/MobileGL/MG_Test/runs/*/pull/mobilegl.log \\\n      stats_viewer/tests/data/abB-push-DirectGLES.logcat.txt"
)]
pub struct DiffArgs {
    /// Arm A (the baseline, e.g. pull), `-` for stdin.
    pub a: PathBuf,
    /// Arm B (e.g. push), `-` for stdin.
    pub b: PathBuf,
    #[arg(long, value_enum, default_value_t = DataFormat::Human, help = FORMAT_HELP)]
    pub format: DataFormat,
    // The first spelling of --format json, kept (hidden) for old scripts.
    #[arg(long, hide = true, conflicts_with = "format")]
    pub json: bool,
    /// Print the comparison and exit 0 even when the draws per window differ.
    #[arg(long)]
    pub allow_mismatch: bool,
    /// Also write one self-contained HTML page with A and B overlaid per counter (docs/html.md).
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Complete windows forming the steady state (1-based).
    #[arg(long, default_value = "3..", value_name = "RANGE")]
    pub steady: String,
}

#[derive(Debug, Args)]
#[command(
    about = "Census of Fatal{…} lines; --verify also fails a log that never armed (G4)",
    long_about = "Lists every `Fatal{Kind, \"detail\", extras} tail` line of the logs (not libc's `Fatal \
signal`, not `Admitted{…}`, not CMake error text in a transcript) and a census by kind and by kind and \
detail. With --verify it is MobileGL's G4 gate: every log must carry the library's `MGPipe: verify armed` \
line (or, for a ctest transcript, the runner's `MGPipe verify: … armed` lines and no failed case). Exit \
status: 0 clean, 1 any Fatal (or, with --verify, a log that never armed), 2 unreadable input.",
    after_help = "Examples:\n  mgctl stats fatals driver/MobileGL/MG_Test/runs/*/pull/mobilegl.log\n  mgctl stats fatals --verify \\\n      stats_viewer/tests/data/abB-push-DirectGLES.logcat.txt\n  mgctl stats fatals --format json stats_viewer/tests/data/fatal-lines.txt \\\n      > fatals.json  # exits 1: the sample holds Fatal lines"
)]
pub struct FatalsArgs {
    /// Log files or transcripts, `-` for stdin.
    #[arg(required = true)]
    pub logs: Vec<PathBuf>,
    /// Also fail a log that never armed verify.
    #[arg(long)]
    pub verify: bool,
    #[arg(long, value_enum, default_value_t = DataFormat::Human, help = FORMAT_HELP)]
    pub format: DataFormat,
    // The first spelling of --format json, kept (hidden) for old scripts.
    #[arg(long, hide = true, conflicts_with = "format")]
    pub json: bool,
}

#[derive(Debug, Args)]
#[command(
    about = "Client and server present intervals paired by frame id: avg, p50, p99, shares",
    long_about = "Pairs the client role log's `P65LinkMetrics kind=frame frame=N wall_ns=… \
client_thread_cpu_ns=… transport_wait_ns=…` rows with the server role log's `P65ServerMetrics frame=N \
valid=1 wall_ns=… apply_thread_cpu_ns=…` rows (MOBILEGL_PIPE_STATS=1) by frame id, and prints exactly the \
numbers MobileGL's tools/trace_replay/frame_stats.py computes: for client present, server present, client \
CPU, transport wait and server CPU the average and the nearest-rank p50 and p99 in ms, and the share of the \
summed client present time of client CPU, transport wait and server CPU (they can add up to more than 100 %: \
role CPU and transport wait overlap; transport wait is client wall time in SessionProducer::Park, not network \
latency). Client frames with an id above --warmup are selected, then the last --tail of them; they must be \
contiguous and each must have a usable server row. Server rows with valid other than 1 (the first interval) \
and client rows of another kind are skipped and counted, as the script skips them. Invalid UTF-8 is read as \
U+FFFD, as the script reads it, and counted (a warning on stderr). JSON carries the per-frame series. Exit \
status: 0, 2 for unreadable input, a malformed row, a duplicate frame, invalid clocks (non-positive, or CPU \
or transport wait beyond the wall time plus max(100 µs, 1 %)), a log without frame rows, an empty or \
non-contiguous selection or a missing server frame, each naming the file, line and frame.",
    after_help = "Examples:\n  mgctl stats frames --client stats_viewer/tests/data/frames/paired.client.log\n  mgctl stats frames \\\n      --client stats_viewer/tests/data/frames/paired.client.log \\\n      --server stats_viewer/tests/data/frames/paired.server.log --tail 2\n  mgctl stats frames \\\n      --client stats_viewer/tests/data/frames/paired.client.log \\\n      --format json --output run.json\n  mgctl stats frames \\\n      --client stats_viewer/tests/data/frames/paired.client.log \\\n      --format markdown >> frames.md"
)]
pub struct FramesArgs {
    /// The client role log (mobilegl.client.log, or a logcat capture of the client), `-` for stdin.
    #[arg(long, value_name = "LOG")]
    pub client: PathBuf,
    /// The server role log (mobilegl.server.log, or a logcat capture of the server), `-` for stdin.
    /// Default: the client log's sibling named by MobileGL's role-log convention
    /// (`X.client.log` → `X.server.log`, `X.client` → `X.server`).
    #[arg(long, value_name = "LOG")]
    pub server: Option<PathBuf>,
    /// Leave out client frames whose id is N or below (by id, not by count; frame_stats.py's
    /// --warmup-frames, whose default is also 1).
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub warmup: u64,
    /// Keep only the last N selected frames (after --warmup); N >= 1. Default: all.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub tail: Option<u64>,
    #[arg(long, value_enum, default_value_t = ReportFormat::Human, help = FORMAT_HELP)]
    pub format: ReportFormat,
}

pub fn run(args: &StatsArgs, _settings: &Settings, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    match &args.command {
        StatsCommand::Summary(a) => summary(a, out),
        StatsCommand::Diff(a) => diff_cmd(a, out),
        StatsCommand::Fatals(a) => fatals(a, out),
        StatsCommand::Frames(a) => frames(a, out),
        StatsCommand::Watch(a) => super::watch::run(a, _settings, out),
    }
}

fn read_logs(paths: &[PathBuf]) -> anyhow::Result<Vec<Log>> {
    super::one_stdin(paths.iter().map(PathBuf::as_path))?;
    // Streamed (memory holds the windows, not the file); `-` is stdin.
    Ok(paths
        .iter()
        .map(|p| Log::open(p))
        .collect::<Result<_, _>>()?)
}

fn steady_range(s: &str) -> anyhow::Result<SteadyRange> {
    SteadyRange::parse(s).with_context(|| {
        format!("--steady {s:?}: expected FROM, FROM.. or FROM..TO (1-based complete windows)")
    })
}

fn summary(a: &SummaryArgs, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    let steady = steady_range(&a.steady)?;
    let logs = read_logs(&a.logs)?;
    let mut problems = report::log_problems(&logs);
    for p in &problems {
        eprintln!("mgctl: {p}");
    }
    let dump = match &a.dump {
        None => None,
        Some(p) => {
            if logs.len() != 1 {
                anyhow::bail!(
                    "--dump pairs one JSON dump with one log; {} logs were given",
                    logs.len()
                );
            }
            super::one_stdin(a.logs.iter().chain([p]).map(PathBuf::as_path))?;
            let bytes = super::read_input(p)?;
            let d = stats_viewer::dump::Dump::parse(super::input_name(p), &bytes)?;
            let d = report::DumpCheck::new(d, &logs[0]);
            if let Some(m) = d.problem(&p.display().to_string(), &logs[0]) {
                eprintln!("mgctl: {m}");
                problems.push(m);
            }
            Some(d)
        }
    };
    let arms = || {
        logs.iter()
            .map(|l| report::counter_series(l, steady))
            .collect()
    };
    write_html(
        a.html.as_deref(),
        "mgctl stats summary",
        arms,
        report::COUNTERS_METHOD,
    )?;
    match a.format.or_switches(a.json, a.markdown) {
        ReportFormat::Json => {
            let v = report::summary_json(&logs, steady, dump.as_ref());
            serde_json::to_writer_pretty(&mut *out, &v)?;
            writeln!(out)?;
        }
        ReportFormat::Markdown => report::summary_markdown(&logs, out)?,
        ReportFormat::Human => report::summaries_text(&logs, steady, dump.as_ref(), out)?,
    }
    // The process ends with this command: freeing a long log's windows one by one (100,000 in
    // issue 16's capture, a few percent of the run) is work for nothing, so the logs are left to
    // the exit, as `symbols diff` leaves its tables. They hold no file, lock or unflushed output.
    drop(dump);
    std::mem::forget(logs);
    Ok(Outcome::from_pass(problems.is_empty()))
}

fn diff_cmd(a: &DiffArgs, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    let steady = steady_range(&a.steady)?;
    super::one_stdin([a.a.as_path(), a.b.as_path()])?;
    let (la, lb) = (Log::open(&a.a)?, Log::open(&a.b)?);
    let d = match diff::diff(&la, &lb, steady) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("mgctl: {e}");
            return Ok(Outcome::Fail);
        }
    };
    let arms = || report::diff_series(&d).into();
    write_html(
        a.html.as_deref(),
        "mgctl stats diff",
        arms,
        report::DIFF_METHOD,
    )?;
    if a.format.or_json(a.json) == DataFormat::Json {
        serde_json::to_writer_pretty(&mut *out, &d.json())?;
        writeln!(out)?;
    } else {
        d.text(out)?;
    }
    match d.validity_problem(a.allow_mismatch) {
        Some((m, fails)) => {
            eprintln!("mgctl: {m}");
            Ok(Outcome::from_pass(!fails))
        }
        None => Ok(Outcome::Pass),
    }
}

fn fatals(a: &FatalsArgs, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    let logs = read_logs(&a.logs)?;
    let verdicts: Vec<_> = logs.iter().map(|l| g4::verdict(l, a.verify)).collect();
    if a.format.or_json(a.json) == DataFormat::Json {
        let v = report::fatals_report_json(&logs, &verdicts, a.verify);
        serde_json::to_writer_pretty(&mut *out, &v)?;
        writeln!(out)?;
    } else {
        report::fatals_report_text(&logs, &verdicts, out)?;
    }
    Ok(Outcome::from_pass(verdicts.iter().all(g4::Verdict::pass)))
}

fn frames(a: &FramesArgs, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    use stats_viewer::frames;
    let server_path = match &a.server {
        Some(p) => p.clone(),
        None => sibling_server_log(&a.client)?,
    };
    super::one_stdin([a.client.as_path(), server_path.as_path()])?;
    let client = super::read_input(&a.client)?;
    let server = super::read_input(&server_path)?;
    let sel = frames::Selection {
        warmup: a.warmup,
        tail: a.tail.map(|t| usize::try_from(t).unwrap_or(usize::MAX)),
    };
    let f = frames::analyse(
        (super::input_name(&a.client), &client),
        (super::input_name(&server_path), &server),
        sel,
    )?;
    for w in frames::report::warnings(&f) {
        eprintln!("mgctl: warning: {w}");
    }
    match a.format {
        ReportFormat::Json => {
            serde_json::to_writer_pretty(&mut *out, &frames::report::json(&f))?;
            writeln!(out)?;
        }
        ReportFormat::Markdown => frames::report::markdown(&f, out)?,
        ReportFormat::Human => frames::report::text(&f, out)?,
    }
    Ok(Outcome::Pass)
}

/// MobileGL's role-log naming: the server log beside `X.client.log` is `X.server.log` (the last
/// `.client.` of the file name, or a final `.client`, becomes `.server`).
fn sibling_server_log(client: &Path) -> anyhow::Result<PathBuf> {
    let name = client
        .file_name()
        .and_then(|n| n.to_str())
        .filter(|_| client.as_os_str() != "-");
    let server = name.and_then(|n| {
        if let Some(at) = n.rfind(".client.") {
            Some(format!(
                "{}.server.{}",
                &n[..at],
                &n[at + ".client.".len()..]
            ))
        } else {
            n.strip_suffix(".client")
                .map(|stem| format!("{stem}.server"))
        }
    });
    match server {
        Some(s) => Ok(client.with_file_name(s)),
        None => anyhow::bail!(
            "{}: not named as a client role log (X.client.log), so the server log cannot be found beside it; give --server LOG",
            output::escape(&client.display().to_string())
        ),
    }
}

/// `--html`: the counter charts of the logs (`stats_viewer::report::{counter_series, diff_series}`).
fn write_html(
    path: Option<&Path>,
    title: &str,
    arms: impl FnOnce() -> Vec<report::CounterSeries>,
    method: &str,
) -> anyhow::Result<()> {
    let Some(path) = path else {
        return Ok(());
    };
    let page = html::counters_page(title, &arms(), method, crate::report::VERSION);
    crate::output::write_file(path, page.as_bytes())
}
