//! The `evidence` gate (issue 33, mechanism 5; upstream `scripts/ci/runtime_mode_proof.py` logs
//! half, `junit_tally.py`'s TCP proof, `magma_runahead_checks.py`'s validation arm): the role
//! logs of the ctest entries a set selects are fresh, hold every required line, none of the
//! forbidden ones, and counts within range. The driver ships the logs of four entries of
//! `MobileGL/MG_Test/ctest/pull.xml` and two sets over them.

use std::path::Path;
use std::time::{Duration, SystemTime};

use crate::util::*;

const LOGS: &str = "MobileGL/MG_Test/ctest/logs";
const GREEN: &str = "2 sets / 4 tests / 8 role logs, 56 lines / 9 rules, 0 broken";

fn check(root: &Path, rc: i32) -> (Run, serde_json::Value) {
    gate_report(root, "evidence", rc)
}

fn codes(g: &serde_json::Value) -> Vec<String> {
    finding_codes(g)
}

fn log(test: &str, role: &str) -> String {
    format!("{LOGS}/{test}/mobilegl.{role}.log")
}

/// Rewrites the copy's mgctl.toml: `from` (which must occur) becomes `to` in the evidence part
/// (appended last, after the `# Per-test log evidence` comment).
fn edit_config(root: &Path, from: &str, to: &str) {
    let p = root.join("mgctl.toml");
    let text = std::fs::read_to_string(&p).unwrap();
    let at = text.find("# Per-test log evidence").unwrap();
    let (head, tail) = text.split_at(at);
    assert!(tail.contains(from), "{from} not in the evidence sections");
    std::fs::write(&p, format!("{head}{}", tail.replace(from, to))).unwrap();
}

fn edit_log(root: &Path, rel: &str, from: &str, to: &str) {
    let p = root.join(rel);
    let text = std::fs::read_to_string(&p).unwrap();
    assert!(text.contains(from), "{from} not in {rel}");
    std::fs::write(&p, text.replace(from, to)).unwrap();
}

#[test]
fn the_driver_logs_hold_their_evidence() {
    let (run, g) = check(&driver(), 0);
    assert_eq!(g["verdict"], "pass", "{}", run.dump());
    assert_eq!(g["headline"], GREEN);
    assert_eq!(codes(&g), Vec::<String>::new());
}

#[test]
fn a_fatal_in_a_server_log_is_red_at_its_line_with_the_line_escaped() {
    let (_d, root) = copy_driver();
    apply_violation(&root, "evidence-fatal-in-server-log");
    let (run, g) = check(&root, 1);
    assert_eq!(codes(&g), ["EVD002"], "{}", run.dump());
    let f = &g["findings"][0];
    let server = log("DirectGLES.demo_frames_300", "server");
    assert_eq!(f["location"]["path"], server.as_str(), "{f}");
    assert_eq!(f["location"]["line"], 6, "{f}");
    let m = f["message"].as_str().unwrap();
    assert!(
        m.starts_with(&format!(
            "test DirectGLES.demo_frames_300: server log {server}:6 matches forbidden `Fatal\\{{` (set `inproc-proof`): "
        )),
        "{m}"
    );
    assert!(m.contains("MGPipe: Fatal{ProtocolCorruption, "), "{m}");
    assert_eq!(
        g["headline"],
        "2 sets / 4 tests / 8 role logs, 53 lines / 9 rules, 1 broken"
    );
    // A control character in the forbidden line is escaped, never passed through.
    edit_log(&root, &server, "claims", "\x1b[2Jclaims");
    let (run, g) = check(&root, 1);
    let m = g["findings"][0]["message"].as_str().unwrap();
    assert!(
        m.contains("\\x1b[2Jclaims") && !m.contains('\x1b'),
        "{}",
        run.dump()
    );
}

