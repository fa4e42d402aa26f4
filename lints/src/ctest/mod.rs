//! The `ctest` gate (G6/G8, issue 30): ctest's JUnit (`ctest --output-junit`) per lane, the
//! `ctest -N` listing each lane claims to cover, named expectations (`HandleRecycle.*.Handles`
//! passes), an exact discovered set, and a status baseline by lane and name in which skips only
//! shrink and names only grow — MobileGL's `scripts/ci/junit_tally.py`, `skip_census.py` and
//! `junit_annotate.py` as one analysis.
//!
//! parse: [`parse_junit`] (roxmltree; the `-N` listing goes through [`crate::test_names::parse`]);
//! model: [`Junit`], [`Case`], [`Status`], [`Baseline`]; analysis: [`check::check`] (the one entry
//! point of the gate, its controls and `mgctl lint ctest`).

pub mod cfg;
pub mod check;
pub mod controls;

use std::collections::BTreeMap;

pub use check::{check, check_inputs, write_baseline, Code};

/// A ctest entry's outcome, as upstream's `case_status` decides it: a `<failure>` or `<error>`
/// child (or `status="fail"`) is a failure; a `<skipped>` child or `status` `notrun`/`disabled`
/// is a skip; anything else passed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    Pass,
    Skip,
    Fail,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Skip => "skip",
            Status::Fail => "fail",
        }
    }
}

/// One `<testcase>` of a JUnit file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Case {
    pub name: String,
    pub status: Status,
    /// The line of its `<testcase` in the JUnit file.
    pub line: u32,
    /// The failure's message and text, or the skip's message (empty for a pass).
    pub message: String,
    /// The source position the failure names (`file.cpp:42: Failure`, or `file`/`line`
    /// attributes), as written.
    pub source: Option<(String, u32)>,
}

/// A parsed JUnit file: its cases in document order (a rerun's name appears twice).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Junit {
    pub cases: Vec<Case>,
    /// How long the run took, in milliseconds: the root element's `time`, else the sum of its
    /// suites' or, failing those, its cases' `time` (None when the file records none). The
    /// `evidence` gate dates the run's start from it.
    pub elapsed_ms: Option<u64>,
}

impl Junit {
    /// Name → worst status (a name reported twice in one lane keeps its worst outcome).
    pub fn statuses(&self) -> BTreeMap<&str, Status> {
        let mut out: BTreeMap<&str, Status> = BTreeMap::new();
        for c in &self.cases {
            let e = out.entry(&c.name).or_insert(c.status);
            if c.status > *e {
                *e = c.status;
            }
        }
        out
    }
}

/// Why a JUnit file could not be read as one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum JunitError {
    #[error("{path}:{line}:{column}: not valid XML: {msg}")]
    Xml {
        path: String,
        line: u32,
        column: u32,
        msg: String,
    },
    #[error("{path}: root element <{root}> is not <testsuites> or <testsuite>: not JUnit")]
    NotJunit { path: String, root: String },
    #[error("{path}:{line}: <testcase> without a name")]
    NoName { path: String, line: u32 },
    #[error(
        "{path}:{line}: <testsuite tests=\"{declared}\"> holds {found} <testcase>s (truncated?)"
    )]
    Truncated {
        path: String,
        line: u32,
        declared: usize,
        found: usize,
    },
}

/// Parses one `ctest --output-junit` (or any JUnit) file.
pub fn parse_junit(bytes: &[u8], path: &str) -> Result<Junit, JunitError> {
    let text = String::from_utf8_lossy(bytes);
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    let doc = roxmltree::Document::parse(text).map_err(|e| {
        let p = e.pos();
        JunitError::Xml {
            path: path.to_string(),
            line: p.row,
            column: p.col,
            msg: e.to_string(),
        }
    })?;
    let root = doc.root_element();
    let tag = root.tag_name().name();
    if tag != "testsuites" && tag != "testsuite" {
        return Err(JunitError::NotJunit {
            path: path.to_string(),
            root: tag.to_string(),
        });
    }
    let line_of = |n: roxmltree::Node<'_, '_>| doc.text_pos_at(n.range().start).row;
    let mut out = Junit {
        elapsed_ms: elapsed_ms(root),
        ..Junit::default()
    };
    for suite in root.descendants().filter(|n| n.has_tag_name("testsuite")) {
        let found = suite
            .children()
            .filter(|n| n.has_tag_name("testcase"))
            .count();
        if let Some(declared) = suite
            .attribute("tests")
            .and_then(|t| t.parse::<usize>().ok())
        {
            // a suite of suites counts its children's cases
            let nested = suite.children().any(|n| n.has_tag_name("testsuite"));
            if !nested && declared != found {
                return Err(JunitError::Truncated {
                    path: path.to_string(),
                    line: line_of(suite),
                    declared,
                    found,
                });
            }
        }
    }
    for case in root.descendants().filter(|n| n.has_tag_name("testcase")) {
        let line = line_of(case);
        let name = case
            .attribute("name")
            .filter(|n| !n.is_empty())
            .ok_or_else(|| JunitError::NoName {
                path: path.to_string(),
                line,
            })?;
        let child = |t: &str| case.children().find(|n| n.has_tag_name(t));
        let failure = child("failure").or_else(|| child("error"));
        let attr_status = case.attribute("status").unwrap_or("");
        let status = if failure.is_some() || matches!(attr_status, "fail" | "failed") {
            Status::Fail
        } else if child("skipped").is_some() || matches!(attr_status, "notrun" | "disabled") {
            Status::Skip
        } else {
            Status::Pass
        };
        let mut message = String::new();
        let mut push = |s: Option<&str>| {
            if let Some(s) = s.map(str::trim).filter(|s| !s.is_empty()) {
                if !message.is_empty() {
                    message.push('\n');
                }
                message.push_str(s);
            }
        };
        match status {
            Status::Fail => {
                if let Some(f) = failure {
                    push(f.attribute("message"));
                    push(f.text());
                }
                push(child("system-out").and_then(|n| n.text()));
            }
            Status::Skip => {
                let s = child("skipped");
                push(s.and_then(|n| n.attribute("message")));
                push(s.and_then(|n| n.text()));
            }
            Status::Pass => {}
        }
        let source = match (case.attribute("file"), case.attribute("line")) {
            (Some(f), Some(l)) if l.parse::<u32>().is_ok() => {
                Some((f.to_string(), l.parse().unwrap_or(0)))
            }
            _ if status == Status::Fail => source_of(&message),
            _ => None,
        };
        out.cases.push(Case {
            name: name.to_string(),
            status,
            line,
            message,
            source,
        });
    }
    Ok(out)
}

