//! Report: render a diff as upstream's `symbol-report:` lines, Markdown to paste into a pull
//! request (names in code spans, cut to a budget) and the JSON (plus `"schema": 1` and mgctl's
//! additions). Renderers only format; they decide nothing. The summary lines and what every
//! format shares are here; [`markdown`] and [`json`] are one module each.

use crate::check::{PairAnalysis, PairRequest};
use crate::diff::{Change, Diff, DiffOptions, Side};
use crate::gate::{GateOptions, GateOutcome};
use crate::group::GroupRow;

mod json;
mod markdown;

pub use json::{json, json_string};
pub use markdown::markdown;

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

/// The report `symbols diff` prints: `symbols diff --format`'s values (with the `clap` feature).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum Format {
    /// Text for people (colour on a terminal).
    // Upstream's `symbol-report:` lines, then the Markdown.
    #[cfg_attr(feature = "clap", value(alias = "text"))]
    Human,
    /// Versioned JSON (`"schema": 1`), documented in docs/.
    Json,
    /// Markdown, for a pull-request comment or MEASUREMENTS.md.
    Markdown,
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
pub(super) const DETAILS_ROWS: usize = 20;

pub(crate) fn pct(delta: i64, before: u64) -> f64 {
    if before == 0 {
        0.0
    } else {
        100.0 * delta as f64 / before as f64
    }
}

pub(super) fn side_path(s: &Side) -> String {
    s.identity
        .as_ref()
        .map_or_else(|| "<canned>".into(), |i| i.path.clone())
}

pub(super) fn side_bytes(s: &Side) -> u64 {
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

pub(super) fn sorted(v: &[Change], sort: SortOrder) -> Vec<&Change> {
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
