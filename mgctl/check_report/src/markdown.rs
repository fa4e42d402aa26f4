//! Markdown for a pull-request comment: the gate table, then the findings of failing gates.

use std::io::{self, Write};

use crate::model::Verdict;
use crate::run::{counts, listing, not_selected, summary_line, verdict_word, CheckRun};
use crate::CodeSummary;

/// Input-derived text in a table cell or list item: one line (a message's line breaks read as
/// spaces), no control characters, no column breaks, no markup.
fn cell(s: &str) -> String {
    diag::escape::markdown_cell(&s.replace('\n', " "))
}

/// Text inside a code span.
fn code(s: &str) -> String {
    diag::escape::markdown_code(s)
}

pub(crate) fn write(
    run: &CheckRun,
    out: &mut dyn Write,
    summary: CodeSummary<'_>,
) -> io::Result<()> {
    let icon = if run.passed { "✅" } else { "❌" };
    writeln!(out, "### {icon} {}", summary_line(run))?;
    writeln!(out)?;
    writeln!(
        out,
        "Workspace {}, config {}, mgctl {}.",
        code(&run.workspace),
        code(&run.config),
        run.version
    )?;
    writeln!(out)?;
    writeln!(
        out,
        "| gate | verdict | errors | warnings | notes | headline | time |"
    )?;
    writeln!(out, "|---|---|--:|--:|--:|---|--:|")?;
    let (unselected, rows) = not_selected(run);
    for r in rows {
        let (e, w, n) = counts(r);
        let (headline, time) = match &r.verdict {
            Verdict::Skipped { reason } => (reason.clone(), "-".to_string()),
            _ => (r.headline.clone(), format!("{:.1} ms", r.wall_ms)),
        };
        writeln!(
            out,
            "| `{}` | {} | {e} | {w} | {n} | {} | {time} |",
            r.gate,
            verdict_word(r),
            cell(&headline)
        )?;
    }
    if let Some(line) = unselected {
        writeln!(out)?;
        writeln!(out, "{}", cell(&line))?;
    }
    for r in run.gates.iter().filter(|r| !r.findings.is_empty()) {
        writeln!(out)?;
        writeln!(
            out,
            "<details{}><summary><code>{}</code>: {} finding{}</summary>",
            if r.verdict == Verdict::Fail {
                " open"
            } else {
                ""
            },
            r.gate,
            r.findings.len(),
            if r.findings.len() == 1 { "" } else { "s" }
        )?;
        writeln!(out)?;
        let listing = listing(r, run.view.verbose);
        for f in &listing.shown {
            let loc = f
                .location
                .as_ref()
                .map(|l| format!("{} ", code(&run.view.shown_location(l))))
                .unwrap_or_default();
            writeln!(
                out,
                "- **{:?}** `{}` {loc}{}",
                f.severity,
                f.code,
                cell(&f.message)
            )?;
        }
        if let Some(rest) = listing.rest() {
            writeln!(out, "- {}", cell(&rest))?;
        }
        for line in listing.note_lines(summary) {
            writeln!(out, "- {}", cell(&line))?;
        }
        writeln!(out)?;
        writeln!(out, "</details>")?;
    }
    Ok(())
}
