//! Gate `test-names`: the registered ctest names (MobileGL's G2 and G14). The current list must
//! keep every name of the checked-in baseline (ratchet) and equal each `same_as` list.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use lints::test_names::{self, report::ratchet_line, Delta, TestList};

use crate::gate::{CheckCtx, Control, Finding, Gate, GateReport, Location, Neutered, SelfTest};

pub const GATE: &str = "test-names";

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

/// Upstream keeps no list under version control (the lists are build outputs), so a MobileGL
/// checkout configures this gate explicitly; see docs/lint.md.
pub fn mobilegl_profile() -> Option<TestNamesConfig> {
    None
}

fn removed_findings(
    d: &Delta,
    before: &str,
    after: &str,
    code: &'static str,
    what: &str,
) -> Vec<Finding> {
    d.removed
        .iter()
        .map(|n| {
            Finding::error(
                GATE,
                code,
                format!("test `{n}` is in {before} but not in {after}{what}"),
            )
            .at(Location::file(after.to_string()))
            .in_unit(n.clone())
        })
        .collect()
}

/// Findings of the ratchet (TST001 removed, TST004 note for added) and of G2 (TST002).
pub fn findings(
    cur_path: &str,
    base: Option<(&str, &Delta)>,
    same: &[(String, Delta)],
) -> Vec<Finding> {
    let mut out = Vec::new();
    if let Some((base_path, d)) = base {
        out.extend(removed_findings(
            d,
            base_path,
            cur_path,
            "TST001",
            ": a phase may add tests, never remove one",
        ));
        if !d.added.is_empty() {
            out.push(
                Finding::note(
                    GATE,
                    "TST004",
                    format!(
                        "{} (added: {}); update {base_path} to ratchet them in",
                        ratchet_line(d),
                        d.added.join(", ")
                    ),
                )
                .at(Location::file(base_path.to_string())),
            );
        }
    }
    for (other, d) in same {
        out.extend(removed_findings(
            d,
            cur_path,
            other,
            "TST002",
            " (the lists must be identical)",
        ));
        for n in &d.added {
            out.push(
                Finding::error(GATE, "TST002", format!("test `{n}` is in {other} but not in {cur_path} (the lists must be identical)"))
                    .at(Location::file(cur_path.to_string()))
                    .in_unit(n.clone()),
            );
        }
    }
    out
}

fn load(root: &Path, rel: &str) -> Result<TestList, Box<Finding>> {
    let path: PathBuf = root.join(rel);
    test_names::read(&path).map_err(|e| {
        let msg = e.to_string();
        let msg = msg
            .strip_prefix(&format!("{}", root.display()))
            .map_or(msg.clone(), |m| m.trim_start_matches('/').to_string());
        Box::new(Finding::error(GATE, "TST003", msg).at(Location::file(rel.to_string())))
    })
}

pub struct TestNamesGate;

