//! Report: render a diff as upstream's `symbol-report:` lines, its Markdown and its JSON
//! (plus `"schema": 1` and mgctl's additions). Renderers only format; they decide nothing.

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
        let [a, rm, z, n] = r.diff.gate_view.counts();
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

fn cell(s: &str) -> String {
    s.replace('|', "\\|")
}

/// Upstream's Markdown report (LF line ends, trailing newline), plus mgctl's extra sections.
pub fn markdown(r: &ReportInput<'_>) -> String {
    let d = r.diff;
    let t = d.text();
    let l = &d.listing;
    let mut m = String::from(
        "# MobileGL symbol report\n\n| side | path | file bytes | .text |\n|---|---|---|---|\n",
    );
    m += &format!(
        "| before | `{}` | {} | {} |\n",
        side_path(r.before),
        side_bytes(r.before),
        t.before
    );
    m += &format!(
        "| after | `{}` | {} | {} |\n",
        side_path(r.after),
        side_bytes(r.after),
        t.after
    );
    m += &format!(
        "\n`.text` {} -> {} ({:+}, {:+.3}%). {} -> {} defined symbols: {} added, {} removed, {} resized, {} renamed, {} unchanged.\n",
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
    );
    let section = |m: &mut String,
                   title: &str,
                   rows: &[&Change],
                   header: &str,
                   row: &dyn Fn(&Change) -> String| {
        *m += &format!("\n### {title} ({})\n\n", rows.len());
        if rows.is_empty() {
            *m += "_none_\n";
        } else {
            *m += header;
            for c in rows {
                *m += &row(c);
            }
        }
        // upstream: every section ends with an empty line (then the next one starts with one)
        *m += "\n";
    };
    section(
        &mut m,
        "Removed",
        &sorted(&l.removed, r.sort),
        "| symbol | bytes |\n|---|---|\n",
        &|c| format!("| {} | {} |\n", cell(&c.name), c.before),
    );
    section(
        &mut m,
        "Added",
        &sorted(&l.added, r.sort),
        "| symbol | bytes |\n|---|---|\n",
        &|c| format!("| {} | {} |\n", cell(&c.name), c.after),
    );
    section(
        &mut m,
        "Resized",
        &sorted(&l.resized, r.sort),
        "| symbol | before | after | delta |\n|---|---|---|---|\n",
        &|c| {
            format!(
                "| {} | {} | {} | {:+} |\n",
                cell(&c.name),
                c.before,
                c.after,
                c.delta
            )
        },
    );
    section(
        &mut m,
        "Renamed only (same size)",
        &sorted(&l.renamed, SortOrder::Name),
        "| normalised symbol | before mangling | after mangling |\n|---|---|---|\n",
        &|c| {
            format!(
                "| {} | {} | {} |\n",
                cell(&c.name),
                cell(&c.before_mangled),
                cell(&c.after_mangled)
            )
        },
    );
    if !d.kind_changes.is_empty() {
        let rows: Vec<&Change> = d.kind_changes.iter().collect();
        section(
            &mut m,
            "Type letter changed",
            &rows,
            "| symbol | before | after |\n|---|---|---|\n",
            &|c| {
                format!(
                    "| {} | {} | {} |\n",
                    cell(&c.name),
                    c.kind_before.map(String::from).unwrap_or_default(),
                    c.kind_after.map(String::from).unwrap_or_default()
                )
            },
        );
    }
    if let Some((depth, groups)) = r.groups {
        m += &format!("\n### By namespace (depth {depth}) ({})\n\n", groups.len());
        if groups.is_empty() {
            m += "_none_\n\n";
        } else {
            m += "| namespace | added | removed | resized | renamed | delta |\n|---|---|---|---|---|---|\n";
            for g in groups {
                m += &format!(
                    "| {} | {} | {} | {} | {} | {:+} |\n",
                    cell(&g.namespace),
                    g.added,
                    g.removed,
                    g.resized,
                    g.renamed,
                    g.delta
                );
            }
            m += "\n";
        }
    }
    m
}

fn change_json(c: &Change, renamed: bool) -> Value {
    if renamed {
        json!({"name": c.name, "delta": 0, "before": c.before_mangled, "after": c.after_mangled})
    } else {
        json!({"name": c.name, "delta": c.delta, "before": c.before, "after": c.after,
               "before_mangled": c.before_mangled, "after_mangled": c.after_mangled})
    }
}

/// Upstream's JSON keys plus `schema`, tables, versions, counts, flags and the verdict.
pub fn json(r: &ReportInput<'_>) -> Value {
    let sections = |s: &Side| -> serde_json::Map<String, Value> {
        let mut m = serde_json::Map::new();
        for row in &s.sections {
            m.entry(row.name.clone()).or_insert(json!(row.size));
        }
        m.insert("Total".into(), json!(s.section("Total")));
        m
    };
    let l = &r.diff.listing;
    let rows = |v: &[Change], renamed: bool| -> Vec<Value> {
        sorted(v, if renamed { SortOrder::Name } else { r.sort })
            .into_iter()
            .map(|c| change_json(c, renamed))
            .collect()
    };
    json!({
        "schema": 1,
        "before": side_path(r.before),
        "after": side_path(r.after),
        "sections_before": sections(r.before),
        "sections_after": sections(r.after),
        "removed": rows(&l.removed, false),
        "added": rows(&l.added, false),
        "resized": rows(&l.resized, false),
        "renamed": rows(&l.renamed, true),
        "unchanged": l.unchanged,
        "identity_before": r.before.identity,
        "identity_after": r.after.identity,
        "table_before": r.before.table.map(|t| t.as_str()),
        "table_after": r.after.table.map(|t| t.as_str()),
        "versions": if r.keep_versions { "kept" } else { "stripped" },
        "counts": {
            "defined_before": r.diff.defined_before, "defined_after": r.diff.defined_after,
            "names_before": r.diff.names_before, "names_after": r.diff.names_after,
            "added": l.added.len(), "removed": l.removed.len(), "resized": l.resized.len(), "renamed": l.renamed.len(),
        },
        "gate_view": {
            "added": r.diff.gate_view.added.len(), "removed": r.diff.gate_view.removed.len(),
            "resized": r.diff.gate_view.resized.len(), "renamed": r.diff.gate_view.renamed.len(),
        },
        "options": {
            "strip_scope": r.opts.strip_scopes,
            "rename_map": r.opts.rename_map.iter().map(|(a, b)| format!("{a}={b}")).collect::<Vec<_>>(),
            "only_names": r.opts.only_names,
            "threshold": r.opts.threshold,
            "fail_on_symbol_set_change": r.gates.fail_on_symbol_set_change,
            "fail_on_text_delta": r.gates.fail_on_text_delta,
            "fail_on_added_bytes": r.gates.fail_on_added_bytes,
            "strict_allow": r.gates.strict_allow,
        },
        "kind_changes": r.diff.kind_changes.iter().map(|c| json!({"name": c.name, "before": c.kind_before.map(String::from), "after": c.kind_after.map(String::from)})).collect::<Vec<_>>(),
        "groups": r.groups.map(|(d, g)| json!({"depth": d, "rows": g})),
        "warnings": r.warnings,
        "admitted": r.outcome.admitted,
        "stale_allow": r.outcome.stale,
        "verdict": if r.outcome.failed() { "fail" } else { "pass" },
        "reasons": r.outcome.reasons,
    })
}
