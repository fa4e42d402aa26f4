//! `mgctl bench ab RUNS_DIR`: MEASUREMENTS.md's A/B table from a directory of paired runs.
//! Loading, figures and rendering live in `stats_viewer::budget::ab`.

use std::io::Write;
use std::path::PathBuf;

use clap::{Args, ValueEnum};

use stats_viewer::budget::ab::{self, Layout};

use super::Outcome;
use crate::flags::ReportFormat;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LayoutArg {
    /// `<case>-<backend>/<arm>/…`
    RunArm,
    /// `<arm>/<case>-<backend>/…`
    ArmRun,
}

#[derive(Debug, Args)]
#[command(
    about = "The A/B table (pull vs push p50/p99 per case and backend) of a runs directory",
    long_about = "Reduces a directory of paired runs (default layout `<case>-<backend>/<arm>/{benchmark*.json, \
mobilegl.log}`) to MEASUREMENTS.md's table: case | backend | finish | pull p50 | push p50 | Δ p50 | pull p99 | \
push p99 | Δ p99 | counters, over CPU frame times (frameCpuTimesMs[]) of each arm's best repeat (lowest wall \
meanFrameMs), nearest-rank percentiles over the tail, the same figures `bench frames` prints; n, method and \
repeats are stated. The counters cell is the push arm's last complete window (csom, csob). With --budgets, \
the benchmark budgets of that mgctl.toml mark the cells they fail (✗) and the exit status is 1. Exit status: \
0, 1 a budget fails, 2 unreadable or malformed input.",
    after_help = "Examples:\n  mgctl bench ab driver/MobileGL/MG_Test/runs/\n  mgctl bench ab driver/MobileGL/MG_Test/runs/ --format markdown \\\n      >> MEASUREMENTS.md\n  mgctl bench ab driver/MobileGL/MG_Test/runs/ --format json \\\n      --budgets driver/mgctl.toml"
)]
pub struct AbArgs {
    /// The runs directory.
    pub runs_dir: PathBuf,
    #[arg(long, value_enum, default_value_t = ReportFormat::Human, help = crate::flags::FORMAT_HELP)]
    pub format: ReportFormat,
    /// Where run and arm sit in the tree.
    #[arg(long, value_enum, default_value_t = LayoutArg::RunArm)]
    pub layout: LayoutArg,
    /// Name of the A arm's directory.
    #[arg(long, default_value = "pull")]
    pub pull: String,
    /// Name of the B arm's directory.
    #[arg(long, default_value = "push")]
    pub push: String,
    /// An mgctl.toml whose benchmark `[[budget]]`s mark the cells they fail.
    #[arg(long, value_name = "MGCTL_TOML")]
    pub budgets: Option<PathBuf>,
}

pub fn run(a: &AbArgs, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    let layout = match a.layout {
        LayoutArg::RunArm => Layout::RunArm,
        LayoutArg::ArmRun => Layout::ArmRun,
    };
    let budgets = match &a.budgets {
        Some(p) => {
            let text = std::fs::read_to_string(p)
                .map_err(|e| anyhow::anyhow!("{}: cannot read: {e}", p.display()))?;
            crate::config::parse(&text, p)?.budget
        }
        None => Vec::new(),
    };
    let runs = ab::load(&a.runs_dir, layout).map_err(anyhow::Error::msg)?;
    let rows = ab::rows(&runs, &a.pull, &a.push, &budgets);
    let shown = a.runs_dir.display().to_string();
    match a.format {
        ReportFormat::Human => ab::human(&shown, &rows, out)?,
        ReportFormat::Markdown => ab::markdown(&rows, out)?,
        ReportFormat::Json => {
            serde_json::to_writer_pretty(&mut *out, &ab::json(&shown, &rows))?;
            writeln!(out)?;
        }
    }
    Ok(Outcome::from_pass(ab::pass(&rows)))
}
