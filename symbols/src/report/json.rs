//! The JSON report (`"schema": 1`): the diff, the gates' outcome and mgctl's additions.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::{json, Value};

use super::{side_path, sorted, ReportInput, SortOrder};
use crate::diff::{Change, Side};

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
    use super::super::MarkdownLimits;
    use super::*;
    use crate::diff::{diff, DiffOptions};
    use crate::gate::{evaluate, GateOptions};

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
