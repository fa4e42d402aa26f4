//! The `ctest` gate's canned controls, run through [`super::check::check_inputs`] like a real
//! run over in-memory files: each negative control must trip with its own code, each positive
//! control stay clean. The names are G8's `HandleRecycleScenario` arms.

use std::collections::BTreeMap;
use std::time::SystemTime;

use diag::Control;

use super::cfg::{CtestConfig, ExpectConfig, Expected, LaneConfig};
use super::check::{check_inputs, Code, Files, ReadError};

const HANDLES: &str = "HandleRecycle.DirectGLES.Handles";
const LEGACY: &str = "HandleRecycle.DirectGLES.Legacy";
const ABA: &str = "HandleRecycle.DirectGLES.AbaControl";
const SPANS: &str = "RenderStateSpans.SetterConsistency";

struct Mem(BTreeMap<String, String>);

impl Files for Mem {
    fn read(&self, rel: &str) -> Result<Option<Vec<u8>>, ReadError> {
        Ok(self.0.get(rel).map(|t| t.clone().into_bytes()))
    }
    fn mtime(&self, _rel: &str) -> Option<SystemTime> {
        None
    }
    fn is_file(&self, rel: &str) -> bool {
        self.0.contains_key(rel)
    }
    fn label(&self) -> String {
        "<control>".into()
    }
}

/// A ctest JUnit of `(name, status)` cases.
fn junit(cases: &[(&str, &str)]) -> String {
    let mut s = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuite name=\"control\" tests=\"{}\">\n",
        cases.len()
    );
    for (n, st) in cases {
        let body = match *st {
            "fail" => "<failure message=\"Failed\"/><system-out>MG_Test/Pipe/HandleRecycleTest.cpp:42: Failure\nExpected: pixels from the new buffer</system-out>",
            "skip" => "<skipped message=\"GTEST_SKIP: MOBILEGL_PIPE_PUSH is off\"/>",
            _ => "",
        };
        let status = if *st == "fail" { "fail" } else { "run" };
        s.push_str(&format!(
            "  <testcase name=\"{n}\" classname=\"{n}\" status=\"{status}\">{body}</testcase>\n"
        ));
    }
    s.push_str("</testsuite>\n");
    s
}

fn listing(names: &[&str]) -> String {
    let mut s = String::from("Test project /build\n");
    for (i, n) in names.iter().enumerate() {
        s.push_str(&format!("  Test #{}: {n}\n", i + 1));
    }
    s.push_str(&format!("\nTotal Tests: {}\n", names.len()));
    s
}

fn baseline(lanes: &[(&str, &[&str], &[&str])]) -> String {
    let lanes: BTreeMap<&str, serde_json::Value> = lanes
        .iter()
        .map(|(l, names, skipped)| (*l, serde_json::json!({"names": names, "skipped": skipped})))
        .collect();
    serde_json::json!({"schema": 1, "lanes": lanes}).to_string()
}

fn expect(name: &str, outcome: Expected) -> ExpectConfig {
    ExpectConfig {
        name: toml::Spanned::new(0..0, name.into()),
        outcome,
        lanes: Vec::new(),
        why: None,
    }
}

fn config(lanes: &[&str], expects: Vec<ExpectConfig>) -> CtestConfig {
    CtestConfig {
        lanes: lanes
            .iter()
            .map(|l| LaneConfig {
                name: toml::Spanned::new(0..0, (*l).into()),
                junit: format!("{l}.xml"),
                list: Some(format!("{l}.txt")),
            })
            .collect(),
        expects,
        discovered: None,
        baseline: Some(toml::Spanned::new(0..0, "baseline.json".into())),
        mtimes: true,
    }
}

const ALL: &[&str] = &[HANDLES, LEGACY, ABA, SPANS];

/// A green run: both lanes ran every arm and it passed (AbaControl passes by asserting the
/// corruption), and the baseline knows it.
fn green() -> BTreeMap<String, String> {
    let pass: Vec<(&str, &str)> = ALL.iter().map(|n| (*n, "pass")).collect();
    let mut m = BTreeMap::new();
    for l in ["pull", "push"] {
        m.insert(format!("{l}.xml"), junit(&pass));
        m.insert(format!("{l}.txt"), listing(ALL));
    }
    m.insert(
        "baseline.json".into(),
        baseline(&[("pull", ALL, &[]), ("push", ALL, &[])]),
    );
    m
}

fn expects() -> Vec<ExpectConfig> {
    vec![
        expect("HandleRecycle.*.Handles", Expected::Pass),
        expect("HandleRecycle.*.Legacy", Expected::Pass),
        expect("HandleRecycle.*.AbaControl", Expected::Pass),
    ]
}

fn with(mut m: BTreeMap<String, String>, rel: &str, text: String) -> BTreeMap<String, String> {
    m.insert(rel.into(), text);
    m
}

