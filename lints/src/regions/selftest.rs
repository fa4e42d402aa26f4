//! `lint regions --self-test`: a temporary git repository (built with git2, no `git` program)
//! and the controls issue 6 names. Negative controls must trip for the right reason; positive
//! controls must stay clean. A neutered negative control is fed its clean input.

use super::{compare, sha256_hex, Comparison, Dialect, Error, RegionKind, RegionSpec, Side};
use crate::gitread::fixture::{temp_repo, FixtureError};
use crate::gitread::GitWorkspace;

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

pub use diag::Control;

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
fn scenario(base: &str, work: &str, pin: &str) -> Result<Result<Comparison, Error>, FixtureError> {
    let dir = temp_repo(&[(&[(FILE, base)], "[Test] (regions): self-test base")])?;
    std::fs::write(dir.path().join(FILE), work).map_err(FixtureError::Write)?;
    let ws = GitWorkspace::discover(dir.path())?;
    let at = ws.resolve("HEAD")?;
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

/// What a control's outcome must be to count as "tripped for the right reason".
#[derive(Clone, Copy)]
enum Want<'a> {
    /// Positive control: any mover or error counts as a trip.
    Clean,
    /// This region must be the first mover.
    FirstMover(&'a str),
    /// This pinned region must be the first mover.
    PinnedFirstMover(&'a str),
    /// "Could not run" with a name found twice.
    Duplicate,
}

fn classify(r: &Result<Comparison, Error>, want: Want<'_>) -> (bool, String) {
    match r {
        Err(e) => {
            let dup = matches!(e, Error::CouldNotRun(p)
                if p.iter().any(|p| matches!(p, super::Problem::NotExactlyOnce { hits, .. } if hits.len() == 2)));
            (
                matches!(want, Want::Clean) || (dup && matches!(want, Want::Duplicate)),
                e.to_string(),
            )
        }
        // rows that could not be compared make the comparison "could not run" for the controls
        Ok(c) if !c.problems.is_empty() && c.movers().next().is_none() => {
            classify(&Err(Error::CouldNotRun(c.problems.clone())), want)
        }
        Ok(c) => match c.movers().next() {
            None => (false, format!("{} regions identical", c.rows.len())),
            Some(m) => {
                let right = match want {
                    Want::Clean => true,
                    Want::FirstMover(n) => n == m.spec.name,
                    Want::PinnedFirstMover(n) => n == m.spec.name && m.pinned(),
                    Want::Duplicate => false,
                };
                let pinned = if m.pinned() { " (pinned row)" } else { "" };
                (
                    right,
                    format!("first region that moved: {}{pinned}", m.spec.name),
                )
            }
        },
    }
}

/// Run every control. `neutered(name)` feeds that negative control its clean input.
pub fn run(neutered: &dyn Fn(&str) -> bool) -> Result<Vec<Control>, FixtureError> {
    let at = SOURCE.find("void FlushPendingRangesFrom").unwrap_or(0);
    let computed = sha256_hex(SOURCE[at..].trim_end_matches('\n').as_bytes());
    let outside = insert_after(
        &format!("// a new first line\n{SOURCE}"),
        "}\n",
        "int gOutside = 1; // between regions\n",
    );
    let edited_body = insert_after(
        SOURCE,
        "void ClearBufferPool() {\n",
        "    // one comment line\n",
    );
    let edited_tail = SOURCE.replace(
        "4'096; // '{' is not a brace\n",
        "4'096; // '{' is not a brace\n    ;\n",
    );
    let duplicated =
        format!("{SOURCE}#if 0\nvoid ClearBufferPool() {{\n    gPool.clear();\n}}\n#endif\n");
    let drifted_base = SOURCE.replace("Flush(i);", "Flush(i); Note(i);");
    let wrong_pin = sha256_hex(b"a body that is not there");
    // (name, negative?, baseline text, working-tree text, pin, expected outcome)
    let controls: [(&'static str, bool, &str, &str, &str, Want<'_>); 8] = [
        (
            "untouched-copy",
            false,
            SOURCE,
            SOURCE,
            FLUSH_PIN,
            Want::Clean,
        ),
        (
            "edit-outside-regions",
            false,
            SOURCE,
            &outside,
            FLUSH_PIN,
            Want::Clean,
        ),
        (
            "edited-body",
            true,
            SOURCE,
            &edited_body,
            FLUSH_PIN,
            Want::FirstMover("ClearBufferPool"),
        ),
        (
            "edited-tail",
            true,
            SOURCE,
            &edited_tail,
            FLUSH_PIN,
            Want::FirstMover("IsPoolable"),
        ),
        (
            "duplicated-definition",
            true,
            SOURCE,
            &duplicated,
            FLUSH_PIN,
            Want::Duplicate,
        ),
        (
            "pinned-row-verifies",
            false,
            SOURCE,
            SOURCE,
            FLUSH_PIN,
            Want::Clean,
        ),
        // The pin wins over a baseline ref that defines the row differently (upstream ID-41).
        (
            "pin-wins-over-baseline-ref",
            false,
            &drifted_base,
            SOURCE,
            FLUSH_PIN,
            Want::Clean,
        ),
        (
            "wrong-pin",
            true,
            SOURCE,
            SOURCE,
            &wrong_pin,
            Want::PinnedFirstMover("FlushPendingRangesFrom"),
        ),
    ];
    let mut out = Vec::new();
    if computed != FLUSH_PIN {
        out.push(Control {
            name: "pin-parity".into(),
            expect_trip: false,
            tripped: true,
            detail: format!(
                "the canned extent hashes to {computed}, not the independently computed pin"
            ),
        });
    }
    for (name, expect_trip, base, work, pin, want) in controls {
        // A neutered negative control gets the clean working tree and the right pin.
        let (work, pin) = if expect_trip && neutered(name) {
            (SOURCE, FLUSH_PIN)
        } else {
            (work, pin)
        };
        let (tripped, detail) = classify(&scenario(base, work, pin)?, want);
        out.push(Control {
            name: name.into(),
            expect_trip,
            tripped,
            detail,
        });
    }
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
