//! The Markdown report for a pull request: names in code spans, tables cut to a budget
//! ([`super::MarkdownLimits`]).

use std::fmt::{self, Write};

use rayon::prelude::*;

use super::{
    pct, side_bytes, side_path, sorted, MarkdownLimits, ReportInput, SortOrder, DETAILS_ROWS,
};
use crate::diff::Change;
use crate::group::GroupRow;

/// A Markdown table cell: the text with `|` escaped, written without a copy.
struct Cell<'a>(&'a str);

impl fmt::Display for Cell<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts = self.0.split('|');
        if let Some(p) = parts.next() {
            f.write_str(p)?;
        }
        for p in parts {
            f.write_str("\\|")?;
            f.write_str(p)?;
        }
        Ok(())
    }
}

/// A name as an inline code span in a table cell, so GitHub shows it literally (a bare
/// `std::char_traits<char>` is eaten as an HTML tag). The fence is one backtick longer than the
/// longest run inside, padded with a space when the name starts or ends with a backtick (or
/// with a space at both ends, which the renderer would strip); `|` is escaped because GFM splits
/// the cells before it reads code spans; control characters are written as `\xNN`.
struct Code<'a>(&'a str);

impl fmt::Display for Code<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let raw = self.0;
        if raw.is_empty() {
            return Ok(());
        }
        let text: std::borrow::Cow<'_, str> = if raw.chars().any(char::is_control) {
            let mut t = String::with_capacity(raw.len() + 8);
            for c in raw.chars() {
                if c.is_control() {
                    let _ = write!(t, "\\x{:02x}", u32::from(c));
                } else {
                    t.push(c);
                }
            }
            t.into()
        } else {
            raw.into()
        };
        let mut longest = 0;
        let mut run = 0;
        for b in text.bytes() {
            run = if b == b'`' { run + 1 } else { 0 };
            longest = longest.max(run);
        }
        let fence = "`".repeat(longest + 1);
        let pad = text.starts_with('`')
            || text.ends_with('`')
            || (text.len() > 1 && text.starts_with(' ') && text.ends_with(' '));
        let pad = if pad { " " } else { "" };
        write!(f, "{fence}{pad}{}{pad}{fence}", Cell(&text))
    }
}

/// The Markdown report (LF line ends, trailing newline): the header and the totals line, the
/// per-scope rollup, then one table per bucket, cut to [`MarkdownLimits`].
pub fn markdown(r: &ReportInput<'_>) -> String {
    let mut m = String::new();
    // Writing into a String cannot fail.
    let _ = write_markdown(&mut m, r);
    m
}

/// The Markdown being written and what is left of its budget (in characters).
struct Page<'m> {
    m: &'m mut String,
    chars: usize,
    limits: MarkdownLimits,
    /// Rows left out so far, for the closing line.
    cut: usize,
}

/// Room kept for each section still to come (title, header, closing lines).
const SECTION_RESERVE: usize = 400;

impl Page<'_> {
    fn push(&mut self, s: &str) {
        self.chars += s.chars().count();
        self.m.push_str(s);
    }

    /// How many more characters rows may take, leaving `sections_after` sections room. With
    /// `fair`, this section takes only its share of what is left (what it does not use passes on
    /// to the next), so a long Removed list cannot starve Added, Resized or Renamed.
    fn room(&self, sections_after: usize, fair: bool) -> usize {
        if self.limits.budget == 0 {
            return usize::MAX;
        }
        let left = self
            .limits
            .budget
            .saturating_sub(self.chars)
            .saturating_sub((sections_after + 1) * SECTION_RESERVE);
        if fair {
            left / (sections_after + 1)
        } else {
            left
        }
    }

    /// One section: a title with the row count, then a table (folded into `<details>` when
    /// long) of the rows that fit, or `_none_`. Rows are formatted in parallel chunks (an
    /// unbudgeted release diff has tens of thousands).
    fn section<T: Sync>(
        &mut self,
        title: &str,
        rows: &[T],
        header: &str,
        sections_after: usize,
        fair: bool,
        row: &(dyn Fn(&mut String, &T) -> fmt::Result + Sync),
    ) -> fmt::Result {
        self.push(&format!("\n### {title} ({})\n\n", rows.len()));
        if rows.is_empty() {
            self.push("_none_\n\n");
            return Ok(());
        }
        let mut want = rows.len().min(self.limits.top.unwrap_or(usize::MAX));
        let room = self.room(sections_after, fair);
        // A row takes at least ~10 characters: format no more than could fit.
        want = want.min(room / 10 + 1);
        let chunks: Vec<Result<Vec<String>, fmt::Error>> = rows[..want]
            .par_chunks(2048)
            .map(|chunk| {
                let mut v = Vec::with_capacity(chunk.len());
                for c in chunk {
                    let mut s = String::with_capacity(96);
                    row(&mut s, c)?;
                    v.push(s);
                }
                Ok(v)
            })
            .collect();
        let mut table = String::new();
        let mut table_chars = header.chars().count();
        let mut shown = 0;
        'rows: for chunk in chunks {
            for s in chunk? {
                let n = s.chars().count();
                if table_chars + n > room {
                    break 'rows;
                }
                table_chars += n;
                table.push_str(&s);
                shown += 1;
            }
        }
        let more = rows.len() - shown;
        self.cut += more;
        let folded = shown > DETAILS_ROWS;
        if folded {
            self.push(&format!(
                "<details><summary>{shown} of {} rows</summary>\n\n",
                rows.len()
            ));
        }
        if shown > 0 {
            self.push(header);
            self.m.push_str(&table);
            self.chars += table_chars - header.chars().count();
        }
        if more > 0 {
            // The blank line ends the table; without it the note would be read as a row.
            self.push(&format!(
                "\n… and {more} more row{} in the JSON (`--format json`)\n",
                if more == 1 { "" } else { "s" }
            ));
        }
        if folded {
            self.push("\n</details>\n");
        }
        self.push("\n");
        Ok(())
    }
}

