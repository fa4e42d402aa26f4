//! `mgctl bench frames|driver`: trace-replay `benchmark.json` percentiles and DriverBench medians.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::{Args, Subcommand, ValueEnum};

use stats_viewer::bench_report::{self, Arm, RunGroup, Series};

use super::Outcome;
use crate::flags::{ReportFormat, FORMAT_HELP};
use crate::settings::Settings;
use html_report as html;

#[derive(Debug, Args)]
#[command(
    about = "benchmark.json frame-time percentiles and DriverBench medians",
    long_about = "Benchmark files of MobileGL runs: the trace-replay harness's `benchmark.json` \
(per-frame wall and CPU times; mean, median, p95, p99 by nearest rank, best-of-N as the retrace runner \
picks it) and DriverBench output (median ns_per_op per case over repeats, the T1/T2 decomposition of push \
vs pull arms).",
    after_help = "Examples:\n  mgctl bench frames driver/MobileGL/MG_Test/runs/*/pull/\n  mgctl bench frames --compare driver/MobileGL/MG_Test/runs/*/pull/ \\\n      driver/MobileGL/MG_Test/runs/*/push/\n  mgctl bench driver \\\n      espryt-pull=stats_viewer/tests/data/driverbench-A-espryt-pull.csv \\\n      espryt-push=stats_viewer/tests/data/driverbench-B-espryt-push.txt"
)]
pub struct BenchArgs {
    #[command(subcommand)]
    pub command: BenchCommand,
}

#[derive(Debug, Subcommand)]
pub enum BenchCommand {
    Frames(FramesArgs),
    Driver(DriverArgs),
    Ab(super::ab::AbArgs),
    Session(super::session::SessionArgs),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SeriesArg {
    Cpu,
    Wall,
    Both,
}

#[derive(Debug, Args)]
#[command(
    about = "Runner lines, best of N, mean/median/p95/p99 (nearest rank) of benchmark.json",
    long_about = "Reads `benchmark.json` files (or result directories holding `benchmark-run<i>.json`, \
else `benchmark.json`) and prints, per repeat, the retrace runner's line byte for byte (`format_benchmark`: \
device mean/median/p95/fps, host CPU p50/p99), the best of N (lowest wall meanFrameMs, <= 0 counts as +inf, \
earliest on ties), and a table of mean, median, p95, p99, min, max over the tail (the trailing `tailFrames` \
frames, or --tail), always with the method and n. Percentiles are NEAREST RANK (rank = ceil(p/100 * n)), as \
upstream computes them: always an observed frame. With --compare A B the best repeat of each arm is \
compared (Δ mean, p50, p95, p99). Exit status: 0, 2 unreadable, non-JSON, truncated or non-finite input, \
or an empty frame array.",
    after_help = "Examples:\n  mgctl bench frames driver/MobileGL/MG_Test/runs/*/pull/benchmark-run1.json \\\n      driver/MobileGL/MG_Test/runs/*/pull/benchmark-run2.json\n  mgctl bench frames driver/MobileGL/MG_Test/runs/*/pull/ --series cpu\n  mgctl bench frames --tail 100 \\\n      driver/MobileGL/MG_Test/runs/*/pull/benchmark-run1.json\n  mgctl bench frames --compare driver/MobileGL/MG_Test/runs/*/pull/ \\\n      driver/MobileGL/MG_Test/runs/*/push/ --format json\n  mgctl bench frames driver/MobileGL/MG_Test/runs/*/pull/ --format markdown \\\n      >> MEASUREMENTS.md"
)]
pub struct FramesArgs {
    /// benchmark.json files or result directories (one repeat group), `-` for stdin.
    #[arg(required_unless_present = "compare")]
    pub inputs: Vec<PathBuf>,
    /// Compare two arms (directories or files): A then B.
    #[arg(long, num_args = 2, value_names = ["A", "B"], conflicts_with = "inputs")]
    pub compare: Option<Vec<PathBuf>>,
    /// Trailing frames to summarise (default: each file's tailFrames, as the runner does).
    #[arg(long, value_name = "N")]
    pub tail: Option<usize>,
    /// Which series the table shows.
    #[arg(long, value_enum, default_value_t = SeriesArg::Both)]
    pub series: SeriesArg,
    // `markdown`: the MEASUREMENTS.md row of each arm's best repeat (CPU p50/p99, n, method).
    #[arg(long, value_enum, default_value_t = ReportFormat::Human, help = FORMAT_HELP)]
    pub format: ReportFormat,
    // The first spellings of --format json|markdown, kept (hidden) for old scripts.
    #[arg(long, hide = true, conflicts_with_all = ["markdown", "format"])]
    pub json: bool,
    #[arg(long, hide = true, conflicts_with = "format")]
    pub markdown: bool,
    /// Also write one self-contained HTML page: histogram and CDF per series, A and B overlaid,
    /// p50/p95/p99 marked (docs/html.md).
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
}

