//! Renderers for `--same` (G2) and `--ratchet` (G14): names grouped by prefix, the
//! `R removed / +N` line, and JSON (`"schema": 1`).

use std::io::{self, Write};

use serde_json::json;

use super::{group, Delta, TestList};

/// Which comparison was asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// G2: both lists must be identical.
    Same,
    /// G14: names may be added, never removed.
    Ratchet,
}

impl Mode {
    pub fn passed(self, d: &Delta) -> bool {
        match self {
            Mode::Same => d.removed.is_empty() && d.added.is_empty(),
            Mode::Ratchet => d.removed.is_empty(),
        }
    }
}

/// `0 removed / +3`.
pub fn ratchet_line(d: &Delta) -> String {
    format!("{} removed / +{}", d.removed.len(), d.added.len())
}

fn describe(t: &TestList) -> String {
    format!(
        "{} ({} tests, {})",
        t.path.display(),
        t.names.len(),
        t.format.as_str()
    )
}

fn write_group(out: &mut dyn Write, title: &str, names: &[String]) -> io::Result<()> {
    if names.is_empty() {
        return Ok(());
    }
    writeln!(out, "{title} ({}):", names.len())?;
    for (prefix, names) in group(names) {
        writeln!(out, "  {prefix} ({})", names.len())?;
        for n in names {
            writeln!(out, "    {n}")?;
        }
    }
    Ok(())
}

pub fn write_human(
    mode: Mode,
    a: &TestList,
    b: &TestList,
    d: &Delta,
    out: &mut dyn Write,
) -> io::Result<()> {
    match mode {
        Mode::Same => {
            writeln!(out, "test-names same: {} vs {}", describe(a), describe(b))?;
            write_group(out, &format!("only in {}", a.path.display()), &d.removed)?;
            write_group(out, &format!("only in {}", b.path.display()), &d.added)?;
            if mode.passed(d) {
                writeln!(
                    out,
                    "identical: both register the same {} test names",
                    d.before
                )?;
            } else {
                writeln!(
                    out,
                    "DIFFERENT: {} only in the first, {} only in the second",
                    d.removed.len(),
                    d.added.len()
                )?;
            }
        }
        Mode::Ratchet => {
            writeln!(
                out,
                "test-names ratchet: {} -> {}",
                describe(a),
                describe(b)
            )?;
            write_group(out, "removed", &d.removed)?;
            write_group(out, "added", &d.added)?;
            writeln!(out, "{}", ratchet_line(d))?;
            if !mode.passed(d) {
                writeln!(
                    out,
                    "FAIL: {} registered tests vanished; a phase may add tests, never remove one",
                    d.removed.len()
                )?;
            }
        }
    }
    Ok(())
}

/// The comparison as text or as JSON ([`to_json`]).
pub fn write(
    mode: Mode,
    a: &TestList,
    b: &TestList,
    d: &Delta,
    json: bool,
    out: &mut dyn Write,
) -> io::Result<()> {
    if json {
        writeln!(
            out,
            "{}",
            serde_json::to_string_pretty(&to_json(mode, a, b, d))?
        )
    } else {
        write_human(mode, a, b, d, out)
    }
}

pub fn to_json(mode: Mode, a: &TestList, b: &TestList, d: &Delta) -> serde_json::Value {
    let side = |t: &TestList| json!({ "path": t.path.display().to_string(), "format": t.format, "count": t.names.len() });
    let groups = |names: &[String]| {
        group(names)
            .into_iter()
            .map(|(k, v)| (k.to_string(), json!(v)))
            .collect::<serde_json::Map<_, _>>()
    };
    json!({
        "schema": 1,
        "mode": match mode { Mode::Same => "same", Mode::Ratchet => "ratchet" },
        "before": side(a),
        "after": side(b),
        "removed": d.removed,
        "added": d.added,
        "removed_by_prefix": groups(&d.removed),
        "added_by_prefix": groups(&d.added),
        "summary": ratchet_line(d),
        "passed": mode.passed(d),
    })
}
