//! Renderers for log summaries and Fatal censuses: human text, versioned JSON, Markdown.
//! Reporters only format what analysis computed; they never re-parse. One module per topic:
//! [`summary`] (a log: text, JSON, Markdown, the exit reasons), [`session`] (one session in
//! detail), [`fatals`] (the Fatal census and the G4 verdict), [`dump`] (the teardown JSON dump
//! against the windows) and [`series`] (the per-window counters the HTML charts draw).

use crate::fixed::{Fixed2, Ratio};

mod dump;
mod fatals;
mod series;
mod session;
mod summary;

pub use dump::{dump_json, dump_text, DumpCheck};
pub use fatals::{
    census, fatal_line_text, fatals_json, fatals_report_json, fatals_report_text, fatals_text,
    Census,
};
pub use series::{counter_series, diff_series, CounterSeries, COUNTERS_METHOD, DIFF_METHOD};
pub use session::{field_rows, session_json, session_text, value_json};
pub use summary::{
    log_json, log_problems, summaries_text, summary_json, summary_markdown, summary_text,
    SteadyJson, SummaryJson,
};

/// Which complete windows form the steady state (1-based, inclusive; `to = None` = the last).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SteadyRange {
    pub from: usize,
    pub to: Option<usize>,
}

impl Default for SteadyRange {
    /// Complete windows 3..last: the first two windows of a replay are load and warm-up.
    fn default() -> Self {
        SteadyRange { from: 3, to: None }
    }
}

impl SteadyRange {
    /// `3`, `3..`, `3..6`, `3-6`.
    pub fn parse(s: &str) -> Option<SteadyRange> {
        let s = s.trim();
        let (a, b) = match s.split_once("..").or_else(|| s.split_once('-')) {
            Some((a, b)) => (a, Some(b)),
            None => (s, None),
        };
        let from = a.trim().parse().ok().filter(|v| *v > 0)?;
        let to = match b.map(str::trim) {
            None | Some("") => None,
            Some(b) => Some(b.parse().ok()?),
        };
        Some(SteadyRange { from, to })
    }
}

pub(super) fn ratio_or_na(r: Option<Ratio>, places: u32) -> String {
    r.map_or_else(|| "n/a".to_string(), |r| r.format(places, false))
}

pub(super) fn fixed_or_na(v: Option<Fixed2>) -> String {
    v.map_or_else(|| "n/a".to_string(), |v| v.to_string())
}

/// The sample logs of `tests/data/` (expected numbers: `/work/shared/samples/README.md`, which
/// `reference_expected.py` prints independently of this crate).
#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod samples {
    use std::path::Path;

    use crate::session::Log;

    /// Arm A: the library's file sink, CRLF, one session, dump failed.
    pub(super) const ARM_A: &[u8] =
        include_bytes!("../../tests/data/abA-pull-DirectGLES.mobilegl.log");
    /// Arm B: logcat, an earlier killed session, verify armed, dump written.
    pub(super) const ARM_B: &[u8] =
        include_bytes!("../../tests/data/abB-push-DirectGLES.logcat.txt");
    /// Arm B's teardown JSON dump.
    pub(super) const ARM_B_DUMP: &[u8] = include_bytes!("../../tests/data/abB-push-pipestats.json");
    /// One line per `Fatal{` shape, plus three lines that are not Fatals.
    pub(super) const FATAL_LINES: &[u8] = include_bytes!("../../tests/data/fatal-lines.txt");
    /// A verify-lane log that ends in a Fatal.
    pub(super) const FATAL_VERIFY: &[u8] =
        include_bytes!("../../tests/data/fatal-verify-DirectGLES.mobilegl.log");
    /// `ctest -V` output with `MGPipe verify:` runner lines.
    pub(super) const TRANSCRIPT: &[u8] =
        include_bytes!("../../tests/data/ctest-verify-transcript.txt");

    pub(super) fn log(name: &str, bytes: &[u8]) -> Log {
        Log::parse(Path::new(name), bytes).unwrap()
    }

    /// What a writer-taking renderer wrote.
    pub(super) fn written(f: impl FnOnce(&mut Vec<u8>) -> std::io::Result<()>) -> String {
        let mut out = Vec::new();
        f(&mut out).unwrap();
        String::from_utf8(out).unwrap()
    }
}
