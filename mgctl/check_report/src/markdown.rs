//! Markdown for a pull-request comment: the gate table, then the findings of failing gates.

use std::io::{self, Write};

use crate::model::Verdict;
use crate::run::{counts, listing, summary_line, verdict_word, CheckRun};
use crate::text::escape;

/// Input-derived text in a table cell or list item: one line, no control characters, no
/// column breaks.
fn cell(s: &str) -> String {
    escape(&s.replace('\n', " ")).replace('|', "\\|")
}

/// Text inside a code span: a backtick run longer than any inside it delimits it.
fn code(s: &str) -> String {
    let s = escape(s);
    let longest = s.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    let pad = if s.starts_with('`') || s.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{s}{pad}{fence}").replace('|', "\\|")
}

pub fn write(run: &CheckRun, out: &mut dyn Write) -> io::Result<()> {
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