#[test]
fn a_log_older_than_the_run_is_stale_when_mtimes_are_compared() {
    let (_d, root) = copy_driver();
    edit_config(&root, "mtimes = false", "mtimes = true");
    // A fresh copy: every file was just written, within the run the JUnit dates.
    let (run, g) = check(&root, 0);
    assert_eq!(codes(&g), Vec::<String>::new(), "{}", run.dump());
    let old = log("DirectGLES.demo_stats_period_1", "client");
    let f = std::fs::File::options()
        .write(true)
        .open(root.join(&old))
        .unwrap();
    f.set_modified(SystemTime::now() - Duration::from_secs(3600))
        .unwrap();
    drop(f);
    let (run, g) = check(&root, 1);
    assert_eq!(codes(&g), ["EVD006"], "{}", run.dump());
    assert_eq!(g["findings"][0]["location"]["path"], old.as_str());
    let m = g["findings"][0]["message"].as_str().unwrap();
    assert!(
        m.contains("is stale: last written")
            && m.contains("before the run of MobileGL/MG_Test/ctest/pull.xml began"),
        "{m}"
    );
}

#[test]
fn a_missing_role_log_is_red_naming_the_test_role_and_path() {
    let (_d, root) = copy_driver();
    let gone = log("DirectVulkan.demo_frames_300", "client");
    std::fs::remove_file(root.join(&gone)).unwrap();
    let (run, g) = check(&root, 1);
    // The `any` rule still finds its line in the server log; the missing log is the finding.
    assert_eq!(codes(&g), ["EVD004"], "{}", run.dump());
    assert_eq!(
        g["findings"][0]["message"],
        format!(
            "test DirectVulkan.demo_frames_300: no client log at {gone} (the entry ran, so its log was never written or was removed)"
        )
    );
}

#[test]
fn a_non_utf8_log_is_red_with_its_bad_bytes_counted_and_located() {
    let (_d, root) = copy_driver();
    let rel = log("DirectGLES.demo_benchmark_json", "server");
    let mut bytes = std::fs::read(root.join(&rel)).unwrap();
    let at = bytes.len();
    bytes.extend_from_slice(b"[09:41:12] [Linux MobileGLDemo/INFO]: \xff\xfe\n");
    std::fs::write(root.join(&rel), bytes).unwrap();
    let (run, g) = check(&root, 1);
    assert_eq!(codes(&g), ["EVD005"], "{}", run.dump());
    assert_eq!(g["findings"][0]["location"]["line"], 9);
    run.assert_stdout_has(&format!(
        "2 bad byte(s), the first at byte offset {}",
        at + "[09:41:12] [Linux MobileGLDemo/INFO]: ".len()
    ));
}

#[test]
fn a_tests_regex_selecting_nothing_is_red_at_its_config_line() {
    let (_d, root) = copy_driver();
    edit_config(
        &root,
        r"tests = '^DirectVulkan\.demo_frames_300$'",
        r"tests = '^DirectVulkan\.Split\.'",
    );
    let (run, g) = check(&root, 1);
    assert_eq!(codes(&g), ["EVD007"], "{}", run.dump());
    let f = &g["findings"][0];
    assert_eq!(f["location"]["path"], "mgctl.toml");
    let text = std::fs::read_to_string(root.join("mgctl.toml")).unwrap();
    let line = text
        .lines()
        .position(|l| l.starts_with(r"tests = '^DirectVulkan\.Split\.'"))
        .unwrap()
        + 1;
    assert_eq!(f["location"]["line"], line);
    assert!(f["message"]
        .as_str()
        .unwrap()
        .contains("selects no entry of MobileGL/MG_Test/ctest/pull.xml that ran"));
}

#[test]
fn a_shared_log_path_over_several_tests_and_an_unknown_role_are_config_errors() {
    let (_d, root) = copy_driver();
    edit_config(
        &root,
        "logs/{test}/mobilegl.server.log\" }\nrequire = [\n",
        "logs/mobilegl.server.log\" }\nrequire = [\n",
    );
    let (run, g) = check(&root, 1);
    assert_eq!(codes(&g), ["EVD008"], "{}", run.dump());
    run.assert_stdout_has("has no `{test}` but `tests` selects 3 entries");
    let (_d, root) = copy_driver();
    edit_config(&root, "{ role = \"any\",", "{ role = \"either\",");
    let (run, g) = check(&root, 1);
    assert_eq!(codes(&g), ["EVD008"], "{}", run.dump());
    run.assert_stdout_has("a rule names the role `either`");
}

