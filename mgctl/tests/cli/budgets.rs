//! `budgets` and `counters` gates and `mgctl bench ab` (issue 20): the embedded driver's pinned
//! budgets pass; every `max = 0` fails naming budget, value and why; a budget committed after its
//! data fails naming both commits; `csom < csob` fails when they are equal; the A/B table prints
//! the same p50/p99 as `bench frames`.

use std::path::Path;

use crate::util::{copy_driver, mgctl, repo_root, scratch, write_tree};

fn ab_runs() -> std::path::PathBuf {
    repo_root().join("mgctl/tests/fixtures/ab-runs")
}

const AB_RUN: &str = "minecraft-26.3-vanilla-in-world-DirectGLES";

#[test]
fn check_driver_runs_budgets_and_counters_and_they_pass() {
    let run = mgctl(&["check", "driver", "--format", "json"], &repo_root()).expect(0);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    for gate in ["budgets", "counters"] {
        let g = v["gates"]
            .as_array()
            .unwrap()
            .iter()
            .find(|g| g["gate"] == gate)
            .unwrap_or_else(|| panic!("no gate {gate}"));
        assert_eq!(g["verdict"], "pass", "{gate}:\n{}", run.dump());
    }
}

#[test]
fn every_max_zero_fails_naming_each_budget_its_value_and_why() {
    let (_g, root) = copy_driver();
    let toml = std::fs::read_to_string(root.join("mgctl.toml")).unwrap();
    let re = regex::Regex::new(r"(?m)^max = .*$").unwrap();
    std::fs::write(
        root.join("mgctl.toml"),
        re.replace_all(&toml, "max = 0").as_ref(),
    )
    .unwrap();
    let run = mgctl(&["check", ".", "-v", "--only", "budgets"], &root).expect(1);
    for (name, metric, unit, why) in [
        (
            "demo-push-minus-pull-p99",
            "p99-delta",
            "ms",
            "far above scheduler noise",
        ),
        ("demo-push-p50", "p50", "ms", "two orders of magnitude"),
        (
            "demo-steady-acc-per-draw",
            "stats:acc/draw",
            "acc/draw",
            "38.3 at pinning",
        ),
    ] {
        let re = regex::Regex::new(&format!(
            r"BUD001\] mgctl\.toml:\d+: budget {name} exceeded: {metric} = -?[0-9.]+ {unit} > max 0 {unit} on .+ \(why: .*{why}"
        ))
        .unwrap();
        assert!(re.is_match(&run.stdout), "{name}: {}", run.dump());
    }
    // Outside git the pin is not checked, and the report says so.
    run.assert_stdout_has("the pin could not be checked");
}

fn commit_all(dir: &Path, message: &str) -> String {
    let repo = git2::Repository::open(dir).unwrap_or_else(|_| git2::Repository::init(dir).unwrap());
    let mut index = repo.index().unwrap();
    index
        .add_all(["*"], git2::IndexAddOption::DEFAULT, None)
        .unwrap();
    index.write().unwrap();
    let tree = repo.find_tree(index.write_tree().unwrap()).unwrap();
    let sig = git2::Signature::now("t", "t@example.invalid").unwrap();
    let parent = repo.head().ok().and_then(|h| h.peel_to_commit().ok());
    let parents: Vec<&git2::Commit<'_>> = parent.iter().collect();
    repo.commit(Some("HEAD"), &sig, &sig, message, &tree, &parents)
        .unwrap()
        .to_string()
}

#[test]
fn a_budget_committed_after_its_inputs_fails_naming_both_commits() {
    let (_g, root) = copy_driver();
    let full = std::fs::read_to_string(root.join("mgctl.toml")).unwrap();
    let at = full.find("# Budgets (issue 20)").unwrap();
    std::fs::write(root.join("mgctl.toml"), &full[..at]).unwrap();
    let data = commit_all(&root, "[Test] (driver): runs before any budget");
    std::fs::write(root.join("mgctl.toml"), &full).unwrap();
    let late = commit_all(&root, "[Test] (driver): budgets after the data");
    let run = mgctl(&["check", ".", "--only", "budgets"], &root).expect(1);
    run.assert_stdout_has("BUD006");
    run.assert_stdout_has("budget demo-push-p50 was edited after its data");
    run.assert_stdout_has(&format!("commit {} (", &late[..10]));
    run.assert_stdout_has(&format!("commit {} (", &data[..10]));

    // The other order (budgets first, then the runs) is pinned and passes.
    let (_g2, root2) = copy_driver();
    let keep = scratch();
    // The runs and the device session the budgets read.
    for data in ["runs", "sessions"] {
        let from = root2.join("MobileGL/MG_Test").join(data);
        std::fs::rename(&from, keep.path().join(data)).unwrap();
    }
    commit_all(&root2, "[Test] (driver): budgets first");
    for data in ["runs", "sessions"] {
        let to = root2.join("MobileGL/MG_Test").join(data);
        std::fs::rename(keep.path().join(data), &to).unwrap();
    }
    commit_all(&root2, "[Test] (driver): then the runs");
    let run = mgctl(&["check", ".", "--only", "budgets"], &root2).expect(0);
    assert!(!run.stdout.contains("BUD00"), "{}", run.dump());
}

