//! The table for people: one row per gate, then every finding, then the summary line.

use std::io::{self, Write};

use tabled::settings::{Style, Width};
use tabled::{builder::Builder, settings::object::Columns, settings::Alignment};

use super::{counts, summary_line, verdict_word, CheckRun, Mode};
use crate::gate::{GateReport, Severity, Verdict};

fn paint(text: &str, code: &str, color: bool) -> String {
    if color {
        format!("\u{1b}[{code}m{text}\u{1b}[0m")
    } else {
        text.to_string()
    }
}

fn headline(r: &GateReport) -> String {
    match &r.verdict {
        Verdict::Skipped { reason } => reason.clone(),
        _ => r.headline.clone(),
    }
}

const HEADLINE_WIDTH: usize = 64;
/// Notes are context, not problems: a gate's first few are shown, the rest counted.
const NOTES_SHOWN: usize = 5;

pub fn write(run: &CheckRun, out: &mut dyn Write, color: bool) -> io::Result<()> {
    let mut b = Builder::default();
    b.push_record([
        "gate", "verdict", "errors", "warnings", "notes", "headline", "time",
    ]);
    for r in &run.gates {
        let (e, w, n) = counts(r);
        let time = if matches!(r.verdict, Verdict::Skipped { .. }) {
            "-".to_string()
        } else {
            format!("{:.1} ms", r.wall_ms)
        };
        b.push_record([
            r.gate.to_string(),
            verdict_word(r).to_string(),
            e.to_string(),
            w.to_string(),
            n.to_string(),
            headline(r),
            time,
        ]);
    }
    let mut table = b.build();
    table.with(Style::sharp());
    table.modify(Columns::new(2..5), Alignment::right());
    table.modify(Columns::last(), Alignment::right());
    // Long headlines wrap so the table fits a review pane; the full text is in JSON.
    table.modify(
        Columns::new(5..6),
        Width::wrap(HEADLINE_WIDTH).keep_words(true),
    );
    let mode = if run.mode == Mode::SelfTest {
        " --self-test"
    } else {
        ""
    };
    writeln!(
        out,
        "mgctl check{mode} {}  (config: {})",
        run.workspace, run.config
    )?;
    // Colour the verdict words after layout so escape codes do not disturb column widths.
    let mut rendered = table.to_string();
    if color {
        rendered = rendered.replace(" FAIL ", &format!(" {} ", paint("FAIL", "1;31", true)));
        rendered = rendered.replace(" pass ", &format!(" {} ", paint("pass", "32", true)));
    }
    writeln!(out, "{rendered}")?;
    for r in &run.gates {
        if r.findings.is_empty() {
            continue;
        }
        writeln!(out)?;
        writeln!(out, "{}:", paint(r.gate, "1", color))?;
        let notes = r
            .findings
            .iter()
            .filter(|f| f.severity == Severity::Note)
            .count();
        let mut notes_left = NOTES_SHOWN;
        for f in &r.findings {
            if f.severity == Severity::Note {
                if notes_left == 0 {
                    continue;
                }
                notes_left -= 1;
            }
            let (word, code) = match f.severity {
                Severity::Error => ("error", "31"),
                Severity::Warning => ("warning", "33"),
                Severity::Note => ("note", "36"),
            };
            let loc = f
                .location
                .as_ref()
                .map(|l| format!("{l}: "))
                .unwrap_or_default();
            let mut lines = f.message.lines();
            let first = lines.next().unwrap_or_default();
            writeln!(
                out,
                "  {}[{}] {loc}{first}",
                paint(word, code, color),
                f.code
            )?;
            for more in lines {
                writeln!(out, "      {more}")?;
            }
        }
        if notes > NOTES_SHOWN {
            writeln!(
                out,
                "  … and {} more notes (all of them in --format json)",
                notes - NOTES_SHOWN
            )?;
        }
    }
    writeln!(out)?;
    let line = summary_line(run);
    let code = if run.passed { "1;32" } else { "1;31" };
    writeln!(out, "{}", paint(&line, code, color))
}
