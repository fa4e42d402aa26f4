//! Report: render a diff as upstream's `symbol-report:` lines, its Markdown and its JSON
//! (plus `"schema": 1` and mgctl's additions). Renderers only format; they decide nothing.

use std::collections::BTreeMap;
use std::fmt::{self, Write};

use rayon::prelude::*;
use serde::Serialize;
use serde_json::{json, Value};

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
    pub groups: Option<(usize, &'a [GroupRow])>,
    pub sort: SortOrder,
}

fn pct(delta: i64, before: u64) -> f64 {
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
        "{p}{} -> {} defined symbols: {} added, {} removed, {} resized, {} renamed",
        r.diff.defined_before,
        r.diff.defined_after,
        l.added.len(),
        l.removed.len(),
        l.resized.len(),
        l.renamed.len()
    ));
    out.push(format!(
        "{p}{} -> {} normalised names, {} unchanged (name, size and mangling all identical)",
        r.diff.names_before, r.diff.names_after, l.unchanged
    ));
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

/// Upstream's Markdown report (LF line ends, trailing newline), plus mgctl's extra sections.
pub fn markdown(r: &ReportInput<'_>) -> String {
    let mut m = String::new();
    // Writing into a String cannot fail.
    let _ = write_markdown(&mut m, r);
    m
}

/// One section of the Markdown report: a title with the row count, then a table or `_none_`.
/// Large tables (a release diff has tens of thousands of rows) are formatted in parallel
/// chunks and joined in order.
fn section(
    m: &mut String,
    title: &str,
    rows: &[&Change],
    header: &str,
    row: &(dyn Fn(&mut String, &Change) -> fmt::Result + Sync),
) -> fmt::Result {
    write!(m, "\n### {title} ({})\n\n", rows.len())?;
    if rows.is_empty() {
        m.push_str("_none_\n");
    } else {
        m.push_str(header);
        let chunks: Vec<Result<String, fmt::Error>> = rows
            .par_chunks(2048)
            .map(|chunk| {
                let mut s = String::with_capacity(chunk.len() * 96);
                for c in chunk {
                    row(&mut s, c)?;
                }
                Ok(s)
            })
            .collect();
        m.reserve(chunks.iter().flatten().map(String::len).sum());
        for chunk in chunks {
            m.push_str(&chunk?);
        }
    }
    // upstream: every section ends with an empty line (then the next one starts with one)
    m.push('\n');
    Ok(())
}

fn write_markdown(m: &mut String, r: &ReportInput<'_>) -> fmt::Result {
    let d = r.diff;
    let t = d.text();
    let l = &d.listing;
    m.push_str(
        "# MobileGL symbol report\n\n| side | path | file bytes | .text |\n|---|---|---|---|\n",
    );
    writeln!(
        m,
        "| before | `{}` | {} | {} |",
        side_path(r.before),
        side_bytes(r.before),
        t.before
    )?;
    writeln!(
        m,
        "| after | `{}` | {} | {} |",
        side_path(r.after),
        side_bytes(r.after),
        t.after
    )?;
    writeln!(
        m,
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
    section(
        m,
        "Removed",
        &sorted(&l.removed, r.sort),
        "| symbol | bytes |\n|---|---|\n",
        &|m, c| writeln!(m, "| {} | {} |", Cell(&c.name), c.before),
    )?;
    section(
        m,
        "Added",
        &sorted(&l.added, r.sort),
        "| symbol | bytes |\n|---|---|\n",
        &|m, c| writeln!(m, "| {} | {} |", Cell(&c.name), c.after),
    )?;
    section(
        m,
        "Resized",
        &sorted(&l.resized, r.sort),
        "| symbol | before | after | delta |\n|---|---|---|---|\n",
        &|m, c| {
            writeln!(
                m,
                "| {} | {} | {} | {:+} |",
                Cell(&c.name),
                c.before,
                c.after,
                c.delta
            )
        },
    )?;
    section(
        m,
        "Renamed only (same size)",
        &sorted(&l.renamed, SortOrder::Name),
        "| normalised symbol | before mangling | after mangling |\n|---|---|---|\n",
        &|m, c| {
            writeln!(
                m,
                "| {} | {} | {} |",
                Cell(&c.name),
                Cell(&c.before_mangled),
                Cell(&c.after_mangled)
            )
        },
    )?;
    if !d.kind_changes.is_empty() {
        let rows: Vec<&Change> = d.kind_changes.iter().collect();
        section(
            m,
            "Type letter changed",
            &rows,
            "| symbol | before | after |\n|---|---|---|\n",
            &|m, c| {
                writeln!(
                    m,
                    "| {} | {} | {} |",
                    Cell(&c.name),
                    c.kind_before.map(String::from).unwrap_or_default(),
                    c.kind_after.map(String::from).unwrap_or_default()
                )
            },
        )?;
    }
    if let Some((depth, groups)) = r.groups {
        write!(
            m,
            "\n### By namespace (depth {depth}) ({})\n\n",
            groups.len()
        )?;
        if groups.is_empty() {
            m.push_str("_none_\n\n");
        } else {
            m.push_str("| namespace | added | removed | resized | renamed | delta |\n|---|---|---|---|---|---|\n");
            for g in groups {
                writeln!(
                    m,
                    "| {} | {} | {} | {} | {} | {:+} |",
                    Cell(&g.namespace),
                    g.added,
                    g.removed,
                    g.resized,
                    g.renamed,
                    g.delta
                )?;
            }
            m.push('\n');
        }
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
            sort: SortOrder::Abs,
        };
        let direct = json_string(&input).unwrap_or_default();
        let via_value = serde_json::to_string_pretty(&json(&input)).unwrap_or_default();
        assert!(direct.contains("\"renamed\""), "{direct}");
        assert_eq!(direct, via_value);
    }
}