#[test]
fn strict_less_contract_fails_when_the_counters_are_equal() {
    let dir = scratch();
    let window = |frames: u64| {
        format!("[10:00:01] [Linux t/INFO]: MGPipe stats: frames={frames} window=60 draws=600 draws/f=10.00 acc=1200 acc/draw=2.00 bytes/f[buf=8.00] cso[csom=61654 csob=61654 mpr=0] gates[ers=1/2]\n")
    };
    let log = format!(
        "[10:00:00] [Linux t/INFO]: MGPipe stats: counters ON (MOBILEGL_PIPE_STATS), summary every 60 frames\n{}{}",
        window(60),
        window(120)
    );
    write_tree(
        dir.path(),
        &[
            (
                "mgctl.toml",
                "[counters]\n[[counters.expect]]\nname = \"cso-bit63\"\nlogs = [\"logs/*.log\"]\nexpect = [\"csom < csob\"]\nwhy = \"content addressing\"\n",
            ),
            ("logs/push.log", &log),
        ],
    );
    let run = mgctl(&["check", ".", "--only", "counters"], dir.path()).expect(1);
    run.assert_stdout_has("CNT001");
    run.assert_stdout_has("contract cso-bit63 broken: `csom < csob` does not hold (csom = 61654, csob = 61654) at logs/push.log:3");
    // An absent field is a failure, not a pass.
    std::fs::write(
        dir.path().join("logs/push.log"),
        log.replace("cso[csom=61654 csob=61654 mpr=0] ", ""),
    )
    .unwrap();
    let run = mgctl(&["check", ".", "--only", "counters"], dir.path()).expect(1);
    run.assert_stdout_has("CNT003");
}

/// `bench frames --compare` lines `  p50  A  B …` → (A, B).
fn frames_pair(stdout: &str, stat: &str) -> (String, String) {
    let line = stdout
        .lines()
        .find(|l| l.trim_start().starts_with(&format!("{stat} ")))
        .unwrap();
    let cols: Vec<&str> = line.split_whitespace().collect();
    (cols[1].to_string(), cols[2].to_string())
}

#[test]
fn bench_ab_prints_the_same_p50_p99_as_bench_frames() {
    let pull = format!("{AB_RUN}/pull");
    let push = format!("{AB_RUN}/push");
    let frames = mgctl(
        &[
            "bench",
            "frames",
            "--compare",
            &pull,
            &push,
            "--series",
            "cpu",
        ],
        &ab_runs(),
    )
    .expect(0);
    let (p50a, p50b) = frames_pair(&frames.stdout, "p50");
    let (p99a, p99b) = frames_pair(&frames.stdout, "p99");
    // The samples README's figures: best of 3 (run 2) for pull, run 3 alone for push.
    assert_eq!((p50a.as_str(), p99a.as_str()), ("10.640", "14.564"));
    assert_eq!((p50b.as_str(), p99b.as_str()), ("10.652", "20.393"));

    let md = mgctl(&["bench", "ab", ".", "--format", "markdown"], &ab_runs()).expect(0);
    md.assert_stdout_has(&format!(
        "| minecraft-26.3-vanilla-in-world | DirectGLES | yes | {p50a} | {p50b} | +0.011 | {p99a} | {p99b} | +5.829 | csom=0 csob=61654 | pull n=200 best of 3 (run 2); push n=200 best of 1 (run 1) |"
    ));
    md.assert_stdout_has("method: nearest rank");

    let human = mgctl(&["bench", "ab", "."], &ab_runs()).expect(0);
    human.assert_stdout_has("pull p50  push p50  Δ p50");
    for v in [&p50a, &p50b, &p99a, &p99b] {
        human.assert_stdout_has(v);
    }

    let json = mgctl(&["bench", "ab", ".", "--format", "json"], &ab_runs()).expect(0);
    let v: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(v["schema"], 1);
    let row = &v["rows"][0];
    assert_eq!(format!("{:.3}", row["pull"]["p50"].as_f64().unwrap()), p50a);
    assert_eq!(format!("{:.3}", row["push"]["p99"].as_f64().unwrap()), p99b);
    assert_eq!(row["pull"]["repeats"], 3);
    assert_eq!(row["push"]["n"], 200);
}

