//! Report: render a diff as upstream's `symbol-report:` lines, Markdown to paste into a pull
//! request (names in code spans, cut to a budget) and the JSON (plus `"schema": 1` and mgctl's
//! additions). Renderers only format; they decide nothing.

use std::collections::BTreeMap;
use std::fmt::{self, Write};

use rayon::prelude::*;
use serde::Serialize;
use serde_json::{json, Value};

use crate::check::{PairAnalysis, PairRequest};
use crate::diff::{Change, Diff, DiffOptions, Side};
use crate::gate::{GateOptions, GateOutcome};
use crate::group::GroupRow;

/// Listing order: upstream's `|delta|` (default), signed delta (growth first), or name.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum SortOrder {
    #[default]
    Abs,
    Delta,
    Name,
}

/// Everything a report renders.
pub struct ReportInput<'a> {
    pub before: &'a Side,
    pub after: &'a Side,
    pub diff: &'a Diff,
    pub opts: &'a DiffOptions,
    pub gates: &'a GateOptions,
    pub outcome: &'a GateOutcome,
    pub keep_versions: bool,
    pub warnings: &'a [String],
    /// `--group`: the per-scope totals the JSON carries.
    pub groups: Option<(usize, &'a [GroupRow])>,
    /// The per-scope totals the Markdown leads with (`groups`, or depth 1 by default).
    pub rollup: Option<(usize, &'a [GroupRow])>,
    pub sort: SortOrder,
    pub limits: MarkdownLimits,
}

/// The per-scope totals a report shows: `--group`'s (the JSON and the Markdown), else the
/// depth-1 rollup the Markdown and the HTML lead with.
#[derive(Debug, Clone, Default)]
pub struct Totals {
    pub groups: Option<(usize, Vec<GroupRow>)>,
    pub rollup: Option<(usize, Vec<GroupRow>)>,
}

impl Totals {
    /// `--group` at `depth`, or (when `rollup` is wanted and no depth is given) the default.
    pub fn new(diff: &Diff, depth: Option<usize>, rollup: bool) -> Totals {
        let groups = depth.map(|d| (d, crate::group::group(&diff.listing, d)));
        let rollup =
            (rollup && groups.is_none()).then(|| (1, crate::group::group(&diff.listing, 1)));
        Totals { groups, rollup }
    }
}

impl<'a> ReportInput<'a> {
    /// The report of a real run: `req`'s options, `an`'s diff and verdicts, `totals`' scopes;
    /// the Markdown cut to `top` rows per table and `budget` characters ([`MarkdownLimits`]).
    pub fn new(
        an: &'a PairAnalysis,
        req: &'a PairRequest,
        totals: &'a Totals,
        sort: SortOrder,
        top: Option<usize>,
        budget: usize,
    ) -> Self {
        ReportInput {
            before: &an.before,
            after: &an.after,
            diff: &an.diff,
            opts: &req.opts,
            gates: &req.gates,
            outcome: &an.outcome,
            keep_versions: req.keep_versions,
            warnings: &an.warnings,
            groups: totals.groups.as_ref().map(|(d, g)| (*d, g.as_slice())),
            rollup: totals.rollup.as_ref().map(|(d, g)| (*d, g.as_slice())),
            sort,
            limits: MarkdownLimits { top, budget },
        }
    }
}

/// The report `symbols diff` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Upstream's `symbol-report:` lines, then the Markdown.
    Human,
    Markdown,
    Json,
}

/// What one `symbols diff` run prints (`format`) and which reports it also writes to files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Outputs {
    pub format: Format,
    pub markdown_file: bool,
    pub json_file: bool,
    pub html_file: bool,
}

impl Outputs {
    pub fn new(format: Format, markdown_file: bool, json_file: bool, html_file: bool) -> Self {
        Outputs {
            format,
            markdown_file,
            json_file,
            html_file,
        }
    }

    pub fn markdown(&self) -> bool {
        self.markdown_file || self.format != Format::Json
    }

    pub fn json(&self) -> bool {
        self.json_file || self.format == Format::Json
    }

    /// The default depth-1 rollup is shown by the Markdown and the HTML.
    pub fn rollup(&self) -> bool {
        self.markdown() || self.html_file
    }
}

