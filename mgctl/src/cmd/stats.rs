//! `mgctl stats summary|diff|fatals|bench`: MobileGL device logs (`MGPipe stats:` windows, verify
//! arming, `Fatal{…}`), read with the `stats_viewer` library.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::{Args, Subcommand};
use serde_json::json;

use stats_viewer::report::{self, SteadyRange};
use stats_viewer::{diff, g4, Log};

use super::Outcome;
use crate::cli::{DataFormat, ReportFormat, FORMAT_HELP};
use crate::settings::Settings;
use html_report::{self as html, CounterArm};

#[derive(Debug, Args)]
#[command(
    about = "MobileGL device logs: MGPipe stats windows, verify arming, Fatal lines",
    long_about = "Reads MobileGL device logs: the periodic `MGPipe stats:` window lines (draws per frame, \
accessor calls per draw, byte classes, CSO mints/binds, the six memo gates), the verify arming line and any \
`Fatal{…}`. Every log envelope is understood: the library's own file sink, `adb logcat` in any format \
(threadtime, time, brief, tag, with year/usec/uid variants), CRLF, ctest transcripts, records cut mid-line; \
sessions are split by pid, banner and frame-counter resets, and client/server roles are never merged.",
    after_help = "Examples:\n  mgctl stats summary pull/mobilegl.log\n  mgctl stats diff pull/mobilegl.log push/mobilegl.log\n  mgctl stats fatals --verify */mobilegl.log"
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
    after_help = "Examples:\n  mgctl stats summary pull/mobilegl.log\n  mgctl stats summary --steady 3..5 pull/mobilegl.log push/mobilegl.log\n  mgctl stats summary --format json --output summary.json pull/mobilegl.log\n  mgctl stats summary --format markdown */mobilegl.log >> MEASUREMENTS.md\n  mgctl stats summary logcat.txt --dump pipestats.json"
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
    after_help = "Examples:\n  mgctl stats diff pull/mobilegl.log push/mobilegl.log\n  mgctl stats diff --format json pull/mobilegl.log push/mobilegl.log\n  mgctl stats diff --allow-mismatch pull/mobilegl.log logcat.txt"
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
    after_help = "Examples:\n  mgctl stats fatals pull/mobilegl.log\n  mgctl stats fatals --verify */mobilegl.log\n  mgctl stats fatals --format json fatal-lines.txt"
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

pub fn run(args: &StatsArgs, _settings: &Settings, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    match &args.command {
        StatsCommand::Summary(a) => summary(a, out),
        StatsCommand::Diff(a) => diff_cmd(a, out),
        StatsCommand::Fatals(a) => fatals(a, out),
        StatsCommand::Watch(a) => super::watch::run(a, _settings, out),
    }
}

/// Reads and parses one log, streaming (memory holds the windows, not the file); `-` is stdin.
pub fn read_log(path: &Path) -> anyhow::Result<Log> {
    Ok(Log::open(path)?)
}

fn read_logs(paths: &[PathBuf]) -> anyhow::Result<Vec<Log>> {
    super::one_stdin(paths.iter().map(PathBuf::as_path))?;
    paths.iter().map(|p| read_log(p)).collect()
}

fn steady_range(s: &str) -> anyhow::Result<SteadyRange> {
    SteadyRange::parse(s).with_context(|| {
        format!("--steady {s:?}: expected FROM, FROM.. or FROM..TO (1-based complete windows)")
    })
}

fn summary(a: &SummaryArgs, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    let steady = steady_range(&a.steady)?;
    let logs = read_logs(&a.logs)?;
    let mut pass = true;
    for l in &logs {
        if l.window_count() == 0 {
            eprintln!(
                "mgctl: no `MGPipe stats:` window found in {}",
                l.path.display()
            );
            pass = false;
        }
        for s in &l.sessions {
            for (line, m) in s.mismatches() {
                eprintln!(
                    "mgctl: {}:{line}: {} printed {} but re-derives to {} (producer rounding)",
                    l.path.display(),
                    m.field,
                    m.printed,
                    m.derived
                );
                pass = false;
            }
        }
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
            let checks = match logs[0].reported_session() {
                Some(s) => stats_viewer::dump::cross_check(&d, s),
                None => Vec::new(),
            };
            if checks.iter().any(|c| !c.ok) {
                eprintln!(
                    "mgctl: {} does not match the windows of {} ({} value(s) disagree): not the same session?",
                    p.display(),
                    logs[0].path.display(),
                    checks.iter().filter(|c| !c.ok).count()
                );
                pass = false;
            }
            Some((d, checks))
        }
    };
    if let Some(path) = &a.html {
        let arms: Vec<CounterArm> = logs.iter().map(|l| counter_arm(l, steady)).collect();
        let page = html::counters_page(
            "mgctl stats summary",
            &arms,
            STEADY_METHOD,
            crate::report::VERSION,
        );
        crate::output::write_file(path, page.as_bytes())?;
    }
    let format = a.format.or_switches(a.json, a.markdown);
    if format == ReportFormat::Json {
        let v = json!({
            "schema": 1,
            "steady": {"from": steady.from, "to": steady.to},
            "logs": logs.iter().map(|l| report::log_json(l, steady)).collect::<Vec<_>>(),
            "dump": dump.as_ref().map(|(d, c)| report::dump_json(d, c)),
        });
        serde_json::to_writer_pretty(&mut *out, &v)?;
        writeln!(out)?;
    } else if format == ReportFormat::Markdown {
        report::summary_markdown(&logs, out)?;
    } else {
        for (i, l) in logs.iter().enumerate() {
            if i > 0 {
                writeln!(out)?;
            }
            report::summary_text(l, steady, out)?;
        }
        if let Some((d, c)) = &dump {
            report::dump_text(d, c, out)?;
        }
    }
    Ok(Outcome::from_pass(pass))
}

