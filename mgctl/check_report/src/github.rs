//! GitHub workflow commands. GitHub keeps only the first 10 error annotations of a step, so the
//! full text report follows the annotations.

use std::io::{self, Write};

use crate::model::{Finding, Severity};
use crate::run::CheckRun;

use diag::escape::{workflow_data as escape_data, workflow_property as escape_property};

/// Annotations GitHub shows per kind and step; notices beyond a few are only counted.
const NOTICES_SHOWN: usize = 5;
/// Error (and, apart, warning) annotations written at most; GitHub shows fewer still.
const PROBLEMS_SHOWN: usize = 50;

fn annotation(run: &CheckRun, gate: &str, f: &Finding, out: &mut dyn Write) -> io::Result<()> {
    let level = match f.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note => "notice",
    };
    let mut props = Vec::new();
    if let Some(loc) = &f.location {
        props.push(format!(
            "file={}",
            escape_property(&run.repo_path(&loc.path))
        ));
        if let Some(l) = loc.line {
            props.push(format!("line={l}"));
        }
        if let Some(c) = loc.column {
            props.push(format!("col={c}"));
        }
    }
    props.push(format!(
        "title={}",
        escape_property(&format!("mgctl {gate} {}", f.code))
    ));
    writeln!(
        out,
        "::{level} {}::{}",
        props.join(","),
        escape_data(&f.message)
    )
}

/// A token no input can guess, so nothing in the report can end the `stop-commands` block.
fn stop_token(run: &CheckRun) -> String {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u32(std::process::id());
    h.write_usize(run.gates.len());
    format!("mgctl-{:016x}", h.finish())
}

pub(crate) fn write(
    run: &CheckRun,
    out: &mut dyn Write,
    summary: crate::CodeSummary<'_>,
) -> io::Result<()> {
    // Errors, then warnings, lead: GitHub keeps only the first few annotations of each kind, so
    // a flood of thousands is cut here and counted; the report below and --format json have all.
    for (severity, cap, word) in [
        (Severity::Error, PROBLEMS_SHOWN, "errors"),
        (Severity::Warning, PROBLEMS_SHOWN, "warnings"),
        (Severity::Note, NOTICES_SHOWN, "notes"),
    ] {
        let all = run
            .gates
            .iter()
            .flat_map(|r| r.findings.iter().map(move |f| (r.gate, f)))
            .filter(|(_, f)| f.severity == severity);
        let mut total = 0;
        for (gate, f) in all {
            if total < cap {
                annotation(run, gate, f, out)?;
            }
            total += 1;
        }
        if total > cap {
            writeln!(
                out,
                "::notice title=mgctl check::{} more {word} in the report below (all of them in --format json)",
                total - cap
            )?;
        }
    }
    // The text report holds input data (file names, source lines): GitHub must not read any
    // of its lines as a workflow command, whatever the escaping below misses.
    let token = stop_token(run);
    writeln!(out, "::stop-commands::{token}")?;
    crate::human::write(run, out, false, summary)?;
    writeln!(out, "::{token}::")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_per_workflow_command_rules() {
        assert_eq!(escape_data("50%\nnext"), "50%25%0Anext");
        assert_eq!(escape_property("a:b,c"), "a%3Ab%2Cc");
    }
}