#[test]
fn bench_ab_marks_the_cells_a_budget_fails() {
    let dir = scratch();
    write_tree(
        dir.path(),
        &[(
            "mgctl.toml",
            "[[budget]]\nname = \"p99-ceiling\"\nmetric = \"p99-delta\"\ninputs = [\"runs/**\"]\nmax = 1.0\nunit = \"ms\"\nwhy = \"pinned before the push arm\"\n",
        )],
    );
    let toml = dir.path().join("mgctl.toml");
    let run = mgctl(
        &["bench", "ab", ".", "--budgets", toml.to_str().unwrap()],
        &ab_runs(),
    )
    .expect(1);
    run.assert_stdout_has("+5.829 ✗");
    run.assert_stdout_has(&format!(
        "✗ budget p99-ceiling fails on {AB_RUN}: p99-delta = 5.829 ms > max 1 ms (why: pinned before the push arm)"
    ));
    let bad = mgctl(&["bench", "ab", "nope"], &ab_runs()).expect(2);
    assert!(bad.stdout.is_empty(), "{}", bad.dump());
}

/// A shallow clone's oldest commit stands for the history cut away: a budget and its data dated
/// to it cannot be ordered, so the pin is a note ("could not be checked"), not BUD006. The
/// full clone of the same history still fails BUD006.
#[test]
fn a_shallow_clone_cannot_check_the_pin_and_says_so() {
    let (_g, root) = copy_driver();
    let full = std::fs::read_to_string(root.join("mgctl.toml")).unwrap();
    let at = full.find("# Budgets (issue 20)").unwrap();
    std::fs::write(root.join("mgctl.toml"), &full[..at]).unwrap();
    commit_all(&root, "[Test] (driver): runs before any budget");
    std::fs::write(root.join("mgctl.toml"), &full).unwrap();
    commit_all(&root, "[Test] (driver): budgets after the data");
    let clones = scratch();
    let shallow = clones.path().join("shallow");
    let status = std::process::Command::new("git")
        .args(["clone", "-q", "--depth", "1"])
        .arg(format!("file://{}", root.display()))
        .arg(&shallow)
        .status()
        .unwrap();
    assert!(status.success());
    let run = mgctl(&["check", ".", "-v", "--only", "budgets"], &shallow).expect(0);
    run.assert_stdout_has("BUD007");
    run.assert_stdout_has("this is a shallow clone");
    assert!(!run.stdout.contains("BUD006"), "{}", run.dump());
    mgctl(&["check", ".", "--only", "budgets"], &root)
        .expect(1)
        .assert_stdout_has("BUD006");
}

