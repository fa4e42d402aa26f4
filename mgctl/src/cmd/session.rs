//! `mgctl bench session DIR`: a client/server-era device session (P6 A/B or the disagg matrix).
//! Loading, proof, figures and rendering live in `stats_viewer::devsession`.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;

use stats_viewer::devsession::{self as ses, Options};

use super::Outcome;
use crate::flags::{ReportFormat, FORMAT_HELP};

#[derive(Debug, Args)]
#[command(
    about = "A device session's arms (P6 session or disagg matrix): proven from their own logs, compared",
    long_about = "Reads a P6 session (`session-summary.json` + `<NN>-<case>-<backend>-<transport>-r<N>/`) or a \
disagg matrix (`summary.json` + `<workload>/<arm>-r<rep>/`), any number of arms and repeats, in session order. \
Each arm is proven from its own role log, never from its label: the transport marker, the `Config: IPC` split \
knobs and, for spawn, the `spawn ARMED - the server role runs in pid N` line; pin evidence not PINNED, an \
unchanged boot id under --reboot, a Fatal line or a missing result voids it, and a voided arm is named with its \
reason and excluded from every comparison. Under spawn the frame count and the srv/srvpark pair come from the \
server log and the run-total gauges from the client's terminal line; every table names the log. Exit status: 0 \
(voided arms included), 1 an error finding (a stale benchmark.json, a per-frame rate over a structural zero, \
nothing proven to compare), 2 unreadable or malformed input or an unknown --baseline (docs/session.md).",
    after_help = "Examples:\n  mgctl bench session driver/fixtures/session/p6-mixed/\n  mgctl bench session driver/fixtures/session/p6-mixed/ --baseline inproc \\\n      --format markdown\n  mgctl bench session driver/fixtures/session/p6-mixed/ --format json \\\n      --html session.html"
)]
pub struct SessionArgs {
    /// The session directory.
    pub dir: PathBuf,
    /// The arm every Δ is taken against: its folder name, its number, or a transport (default:
    /// the first proven monolith arm, else the first proven arm).
    #[arg(long, value_name = "ARM")]
    pub baseline: Option<String>,
    #[arg(long, value_enum, default_value_t = ReportFormat::Human, help = FORMAT_HELP)]
    pub format: ReportFormat,
    /// Also write one self-contained HTML page: per-arm distributions side by side, Δ against the
    /// baseline, spread shown (docs/html.md).
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
}

pub fn run(a: &SessionArgs, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    let input = ses::load(&a.dir)?;
    let opts = Options {
        baseline: a.baseline.clone(),
    };
    let report = ses::analyse(&input, &opts).map_err(anyhow::Error::msg)?;
    if let Some(path) = &a.html {
        let page = html_report::session_page(&report, crate::report::VERSION);
        crate::output::write_file(path, page.as_bytes())?;
    }
    match a.format {
        ReportFormat::Human => ses::human(&report, out)?,
        ReportFormat::Markdown => ses::markdown(&report, out)?,
        ReportFormat::Json => {
            serde_json::to_writer_pretty(&mut *out, &ses::json(&report))?;
            writeln!(out)?;
        }
    }
    Ok(Outcome::from_pass(report.passed()))
}