/// The reports a run asked for (empty when not asked for); the JSON ends with a newline.
#[derive(Debug, Clone, Default)]
pub struct Rendered {
    pub markdown: String,
    pub json: String,
}

/// Render only what `o` asks for: the JSON of a 45k-symbol diff is not free.
pub fn render(r: &ReportInput<'_>, o: &Outputs) -> serde_json::Result<Rendered> {
    Ok(Rendered {
        markdown: if o.markdown() {
            markdown(r)
        } else {
            String::new()
        },
        json: if o.json() {
            json_string(r)? + "\n"
        } else {
            String::new()
        },
    })
}

/// Print what `o.format` shows: the summary lines then the Markdown (unless it goes to a
/// file), the Markdown, or the JSON.
pub fn print(
    r: &ReportInput<'_>,
    o: &Outputs,
    rendered: &Rendered,
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    match o.format {
        Format::Human => {
            for l in summary_lines(r) {
                writeln!(out, "{l}")?;
            }
            if !o.markdown_file {
                writeln!(out, "{}", rendered.markdown)?;
            }
            Ok(())
        }
        Format::Markdown => out.write_all(rendered.markdown.as_bytes()),
        Format::Json => out.write_all(rendered.json.as_bytes()),
    }
}

/// One `symbol-report: FAIL …` line per fired gate.
pub fn fail_lines(outcome: &GateOutcome) -> String {
    outcome
        .reasons
        .iter()
        .map(|r| format!("symbol-report: FAIL {r}\n"))
        .collect()
}

/// A GitHub pull-request comment holds at most this many characters.
pub const PR_COMMENT_CHARS: usize = 65_536;

/// How far the Markdown is cut so it fits where it is pasted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MarkdownLimits {
    /// At most this many rows per table (`--top N`).
    pub top: Option<usize>,
    /// At most this many characters in all; 0 for no limit. Rows that do not fit are counted
    /// ("… and N more rows in the JSON").
    pub budget: usize,
}

impl Default for MarkdownLimits {
    fn default() -> Self {
        MarkdownLimits {
            top: None,
            budget: PR_COMMENT_CHARS,
        }
    }
}

/// Tables with more rows than this are folded into `<details>`.
const DETAILS_ROWS: usize = 20;

pub(crate) fn pct(delta: i64, before: u64) -> f64 {
    if before == 0 {
        0.0
    } else {
        100.0 * delta as f64 / before as f64
    }
}

fn side_path(s: &Side) -> String {
    s.identity
        .as_ref()
        .map_or_else(|| "<canned>".into(), |i| i.path.clone())
}

fn side_bytes(s: &Side) -> u64 {
    s.identity.as_ref().map_or(0, |i| i.file_bytes)
}

/// Warnings that the pair looks mismatched (DESIGN: numbers must be comparable).
pub fn pair_warnings(before: &Side, after: &Side) -> Vec<String> {
    let mut w = Vec::new();
    if let (Some(a), Some(b)) = (&before.identity, &after.identity) {
        if a.machine != b.machine || a.class_bits != b.class_bits {
            w.push(format!(
                "machines differ: before is {} ELF{}, after is {} ELF{}",
                a.machine, a.class_bits, b.machine, b.class_bits
            ));
        }
        if a.has_symtab != b.has_symtab {
            w.push(format!(
                "one library is stripped and the other is not (before {}, after {})",
                if a.has_symtab {
                    "has .symtab"
                } else {
                    "stripped"
                },
                if b.has_symtab {
                    "has .symtab"
                } else {
                    "stripped"
                }
            ));
        }
        if a.build_id.is_some() && a.build_id == b.build_id && a.file_bytes != b.file_bytes {
            w.push("both libraries carry the same build-id but differ in size".into());
        }
    }
    if before.table != after.table {
        let t = |s: &Side| s.table.map_or("?", |t| t.as_str());
        w.push(format!(
            "symbols come from different tables (before {}, after {})",
            t(before),
            t(after)
        ));
    }
    let (tb, ta) = (before.section(".text"), after.section(".text"));
    if tb > 0 && ta > 0 {
        let ratio = ta.max(tb) as f64 / ta.min(tb) as f64;
        if ratio >= 1.5 {
            w.push(format!(".text differs by a factor of {ratio:.2}: this smells of a Debug/Release (or LTO/non-LTO) pair"));
        }
    }
    w
}

