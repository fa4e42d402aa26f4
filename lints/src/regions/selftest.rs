//! `lint regions --self-test`: a temporary git repository (built with git2, no `git` program)
//! and the controls issue 6 names. Negative controls must trip for the right reason; positive
//! controls must stay clean. A neutered negative control is fed its clean input.

use super::{compare, sha256_hex, Comparison, Dialect, Error, RegionKind, RegionSpec, Side};
use crate::gitread::{fixture::commit_files, GitWorkspace};

const FILE: &str = "MG_Backend/Managers.cpp";

/// The canned source; every protected body is on lines of its own.
pub const SOURCE: &str = r#"// Managers.cpp (mgctl self-test)
#include "Managers.h"
namespace Pool {
int gCount = 0;
}
static bool IsPoolable(int size) {
    return size > 0 && size < 4'096; // '{' is not a brace
}
void ClearBufferPool() {
    gPool.clear();
}
void FlushPendingRangesFrom(int from) {
    for (int i = from; i < 8; ++i) { Flush(i); }
}
"#;

/// SHA-256 of `FlushPendingRangesFrom`'s extent in [`SOURCE`], computed independently of mgctl
/// (Python hashlib over lines 12-14 without the final newline) — the pin must verify.
pub const FLUSH_PIN: &str = "25f5f9bff974243c481af4d3c8119d2c516e2ab39293e427f9029ed2451dcf76";

#[derive(Debug, Clone)]
pub struct ControlResult {
    pub name: &'static str,
    pub expect_trip: bool,
    pub tripped: bool,
    pub detail: String,
}

fn specs(pin: &str) -> Vec<RegionSpec> {
    let row = |name: &str, kind: RegionKind, sha: Option<&str>| RegionSpec {
        name: name.to_string(),
        file: FILE.to_string(),
        kind,
        sha256: sha.map(str::to_string),
        reason: None,
    };
    vec![
        row("Pool", RegionKind::Namespace, None),
        row("IsPoolable", RegionKind::Function, None),
        row("ClearBufferPool", RegionKind::Function, None),
        row("FlushPendingRangesFrom", RegionKind::Function, Some(pin)),
    ]
}

/// Commit `base` as the baseline, write `work` into the working tree, compare.
fn scenario(base: &str, work: &str, pin: &str) -> Result<Result<Comparison, Error>, String> {
    let dir = tempfile::tempdir().map_err(|e| format!("creating a temp dir: {e}"))?;
    commit_files(
        dir.path(),
        &[(FILE, base)],
        "[Test] (regions): self-test base",
    )
    .map_err(|e| e.to_string())?;
    std::fs::write(dir.path().join(FILE), work).map_err(|e| e.to_string())?;
    let ws = GitWorkspace::discover(dir.path()).map_err(|e| e.to_string())?;
    let at = ws.resolve("HEAD").map_err(|e| e.to_string())?;
    let base = Side::Commit { ws: &ws, at };
    let head = Side::WorkTree {
        root: dir.path().to_path_buf(),
    };
    Ok(compare(Some(&base), &head, &specs(pin), Dialect::Mgctl))
}

fn insert_after(src: &str, anchor: &str, line: &str) -> String {
    match src.find(anchor) {
        Some(p) => format!(
            "{}{line}{}",
            &src[..p + anchor.len()],
            &src[p + anchor.len()..]
        ),
        None => src.to_string(),
    }
}

/// Run every control. `neutered(name)` feeds that negative control its clean input.
pub fn run(neutered: &dyn Fn(&str) -> bool) -> Result<Vec<ControlResult>, String> {
    let mut out = Vec::new();
    let computed = sha256_hex(
        SOURCE[SOURCE.find("void FlushPendingRangesFrom").unwrap_or(0)..]
            .trim_end_matches('\n')
            .as_bytes(),
    );
    let mut push = |name: &'static str,
                    expect_trip: bool,
                    r: Result<Comparison, Error>,
                    want_first: Option<&str>| {
        let (tripped, detail) = match r {
            Err(e) => (want_first.is_none(), e.to_string()),
            Ok(c) => match c.movers().next() {
                None => (false, format!("{} regions identical", c.rows.len())),
                Some(m) => {
                    let right = want_first.is_none_or(|w| w == m.spec.name);
                    let pinned = if m.pinned() { " (pinned row)" } else { "" };
                    (
                        right,
                        format!("first region that moved: {}{pinned}", m.spec.name),
                    )
                }
            },
        };
        out.push(ControlResult {
            name,
            expect_trip,
            tripped,
            detail,
        });
    };

    push(
        "untouched-copy",
        false,
        scenario(SOURCE, SOURCE, FLUSH_PIN)?,
        None,
    );
    let outside = insert_after(
        &format!("// a new first line\n{SOURCE}"),
        "}\n",
        "int gOutside = 1; // between regions\n",
    );
    push(
        "edit-outside-regions",
        false,
        scenario(SOURCE, &outside, FLUSH_PIN)?,
        None,
    );

    let name = "edited-body";
    let work = if neutered(name) {
        SOURCE.to_string()
    } else {
        insert_after(
            SOURCE,
            "void ClearBufferPool() {\n",
            "    // one comment line\n",
        )
    };
    push(
        name,
        true,
        scenario(SOURCE, &work, FLUSH_PIN)?,
        Some("ClearBufferPool"),
    );

    let name = "edited-tail";
    let work = if neutered(name) {
        SOURCE.to_string()
    } else {
        SOURCE.replace(
            "4'096; // '{' is not a brace\n",
            "4'096; // '{' is not a brace\n    ;\n",
        )
    };
    push(
        name,
        true,
        scenario(SOURCE, &work, FLUSH_PIN)?,
        Some("IsPoolable"),
    );

    let name = "duplicated-definition";
    let work = if neutered(name) {
        SOURCE.to_string()
    } else {
        format!("{SOURCE}#if 0\nvoid ClearBufferPool() {{\n    gPool.clear();\n}}\n#endif\n")
    };
    let r = scenario(SOURCE, &work, FLUSH_PIN)?;
    // Only a "found 2" could-not-run counts as the right reason.
    let right = matches!(&r, Err(Error::CouldNotRun(p)) if p.iter().any(|p| matches!(p, super::Problem::NotExactlyOnce { hits, .. } if hits.len() == 2)));
    out.push(ControlResult {
        name,
        expect_trip: true,
        tripped: right,
        detail: match &r {
            Err(e) => e.to_string(),
            Ok(c) => format!("{} regions extracted, no duplicate reported", c.rows.len()),
        },
    });

    let pin_ok = computed == FLUSH_PIN;
    if !pin_ok {
        out.push(ControlResult {
            name: "pin-parity",
            expect_trip: false,
            tripped: true,
            detail: format!(
                "the canned extent hashes to {computed}, not the independently computed pin"
            ),
        });
    }
    let mut push = |name: &'static str, expect_trip: bool, r: Result<Comparison, Error>| {
        let (tripped, detail) = match r {
            Err(e) => (true, e.to_string()),
            Ok(c) => match c.movers().next() {
                None => (false, format!("{} regions identical", c.rows.len())),
                Some(m) => (
                    m.pinned() && m.spec.name == "FlushPendingRangesFrom",
                    format!("first region that moved: {}", m.spec.name),
                ),
            },
        };
        out.push(ControlResult {
            name,
            expect_trip,
            tripped,
            detail,
        });
    };
    push(
        "pinned-row-verifies",
        false,
        scenario(SOURCE, SOURCE, FLUSH_PIN)?,
    );
    // The pin wins over a baseline ref that defines the row differently (upstream ID-41).
    let drifted_base = SOURCE.replace("Flush(i);", "Flush(i); Note(i);");
    push(
        "pin-wins-over-baseline-ref",
        false,
        scenario(&drifted_base, SOURCE, FLUSH_PIN)?,
    );
    let name = "wrong-pin";
    let pin = if neutered(name) {
        FLUSH_PIN.to_string()
    } else {
        sha256_hex(b"a body that is not there")
    };
    push(name, true, scenario(SOURCE, SOURCE, &pin)?);
    Ok(out)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn every_control_behaves() {
        let r = run(&|_| false).unwrap();
        for c in &r {
            assert_eq!(c.expect_trip, c.tripped, "{}: {}", c.name, c.detail);
        }
        assert_eq!(r.len(), 8);
    }

    #[test]
    fn neutered_control_stops_tripping() {
        let r = run(&|n| n == "wrong-pin").unwrap();
        let c = r.iter().find(|c| c.name == "wrong-pin").unwrap();
        assert!(!c.tripped);
    }
}