fn push_with(cases: &[(&str, &str)]) -> BTreeMap<String, String> {
    with(green(), "push.xml", junit(cases))
}

/// Runs every control; `neutered(name)` feeds that negative control its clean twin.
pub fn run_controls(neutered: &dyn Fn(&str) -> bool) -> Vec<Control> {
    let fail_cfg = || {
        let mut e = expects();
        // the push lane runs the control arm with its perturbation: a red there is the pass
        let mut red = expect(SPANS, Expected::Fail);
        red.lanes = vec!["push".into()];
        e.push(red);
        e
    };
    // (name, must trip, its code, config, files, clean twin's config, clean twin's files)
    type Case = (
        &'static str,
        bool,
        Code,
        CtestConfig,
        BTreeMap<String, String>,
        Option<(CtestConfig, BTreeMap<String, String>)>,
    );
    let both = ["pull", "push"];
    let cases: Vec<Case> = vec![
        (
            "expected-pass-failed",
            true,
            Code::Cts001,
            config(&both, expects()),
            push_with(&[
                (HANDLES, "fail"),
                (LEGACY, "pass"),
                (ABA, "pass"),
                (SPANS, "pass"),
            ]),
            Some((config(&both, expects()), green())),
        ),
        (
            "expected-pass-skipped",
            true,
            Code::Cts001,
            config(&["push"], expects()),
            with(
                push_with(&[
                    (HANDLES, "pass"),
                    (LEGACY, "skip"),
                    (ABA, "pass"),
                    (SPANS, "pass"),
                ]),
                "baseline.json",
                baseline(&[("push", ALL, &[LEGACY])]),
            ),
            Some((
                config(&["push"], expects()),
                with(green(), "baseline.json", baseline(&[("push", ALL, &[])])),
            )),
        ),
        (
            "expected-fail-passed",
            true,
            Code::Cts002,
            config(&both, fail_cfg()),
            green(),
            Some((
                config(&both, fail_cfg()),
                push_with(&[
                    (HANDLES, "pass"),
                    (LEGACY, "pass"),
                    (ABA, "pass"),
                    (SPANS, "fail"),
                ]),
            )),
        ),
        (
            "expected-name-matches-nothing",
            true,
            Code::Cts003,
            config(
                &both,
                vec![expect("HandleRecycle.*.AbaControll", Expected::Pass)],
            ),
            green(),
            Some((config(&both, expects()), green())),
        ),
        (
            "unexpected-failure",
            true,
            Code::Cts004,
            config(&both, expects()),
            push_with(&[
                (HANDLES, "pass"),
                (LEGACY, "pass"),
                (ABA, "pass"),
                (SPANS, "fail"),
            ]),
            Some((config(&both, expects()), green())),
        ),
        (
            "pass-to-skip-against-baseline",
            true,
            Code::Cts005,
            config(&both, Vec::new()),
            push_with(&[
                (HANDLES, "pass"),
                (LEGACY, "pass"),
                (ABA, "pass"),
                (SPANS, "skip"),
            ]),
            Some((config(&both, Vec::new()), green())),
        ),
        (
            "vanished-name",
            true,
            Code::Cts006,
            config(&both, expects()),
            with(
                push_with(&[(HANDLES, "pass"), (LEGACY, "pass"), (ABA, "pass")]),
                "push.txt",
                listing(&[HANDLES, LEGACY, ABA]),
            ),
            Some((config(&both, expects()), green())),
        ),
        (
            "missing-lane",
            true,
            Code::Cts007,
            config(&["pull"], expects()),
            green(),
            Some((config(&both, expects()), green())),
        ),
        (
            "junit-older-than-listing",
            true,
            Code::Cts009,
            config(&both, expects()),
            with(
                green(),
                "push.txt",
                listing(&[
                    HANDLES,
                    LEGACY,
                    ABA,
                    SPANS,
                    "HandleRecycle.DirectGLES.Texture",
                ]),
            ),
            Some((config(&both, expects()), green())),
        ),
        (
            "green-run",
            false,
            Code::Cts001,
            config(&both, expects()),
            green(),
            None,
        ),
        (
            "skip-to-pass-is-not-red",
            false,
            Code::Cts005,
            config(&both, expects()),
            with(
                green(),
                "baseline.json",
                baseline(&[("pull", ALL, &[SPANS]), ("push", ALL, &[])]),
            ),
            None,
        ),
        (
            "expected-fail-failed",
            false,
            Code::Cts002,
            config(&both, fail_cfg()),
            push_with(&[
                (HANDLES, "pass"),
                (LEGACY, "pass"),
                (ABA, "pass"),
                (SPANS, "fail"),
            ]),
            None,
        ),
    ];
    cases
        .into_iter()
        .map(|(name, expect_trip, want, cfg, files, twin)| {
            let (cfg, files) = match twin {
                Some(t) if expect_trip && neutered(name) => t,
                _ => (cfg, files),
            };
            let o = check_inputs(&Mem(files), &cfg);
            Control::from_diags(name, expect_trip, want, &o.diags)
        })
        .collect()
}