fn identity_line(s: &Side) -> String {
    match &s.identity {
        Some(i) => format!(
            "{} ELF{} {}, build-id {}, symbols from {}{}",
            i.machine,
            i.class_bits,
            if i.little_endian { "LE" } else { "BE" },
            i.build_id.as_deref().unwrap_or("none"),
            s.table.map_or("?", |t| t.as_str()),
            if i.has_symtab { "" } else { " (stripped)" }
        ),
        None => "canned transcript".into(),
    }
}

fn sorted(v: &[Change], sort: SortOrder) -> Vec<&Change> {
    let mut r: Vec<&Change> = v.iter().collect();
    match sort {
        SortOrder::Abs => {}
        SortOrder::Delta => {
            r.sort_by(|x, y| y.delta.cmp(&x.delta).then_with(|| x.name.cmp(&y.name)))
        }
        SortOrder::Name => r.sort_by(|x, y| x.name.cmp(&y.name)),
    }
    r
}

/// Why the totals are upstream's less the version nodes: said on the totals line itself.
fn version_nodes_note(r: &ReportInput<'_>) -> String {
    let (b, a) = (r.before.version_nodes, r.after.version_nodes);
    if b + a == 0 {
        String::new()
    } else {
        format!(" (not counting {b} -> {a} version-definition symbol(s), the version names themselves, left out with the versions)")
    }
}

/// The `symbol-report:` summary lines, in upstream's order (without the Markdown and the
/// artifact/FAIL lines, which the caller prints after writing artifacts).
pub fn summary_lines(r: &ReportInput<'_>) -> Vec<String> {
    let p = "symbol-report: ";
    let mut out = vec![
        format!(
            "{p}before: {} ({} bytes on disk)",
            side_path(r.before),
            side_bytes(r.before)
        ),
        format!(
            "{p}after : {} ({} bytes on disk)",
            side_path(r.after),
            side_bytes(r.after)
        ),
        format!("{p}before elf: {}", identity_line(r.before)),
        format!("{p}after elf : {}", identity_line(r.after)),
        format!(
            "{p}symbol versions: {}",
            if r.keep_versions {
                "compared verbatim (--keep-versions)"
            } else {
                "stripped before matching"
            }
        ),
    ];
    for w in r.warnings {
        out.push(format!("{p}WARNING: {w}"));
    }
    if !r.opts.strip_scopes.is_empty() {
        out.push(format!(
            "{p}strip-scope: {}",
            r.opts.strip_scopes.join(" ; ")
        ));
    }
    if !r.opts.rename_map.is_empty() {
        let m: Vec<String> = r
            .opts
            .rename_map
            .iter()
            .map(|(a, b)| format!("{a}={b}"))
            .collect();
        out.push(format!("{p}rename-map: {}", m.join(" ; ")));
    }
    for s in &r.diff.sections {
        if s.name == ".text" {
            out.push(format!(
                "{p}.text {} -> {} ({:+}, {:+.3}%)",
                s.before,
                s.after,
                s.delta,
                pct(s.delta, s.before)
            ));
        } else {
            out.push(format!(
                "{p}{} {} -> {} ({:+})",
                s.name, s.before, s.after, s.delta
            ));
        }
    }
    let l = &r.diff.listing;
    out.push(format!(
        "{p}{} -> {} defined symbols: {} added, {} removed, {} resized, {} renamed{}",
        r.diff.defined_before,
        r.diff.defined_after,
        l.added.len(),
        l.removed.len(),
        l.resized.len(),
        l.renamed.len(),
        version_nodes_note(r)
    ));
    out.push(format!(
        "{p}{} -> {} normalised names, {} unchanged (name, size and mangling all identical)",
        r.diff.names_before, r.diff.names_after, l.unchanged
    ));
    let (kb, ka) = (r.before.kept_mangled, r.after.kept_mangled);
    if kb + ka > 0 {
        out.push(format!(
            "{p}{kb} -> {ka} name(s) kept mangled: demangled they would pass the length cap ({} bytes plus {} per mangled byte)",
            crate::demangle::MAX_DEMANGLED_BASE,
            crate::demangle::PER_MANGLED_BYTE
        ));
    }
    if !r.opts.only_names.is_empty() {
        out.push(format!(
            "{p}listing restricted to names containing: {}",
            r.opts.only_names.join(", ")
        ));
        out.push(format!(
            "{p}--only-names narrows the listing only; gates see every symbol"
        ));
    }
    if !r.diff.kind_changes.is_empty() {
        out.push(format!(
            "{p}{} symbol(s) changed type letter (e.g. T -> W), see the report",
            r.diff.kind_changes.len()
        ));
    }
    if !r.gates.any() {
        out.push(format!("{p}no gate flag: informational run"));
    } else if r.opts.threshold != 0 {
        let [a, rm, z, n] = r.diff.gate_view().counts();
        out.push(format!(
            "{p}gates compare at threshold 0 ({a} added, {rm} removed, {z} resized, {n} renamed there); --threshold {} only shortens the report",
            r.opts.threshold
        ));
    }
    for a in &r.outcome.admitted {
        out.push(format!(
            "{p}admitted {} {} ({:+}) by {}",
            a.entry.bucket.as_str(),
            a.change.name,
            a.change.delta,
            a.entry.origin
        ));
    }
    for s in &r.outcome.stale {
        out.push(format!(
            "{p}stale allow entry: {} {} ({}) matched nothing",
            s.bucket.as_str(),
            s.name,
            s.origin
        ));
    }
    out
}

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
    let name = |s: &Side| {
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

/// A listed change in the JSON report (keys in the order a JSON map sorts them).
#[derive(Serialize)]
struct ChangeJson<'r> {
    after: u64,
    after_mangled: &'r str,
    before: u64,
    before_mangled: &'r str,
    delta: i64,
    name: &'r str,
}

