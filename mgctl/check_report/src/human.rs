//! The table for people: one row per gate, then every finding, then the summary line.

use std::io::{self, Write};

use tabled::settings::Style;
use tabled::{builder::Builder, settings::object::Columns, settings::Alignment};

use crate::model::{GateReport, Severity, Verdict};
use crate::run::{counts, listing, not_selected, summary_line, verdict_word, CheckRun, Mode};
use crate::text::{escape, safe_line};
use crate::CodeSummary;

fn paint(text: &str, code: &str, color: bool) -> String {
    if color {
        format!("\u{1b}[{code}m{text}\u{1b}[0m")
    } else {
        text.to_string()
    }
}

fn headline(r: &GateReport) -> String {
    match &r.verdict {
        Verdict::Skipped { reason } => escape(reason),
        _ => escape(&r.headline),
    }
}

/// Below this many columns the table drops to its compact layout (one `e/w/n` column).
const COMPACT_BELOW: usize = 100;
/// A headline column narrower than this wraps into a column of single words: not worth it.
const MIN_HEADLINE: usize = 10;

/// The gate table, laid out for `columns` terminal columns: the headline column takes what the
/// other columns leave and wraps; the full headline stays in JSON and Markdown.
fn table(run: &CheckRun, columns: usize) -> String {
    let compact = columns < COMPACT_BELOW;
    let mut rows: Vec<Vec<String>> = Vec::new();
    rows.push(if compact {
        ["gate", "verdict", "e/w/n", "headline", "time"]
            .map(String::from)
            .to_vec()
    } else {
        [
            "gate", "verdict", "errors", "warnings", "notes", "headline", "time",
        ]
        .map(String::from)
        .to_vec()
    });
    for r in not_selected(run).1 {
        let (e, w, n) = counts(r);
        let time = if matches!(r.verdict, Verdict::Skipped { .. }) {
            "-".to_string()
        } else {
            format!("{:.1} ms", r.wall_ms)
        };
        let (gate, verdict, headline) =
            (r.gate.to_string(), verdict_word(r).to_string(), headline(r));
        rows.push(if compact {
            vec![gate, verdict, format!("{e}/{w}/{n}"), headline, time]
        } else {
            vec![
                gate,
                verdict,
                e.to_string(),
                w.to_string(),
                n.to_string(),
                headline,
                time,
            ]
        });
    }
    let ncols = rows[0].len();
    let head_col = ncols - 2;
    let others: usize = (0..ncols)
        .filter(|&c| c != head_col)
        .map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
        .sum();
    // `│ a │ b │`: three columns of border and padding per cell, plus the closing border.
    let head_width = columns
        .saturating_sub(others + 3 * ncols + 1)
        .max(MIN_HEADLINE);
    let mut b = Builder::default();
    for (i, mut r) in rows.into_iter().enumerate() {
        if i > 0 {
            r[head_col] = wrap_words(&r[head_col], head_width);
        }
        b.push_record(r);
    }
    let mut table = b.build();
    table.with(Style::sharp());
    if compact {
        table.modify(Columns::new(2..3), Alignment::right());
    } else {
        table.modify(Columns::new(2..5), Alignment::right());
    }
    table.modify(Columns::last(), Alignment::right());
    table.to_string()
}

/// `text` broken into lines of at most `width` characters at spaces (a longer word is cut), with
/// no line starting or ending in a space.
fn wrap_words(text: &str, width: usize) -> String {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        let mut word: Vec<char> = word.chars().collect();
        let used = line.chars().count();
        if used > 0 && used + 1 + word.len() <= width {
            line.push(' ');
            line.extend(&word);
            continue;
        }
        if used > 0 {
            lines.push(std::mem::take(&mut line));
        }
        while word.len() > width {
            lines.push(word.drain(..width).collect());
        }
        line = word.into_iter().collect();
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines.join("\n")
}

pub(crate) fn write(
    run: &CheckRun,
    out: &mut dyn Write,
    color: bool,
    summary: CodeSummary<'_>,
) -> io::Result<()> {
    let mode = if run.mode == Mode::SelfTest {
        " --self-test"
    } else {
        ""
    };
    writeln!(
        out,
        "mgctl check{mode} {}  (config: {})",
        escape(&run.workspace),
        escape(&run.config)
    )?;
    // Colour the verdict words after layout so escape codes do not disturb column widths.
    let mut rendered = table(run, run.view.columns);
    if color {
        rendered = rendered.replace(" FAIL ", &format!(" {} ", paint("FAIL", "1;31", true)));
        rendered = rendered.replace(" pass ", &format!(" {} ", paint("pass", "32", true)));
    }
    writeln!(out, "{rendered}")?;
    if let Some(line) = not_selected(run).0 {
        writeln!(
            out,
            "{}",
            wrap_words(&escape(&line), run.view.columns.max(20))
        )?;
    }
    for r in &run.gates {
        if r.findings.is_empty() {
            continue;
        }
        writeln!(out)?;
        writeln!(out, "{}:", paint(r.gate, "1", color))?;
        let listing = listing(r, run.view.verbose);
        for f in &listing.shown {
            let (word, code) = match f.severity {
                Severity::Error => ("error", "31"),
                Severity::Warning => ("warning", "33"),
                Severity::Note => ("note", "36"),
            };
            let loc = f
                .location
                .as_ref()
                .map(|l| format!("{}: ", escape(&run.view.shown_location(l))))
                .unwrap_or_default();
            let mut lines = f.message.split('\n');
            let first = escape(lines.next().unwrap_or_default());
            writeln!(
                out,
                "  {}[{}] {loc}{first}",
                paint(word, code, color),
                f.code
            )?;
            for more in lines {
                writeln!(out, "      {}", safe_line(more))?;
            }
        }
        if let Some(rest) = listing.rest() {
            writeln!(out, "  {rest}")?;
        }
        for line in listing.note_lines(summary) {
            writeln!(out, "  {}", paint(&escape(&line), "36", color))?;
        }
    }
    writeln!(out)?;
    let line = summary_line(run);
    let code = if run.passed { "1;32" } else { "1;31" };
    writeln!(out, "{}", paint(&line, code, color))
}

#[cfg(test)]
mod tests {
    use super::wrap_words;

    #[test]
    fn wrapped_lines_never_start_or_end_with_a_space() {
        let text = "HEAD~20 does not exist, so HEAD~20..HEAD cannot be checked: the history has only 1 commit(s)";
        for width in 10..40 {
            let w = wrap_words(text, width);
            for l in w.lines() {
                assert!(l.chars().count() <= width, "{width}: {l:?}");
                assert!(!l.starts_with(' ') && !l.ends_with(' '), "{width}: {l:?}");
            }
            // Nothing lost but the spaces broken at (a word longer than the width is cut).
            assert_eq!(w.replace(['\n', ' '], ""), text.replace(' ', ""), "{width}");
            if width >= 16 {
                assert_eq!(w.replace('\n', " "), text, "{width}");
            }
        }
        assert_eq!(wrap_words("abcdefghij", 4), "abcd\nefgh\nij");
        assert_eq!(wrap_words("", 4), "");
    }
}