impl Gate for TestNamesGate {
    fn name(&self) -> &'static str {
        GATE
    }

    fn description(&self) -> &'static str {
        "registered ctest names: none removed against the baseline (G14), pull = push (G2)"
    }

    fn skip_reason(&self, ctx: &CheckCtx) -> Option<String> {
        match &ctx.config.test_names {
            None => Some("no [test_names] section in mgctl.toml".into()),
            Some(c) if c.baseline.is_none() && c.same_as.is_empty() => {
                Some("[test_names] has neither a baseline nor same_as lists to compare with".into())
            }
            Some(_) => None,
        }
    }

    fn run(&self, ctx: &CheckCtx) -> GateReport {
        let Some(cfg) = &ctx.config.test_names else {
            return GateReport::skipped(GATE, "no [test_names] section in mgctl.toml");
        };
        let mut errors = Vec::new();
        let current = load(&ctx.root, &cfg.current)
            .map_err(|f| errors.push(*f))
            .ok();
        let baseline = cfg
            .baseline
            .as_deref()
            .and_then(|b| load(&ctx.root, b).map_err(|f| errors.push(*f)).ok());
        let others: Vec<(String, TestList)> = cfg
            .same_as
            .iter()
            .filter_map(|p| {
                load(&ctx.root, p)
                    .map_err(|f| errors.push(*f))
                    .ok()
                    .map(|l| (p.clone(), l))
            })
            .collect();
        let mut inputs = vec![cfg.current.clone()];
        inputs.extend(cfg.baseline.clone());
        inputs.extend(cfg.same_as.iter().cloned());
        let Some(current) = current.filter(|_| errors.is_empty()) else {
            let mut r = GateReport::from_findings(GATE, errors, "could not run");
            r.inputs = inputs;
            return r;
        };
        let base_delta = baseline.as_ref().map(|b| test_names::delta(b, &current));
        let same: Vec<(String, Delta)> = others
            .iter()
            .map(|(p, l)| (p.clone(), test_names::delta(&current, l)))
            .collect();
        let fs = findings(
            &cfg.current,
            cfg.baseline.as_deref().zip(base_delta.as_ref()),
            &same,
        );
        let headline = match &base_delta {
            Some(d) => format!("{} tests / {}", current.names.len(), ratchet_line(d)),
            None => format!("{} tests", current.names.len()),
        };
        let mut r =
            GateReport::from_findings(GATE, fs, headline).figure("tests", current.names.len());
        if let Some(d) = &base_delta {
            r = r
                .figure("removed", d.removed.len())
                .figure("added", d.added.len());
        }
        r.units = current.names.iter().cloned().collect();
        r.inputs = inputs;
        r
    }

    fn self_test(&self, neutered: &Neutered) -> SelfTest {
        let before = "Test project /b\n  Test  #1: DirectGLES.Clear\n  Test  #2: DirectVulkan.Clear\n  Test  #3: smoke\n\nTotal Tests: 3\n";
        let grown = "DirectGLES.Clear\nDirectVulkan.Clear\nsmoke\nDirectGLES.Blend\n";
        let shrunk = "DirectGLES.Clear\nsmoke\nDirectGLES.Blend\n";
        let json_push = r#"{"kind":"ctestInfo","version":{"major":1,"minor":0},"tests":[{"name":"DirectGLES.Clear"},{"name":"DirectVulkan.Clear"},{"name":"smoke"}]}"#;
        let json_push_short = r#"{"kind":"ctestInfo","version":{"major":1,"minor":0},"tests":[{"name":"DirectGLES.Clear"},{"name":"smoke"}]}"#;
        // (name, must trip, ratchet (before, after) or same (a, b), code)
        let cases: [(&str, bool, bool, &str, &str, &str); 5] = [
            (
                "removed-test-trips-ratchet",
                true,
                true,
                before,
                shrunk,
                "TST001",
            ),
            (
                "pull-push-differ",
                true,
                false,
                before,
                json_push_short,
                "TST002",
            ),
            ("added-test-passes-ratchet", false, true, before, grown, ""),
            (
                "same-names-across-formats",
                false,
                false,
                before,
                json_push,
                "",
            ),
            (
                "truncated-transcript-is-an-error",
                true,
                true,
                "Test project /b\n  Test  #1: a\nTotal Tests: 2\n",
                grown,
                "TST003",
            ),
        ];
        let controls: Vec<Control> = cases
            .iter()
            .map(|&(name, expect_trip, ratchet, a, b, code)| {
                let b = if expect_trip && neutered.contains(GATE, name) {
                    if code == "TST003" {
                        return run_case(name, expect_trip, ratchet, before, grown, code);
                    }
                    if ratchet {
                        grown
                    } else {
                        json_push
                    }
                } else {
                    b
                };
                run_case(name, expect_trip, ratchet, a, b, code)
            })
            .collect();
        SelfTest::from_controls(controls)
    }
}

fn parse(s: &str, name: &str) -> Result<TestList, test_names::Error> {
    test_names::parse(s.as_bytes(), Path::new(name))
}

fn run_case(name: &str, expect_trip: bool, ratchet: bool, a: &str, b: &str, code: &str) -> Control {
    let (la, lb) = match (parse(a, "a.txt"), parse(b, "b.txt")) {
        (Ok(la), Ok(lb)) => (la, lb),
        (Err(e), _) | (_, Err(e)) => {
            // A negative control may trip only with the error it plants; a positive one must parse.
            let tripped = if expect_trip { code == "TST003" } else { true };
            return Control {
                name: name.into(),
                expect_trip,
                tripped,
                detail: e.to_string(),
            };
        }
    };
    let fs = if ratchet {
        let d = test_names::delta(&la, &lb);
        findings("b.txt", Some(("a.txt", &d)), &[])
    } else {
        findings(
            "a.txt",
            None,
            &[("b.txt".into(), test_names::delta(&la, &lb))],
        )
    };
    let first = fs
        .iter()
        .find(|f| f.severity == crate::gate::Severity::Error && (!expect_trip || f.code == code));
    Control {
        name: name.into(),
        expect_trip,
        tripped: first.is_some(),
        detail: first.map_or_else(|| "no error finding".to_string(), |f| f.message.clone()),
    }
}
