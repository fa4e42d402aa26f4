//! SARIF 2.1.0 for GitHub code scanning: one run per `check`, one rule per finding code (its
//! description from docs/codes.md), results with repository-relative physical locations and
//! fingerprints that survive unrelated edits.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{self, Write};

use serde_sarif::sarif;

use crate::model::{Finding, Severity};
use crate::run::CheckRun;
use crate::CodeSummary;

/// The code table every rule's description and help come from.
const CODES_MD: &str = include_str!("../../../docs/codes.md");

/// `(gate, severity, meaning)` of a code, from its row in docs/codes.md.
fn code_row(code: &str) -> Option<(String, String, String)> {
    let key = format!("`{code}`");
    CODES_MD.lines().find_map(|line| {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        // "| `CODE` | gate | severity | meaning |" splits into 6 cells, the outer two empty.
        if cells.len() < 6 || cells[1] != key {
            return None;
        }
        let meaning = cells[4..cells.len() - 1].join("|");
        Some((
            cells[2].to_string(),
            cells[3].to_string(),
            meaning.replace('`', ""),
        ))
    })
}

fn rule(code: &str, gate: &str, summary: CodeSummary<'_>) -> sarif::ReportingDescriptor {
    let (gates, severity, meaning) = code_row(code).unwrap_or_else(|| {
        (
            gate.to_string(),
            String::new(),
            summary(code).map_or_else(|| format!("a finding of the {gate} gate"), str::to_string),
        )
    });
    let help = format!(
        "{meaning}. Gate: {gates}{}. Codes are documented in docs/codes.md; run `mgctl check --only {gate}` to reproduce.",
        if severity.is_empty() {
            String::new()
        } else {
            format!(", severity: {severity}")
        }
    );
    sarif::ReportingDescriptor::builder()
        .id(code)
        .name(code)
        .short_description(
            sarif::MultiformatMessageString::builder()
                .text(meaning)
                .build(),
        )
        .help(
            sarif::MultiformatMessageString::builder()
                .text(help)
                .build(),
        )
        .build()
}

/// FNV-1a: a fingerprint must be the same in every build and on every machine.
fn fnv1a(parts: &[&str]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for b in part.bytes().chain([0]) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    h
}