#[test]
fn self_test_trips_every_control_and_a_neutered_one_fails() {
    let run = mgctl(
        &["check", "driver", "--only", "evidence", "--self-test"],
        &repo_root(),
    )
    .expect(0);
    run.assert_stdout_has("negative controls tripped: 12/12");
    for c in [
        "fatal-in-server-log",
        "stale-log",
        "tests-select-nothing",
        "live-inproc-proof",
    ] {
        let run = mgctl(
            &[
                "check",
                "driver",
                "--only",
                "evidence",
                "--self-test",
                "--neuter",
                &format!("evidence/{c}"),
            ],
            &repo_root(),
        )
        .expect(1);
        run.assert_stdout_has(&format!("{c}: negative control did not trip"));
    }
}

/// The upstream script's verdicts on the same trees, read from `scripts/ci/runtime_mode_proof.py`
/// of MobileGL-Dev/MobileGL (`logs` mode: `inproc_log_proof` over each RSP case's client and
/// server logs joined; its self-test documents the edges): exit 0 writes the proof, a
/// `RuntimeError` ("library log does not prove real inproc / strict / role state / zero Fatal")
/// or a `FileNotFoundError` (a role log missing) is red. mgctl's side is run here.
#[test]
fn upstream_runtime_mode_proof_agrees_on_three_trees() {
    struct Tree {
        name: &'static str,
        upstream: &'static str,
        plant: fn(&Path),
        codes: &'static [&'static str],
    }
    let trees = [
        Tree {
            name: "green: both roles say inproc, strict, role-split, run-ahead; no Fatal",
            upstream: "logs runtime proof written",
            plant: |_| {},
            codes: &[],
        },
        Tree {
            name: "red: a server-side Fatal{ (the script's `server-side Fatal passed` control)",
            upstream: "RuntimeError: library log does not prove real inproc / strict / role state / zero Fatal",
            plant: |root| apply_violation(root, "evidence-fatal-in-server-log"),
            codes: &["EVD002"],
        },
        Tree {
            name: "edge: the env variable accepted but no transport marker (the self-test's first bad log)",
            upstream: "RuntimeError: library log does not prove real inproc / strict / role state / zero Fatal",
            plant: |root| {
                edit_log(
                    root,
                    &log("DirectGLES.demo_stats_period_1", "client"),
                    "Config: MOBILEGL_TRANSPORT=inproc - the MGPipe record stream crosses a real ring",
                    "Config: Accepted env variable: MOBILEGL_TRANSPORT=inproc",
                )
            },
            codes: &["EVD001"],
        },
        Tree {
            name: "edge: a role log missing (the self-test's `missing server log`)",
            upstream: "FileNotFoundError",
            plant: |root| {
                std::fs::remove_file(root.join(log("DirectGLES.demo_frames_300", "server")))
                    .unwrap()
            },
            codes: &["EVD004"],
        },
        Tree {
            name: "edge: strict=0 in one role (the self-test's `strict=0`)",
            upstream: "RuntimeError: library log does not prove real inproc / strict / role state / zero Fatal",
            plant: |root| {
                edit_log(
                    root,
                    &log("DirectGLES.demo_benchmark_json", "server"),
                    "strict=1",
                    "strict=0",
                )
            },
            // the required setting is absent, and the explicit `=0` is forbidden
            codes: &["EVD001", "EVD002"],
        },
    ];
    for t in trees {
        let (_d, root) = copy_driver();
        (t.plant)(&root);
        let green = t.upstream.starts_with("logs runtime proof written");
        let (run, g) = check(&root, if green { 0 } else { 1 });
        let mut got = codes(&g);
        got.sort();
        assert_eq!(
            got,
            t.codes,
            "{} (upstream: {}): {}",
            t.name,
            t.upstream,
            run.dump()
        );
    }
}

#[test]
fn a_line_past_the_cap_is_checked_on_its_first_mib_and_said_so() {
    let (_d, root) = copy_driver();
    let rel = log("DirectGLES.demo_frames_300", "client");
    let mut text = std::fs::read_to_string(root.join(&rel)).unwrap();
    // 1.5 MiB of one line, and a forbidden word past the first MiB: not seen, and the cut is said.
    text.push_str(&"x".repeat(3 << 19));
    text.push_str(" Fatal{Late}\n");
    std::fs::write(root.join(&rel), text).unwrap();
    let (run, g) = check(&root, 0);
    assert_eq!(codes(&g), ["EVD011"], "{}", run.dump());
    assert_eq!(g["findings"][0]["severity"], "warning");
    assert_eq!(g["findings"][0]["location"]["line"], 7);
}
