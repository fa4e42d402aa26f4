//! Renderers for `mgctl lint commits`: one line per commit (`ok  ` / `FAIL` and each violated
//! rule) and a summary, or JSON (`"schema": 1`).

use std::collections::BTreeSet;
use std::io::{self, Write};

use serde::Serialize;

use super::gate::RangeCheck;
use super::{check_message, StyleRules, Violation};
use crate::diag::Severity;

impl RangeCheck {
    /// The commits with at least one diagnostic.
    pub fn off_style(&self) -> usize {
        let off: BTreeSet<&str> = self
            .diags
            .iter()
            .filter_map(|d| d.unit.as_deref())
            .collect();
        off.len()
    }

    pub fn passed(&self) -> bool {
        !self.diags.iter().any(|d| d.severity == Severity::Error)
    }
}

#[derive(Serialize)]
struct RangeJson<'a> {
    schema: u32,
    range: &'a str,
    commits: Vec<CommitJson<'a>>,
    off_style: usize,
    passed: bool,
}

#[derive(Serialize)]
struct CommitJson<'a> {
    id: &'a str,
    subject: &'a str,
    violations: Vec<Violation>,
}

impl RangeCheck {
    /// The checked range as text or as JSON (`schema`, `range`, `commits`, `off_style`,
    /// `passed`), each commit checked against `rules`.
    pub fn write(
        &self,
        range: &str,
        rules: &StyleRules,
        json: bool,
        out: &mut dyn Write,
    ) -> io::Result<()> {
        let c = self;
        if json {
            let commits = c
                .commits
                .iter()
                .map(|ci| CommitJson {
                    id: &ci.id,
                    subject: ci.message.lines().next().unwrap_or(""),
                    violations: check_message(&ci.message, rules),
                })
                .collect();
            let doc = RangeJson {
                schema: 1,
                range,
                commits,
                off_style: c.off_style(),
                passed: c.passed(),
            };
            return writeln!(out, "{}", crate::diag::pretty_json(&doc)?);
        }
        for ci in &c.commits {
            let short = &ci.id[..ci.id.len().min(10)];
            let vs = check_message(&ci.message, rules);
            let verdict = if vs.is_empty() { "ok  " } else { "FAIL" };
            let subject = ci.message.lines().next().unwrap_or("");
            writeln!(out, "{short} {verdict} {subject}")?;
            for v in vs {
                writeln!(out, "           {}: {v}", v.rule())?;
            }
        }
        writeln!(
            out,
            "commits: {} in {range}, {} off-style",
            c.commits.len(),
            c.off_style()
        )
    }
}
