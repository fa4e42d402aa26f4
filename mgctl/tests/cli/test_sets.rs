//! The `test-sets` gate (issue 33, mechanism 2): lane parity (split = spawn = tcp after the arm
//! segment comes off) and split coverage (monolith ⊆ split ∪ exempt) on driver copies.

use std::path::Path;

use crate::util::*;

fn gate(run: &Run) -> serde_json::Value {
    let v: serde_json::Value =
        serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}\n{}", run.dump()));
    v["gates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["gate"] == "test-sets")
        .cloned()
        .unwrap_or_else(|| panic!("no test-sets gate\n{}", run.dump()))
}

fn check(root: &Path, rc: i32) -> (Run, serde_json::Value) {
    let run = mgctl(
        &[
            "check",
            root.to_str().unwrap(),
            "--only",
            "test-sets",
            "--format",
            "json",
        ],
        root,
    )
    .expect(rc);
    let g = gate(&run);
    (run, g)
}

fn codes(g: &serde_json::Value) -> Vec<String> {
    g["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["code"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn driver_lanes_are_equal_and_covered() {
    let (run, g) = check(&driver(), 0);
    assert_eq!(g["verdict"], "pass", "{}", run.dump());
    assert_eq!(
        g["headline"],
        "4 lanes / 1 equal, 1 subset: 0 missing, 0 uncovered, 1 exempt, 0 stale"
    );
}

#[test]
fn a_test_missing_from_one_lane_is_red_by_name() {
    let (_d, root) = copy_driver();
    apply_violation(&root, "test-sets-missing-from-lane");
    let (run, g) = check(&root, 1);
    assert_eq!(codes(&g), ["TSS001"], "{}", run.dump());
    let m = g["findings"][0]["message"].as_str().unwrap();
    assert!(
        m.starts_with(
            "`DirectGLES.demo_stats_period_1` is in lane split, spawn but not in lane `tcp`"
        ),
        "{m}"
    );
}

#[test]
fn a_stale_exemption_is_red_at_its_row() {
    let (_d, root) = copy_driver();
    apply_violation(&root, "test-sets-stale-exemption");
    let (run, g) = check(&root, 1);
    assert_eq!(codes(&g), ["TSS004"], "{}", run.dump());
    run.assert_stdout_has("MobileGL/MG_Test/lanes/exemptions.txt");
    run.assert_stdout_has("is stale");
}

#[test]
fn an_uncovered_test_an_ownerless_row_and_an_empty_lane() {
    let (_d, root) = copy_driver();
    let ex = root.join("MobileGL/MG_Test/lanes/exemptions.txt");
    // Without its row the Vulkan benchmark is uncovered (TSS003).
    std::fs::write(&ex, "# no rows\n").unwrap();
    let (run, g) = check(&root, 1);
    assert_eq!(codes(&g), ["TSS003"], "{}", run.dump());
    // A row without an owner is malformed (TSS006), and so the test is uncovered again.
    std::fs::write(
        &ex,
        "DirectVulkan.demo_benchmark_json inproc-peek reads in-process stats\n",
    )
    .unwrap();
    let (run, g) = check(&root, 1);
    assert_eq!(codes(&g), ["TSS003", "TSS006"], "{}", run.dump());
    // An empty spawn lane is red, not vacuously equal.
    std::fs::write(
        root.join("MobileGL/MG_Test/lanes/spawn.txt"),
        "Test project /b\n\nTotal Tests: 0\n",
    )
    .unwrap();
    std::fs::write(
        &ex,
        "DirectVulkan.demo_benchmark_json inproc-peek x owner=P8-B\n",
    )
    .unwrap();
    let (run, g) = check(&root, 1);
    assert_eq!(codes(&g), ["TSS002"], "{}", run.dump());
}

#[test]
fn a_bad_listing_fails_only_this_gate_with_file_and_line() {
    let (_d, root) = copy_driver();
    std::fs::write(root.join("MobileGL/MG_Test/lanes/tcp.xml"), "<testsuite>").unwrap();
    let (run, g) = check(&root, 1);
    assert_eq!(codes(&g), ["TSS007"], "{}", run.dump());
    run.assert_stdout_has("MobileGL/MG_Test/lanes/tcp.xml:1:");
}

#[test]
fn self_test_trips_every_control_and_a_neutered_one_fails() {
    let run = mgctl(
        &["check", "driver", "--only", "test-sets", "--self-test"],
        &repo_root(),
    )
    .expect(0);
    run.assert_stdout_has("negative controls tripped: 9/9");
    for c in [
        "test-sets/missing-name-trips",
        "test-sets/stale-exemption-trips",
        "test-sets/live-missing-name",
    ] {
        let run = mgctl(
            &[
                "check",
                "driver",
                "--only",
                "test-sets",
                "--self-test",
                "--neuter",
                c,
            ],
            &repo_root(),
        )
        .expect(1);
        let name = c.trim_start_matches("test-sets/");
        run.assert_stdout_has(&format!("{name}: negative control did not trip"));
    }
}

/// What upstream `scripts/ci/spawn_lane_parity.py` and `scripts/ci/split_coverage.py`
/// (MobileGL-Dev/MobileGL) exit with on the same lanes, next to mgctl's codes: green (both 0); a
/// test missing from the tcp lane (parity exits 1, `integration-tcp: missing=[…]`); a stale
/// exemption row (coverage exits 1, `… is STALE`); and the edge parity documents, an empty lane,
/// which is red, never vacuously equal (exit 1).
#[test]
fn upstream_lane_scripts_agree_on_four_trees() {
    type Plant = fn(&Path);
    let trees: [(&str, i32, Plant, &[&str]); 4] = [
        ("green", 0, |_| {}, &[]),
        (
            "missing from tcp",
            1,
            |r| apply_violation(r, "test-sets-missing-from-lane"),
            &["TSS001"],
        ),
        (
            "stale exemption",
            1,
            |r| apply_violation(r, "test-sets-stale-exemption"),
            &["TSS004"],
        ),
        (
            "an empty spawn lane",
            1,
            |r| {
                std::fs::write(
                    r.join("MobileGL/MG_Test/lanes/spawn.txt"),
                    "Test project /b\n\nTotal Tests: 0\n",
                )
                .unwrap()
            },
            &["TSS002"],
        ),
    ];
    for (name, upstream_exit, plant, want) in trees {
        let (_d, root) = copy_driver();
        plant(&root);
        let (run, g) = check(&root, upstream_exit);
        let errors: Vec<String> = g["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["severity"] == "error")
            .map(|f| f["code"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(errors, want, "{name}: {}", run.dump());
    }
}