fn diff_cmd(a: &DiffArgs, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    let steady = steady_range(&a.steady)?;
    super::one_stdin([a.a.as_path(), a.b.as_path()])?;
    let la = read_log(&a.a)?;
    let lb = read_log(&a.b)?;
    let d = match diff::diff(&la, &lb, steady) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("mgctl: {e}");
            return Ok(Outcome::Fail);
        }
    };
    if let Some(path) = &a.html {
        let arms = [counter_arm(&la, steady), counter_arm(&lb, steady)];
        let page = html::counters_page(
            "mgctl stats diff",
            &arms,
            STEADY_METHOD,
            crate::report::VERSION,
        );
        crate::output::write_file(path, page.as_bytes())?;
    }
    if a.format.or_json(a.json) == DataFormat::Json {
        serde_json::to_writer_pretty(&mut *out, &d.json())?;
        writeln!(out)?;
    } else {
        d.text(out)?;
    }
    if !d.validity.valid() {
        if a.allow_mismatch {
            eprintln!("mgctl: warning: the arms did not replay the same frames (draws differ); compared anyway (--allow-mismatch)");
        } else {
            eprintln!(
                "mgctl: {} and {} are not an A/B of the same trace: draws differ in {} of {} aligned window(s) (pass --allow-mismatch to compare anyway)",
                la.path.display(),
                lb.path.display(),
                d.validity.mismatched.len(),
                d.validity.aligned
            );
            return Ok(Outcome::Fail);
        }
    }
    Ok(Outcome::Pass)
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

const STEADY_METHOD: &str = "x: complete windows of the log in order (all sessions), 1-based; \
values as the producer printed them (draws/f, acc/draw, bytes/f) and gate hit rate = hits / (hits + misses); \
the shaded span is the steady state of the reported session (--steady); dashed lines mark session changes \
and Fatal lines (placed after the last complete window before them)";

/// The per-window series of one log, for the HTML page: every complete window in log order.
fn counter_arm(log: &Log, steady: SteadyRange) -> CounterArm {
    use stats_viewer::window::Value;
    let mut metrics: Vec<(String, Vec<(f64, f64)>)> = Vec::new();
    let mut push = |name: String, x: f64, y: f64| match metrics.iter_mut().find(|(n, _)| *n == name)
    {
        Some((_, pts)) => pts.push((x, y)),
        None => metrics.push((name, vec![(x, y)])),
    };
    let mut sessions = Vec::new();
    let mut steady_span = None;
    let mut lines = Vec::new();
    let mut x = 0usize;
    let reported = log.reported_session().map(|s| s.index);
    for s in &log.sessions {
        let complete = s.complete_windows();
        if x > 0 && !complete.is_empty() {
            sessions.push((
                x as f64 + 0.5,
                format!(
                    "session {} (pid {})",
                    s.index,
                    s.pid.map_or("?".into(), |p| p.to_string())
                ),
            ));
        }
        if Some(s.index) == reported && !complete.is_empty() {
            let to = steady.to.unwrap_or(complete.len()).min(complete.len());
            if steady.from >= 1 && steady.from <= to {
                steady_span = Some(((x + steady.from) as f64, (x + to) as f64));
            }
        }
        for w in complete {
            x += 1;
            lines.push(w.line);
            let xf = x as f64;
            if let Some(v) = w.item.draws_per_frame {
                push("draws/f".into(), xf, v.to_f64());
            }
            if let Some(v) = w.item.acc_per_draw {
                push("acc/draw".into(), xf, v.to_f64());
            }
            for f in &w.item.fields {
                match (f.group.as_deref(), &f.value) {
                    (Some("gates"), Value::HitMiss { hit, miss }) if hit + miss > 0 => push(
                        format!("gate {} hit rate (%)", f.key),
                        xf,
                        *hit as f64 * 100.0 / (hit + miss) as f64,
                    ),
                    (Some("bytes/f"), Value::Fixed(v)) => {
                        push(format!("bytes/f {}", f.key), xf, v.to_f64())
                    }
                    _ => {}
                }
            }
        }
    }
    let fatals = log
        .fatals
        .iter()
        .map(|f| {
            let before = lines.iter().filter(|l| **l < f.line).count();
            (
                before as f64 + 0.5,
                format!("Fatal{{{}}} line {}", f.fatal.kind, f.line),
            )
        })
        .collect();
    CounterArm {
        label: log.path.display().to_string(),
        metrics,
        sessions,
        fatals,
        steady: steady_span,
        windows: x,
    }
}