/// Issue 30: with `produced_by`, a run artifact older than the library that produced it is named
/// (BUD010 / CNT006, warnings: docs/budgets.md says why not errors); as new as it, nothing.
#[test]
fn issue30_run_artifacts_older_than_their_library_are_named() {
    let (_g, root) = copy_driver();
    let cfg = root.join("mgctl.toml");
    let text = std::fs::read_to_string(&cfg).unwrap();
    let text = text
        .replacen(
            "name = \"demo-push-p50\"\n",
            "name = \"demo-push-p50\"\nproduced_by = \"build/push/libMobileGL.so\"\n",
            1,
        )
        .replacen(
            "[[counters.expect]]\n",
            "[[counters.expect]]\nproduced_by = \"build/push/libMobileGL.so\"\n",
            1,
        );
    std::fs::write(&cfg, text).unwrap();
    let lib = root.join("build/push/libMobileGL.so");
    std::fs::create_dir_all(lib.parent().unwrap()).unwrap();
    std::fs::write(&lib, "a library built after the runs").unwrap();
    let later = std::time::SystemTime::now() + std::time::Duration::from_secs(5);
    std::fs::File::options()
        .write(true)
        .open(&lib)
        .unwrap()
        .set_modified(later)
        .unwrap();
    let args = [
        "check", ".", "--only", "budgets", "--only", "counters", "--format", "json",
    ];
    let r = mgctl(&args, &root).expect(0);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let codes = |gate: &str, code: &str| -> Vec<String> {
        v["gates"]
            .as_array()
            .unwrap()
            .iter()
            .find(|g| g["gate"] == gate)
            .unwrap()["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["code"] == code)
            .map(|f| format!("{} {}", f["severity"], f["message"]))
            .collect()
    };
    let bud = codes("budgets", "BUD010");
    assert!(!bud.is_empty(), "{}", r.dump());
    assert!(
        bud.iter().all(|m| m.starts_with("\"warning\"")
            && m.contains("is older than build/push/libMobileGL.so, the library that produced it")),
        "{bud:?}"
    );
    assert!(!codes("counters", "CNT006").is_empty(), "{}", r.dump());

    // Runs as new as the library: nothing to name.
    let earlier = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    std::fs::File::options()
        .write(true)
        .open(&lib)
        .unwrap()
        .set_modified(earlier)
        .unwrap();
    let r = mgctl(&args, &root).expect(0);
    assert!(
        !r.stdout.contains("BUD010") && !r.stdout.contains("CNT006"),
        "{}",
        r.dump()
    );
}

/// A budget over a device session (issue 31): the inproc arm against the monolith, proven arms
/// only; a bound it breaks names the measured run; a budget on an arm the session left out fails
/// saying why the arm is out, never measuring the voided folder.
#[test]
fn a_session_budget_measures_proven_arms_and_refuses_a_voided_one() {
    let (_g, root) = copy_driver();
    let toml = root.join("mgctl.toml");
    let text = std::fs::read_to_string(&toml).unwrap();
    let tight = text.replace(
        "arm = \"inproc\"\nbase = \"monolith\"\nmax = 1.0",
        "arm = \"inproc\"\nbase = \"monolith\"\nmax = -1.0",
    );
    assert_ne!(tight, text);
    std::fs::write(&toml, &tight).unwrap();
    let run = mgctl(&["check", ".", "--only", "budgets"], &root).expect(1);
    run.assert_stdout_has(
        "budget session-inproc-minus-monolith-p50 exceeded: p50-delta = -0.250 ms > max -1 ms on MobileGL/MG_Test/sessions/p6-mixed/mc-rd12-DirectGLES",
    );
    // The only proven spawn arm gone: the fallen-back spawn folder is no stand-in.
    std::fs::write(
        &toml,
        text.replace("arm = \"inproc\"\nbase", "arm = \"spawn\"\nbase"),
    )
    .unwrap();
    std::fs::remove_dir_all(
        root.join("MobileGL/MG_Test/sessions/p6-mixed/03-mc-rd12-DirectGLES-spawn-r2"),
    )
    .unwrap();
    let run = mgctl(&["check", ".", "--only", "budgets"], &root).expect(1);
    run.assert_stdout_has("BUD003");
    run.assert_stdout_has("arm \"spawn\" is missing in MobileGL/MG_Test/sessions/p6-mixed/mc-rd12-DirectGLES (arms: monolith, inproc)");
    run.assert_stdout_has(
        "left out of the session: 04-mc-rd12-DirectGLES-spawn-r2 UNPROVEN: no `spawn ARMED",
    );
}

/// A counters contract over a device session (issue 31): the spawn arm's server log holds the
/// frames and the server's waits; read from the client, they are structural zeros (CNT007 at the
/// client log, never a measured 0); with no proven arm of the transport, nothing was checked.
#[test]
fn a_session_counters_contract_reads_the_role_that_counted() {
    let run = mgctl(
        &["check", "driver", "--only", "counters", "--format", "json"],
        &repo_root(),
    )
    .expect(0);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let g = v["gates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["gate"] == "counters")
        .unwrap();
    assert_eq!(
        g["headline"],
        "3 contracts / 3 logs / 10 checks / 0 broken",
        "{}",
        run.dump()
    );
    let (_g, root) = copy_driver();
    let toml = root.join("mgctl.toml");
    let text = std::fs::read_to_string(&toml).unwrap();
    let client = text.replace(
        "role = \"server\"\narm = \"spawn\"",
        "role = \"client\"\narm = \"spawn\"",
    );
    assert_ne!(client, text);
    std::fs::write(&toml, &client).unwrap();
    let run = mgctl(&["check", ".", "--only", "counters"], &root).expect(1);
    let log =
        "MobileGL/MG_Test/sessions/p6-mixed/03-mc-rd12-DirectGLES-spawn-r2/mobilegl.client.log";
    for f in ["frames", "srv", "srvpark"] {
        run.assert_stdout_has(&format!(
            "error[CNT007] {log}: contract session-spawn-server-counts: arm 03-mc-rd12-DirectGLES-spawn-r2 (spawn): the client's `{f}` is a structural zero under spawn"
        ));
    }
    std::fs::write(&toml, &text).unwrap();
    std::fs::remove_dir_all(
        root.join("MobileGL/MG_Test/sessions/p6-mixed/03-mc-rd12-DirectGLES-spawn-r2"),
    )
    .unwrap();
    let run = mgctl(&["check", ".", "--only", "counters"], &root).expect(1);
    run.assert_stdout_has("error[CNT002]");
    run.assert_stdout_has("no proven arm of transport spawn has a server log: nothing was checked");
}