fn write_markdown(m: &mut String, r: &ReportInput<'_>) -> fmt::Result {
    let d = r.diff;
    let t = d.text();
    let l = &d.listing;
    let mut head = String::new();
    // Titled after the libraries compared (a report of libLLVM is not a MobileGL report).
    let name = |s: &crate::diff::Side| {
        let p = side_path(s);
        p.rsplit('/').next().unwrap_or(&p).to_string()
    };
    let (b, a) = (name(r.before), name(r.after));
    let title = if b == a { b } else { format!("{b} → {a}") };
    writeln!(
        head,
        "# Symbol report: {}\n\n| side | path | file bytes | .text |\n|---|---|---|---|",
        diag::escape::markdown_cell(&title)
    )?;
    writeln!(
        head,
        "| before | {} | {} | {} |",
        Code(&side_path(r.before)),
        side_bytes(r.before),
        t.before
    )?;
    writeln!(
        head,
        "| after | {} | {} | {} |",
        Code(&side_path(r.after)),
        side_bytes(r.after),
        t.after
    )?;
    writeln!(
        head,
        "\n`.text` {} -> {} ({:+}, {:+.3}%). {} -> {} defined symbols: {} added, {} removed, {} resized, {} renamed, {} unchanged.",
        t.before,
        t.after,
        t.delta,
        pct(t.delta, t.before),
        d.defined_before,
        d.defined_after,
        l.added.len(),
        l.removed.len(),
        l.resized.len(),
        l.renamed.len(),
        l.unchanged
    )?;
    let mut p = Page {
        m,
        chars: 0,
        limits: r.limits,
        cut: 0,
    };
    p.push(&head);
    let kinds = !d.kind_changes.is_empty();
    let after_rollup = 4 + usize::from(kinds);
    if let Some((depth, groups)) = r.rollup.or(r.groups) {
        // A class is a scope too (`llvm::PassBuilder`): the mangling does not always say which.
        p.section(
            &format!("By scope (namespace or class, depth {depth})"),
            groups,
            "| scope | added | removed | resized | renamed | delta |\n|---|---|---|---|---|---|\n",
            after_rollup,
            false,
            &|m, g: &GroupRow| {
                writeln!(
                    m,
                    "| {} | {} | {} | {} | {} | {:+} |",
                    Code(&g.namespace),
                    g.added,
                    g.removed,
                    g.resized,
                    g.renamed,
                    g.delta
                )
            },
        )?;
    }
    let left = |n: usize| n + usize::from(kinds);
    p.section(
        "Removed",
        &sorted(&l.removed, r.sort),
        "| symbol | bytes |\n|---|---|\n",
        left(3),
        true,
        &|m, c: &&Change| writeln!(m, "| {} | {} |", Code(&c.name), c.before),
    )?;
    p.section(
        "Added",
        &sorted(&l.added, r.sort),
        "| symbol | bytes |\n|---|---|\n",
        left(2),
        true,
        &|m, c: &&Change| writeln!(m, "| {} | {} |", Code(&c.name), c.after),
    )?;
    p.section(
        "Resized",
        &sorted(&l.resized, r.sort),
        "| symbol | before | after | delta |\n|---|---|---|---|\n",
        left(1),
        true,
        &|m, c: &&Change| {
            writeln!(
                m,
                "| {} | {} | {} | {:+} |",
                Code(&c.name),
                c.before,
                c.after,
                c.delta
            )
        },
    )?;
    p.section(
        "Renamed only (same size)",
        &sorted(&l.renamed, SortOrder::Name),
        "| normalised symbol | before mangling | after mangling |\n|---|---|---|\n",
        left(0),
        true,
        &|m, c: &&Change| {
            writeln!(
                m,
                "| {} | {} | {} |",
                Code(&c.name),
                Code(&c.before_mangled),
                Code(&c.after_mangled)
            )
        },
    )?;
    if kinds {
        let rows: Vec<&Change> = d.kind_changes.iter().collect();
        p.section(
            "Type letter changed",
            &rows,
            "| symbol | before | after |\n|---|---|---|\n",
            0,
            true,
            &|m, c: &&Change| {
                writeln!(
                    m,
                    "| {} | {} | {} |",
                    Code(&c.name),
                    c.kind_before.map(String::from).unwrap_or_default(),
                    c.kind_after.map(String::from).unwrap_or_default()
                )
            },
        )?;
    }
    if p.cut > 0 {
        let why = match (r.limits.top, r.limits.budget) {
            (Some(n), 0) => format!("--top {n}"),
            (Some(n), b) => format!("--top {n} and a budget of {b} characters"),
            (None, b) => format!("a budget of {b} characters (--markdown-budget; 0 for none)"),
        };
        p.push(&format!(
            "_{} row(s) left out to fit {why}; the JSON report lists every one._\n",
            p.cut
        ));
    }
    Ok(())
}