/// A renamed-only change: the mangled names on each side, delta 0.
#[derive(Serialize)]
struct RenamedJson<'r> {
    after: &'r str,
    before: &'r str,
    delta: i64,
    name: &'r str,
}

#[derive(Serialize)]
struct KindJson<'r> {
    after: Option<char>,
    before: Option<char>,
    name: &'r str,
}

/// The JSON report. Its fields are in the order a `serde_json` map sorts keys, so writing it
/// directly and going through a [`Value`] give the same document; the small parts are built
/// as `Value`s, the long lists are written straight from the diff.
#[derive(Serialize)]
struct JsonReport<'r> {
    added: Vec<ChangeJson<'r>>,
    admitted: Value,
    after: String,
    before: String,
    counts: Value,
    gate_view: Value,
    groups: Option<Value>,
    identity_after: Value,
    identity_before: Value,
    kind_changes: Vec<KindJson<'r>>,
    options: Value,
    reasons: &'r [String],
    removed: Vec<ChangeJson<'r>>,
    renamed: Vec<RenamedJson<'r>>,
    resized: Vec<ChangeJson<'r>>,
    schema: u32,
    sections_after: BTreeMap<&'r str, u64>,
    sections_before: BTreeMap<&'r str, u64>,
    stale_allow: Value,
    table_after: Option<&'static str>,
    table_before: Option<&'static str>,
    unchanged: usize,
    verdict: &'static str,
    versions: &'static str,
    warnings: &'r [String],
}

