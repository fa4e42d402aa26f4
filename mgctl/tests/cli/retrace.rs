//! The `retrace` gate (issue 30, MobileGL G3) on the embedded driver: green on a fresh clone;
//! each retrace overlay turns exactly this gate red with its code; zero selected, `ssim=None` and
//! a result older than its fixtures never read green; the self-test trips every control.

use std::path::Path;
use std::time::{Duration, SystemTime};

use crate::util::{apply_violation, copy_driver, mgctl, repo_root};

const RESULTS: &str = "MobileGL/MG_Test/retrace/results";

/// The JSON report of `check ROOT`.
fn check_json(root: &Path) -> (serde_json::Value, crate::util::Run) {
    let run = mgctl(&["check", root.to_str().unwrap(), "--format", "json"], root);
    let v = serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}\n{}", run.dump()));
    (v, run)
}

fn gate<'a>(v: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    v["gates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["gate"] == name)
        .unwrap_or_else(|| panic!("no gate {name}: {v}"))
}

fn failing(v: &serde_json::Value) -> Vec<String> {
    let mut out: Vec<String> = v["gates"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|g| g["verdict"] == "fail")
        .map(|g| g["gate"].as_str().unwrap().to_string())
        .collect();
    out.sort();
    out
}

/// `check --only retrace ROOT` as JSON: the gate's report.
fn retrace_only(root: &Path) -> (serde_json::Value, crate::util::Run) {
    let run = mgctl(
        &[
            "check",
            root.to_str().unwrap(),
            "--only",
            "retrace",
            "--format",
            "json",
        ],
        root,
    );
    let v: serde_json::Value =
        serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}\n{}", run.dump()));
    (gate(&v, "retrace").clone(), run)
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
fn check_driver_runs_retrace_green_on_five_of_five() {
    let (v, run) = check_json(&repo_root().join("driver"));
    let g = gate(&v, "retrace");
    assert_eq!(g["verdict"], "pass", "{}", run.dump());
    assert_eq!(g["headline"], "passed 5 / 5", "{}", run.dump());
    assert_eq!(g["units"].as_array().unwrap().len(), 5);
}

#[test]
fn each_retrace_overlay_turns_only_retrace_red_with_its_code() {
    let (_g, clean) = copy_driver();
    let (v, _) = check_json(&clean);
    let before = failing(&v);
    assert!(!before.contains(&"retrace".to_string()), "{before:?}");
    for (overlay, code, headline) in [
        (
            "retrace-below-threshold",
            "RTR005",
            "passed 4 / 5, 1 below threshold",
        ),
        (
            "retrace-lfs-pointers",
            "RTR001",
            "LFS pointers: 2 not run (git lfs pull); passed 3 / 5",
        ),
        ("retrace-stale-case-list", "RTR009", "passed 3 / 5, 2 stale"),
    ] {
        let (_g, root) = copy_driver();
        apply_violation(&root, overlay);
        let (v, run) = check_json(&root);
        let mut expected = before.clone();
        expected.push("retrace".into());
        expected.sort();
        assert_eq!(failing(&v), expected, "{overlay}\n{}", run.dump());
        let g = gate(&v, "retrace");
        assert_eq!(g["headline"], headline, "{overlay}\n{}", run.dump());
        let c = codes(g);
        assert!(c.iter().all(|x| x == code), "{overlay}: {c:?}");
        assert!(!c.is_empty(), "{overlay}");
    }
}

#[test]
fn lfs_pointers_are_said_first_name_the_fix_and_are_not_failures() {
    let (_g, root) = copy_driver();
    apply_violation(&root, "retrace-lfs-pointers");
    let run = mgctl(
        &["check", root.to_str().unwrap(), "--only", "retrace"],
        &root,
    )
    .expect(1);
    let first = run
        .stdout
        .lines()
        .find(|l| l.trim_start().starts_with("error["))
        .unwrap_or_default();
    assert!(first.contains("error[RTR001]"), "{}", run.dump());
    assert!(
        first.contains("LFS POINTERS") && first.contains("NOT RUN (not failed)"),
        "{first}"
    );
    assert!(first.contains("git lfs pull"), "{first}");
    assert!(
        !run.stdout.contains("RTR005") && !run.stdout.contains("RTR006"),
        "{}",
        run.dump()
    );
}

