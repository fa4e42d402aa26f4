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
0, 1 a budget fails, 2 unreadable or malformed input. With --session, RUNS_DIR is a device session (the layouts \
of `bench session`): arms are named by transport (--pull default monolith, --push required), only PROVEN arms \
are compared (repeats of one transport pooled) and each arm left out is named with its reason.",
    after_help = "Examples:\n  mgctl bench ab driver/MobileGL/MG_Test/runs/\n  mgctl bench ab driver/MobileGL/MG_Test/runs/ --format markdown \\\n      >> MEASUREMENTS.md\n  mgctl bench ab driver/MobileGL/MG_Test/runs/ --format json \\\n      --budgets driver/mgctl.toml\n  mgctl bench ab driver/fixtures/session/p6-mixed --session --push inproc"
)]
pub struct AbArgs {
    /// The runs directory.
    pub runs_dir: PathBuf,
    #[arg(long, value_enum, default_value_t = ReportFormat::Human, help = crate::flags::FORMAT_HELP)]
    pub format: ReportFormat,
    /// Where run and arm sit in the tree.
    #[arg(long, value_enum, default_value_t = LayoutArg::RunArm)]
    pub layout: LayoutArg,
    /// Name of the A arm's directory (with --session: its transport, default monolith).
    #[arg(long)]
    pub pull: Option<String>,
    /// Name of the B arm's directory (with --session: its transport, required).
    #[arg(long)]
    pub push: Option<String>,
    /// Read RUNS_DIR as a device session (`bench session`'s P6 or matrix layout): only proven
    /// arms are compared, by transport; every arm left out is named with its reason.
    #[arg(long)]
    pub session: bool,
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
            workspace_config::config::parse(&text, p)?.budget
        }
        None => Vec::new(),
    };
    let (runs, left_out, pull, push) =
        if a.session {
            let input = stats_viewer::devsession::load(&a.runs_dir)?;
            let report = stats_viewer::devsession::analyse(&input, &Default::default())
                .map_err(anyhow::Error::msg)?;
            let (runs, left_out) = ab::from_session(&input, &report);
            let proven: Vec<&str> = runs
                .iter()
                .flat_map(|r| r.arms.iter().map(|x| x.name.as_str()))
                .collect();
            let pull = a.pull.clone().unwrap_or_else(|| "monolith".into());
            let Some(push) = a.push.clone() else {
                anyhow::bail!(
                    "bench ab --session: give --push TRANSPORT (proven here: {})",
                    proven.join(", ")
                );
            };
            for arm in [&pull, &push] {
                if !proven.contains(&arm.as_str()) {
                    anyhow::bail!(
                    "bench ab --session: no proven `{arm}` arm in {} (proven: {}; left out: {})",
                    a.runs_dir.display(),
                    proven.join(", "),
                    if left_out.is_empty() { "none".to_string() } else { left_out.join("; ") }
                );
                }
            }
            (runs, left_out, pull, push)
        } else {
            let runs = ab::load(&a.runs_dir, layout).map_err(anyhow::Error::msg)?;
            let pull = a.pull.clone().unwrap_or_else(|| "pull".into());
            let push = a.push.clone().unwrap_or_else(|| "push".into());
            (runs, Vec::new(), pull, push)
        };
    let rows = ab::rows(&runs, &pull, &push, &budgets);
    let shown = a.runs_dir.display().to_string();
    let esc = |s: &str| diag::escape::terminal(s).into_owned();
    match a.format {
        ReportFormat::Human => {
            ab::human(&shown, &rows, out)?;
            if a.session {
                writeln!(
                    out,
                    "arms by transport: pull = {}, push = {}",
                    esc(&pull),
                    esc(&push)
                )?;
            }
            for l in &left_out {
                writeln!(out, "left out: {}", esc(l))?;
            }
        }
        ReportFormat::Markdown => {
            ab::markdown(&rows, out)?;
            if a.session {
                writeln!(
                    out,
                    "\nArms by transport: pull = {}, push = {}",
                    diag::escape::markdown_cell(&pull),
                    diag::escape::markdown_cell(&push)
                )?;
            }
            for l in &left_out {
                writeln!(out, "\nLeft out: {}", diag::escape::markdown_cell(l))?;
            }
        }
        ReportFormat::Json => {
            let mut doc = ab::json(&shown, &rows);
            if a.session {
                doc["left_out"] = serde_json::json!(left_out);
                doc["arms"] = serde_json::json!({ "pull": pull, "push": push });
            }
            serde_json::to_writer_pretty(&mut *out, &doc)?;
            writeln!(out)?;
        }
    }
    Ok(Outcome::from_pass(ab::pass(&rows)))
}
