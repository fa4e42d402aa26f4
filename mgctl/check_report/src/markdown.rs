//! Markdown for a pull-request comment: the gate table, then the findings of failing gates.

use std::io::{self, Write};

use crate::model::Verdict;
use crate::run::{counts, listing, summary_line, verdict_word, CheckRun};

/// Input-derived text in a table cell or list item: one line (a message's line breaks read as
/// spaces), no control characters, no column breaks, no markup.
fn cell(s: &str) -> String {
    diag::escape::markdown_cell(&s.replace('\n', " "))
}

/// Text inside a code span.
fn code(s: &str) -> String {
    diag::escape::markdown_code(s)
}

pub(crate) fn write(run: &CheckRun, out: &mut dyn Write) -> io::Result<()> {
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
    for r in &run.gates {
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
    for r in run.gates.iter().filter(|r| !r.findings.is_empty()) {
        writeln!(out)?;
        writeln!(
            out,
            "<details{}><summary><code>{}</code>: {} findings</summary>",
            if r.verdict == Verdict::Fail {
                " open"
            } else {
                ""
            },
            r.gate,
            r.findings.len()
        )?;
        writeln!(out)?;
        let listing = listing(r);
        for f in &listing.shown {
            let loc = f
                .location
                .as_ref()
                .map(|l| format!("{} ", code(&l.to_string())))
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
        writeln!(out)?;
        writeln!(out, "</details>")?;
    }
    Ok(())
}
