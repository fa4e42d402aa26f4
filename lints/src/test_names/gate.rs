//! The `test-names` analysis as one entry point ([`outcome`]), its `[test_names]` config,
//! finding codes and self-test controls.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::report::ratchet_line;
use super::{delta, parse, read, Delta, Error, TestList};
use crate::diag::{Control, Diag, Outcome};

diag::codes! {
    /// Finding codes of the `test-names` gate (docs/codes.md).
    pub enum Code: "TST" {
        Tst001 = "TST001": "a baseline test is missing from the current list",
        Tst002 = "TST002": "two lists that must be identical differ",
        Tst003 = "TST003": "a test list could not be read",
        Tst004 = "TST004": "tests were added: ratchet the baseline",
    }
}

/// `[test_names]` in mgctl.toml.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TestNamesConfig {
    /// The current list: a `ctest -N` transcript, `--show-only=json-v1` JSON or a plain list.
    pub current: String,
    /// The checked-in baseline: no name of it may vanish from `current` (G14).
    pub baseline: Option<String>,
    /// Lists that must register exactly the same names as `current` (G2, pull vs push).
    #[serde(default)]
    pub same_as: Vec<String>,
}

impl crate::diag::Section for TestNamesConfig {
    const NAME: &'static str = "[test_names]";
    fn nothing_to_check(&self) -> Option<String> {
        (self.baseline.is_none() && self.same_as.is_empty()).then(|| {
            "[test_names] has neither a baseline nor same_as lists to compare with".to_string()
        })
    }
}

/// Upstream keeps no list under version control (the lists are build outputs), so a MobileGL
/// checkout configures this gate explicitly; see docs/lint.md.
pub fn mobilegl_profile() -> Option<TestNamesConfig> {
    None
}

fn removed_diags(d: &Delta, before: &str, after: &str, code: Code, what: &str) -> Vec<Diag<Code>> {
    d.removed
        .iter()
        .map(|n| {
            Diag::error(
                code,
                format!("test `{n}` is in {before} but not in {after}{what}"),
            )
            .file(after.to_string())
            .in_unit(n.clone())
        })
        .collect()
}

/// Diagnostics of the ratchet (TST001 removed, TST004 note for added) and of G2 (TST002).
pub fn diags(
    cur_path: &str,
    base: Option<(&str, &Delta)>,
    same: &[(String, Delta)],
) -> Vec<Diag<Code>> {
    let mut out = Vec::new();
    if let Some((base_path, d)) = base {
        out.extend(removed_diags(
            d,
            base_path,
            cur_path,
            Code::Tst001,
            ": a phase may add tests, never remove one",
        ));
        if !d.added.is_empty() {
            out.push(
                Diag::note(
                    Code::Tst004,
                    format!(
                        "{} (added: {}); update {base_path} to ratchet them in",
                        ratchet_line(d),
                        d.added.join(", ")
                    ),
                )
                .file(base_path.to_string()),
            );
        }
    }
    for (other, d) in same {
        out.extend(removed_diags(
            d,
            cur_path,
            other,
            Code::Tst002,
            " (the lists must be identical)",
        ));
        for n in &d.added {
            out.push(
                Diag::error(
                    Code::Tst002,
                    format!("test `{n}` is in {other} but not in {cur_path} (the lists must be identical)"),
                )
                .file(cur_path.to_string())
                .in_unit(n.clone()),
            );
        }
    }
    out
}

fn load(root: &Path, rel: &str) -> Result<TestList, Box<Diag<Code>>> {
    let path: PathBuf = root.join(rel);
    read(&path).map_err(|e| {
        let msg = e.to_string();
        let msg = msg
            .strip_prefix(&format!("{}", root.display()))
            .map_or(msg.clone(), |m| m.trim_start_matches('/').to_string());
        Box::new(Diag::error(Code::Tst003, msg).file(rel.to_string()))
    })
}