fn json_report<'r>(r: &ReportInput<'r>) -> JsonReport<'r> {
    let sections = |s: &'r Side| -> BTreeMap<&'r str, u64> {
        let mut m = BTreeMap::new();
        for row in &s.sections {
            m.entry(row.name.as_str()).or_insert(row.size);
        }
        m.insert("Total", s.section("Total"));
        m
    };
    let l = &r.diff.listing;
    let rows = |v: &'r [Change]| -> Vec<ChangeJson<'r>> {
        sorted(v, r.sort)
            .into_iter()
            .map(|c| ChangeJson {
                after: c.after,
                after_mangled: &c.after_mangled,
                before: c.before,
                before_mangled: &c.before_mangled,
                delta: c.delta,
                name: &c.name,
            })
            .collect()
    };
    let renamed = sorted(&l.renamed, SortOrder::Name)
        .into_iter()
        .map(|c| RenamedJson {
            after: &c.after_mangled,
            before: &c.before_mangled,
            delta: 0,
            name: &c.name,
        })
        .collect();
    JsonReport {
        added: rows(&l.added),
        admitted: json!(r.outcome.admitted),
        after: side_path(r.after),
        before: side_path(r.before),
        counts: json!({
            "defined_before": r.diff.defined_before, "defined_after": r.diff.defined_after,
            "names_before": r.diff.names_before, "names_after": r.diff.names_after,
            "added": l.added.len(), "removed": l.removed.len(), "resized": l.resized.len(), "renamed": l.renamed.len(),
        }),
        gate_view: json!({
            "added": r.diff.gate_view().added.len(), "removed": r.diff.gate_view().removed.len(),
            "resized": r.diff.gate_view().resized.len(), "renamed": r.diff.gate_view().renamed.len(),
        }),
        groups: r.groups.map(|(d, g)| json!({"depth": d, "rows": g})),
        identity_after: json!(r.after.identity),
        identity_before: json!(r.before.identity),
        kind_changes: r
            .diff
            .kind_changes
            .iter()
            .map(|c| KindJson {
                after: c.kind_after,
                before: c.kind_before,
                name: &c.name,
            })
            .collect(),
        options: json!({
            "strip_scope": r.opts.strip_scopes,
            "rename_map": r.opts.rename_map.iter().map(|(a, b)| format!("{a}={b}")).collect::<Vec<_>>(),
            "only_names": r.opts.only_names,
            "threshold": r.opts.threshold,
            "fail_on_symbol_set_change": r.gates.fail_on_symbol_set_change,
            "fail_on_text_delta": r.gates.fail_on_text_delta,
            "fail_on_added_bytes": r.gates.fail_on_added_bytes,
            "strict_allow": r.gates.strict_allow,
        }),
        reasons: &r.outcome.reasons,
        removed: rows(&l.removed),
        renamed,
        resized: rows(&l.resized),
        schema: 1,
        sections_after: sections(r.after),
        sections_before: sections(r.before),
        stale_allow: json!(r.outcome.stale),
        table_after: r.after.table.map(|t| t.as_str()),
        table_before: r.before.table.map(|t| t.as_str()),
        unchanged: l.unchanged,
        verdict: if r.outcome.failed() { "fail" } else { "pass" },
        versions: if r.keep_versions { "kept" } else { "stripped" },
        warnings: r.warnings,
    }
}

/// Upstream's JSON keys plus `schema`, tables, versions, counts, flags and the verdict.
pub fn json(r: &ReportInput<'_>) -> Value {
    // Cannot fail: every map key is a string and every value a plain serde type.
    serde_json::to_value(json_report(r)).unwrap_or(Value::Null)
}

/// [`json`] as the pretty-printed document (no trailing newline), written without building
/// a `Value` of the whole diff.
pub fn json_string(r: &ReportInput<'_>) -> serde_json::Result<String> {
    serde_json::to_string_pretty(&json_report(r))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diff::diff;
    use crate::gate::evaluate;

    /// The report struct is written directly; its fields must be in the order a JSON map
    /// sorts keys, or the document would differ from the one built through a `Value`.
    #[test]
    fn json_fields_are_in_map_order() {
        let (before, after) = crate::selftest::canned();
        let opts = DiffOptions {
            strip_scopes: vec!["MobileGL::MG_State::GLState::ProgramObject::".into()],
            ..DiffOptions::default()
        };
        let d = diff(&before, &after, &opts);
        let gates = GateOptions::default();
        let outcome = evaluate(&d, &gates);
        let input = ReportInput {
            before: &before,
            after: &after,
            diff: &d,
            opts: &opts,
            gates: &gates,
            outcome: &outcome,
            keep_versions: false,
            warnings: &[],
            groups: None,
            rollup: None,
            sort: SortOrder::Abs,
            limits: MarkdownLimits::default(),
        };
        let direct = json_string(&input).unwrap_or_default();
        let via_value = serde_json::to_string_pretty(&json(&input)).unwrap_or_default();
        assert!(direct.contains("\"renamed\""), "{direct}");
        assert_eq!(direct, via_value);
    }
}