/// The workspace with some files replaced (Some) or removed (None), never written.
struct Overlay<'a> {
    base: &'a dyn Files,
    files: BTreeMap<String, Option<Vec<u8>>>,
}

impl Files for Overlay<'_> {
    fn read(&self, rel: &str) -> Result<Option<Vec<u8>>, ReadError> {
        match self.files.get(rel) {
            Some(b) => Ok(b.clone()),
            None => self.base.read(rel),
        }
    }
    fn mtime(&self, rel: &str) -> Option<SystemTime> {
        self.base.mtime(rel)
    }
    fn is_file(&self, rel: &str) -> bool {
        match self.files.get(rel) {
            Some(b) => b.is_some(),
            None => self.base.is_file(rel),
        }
    }
    fn label(&self) -> String {
        self.base.label()
    }
}

/// `text` with the `<testcase>` element named `name` replaced by a failed one.
fn fail_case(text: &str, name: &str) -> Option<String> {
    let doc = roxmltree::Document::parse(text).ok()?;
    let case = doc
        .descendants()
        .find(|n| n.has_tag_name("testcase") && n.attribute("name") == Some(name))?;
    let r = case.range();
    let esc = name
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('"', "&quot;");
    Some(format!(
        "{}<testcase name=\"{esc}\" status=\"fail\"><failure message=\"live control: planted failure\"/></testcase>{}",
        &text[..r.start],
        &text[r.end..]
    ))
}

/// Live controls over the workspace's own lanes (in memory, never written): its first lane's
/// first expected-pass test (else its first test) planted as failed must go red (CTS001, or
/// CTS004 when no expectation covers it), and with a baseline, that lane's JUnit removed must
/// read as a missing lane (CTS007).
pub fn live_controls(
    files: &dyn Files,
    cfg: &CtestConfig,
    neutered: &dyn Fn(&str) -> bool,
) -> Vec<Control> {
    let Some(lane) = cfg.lanes.first() else {
        return vec![Control::not_configured()];
    };
    let mut out = Vec::new();
    let text = files
        .read(&lane.junit)
        .ok()
        .flatten()
        .map(|b| String::from_utf8_lossy(&b).into_owned());
    let junit = text
        .as_deref()
        .and_then(|t| super::parse_junit(t.as_bytes(), &lane.junit).ok());
    let lane_name = lane.name.get_ref();
    let covered = |n: &str| {
        cfg.expects.iter().any(|e| {
            e.outcome == Expected::Pass
                && (e.lanes.is_empty() || e.lanes.iter().any(|l| l == lane_name))
                && super::check::Matcher::new(e.name.get_ref()).is_ok_and(|m| m.is_match(n))
        })
    };
    let target = junit.as_ref().and_then(|j| {
        j.cases
            .iter()
            .find(|c| covered(&c.name))
            .or_else(|| j.cases.first())
            .map(|c| c.name.clone())
    });
    let name = "live-failed-entry";
    match (text.as_deref(), target) {
        (Some(t), Some(case)) => {
            let want = if covered(&case) {
                Code::Cts001
            } else {
                Code::Cts004
            };
            let mut o = Overlay {
                base: files,
                files: BTreeMap::new(),
            };
            if !neutered(name) {
                if let Some(planted) = fail_case(t, &case) {
                    o.files
                        .insert(lane.junit.clone(), Some(planted.into_bytes()));
                }
            }
            let r = check_inputs(&o, cfg);
            out.push(Control::from_diags(name, true, want, &r.diags));
        }
        _ => out.push(Control {
            name: name.into(),
            expect_trip: true,
            tripped: false,
            detail: format!(
                "lane {lane_name}: {} has no test case to plant a failure in",
                lane.junit
            ),
        }),
    }
    if cfg.baseline.is_some() {
        let name = "live-missing-lane";
        let mut o = Overlay {
            base: files,
            files: BTreeMap::new(),
        };
        if !neutered(name) {
            o.files.insert(lane.junit.clone(), None);
        }
        let r = check_inputs(&o, cfg);
        out.push(Control::from_diags(name, true, Code::Cts007, &r.diags));
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_control_behaves_and_neutering_breaks_each() {
        let all = super::run_controls(&|_| false);
        assert!(all.iter().all(|c| c.ok()), "{all:?}");
        // Each negative control, neutered by name, stops tripping and fails the self-test.
        let proven = diag::controls_can_fail(&|n| super::run_controls(n));
        assert!(proven.is_ok_and(|n| n > 0));
    }
}