/// The `--only` regex trap: a selection that ran nothing reads `passed 0 / 5`, an error.
#[test]
fn zero_selected_is_an_error_never_a_pass() {
    let (_g, root) = copy_driver();
    std::fs::remove_dir_all(root.join(RESULTS)).unwrap();
    std::fs::create_dir_all(root.join(RESULTS)).unwrap();
    let (g, run) = retrace_only(&root);
    assert_eq!(run.code, 1, "{}", run.dump());
    assert_eq!(g["headline"], "passed 0 / 5, 5 missing");
    let msgs: Vec<&str> = g["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == "RTR002")
        .map(|f| f["message"].as_str().unwrap())
        .collect();
    assert!(
        msgs.iter()
            .any(|m| m.starts_with("zero cases selected") && m.contains("passed 0 / 5")),
        "{msgs:?}"
    );
}

#[test]
fn ssim_none_is_an_error_naming_the_case() {
    let (_g, root) = copy_driver();
    let p = root
        .join(RESULTS)
        .join("demo-clear-color-DirectGLES/result.json");
    let text = std::fs::read_to_string(&p).unwrap();
    std::fs::write(&p, text.replace("\"ssim\": 1.0,", "\"ssim\": null,")).unwrap();
    let (g, run) = retrace_only(&root);
    assert_eq!(run.code, 1, "{}", run.dump());
    assert_eq!(codes(&g), ["RTR006"], "{}", run.dump());
    let m = g["findings"][0]["message"].as_str().unwrap();
    assert!(
        m.starts_with("demo-clear-color × DirectGLES: ssim=None"),
        "{m}"
    );
}

/// With `mtimes` (the default for a lane's fresh results), a result.json older than its case's
/// fixtures is stale; touched after them it reads green again.
#[test]
fn a_result_older_than_its_fixtures_never_reads_green() {
    let (_g, root) = copy_driver();
    let toml = root.join("mgctl.toml");
    let text = std::fs::read_to_string(&toml).unwrap();
    std::fs::write(&toml, text.replace("mtimes = false\n", "")).unwrap();
    let now = SystemTime::now();
    let set = |rel: &str, t: SystemTime| {
        let f = std::fs::File::options()
            .write(true)
            .open(root.join(rel))
            .unwrap();
        f.set_modified(t).unwrap();
    };
    let results = std::fs::read_dir(root.join(RESULTS)).unwrap();
    let dirs: Vec<String> = results
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    for d in &dirs {
        set(
            &format!("{RESULTS}/{d}/result.json"),
            now + Duration::from_secs(5),
        );
    }
    let (g, run) = retrace_only(&root);
    assert_eq!(g["verdict"], "pass", "{}", run.dump());
    set(
        "MobileGL/MG_Test/retrace/fixtures/demo-clear-color.0000000012.png",
        now + Duration::from_secs(60),
    );
    let (g, run) = retrace_only(&root);
    assert_eq!(run.code, 1, "{}", run.dump());
    assert_eq!(codes(&g), ["RTR009", "RTR009"], "{}", run.dump());
    let m = g["findings"][0]["message"].as_str().unwrap();
    assert!(
        m.contains(
            "55 s older than MobileGL/MG_Test/retrace/fixtures/demo-clear-color.0000000012.png"
        ),
        "{m}"
    );
}

#[test]
fn self_test_trips_every_control_and_fails_when_one_is_neutered() {
    let root = repo_root();
    let run = mgctl(
        &[
            "check",
            "driver",
            "--self-test",
            "--only",
            "retrace",
            "--format",
            "json",
        ],
        &root,
    )
    .expect(0);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let units = gate(&v, "retrace")["units"].clone();
    for c in [
        "below-threshold",
        "missing-case",
        "zero-selected",
        "ssim-none",
        "lfs-pointers",
        "live-below-threshold",
    ] {
        assert!(
            units.as_array().unwrap().iter().any(|u| u == c),
            "{c}: {units}"
        );
        let run = mgctl(
            &[
                "check",
                "driver",
                "--self-test",
                "--only",
                "retrace",
                "--neuter",
                &format!("retrace/{c}"),
            ],
            &root,
        )
        .expect(1);
        run.assert_stdout_has(&format!("{c}: negative control did not trip"));
    }
}