/// A repository-relative path as a URI reference: everything outside the unreserved set and `/`
/// is percent-encoded.
fn uri(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn location(run: &CheckRun, f: &Finding) -> Option<sarif::Location> {
    let (path, line, column) = match &f.location {
        Some(l) => (run.repo_path(&l.path), l.line, l.column),
        // A finding about the whole workspace points at its config, when there is one.
        None if run.config.ends_with(crate::CONFIG_FILE) => {
            (run.repo_path(crate::CONFIG_FILE), None, None)
        }
        None => return None,
    };
    let artifact = sarif::ArtifactLocation::builder()
        .uri(uri(&path))
        .uri_base_id("%SRCROOT%")
        .build();
    // GitHub places a result only with a start line: a finding about a whole file points at its
    // first line.
    let physical = match line.filter(|&l| l > 0).or(Some(1)) {
        Some(l) => {
            let region = match column.filter(|&c| c > 0) {
                Some(c) => sarif::Region::builder()
                    .start_line(i64::from(l))
                    .start_column(i64::from(c))
                    .build(),
                None => sarif::Region::builder().start_line(i64::from(l)).build(),
            };
            sarif::PhysicalLocation::builder()
                .artifact_location(artifact)
                .region(region)
                .build()
        }
        None => sarif::PhysicalLocation::builder()
            .artifact_location(artifact)
            .build(),
    };
    Some(
        sarif::Location::builder()
            .physical_location(physical)
            .build(),
    )
}

pub(crate) fn write(
    run: &CheckRun,
    out: &mut dyn Write,
    summary: CodeSummary<'_>,
) -> io::Result<()> {
    // Notes are not alerts: an admitted symbol change, a skipped probe's reason. Code scanning
    // would raise each as an alert on every PR, so SARIF carries errors and warnings only
    // (docs/json.md says so); every other format keeps the notes.
    let alerts = || {
        run.gates
            .iter()
            .flat_map(|g| &g.findings)
            .filter(|f| f.severity != Severity::Note)
    };
    let mut codes: BTreeSet<(&str, &str)> = BTreeSet::new();
    for f in alerts() {
        codes.insert((f.code, f.gate));
    }
    let mut index: BTreeMap<&str, i64> = BTreeMap::new();
    let mut rules = Vec::new();
    for (code, gate) in codes {
        if index.contains_key(code) {
            continue;
        }
        index.insert(code, i64::try_from(rules.len()).unwrap_or(i64::MAX));
        rules.push(rule(code, gate, summary));
    }
    // The same finding twice in one file (same code, path, message) gets its ordinal, so
    // fingerprints stay unique without depending on line numbers.
    let mut seen: BTreeMap<u64, usize> = BTreeMap::new();
    let mut results = Vec::new();
    for f in alerts() {
        let path = f
            .location
            .as_ref()
            .map(|l| run.repo_path(&l.path))
            .unwrap_or_default();
        let base = fnv1a(&[f.gate, f.code, &path, &f.message]);
        let n = seen.entry(base).or_default();
        *n += 1;
        let fingerprint = format!("{base:016x}:{n}");
        let level = match f.severity {
            Severity::Error => sarif::ResultLevel::Error,
            Severity::Warning => sarif::ResultLevel::Warning,
            Severity::Note => sarif::ResultLevel::Note,
        };
        let message = sarif::Message::builder()
            .text(format!("{} ({} gate)", f.message, f.gate))
            .build();
        let fingerprints = BTreeMap::from([("mgctl/v1".to_string(), fingerprint)]);
        let result = match location(run, f) {
            Some(loc) => sarif::Result::builder()
                .rule_id(f.code)
                .rule_index(index.get(f.code).copied().unwrap_or(0))
                .level(level)
                .message(message)
                .locations(vec![loc])
                .partial_fingerprints(fingerprints)
                .build(),
            None => sarif::Result::builder()
                .rule_id(f.code)
                .rule_index(index.get(f.code).copied().unwrap_or(0))
                .level(level)
                .message(message)
                .partial_fingerprints(fingerprints)
                .build(),
        };
        results.push(result);
    }
    let driver = sarif::ToolComponent::builder()
        .name("mgctl")
        .full_name(format!("mgctl {}", run.version))
        .semantic_version(env!("CARGO_PKG_VERSION"))
        .rules(rules)
        .build();
    let tool = sarif::Tool::builder().driver(driver).build();
    let invocation = sarif::Invocation::builder()
        .execution_successful(true)
        .build();
    let sarif_run = sarif::Run::builder()
        .tool(tool)
        .results(results)
        .invocations(vec![invocation])
        .column_kind(serde_json::json!("unicodeCodePoints"))
        .build();
    let log = sarif::Sarif::builder()
        .schema(sarif::SCHEMA_URL)
        .version(serde_json::json!("2.1.0"))
        .runs(vec![sarif_run])
        .build();
    serde_json::to_writer_pretty(&mut *out, &log)?;
    writeln!(out)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn rules_come_from_docs_codes() {
        let (gate, severity, meaning) = code_row("TOK001").unwrap();
        assert_eq!((gate.as_str(), severity.as_str()), ("tokens", "error"));
        assert!(meaning.starts_with("a forbidden token"), "{meaning}");
    }

    #[test]
    fn uris_are_percent_encoded_and_fingerprints_stable() {
        assert_eq!(uri("driver/a b%.cpp"), "driver/a%20b%25.cpp");
        assert_eq!(fnv1a(&["a", "b"]), fnv1a(&["a", "b"]));
        assert_ne!(fnv1a(&["ab", ""]), fnv1a(&["a", "b"]));
    }

    #[test]
    fn one_run_with_rules_and_locations() {
        let mut buf = Vec::new();
        write(&crate::run::tests::sample(), &mut buf, &|_| None).unwrap();
        let v: serde_json::Value = serde_json::from_slice(&buf).unwrap();
        assert_eq!(v["version"], "2.1.0");
        assert_eq!(v["runs"].as_array().unwrap().len(), 1);
        let run = &v["runs"][0];
        assert_eq!(run["tool"]["driver"]["rules"][0]["id"], "TOK001");
        let loc = &run["results"][0]["locations"][0]["physicalLocation"];
        assert_eq!(loc["artifactLocation"]["uri"], "MobileGL/MG_State/A.cpp");
        assert_eq!(loc["region"]["startLine"], 3);
        assert_eq!(loc["artifactLocation"]["uriBaseId"], "%SRCROOT%");
        assert!(run["results"][0]["partialFingerprints"]["mgctl/v1"].is_string());
    }
}
