//! The report of one `mgctl check` run: the vocabulary every gate reports in (findings, verdicts,
//! self-test controls, per-gate reports) and every text and machine format it is rendered to
//! (human, JSON, JUnit, GitHub annotations, Markdown, SARIF). Like ripgrep's printer crate, it
//! knows nothing of how findings are made: mgctl's gates build the model, this crate renders it,
//! and no format re-runs analysis or filters findings. Only `human` may colour.
#![warn(unreachable_pub)]

mod github;
mod human;
mod junit;
mod markdown;
mod model;
mod run;
mod sarif;
pub mod sink;
pub mod text;

use std::io::{self, Write};

pub use model::{Control, Finding, GateReport, Location, SelfTest, Severity, Verdict};
pub use run::{counts, listing, summary_line, verdict_word, CheckRun, Listing, Mode, View};

/// The file a workspace configures mgctl in; a finding without a location points at it.
const CONFIG_FILE: &str = "mgctl.toml";

/// The registered one-line meaning of a finding code (mgctl's code registry), for SARIF rules
/// whose code has no row in docs/codes.md.
pub type CodeSummary<'a> = &'a dyn Fn(&str) -> Option<&'static str>;

/// The formats of a check report: `check --format`'s values (with the `clap` feature). All but
/// `Html` are rendered here; the HTML page is `html_report::check_page`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum Format {
    /// Text for people (colour on a terminal).
    Human,
    /// Versioned JSON (`"schema": 1`), documented in docs/.
    Json,
    /// JUnit XML: one <testsuite> per gate, one <testcase> per checked unit.
    Junit,
    /// GitHub workflow annotations (`::error …::`) with the text report.
    Github,
    /// Markdown, for a pull-request comment or MEASUREMENTS.md.
    Markdown,
    /// SARIF 2.1.0 for GitHub code scanning: one run, rules from the finding codes.
    Sarif,
    /// One self-contained HTML page (gate table, timing bars, findings); use with --output.
    Html,
}

/// Render `run` as `format`. `color` applies to `human` only.
pub fn write(
    format: Format,
    run: &CheckRun,
    out: &mut dyn Write,
    color: bool,
    summary: CodeSummary<'_>,
) -> io::Result<()> {
    match format {
        Format::Human => human::write(run, out, color, summary),
        Format::Json => {
            serde_json::to_writer_pretty(&mut *out, &run::json(run)?)?;
            writeln!(out)
        }
        Format::Sarif => sarif::write(run, out, summary),
        Format::Junit => junit::write(run, out),
        Format::Github => github::write(run, out, summary),
        Format::Markdown => markdown::write(run, out, summary),
        Format::Html => Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "the HTML page is drawn by html_report::check_page",
        )),
    }
}