/// The configured lists of the workspace at `root`, compared.
pub fn outcome(root: &Path, cfg: &TestNamesConfig) -> Outcome<Code> {
    let mut errors = Vec::new();
    let current = load(root, &cfg.current).map_err(|d| errors.push(*d)).ok();
    let baseline = cfg
        .baseline
        .as_deref()
        .and_then(|b| load(root, b).map_err(|d| errors.push(*d)).ok());
    let others: Vec<(String, TestList)> = cfg
        .same_as
        .iter()
        .filter_map(|p| {
            load(root, p)
                .map_err(|d| errors.push(*d))
                .ok()
                .map(|l| (p.clone(), l))
        })
        .collect();
    let mut inputs = vec![cfg.current.clone()];
    inputs.extend(cfg.baseline.clone());
    inputs.extend(cfg.same_as.iter().cloned());
    let Some(current) = current.filter(|_| errors.is_empty()) else {
        let mut o = Outcome::could_not_run(errors);
        o.inputs = inputs;
        return o;
    };
    let base_delta = baseline.as_ref().map(|b| delta(b, &current));
    let same: Vec<(String, Delta)> = others
        .iter()
        .map(|(p, l)| (p.clone(), delta(&current, l)))
        .collect();
    let headline = match &base_delta {
        Some(d) => format!("{} tests / {}", current.names.len(), ratchet_line(d)),
        None => format!("{} tests", current.names.len()),
    };
    let mut o = Outcome {
        diags: diags(
            &cfg.current,
            cfg.baseline.as_deref().zip(base_delta.as_ref()),
            &same,
        ),
        headline,
        units: current.names.iter().cloned().collect(),
        inputs,
        ..Outcome::default()
    }
    .figure("tests", current.names.len());
    if let Some(d) = &base_delta {
        o = o
            .figure("removed", d.removed.len())
            .figure("added", d.added.len());
    }
    o
}

fn parse_str(s: &str, name: &str) -> Result<TestList, Error> {
    parse(s.as_bytes(), Path::new(name))
}

fn run_case(name: &str, expect_trip: bool, ratchet: bool, a: &str, b: &str, code: Code) -> Control {
    let (la, lb) = match (parse_str(a, "a.txt"), parse_str(b, "b.txt")) {
        (Ok(la), Ok(lb)) => (la, lb),
        (Err(e), _) | (_, Err(e)) => {
            // A negative control may trip only with the error it plants; a positive one must parse.
            let tripped = if expect_trip {
                code == Code::Tst003
            } else {
                true
            };
            return Control {
                name: name.into(),
                expect_trip,
                tripped,
                detail: e.to_string(),
            };
        }
    };
    let ds = if ratchet {
        let d = delta(&la, &lb);
        diags("b.txt", Some(("a.txt", &d)), &[])
    } else {
        diags("a.txt", None, &[("b.txt".into(), delta(&la, &lb))])
    };
    let mut c = Control::from_diags(name, expect_trip, code, &ds);
    if !c.tripped {
        c.detail = "no error finding".into();
    }
    c
}

/// The gate's controls; `neutered(name)` feeds that negative control its clean twin.
pub fn run_controls(neutered: &dyn Fn(&str) -> bool) -> Vec<Control> {
    let before = "Test project /b\n  Test  #1: DirectGLES.Clear\n  Test  #2: DirectVulkan.Clear\n  Test  #3: smoke\n\nTotal Tests: 3\n";
    let grown = "DirectGLES.Clear\nDirectVulkan.Clear\nsmoke\nDirectGLES.Blend\n";
    let shrunk = "DirectGLES.Clear\nsmoke\nDirectGLES.Blend\n";
    let json_push = r#"{"kind":"ctestInfo","version":{"major":1,"minor":0},"tests":[{"name":"DirectGLES.Clear"},{"name":"DirectVulkan.Clear"},{"name":"smoke"}]}"#;
    let json_push_short = r#"{"kind":"ctestInfo","version":{"major":1,"minor":0},"tests":[{"name":"DirectGLES.Clear"},{"name":"smoke"}]}"#;
    // (name, must trip, ratchet (before, after) or same (a, b), code)
    let cases: [(&str, bool, bool, &str, &str, Code); 5] = [
        (
            "removed-test-trips-ratchet",
            true,
            true,
            before,
            shrunk,
            Code::Tst001,
        ),
        (
            "pull-push-differ",
            true,
            false,
            before,
            json_push_short,
            Code::Tst002,
        ),
        (
            "added-test-passes-ratchet",
            false,
            true,
            before,
            grown,
            Code::Tst001,
        ),
        (
            "same-names-across-formats",
            false,
            false,
            before,
            json_push,
            Code::Tst001,
        ),
        (
            "truncated-transcript-is-an-error",
            true,
            true,
            "Test project /b\n  Test  #1: a\nTotal Tests: 2\n",
            grown,
            Code::Tst003,
        ),
    ];
    cases
        .iter()
        .map(|&(name, expect_trip, ratchet, a, b, code)| {
            if expect_trip && neutered(name) {
                if code == Code::Tst003 {
                    return run_case(name, expect_trip, ratchet, before, grown, code);
                }
                let clean = if ratchet { grown } else { json_push };
                return run_case(name, expect_trip, ratchet, a, clean, code);
            }
            run_case(name, expect_trip, ratchet, a, b, code)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn controls_behave() {
        let all = super::run_controls(&|_| false);
        assert!(all.iter().all(|c| c.expect_trip == c.tripped), "{all:?}");
        let proven =
            diag::controls_can_fail(&|n| super::run_controls(n)).unwrap_or_else(|e| panic!("{e}"));
        assert!(proven > 0);
    }
}