#[derive(Debug, Args)]
#[command(
    about = "DriverBench median ns_per_op per case and arm, with the T1/T2 decomposition",
    long_about = "Reads DriverBench stdout captures (one file per arm, any number of repeats; repeated \
CSV headers and stderr lines captured with 2>&1 are skipped, rows are found by the header) and prints per \
case the median ns_per_op over repeats with n and min, per arm. Arms are named `NAME=PATH`, or after the \
file (`driverbench-A-espryt-pull.csv` -> `espryt-pull`). With arms named *pull and *push the T1 column \
(push − pull) is added, and with a *push7f (or *push0) arm, T2 (push7f − pull) and T1 − T2. Exit status: \
0, 2 unreadable input or a malformed row.",
    after_help = "Examples:\n  mgctl bench driver stats_viewer/tests/data/driverbench-A-espryt-pull.csv \\\n      stats_viewer/tests/data/driverbench-B-espryt-push.txt\n  mgctl bench driver \\\n      pull=stats_viewer/tests/data/driverbench-A-espryt-pull.csv \\\n      push=stats_viewer/tests/data/driverbench-B-espryt-push.txt \\\n      --format markdown"
)]
pub struct DriverArgs {
    /// DriverBench outputs, `PATH` or `NAME=PATH` (`-` or `NAME=-` for stdin).
    #[arg(required = true)]
    pub outputs: Vec<String>,
    // `markdown`: a table in MEASUREMENTS.md's shape.
    #[arg(long, value_enum, default_value_t = ReportFormat::Human, help = FORMAT_HELP)]
    pub format: ReportFormat,
    // The first spellings of --format json|markdown, kept (hidden) for old scripts.
    #[arg(long, hide = true, conflicts_with_all = ["json", "format"])]
    pub markdown: bool,
    #[arg(long, hide = true, conflicts_with = "format")]
    pub json: bool,
}

pub fn run(args: &BenchArgs, _settings: &Settings, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    match &args.command {
        BenchCommand::Frames(a) => frames(a, out),
        BenchCommand::Driver(a) => driver(a, out),
        BenchCommand::Ab(a) => super::ab::run(a, out),
        BenchCommand::Session(a) => super::session::run(a, out),
    }
}

fn group(label: String, inputs: &[PathBuf], tail: Option<usize>) -> anyhow::Result<RunGroup> {
    let g = RunGroup::load(label, inputs, tail, &super::read_input, &super::input_name)?;
    if tail == Some(0) {
        anyhow::bail!("--tail must be positive");
    }
    Ok(g)
}

fn series(s: SeriesArg) -> Vec<Series> {
    match s {
        SeriesArg::Cpu => vec![Series::Cpu],
        SeriesArg::Wall => vec![Series::Wall],
        SeriesArg::Both => vec![Series::Wall, Series::Cpu],
    }
}

fn frames(a: &FramesArgs, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    let ser = series(a.series);
    super::one_stdin(
        a.inputs
            .iter()
            .chain(a.compare.iter().flatten())
            .map(PathBuf::as_path),
    )?;
    let name = |p: &Path| super::input_name(p).display().to_string();
    let groups = match &a.compare {
        Some(pair) => vec![
            group(name(&pair[0]), std::slice::from_ref(&pair[0]), a.tail)?,
            group(name(&pair[1]), std::slice::from_ref(&pair[1]), a.tail)?,
        ],
        None => {
            let label = a.inputs.iter().map(|p| name(p)).collect::<Vec<_>>();
            vec![group(label.join(" "), &a.inputs, a.tail)?]
        }
    };
    if let Some(path) = &a.html {
        let arms = bench_report::best_tails(&groups, &ser);
        let page = html::frames_page(&arms, bench_report::METHOD, crate::report::VERSION);
        crate::output::write_file(path, page.as_bytes())?;
    }
    match a.format.or_switches(a.json, a.markdown) {
        ReportFormat::Json => {
            serde_json::to_writer_pretty(&mut *out, &bench_report::frames_json(&groups))?;
            writeln!(out)?;
        }
        ReportFormat::Markdown => bench_report::frames_markdown(&groups, out)?,
        ReportFormat::Human => bench_report::frames_texts(&groups, &ser, out)?,
    }
    Ok(Outcome::Pass)
}

fn driver(a: &DriverArgs, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    let format = a.format.or_switches(a.json, a.markdown);
    let specs: Vec<(String, PathBuf)> = a.outputs.iter().map(|s| Arm::spec(s)).collect();
    super::one_stdin(specs.iter().map(|(_, p)| p.as_path()))?;
    let mut arms = Vec::new();
    for (name, path) in specs {
        let bytes = super::read_input(&path)?;
        arms.push(Arm::parse(name, &path, super::input_name(&path), &bytes)?);
    }
    if format == ReportFormat::Json {
        serde_json::to_writer_pretty(&mut *out, &bench_report::driver_json(&arms))?;
        writeln!(out)?;
    } else {
        bench_report::driver_text(&arms, format == ReportFormat::Markdown, out)?;
    }
    Ok(Outcome::Pass)
}