/// A `time` attribute (seconds, fractional) in milliseconds; None when absent or not a
/// non-negative number.
fn time_ms(n: roxmltree::Node<'_, '_>) -> Option<u64> {
    let s: f64 = n.attribute("time")?.trim().parse().ok()?;
    (s.is_finite() && s >= 0.0).then(|| (s * 1000.0).round() as u64)
}

/// The run's duration: the root's `time`, else the sum over its suites, else over its cases.
fn elapsed_ms(root: roxmltree::Node<'_, '_>) -> Option<u64> {
    if let Some(t) = time_ms(root) {
        return Some(t);
    }
    let sum = |tag: &str| {
        let times: Vec<u64> = root
            .descendants()
            .filter(|n| n.has_tag_name(tag) && *n != root)
            .filter_map(time_ms)
            .collect();
        (!times.is_empty()).then(|| times.iter().fold(0u64, |a, t| a.saturating_add(*t)))
    };
    sum("testsuite").or_else(|| sum("testcase"))
}

/// The first `path.ext:LINE` a failure's text names (googletest's `File.cpp:42: Failure`,
/// CMake's `CMake Error at run_trace_case.cmake:174`).
fn source_of(text: &str) -> Option<(String, u32)> {
    static RE: std::sync::OnceLock<Option<regex::Regex>> = std::sync::OnceLock::new();
    let re = RE
        .get_or_init(|| {
            regex::Regex::new(
                r"(?:^|[\s(])((?:[A-Za-z]:)?[A-Za-z0-9_./\\-]+\.(?:cpp|cc|cxx|c|hpp|hh|h|inl|cmake|py|sh)):([0-9]+)",
            )
            .ok()
        })
        .as_ref()?;
    let c = re.captures(text)?;
    Some((c[1].to_string(), c[2].parse().ok()?))
}

/// The status baseline: per lane, every name it ran and the names that were skipped.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Baseline {
    pub schema: u32,
    pub lanes: BTreeMap<String, BaselineLane>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BaselineLane {
    pub names: Vec<String>,
    pub skipped: Vec<String>,
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn ctest_junit_statuses_and_sources() {
        let x = r#"<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="Linux-c++" tests="4" failures="1" disabled="0" skipped="1" hostname="" time="3" timestamp="2026-12-02T10:00:00">
  <testcase name="A.pass" classname="A.pass" time="1" status="run"><system-out>ok</system-out></testcase>
  <testcase name="A.fail" classname="A.fail" time="1" status="fail">
    <failure message="Failed"/>
    <system-out>MG_Test/Pipe/RenderStateSpansTest.cpp:88: Failure
Expected equality</system-out>
  </testcase>
  <testcase name="A.skip" classname="A.skip" time="0" status="run"><skipped message="SKIP_REGULAR_EXPRESSION_MATCHED"/></testcase>
  <testcase name="A.off" classname="A.off" time="0" status="notrun"><skipped message="Disabled"/></testcase>
</testsuite>"#;
        let j = parse_junit(x.as_bytes(), "x.xml").unwrap();
        let st: Vec<_> = j.cases.iter().map(|c| c.status).collect();
        assert_eq!(st, [Status::Pass, Status::Fail, Status::Skip, Status::Skip]);
        assert_eq!(
            j.cases[1].source,
            Some(("MG_Test/Pipe/RenderStateSpansTest.cpp".into(), 88))
        );
        assert_eq!(j.cases[1].line, 4);
        assert_eq!(j.elapsed_ms, Some(3000));
        let cases_only = r#"<testsuite><testcase name="a" time="0.25"/><testcase name="b" time="1.5"/></testsuite>"#;
        let j = parse_junit(cases_only.as_bytes(), "c.xml").unwrap();
        assert_eq!(j.elapsed_ms, Some(1750));
    }

    #[test]
    fn truncated_and_foreign_files_are_errors() {
        let t = r#"<testsuite tests="3"><testcase name="a"/></testsuite>"#;
        assert!(matches!(
            parse_junit(t.as_bytes(), "t.xml"),
            Err(JunitError::Truncated { .. })
        ));
        assert!(matches!(
            parse_junit(b"<html/>", "h.xml"),
            Err(JunitError::NotJunit { .. })
        ));
        assert!(matches!(
            parse_junit(b"<testsuite>", "c.xml"),
            Err(JunitError::Xml { .. })
        ));
    }

    #[test]
    fn a_rerun_keeps_its_worst_outcome() {
        let t = r#"<testsuite><testcase name="a"><failure/></testcase><testcase name="a"/></testsuite>"#;
        let j = parse_junit(t.as_bytes(), "t.xml").unwrap();
        assert_eq!(j.statuses()["a"], Status::Fail);
    }
}
