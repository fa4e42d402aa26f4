//! The `ctest` gate (issue 30, MobileGL G6/G8) on the embedded driver: green on a fresh clone
//! over its two lanes; the overlay turns exactly this gate red; an expectation that matches
//! nothing, a pass -> skip, a vanished name, a missing lane, a failed entry (at its source line)
//! and a JUnit older than its listing never read green; `--write-baseline` re-records on purpose.

use std::path::Path;
use std::time::{Duration, SystemTime};

use crate::util::{apply_violation, copy_driver, mgctl, repo_root};

const PUSH: &str = "MobileGL/MG_Test/ctest/push.xml";
const PULL: &str = "MobileGL/MG_Test/ctest/pull.xml";
const LIST: &str = "MobileGL/MG_Test/ctest-list.txt";
const BASELINE: &str = "MobileGL/MG_Test/ctest/status-baseline.json";

fn report(root: &Path, extra: &[&str]) -> (serde_json::Value, crate::util::Run) {
    let mut args = vec!["check", root.to_str().unwrap(), "--format", "json"];
    args.extend_from_slice(extra);
    let run = mgctl(&args, root);
    let v: serde_json::Value =
        serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}\n{}", run.dump()));
    (v, run)
}

fn gate(v: &serde_json::Value, name: &str) -> serde_json::Value {
    v["gates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["gate"] == name)
        .cloned()
        .unwrap_or_else(|| panic!("no gate {name}: {v}"))
}

/// `check --only ctest ROOT` as JSON: the gate's report.
fn ctest_only(root: &Path) -> (serde_json::Value, crate::util::Run) {
    let (v, run) = report(root, &["--only", "ctest"]);
    (gate(&v, "ctest"), run)
}

fn codes(g: &serde_json::Value) -> Vec<String> {
    g["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["severity"] == "error")
        .map(|f| f["code"].as_str().unwrap().to_string())
        .collect()
}

fn edit(root: &Path, rel: &str, from: &str, to: &str) {
    let p = root.join(rel);
    let text = std::fs::read_to_string(&p).unwrap();
    assert!(text.contains(from), "{rel} lacks {from:?}");
    std::fs::write(&p, text.replacen(from, to, 1)).unwrap();
}

#[test]
fn driver_ctest_is_green_in_the_repository() {
    let (g, run) = ctest_only(&repo_root().join("driver"));
    assert_eq!(g["verdict"], "pass", "{}", run.dump());
    assert_eq!(
        g["headline"],
        "2 lanes / 12 cases / 12 passed / 0 failed / 0 skipped; 3 expectations / 0 unmet; baseline MobileGL/MG_Test/ctest/status-baseline.json"
    );
    let inputs = g["inputs"].to_string();
    assert!(inputs.contains(PUSH) && inputs.contains(LIST), "{inputs}");
}

#[test]
fn the_pass_to_skip_overlay_turns_only_ctest_red() {
    let (_g, root) = copy_driver();
    let (v, _) = report(&root, &[]);
    let failing = |v: &serde_json::Value| -> Vec<String> {
        v["gates"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|g| g["verdict"] == "fail")
            .map(|g| g["gate"].as_str().unwrap().to_string())
            .collect()
    };
    let before = failing(&v);
    assert!(!before.contains(&"ctest".to_string()), "{before:?}");
    apply_violation(&root, "ctest-pass-to-skip");
    let (v, run) = report(&root, &[]);
    let mut after = failing(&v);
    after.retain(|g| !before.contains(g));
    assert_eq!(after, ["ctest"], "{}", run.dump());
    let g = gate(&v, "ctest");
    let c = codes(&g);
    assert!(c.contains(&"CTS005".to_string()), "{c:?}");
    assert!(c.contains(&"CTS001".to_string()), "{c:?}");
    let text = g["findings"].to_string();
    assert!(
        text.contains("lane push: DirectGLES.demo_stats_period_1 SKIPPED (baseline: pass)"),
        "{text}"
    );
}

#[test]
fn an_expectation_matching_nothing_fails() {
    let (_g, root) = copy_driver();
    edit(
        &root,
        "mgctl.toml",
        "name = \"DirectVulkan.*\"",
        "name = \"DirectVulkn.*\"",
    );
    let (g, run) = ctest_only(&root);
    run.expect(1);
    assert_eq!(codes(&g), ["CTS003"]);
    assert!(g["findings"].to_string().contains("matches no test"));
}

#[test]
fn a_failed_entry_is_a_finding_at_its_source_line() {
    let (_g, root) = copy_driver();
    edit(
        &root,
        PULL,
        "status=\"run\">\n\t\t<system-out>driver_demo: 300 frames on DirectVulkan (pull build), exit 0\n",
        "status=\"fail\">\n\t\t<failure message=\"Failed\"/>\n\t\t<system-out>/home/runner/work/MobileGL/MobileGL/MobileGL/MG_Test/demo/driver_demo.cpp:12: Failure\nExpected: frames == 300\n",
    );
    let (g, run) = ctest_only(&root);
    let run = run.expect(1);
    let f = g["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["code"] == "CTS001")
        .cloned()
        .unwrap_or_else(|| panic!("{}", run.dump()));
    assert_eq!(
        f["location"]["path"], "MobileGL/MG_Test/demo/driver_demo.cpp",
        "{f}"
    );
    assert_eq!(f["location"]["line"], 12, "{f}");
    assert!(
        f["message"]
            .as_str()
            .unwrap()
            .contains("driver_demo.cpp:12: Failure"),
        "{f}"
    );
    // the same failure reaches the GitHub format as an annotation at that line
    let gh = mgctl(
        &[
            "check",
            root.to_str().unwrap(),
            "--only",
            "ctest",
            "--format",
            "github",
        ],
        &root,
    );
    assert!(
        gh.stdout
            .contains("file=MobileGL/MG_Test/demo/driver_demo.cpp,line=12"),
        "{}",
        gh.dump()
    );
}

#[test]
fn a_vanished_name_and_a_missing_lane_are_red() {
    let (_g, root) = copy_driver();
    let text = std::fs::read_to_string(root.join(PUSH)).unwrap();
    let start = text
        .find("\t<testcase name=\"DirectVulkan.demo_benchmark_json\"")
        .unwrap();
    let end = start + text[start..].find("</testcase>\n").unwrap() + "</testcase>\n".len();
    let cut = format!("{}{}", &text[..start], &text[end..]).replace("tests=\"6\"", "tests=\"5\"");
    std::fs::write(root.join(PUSH), cut).unwrap();
    let (g, run) = ctest_only(&root);
    run.expect(1);
    let c = codes(&g);
    // vanished from the baseline, and the listing still registers it (the JUnit is partial)
    assert!(
        c.contains(&"CTS006".to_string()) && c.contains(&"CTS009".to_string()),
        "{c:?}"
    );

    let (_g, root) = copy_driver();
    std::fs::remove_file(root.join(PULL)).unwrap();
    let (g, run) = ctest_only(&root);
    run.expect(1);
    let c = codes(&g);
    assert!(c.contains(&"CTS007".to_string()), "{c:?}");
}

#[test]
fn a_junit_older_than_its_listing_is_stale() {
    let (_g, root) = copy_driver();
    edit(
        &root,
        "mgctl.toml",
        "mtimes = false\ndiscovered",
        "discovered",
    );
    // a copy's file times are its copy order: pin them (listing an hour ago, pull after it,
    // push before it)
    let now = SystemTime::now();
    for (rel, ago) in [(LIST, 3600), (PULL, 0), (PUSH, 7200)] {
        std::fs::File::options()
            .write(true)
            .open(root.join(rel))
            .unwrap()
            .set_modified(now - Duration::from_secs(ago))
            .unwrap();
    }
    let (g, run) = ctest_only(&root);
    let run = run.expect(1);
    assert_eq!(codes(&g), ["CTS009"], "{}", run.dump());
    assert!(g["findings"].to_string().contains("is older than"));
}

#[test]
fn write_baseline_rerecords_on_purpose() {
    let (_g, root) = copy_driver();
    apply_violation(&root, "ctest-pass-to-skip");
    let (g, run) = ctest_only(&root);
    assert!(codes(&g).contains(&"CTS005".to_string()), "{}", run.dump());
    let w = mgctl(
        &[
            "lint",
            "ctest",
            "-C",
            root.to_str().unwrap(),
            "--write-baseline",
        ],
        &root,
    )
    .expect(0);
    w.assert_stdout_has("ctest status baseline written: 2 lane(s), 12 case(s), 1 skipped");
    let b: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(root.join(BASELINE)).unwrap()).unwrap();
    assert_eq!(
        b["lanes"]["push"]["skipped"][0],
        "DirectGLES.demo_stats_period_1"
    );
    // the skip is now recorded: only the expectations that it must pass are left red
    let (g, run) = ctest_only(&root);
    assert_eq!(codes(&g), ["CTS001", "CTS001"], "{}", run.dump());
    let l = mgctl(&["lint", "ctest", "-C", root.to_str().unwrap()], &root).expect(1);
    l.assert_stdout_has("1 skipped; 3 expectations / 2 unmet");
}

#[test]
fn self_test_trips_every_control_and_a_neutered_one_fails() {
    let run = mgctl(&["lint", "ctest", "--self-test"], &repo_root()).expect(0);
    for c in [
        "expected-pass-failed",
        "expected-name-matches-nothing",
        "pass-to-skip-against-baseline",
        "vanished-name",
        "missing-lane",
    ] {
        run.assert_stdout_has(&format!("negative control {c}: tripped"));
    }
    let run = mgctl(
        &[
            "lint",
            "ctest",
            "--self-test",
            "--neuter",
            "ctest/missing-lane",
        ],
        &repo_root(),
    )
    .expect(1);
    run.assert_stdout_has("missing-lane: NEGATIVE CONTROL DID NOT TRIP");
    let run = mgctl(
        &["check", "driver", "--only", "ctest", "--self-test"],
        &repo_root(),
    )
    .expect(0);
    run.assert_stdout_has("ctest");
}
