//! Renderers for region comparisons: the `<sha>  <name>` list, the human report (upstream's
//! `FIRST REGION THAT MOVED:` / `also moved:` / `IS A PINNED ROW` lines plus a unified diff),
//! and JSON (`"schema": 1`).

use std::io::{self, Write};

use serde_json::json;

use super::{Comparison, RowOutcome, Side};

/// `<64 hex>  <name>` lines.
pub fn write_list(rows: &[(String, String)], out: &mut dyn Write) -> io::Result<()> {
    for (sha, name) in rows {
        writeln!(out, "{sha}  {name}")?;
    }
    Ok(())
}

#[derive(serde::Serialize)]
struct ListJson<'a> {
    schema: u32,
    #[serde(rename = "ref")]
    rev: &'a str,
    commit: Option<&'a str>,
    regions: Vec<ListRow<'a>>,
}

#[derive(serde::Serialize)]
struct ListRow<'a> {
    name: &'a str,
    sha256: &'a str,
}

/// `--list REF`: the list as text, or as JSON (`schema`, `ref`, `commit`, `regions`).
pub fn write_list_as(
    rev: &str,
    side: &Side<'_>,
    rows: &[(String, String)],
    json: bool,
    out: &mut dyn Write,
) -> io::Result<()> {
    if !json {
        return write_list(rows, out);
    }
    let regions = rows
        .iter()
        .map(|(sha, name)| ListRow { name, sha256: sha })
        .collect();
    let doc = ListJson {
        schema: 1,
        rev,
        commit: side.commit(),
        regions,
    };
    writeln!(out, "{}", crate::diag::pretty_json(&doc)?)
}

/// A comparison as text (each region's place shown from the user's directory) or as JSON
/// ([`to_json`]).
pub fn write(
    c: &Comparison,
    json: bool,
    shown: &diag::Shown,
    out: &mut dyn Write,
) -> io::Result<()> {
    if json {
        writeln!(out, "{}", serde_json::to_string_pretty(&to_json(c))?)
    } else {
        write_human(c, shown, out)
    }
}

/// The unified diff of a moved row's text, when the baseline text is known.
pub fn diff(row: &RowOutcome, base_label: &str, head_label: &str) -> Option<String> {
    let base = row.base.text()?;
    let d = similar::TextDiff::from_lines(base, row.head.text.as_str());
    let a = format!("{} @ {base_label}", row.spec.file);
    let b = format!("{} @ {head_label}", row.spec.file);
    Some(
        d.unified_diff()
            .context_radius(3)
            .header(&a, &b)
            .to_string(),
    )
}

fn short(sha: Option<&str>) -> &str {
    sha.unwrap_or("<none>")
}

/// The human report: subject list first (as upstream prints it), then movers with diffs.
pub fn write_human(c: &Comparison, shown: &diag::Shown, out: &mut dyn Write) -> io::Result<()> {
    for r in &c.rows {
        writeln!(out, "{}  {}", r.head.sha, r.spec.name)?;
    }
    let base_label = describe(&c.base_label, c.base_commit.as_deref());
    let head_label = describe(&c.head_label, c.head_commit.as_deref());
    for r in &c.rows {
        if let Some(b) = r.base.pin_differs_from_ref() {
            writeln!(
                out,
                "NOTE: {} at '{}' hashes to {} (lines {}-{}); the pinned sha {} is its baseline",
                r.spec.name,
                c.base_label,
                b.sha,
                b.def.line,
                b.def.end_line,
                short(r.base.sha())
            )?;
        }
    }
    let mut first = true;
    for r in c.movers() {
        if first {
            writeln!(out, "FIRST REGION THAT MOVED: {}", r.spec.name)?;
            first = false;
        } else {
            writeln!(out, "also moved: {}", r.spec.name)?;
        }
        writeln!(
            out,
            "  {}-{} ({})",
            shown.at(&r.spec.file, r.head.def.line),
            r.head.def.end_line,
            r.spec.kind.as_str()
        )?;
        writeln!(out, "  {base_label} {}", short(r.base.sha()))?;
        writeln!(out, "  {head_label} {}", r.head.sha)?;
        if r.line_endings_only() {
            writeln!(
                out,
                "  the text differs ONLY in line endings (CRLF vs LF): check core.autocrlf"
            )?;
        }
        if let Some(reason) = &r.spec.reason {
            writeln!(out, "  why it must not move: {reason}")?;
        }
        if r.pinned() {
            writeln!(
                out,
                "  {} IS A PINNED ROW: its baseline is ALWAYS the pinned sha in the configuration,",
                r.spec.name
            )?;
            writeln!(out, "  whatever the baseline ref holds; if the move is intended, re-pin it deliberately")?;
        }
        match diff(r, &c.base_label, &c.head_label) {
            Some(d) => {
                for line in d.lines() {
                    writeln!(out, "  {line}")?;
                }
            }
            None => writeln!(
                out,
                "  (no baseline text to diff against: the pin is all that is known)"
            )?,
        }
    }
    // rows that could not be compared: named one by one, after the rows that could
    for p in &c.problems {
        let mut lines = p.to_string();
        lines.insert_str(0, "COULD NOT VERIFY: ");
        for line in lines.lines() {
            writeln!(out, "{line}")?;
        }
    }
    let total = c.rows.len();
    let unverified = c.rows.iter().filter(|r| !r.verified()).count();
    let moved = c.movers().count();
    if moved == 0 {
        writeln!(
            out,
            "the {total} regions are byte-identical between {base_label} and {head_label}"
        )?;
    } else {
        writeln!(
            out,
            "{moved} of {total} regions moved between {base_label} and {head_label}"
        )?;
    }
    if unverified > 0 {
        writeln!(out, "{unverified} unpinned regions had no baseline (no base ref): only their extraction was checked")?;
    }
    if !c.problems.is_empty() {
        writeln!(
            out,
            "{} configured region(s) could not be verified (listed above)",
            c.problems.len()
        )?;
    }
    Ok(())
}

fn describe(label: &str, commit: Option<&str>) -> String {
    match commit {
        Some(id) if !id.starts_with(label) => format!("{label} ({})", &id[..id.len().min(10)]),
        _ => label.to_string(),
    }
}

pub fn to_json(c: &Comparison) -> serde_json::Value {
    let rows: Vec<_> = c
        .rows
        .iter()
        .map(|r| {
            json!({
                "name": r.spec.name,
                "kind": r.spec.kind.as_str(),
                "file": r.spec.file,
                "pinned": r.pinned(),
                "base_sha": r.base.sha(),
                "head_sha": r.head.sha,
                "lines": [r.head.def.line, r.head.def.end_line],
                "moved": r.moved(),
                "line_endings_only": r.line_endings_only(),
                "reason": r.spec.reason,
                "diff": if r.moved() { diff(r, &c.base_label, &c.head_label) } else { None },
            })
        })
        .collect();
    json!({
        "schema": 1,
        "base": { "label": c.base_label, "commit": c.base_commit },
        "head": { "label": c.head_label, "commit": c.head_commit },
        "regions": rows,
        "moved": c.movers().count(),
        "first_mover": c.movers().next().map(|r| r.spec.name.clone()),
        "problems": c.problems.iter().map(|p| json!({ "message": p.to_string(), "detail": p })).collect::<Vec<_>>(),
        "passed": c.passed(),
    })
}
