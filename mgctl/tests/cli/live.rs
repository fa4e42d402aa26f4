//! `check --self-test WORKSPACE`: live controls mutate an in-memory overlay of the workspace
//! (issue 18 item 7) and must turn `tokens` and `regions` red; the workspace is never written.

use std::collections::BTreeMap;
use std::path::Path;

use crate::util::{copy_driver, mgctl};

fn snapshot(root: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else {
                out.insert(p.display().to_string(), std::fs::read(&p).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(root, &mut out);
    out
}

#[test]
fn self_test_runs_live_controls_on_the_workspace_without_writing_it() {
    let (_g, root) = copy_driver();
    let before = snapshot(&root);
    let run = mgctl(
        &[
            "check",
            "--self-test",
            "--only",
            "tokens,regions",
            "--format",
            "json",
            ".",
        ],
        &root,
    )
    .expect(0);
    run.assert_stdout_has("\"live-purity-c\"");
    run.assert_stdout_has("\"live-no-stdio\"");
    run.assert_stdout_has("\"live-IsPoolable\"");
    assert_eq!(before, snapshot(&root), "the workspace was written");
}

#[test]
fn a_misspelt_rule_glob_fails_the_self_test_naming_the_rule() {
    let (_g, root) = copy_driver();
    let toml = root.join("mgctl.toml");
    let text = std::fs::read_to_string(&toml).unwrap();
    let bad = text.replacen("\"MobileGL/MG_Backend/**\"", "\"MG_Backnd/**\"", 1);
    assert_ne!(text, bad);
    std::fs::write(&toml, bad).unwrap();
    let before = snapshot(&root);
    let run = mgctl(&["check", ".", "--self-test", "--only", "tokens"], &root).expect(1);
    run.assert_stdout_has("live-purity-c");
    run.assert_stdout_has("rule `purity-c`");
    assert_eq!(before, snapshot(&root), "the workspace was written");
}

/// Issue 18 item 7, the remaining gates: a forbidden include into each probe header, a dropped
/// DirtySurface.def row, a Fatal line appended to each configured log glob and an unmarked abort
/// under the census root each turn their gate red on `driver/`, through the real entry point.
#[test]
fn issue18_live_controls_of_include_dirty_surface_fatals_and_fatal_sites_trip_on_the_driver() {
    let (_g, root) = copy_driver();
    let before = snapshot(&root);
    let run = mgctl(
        &[
            "check",
            "--self-test",
            "--only",
            "include-probes,dirty-surface,fatals,fatal-sites",
            "--format",
            "json",
            ".",
        ],
        &root,
    )
    .expect(0);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let controls = |gate: &str| -> Vec<serde_json::Value> {
        v["gates"]
            .as_array()
            .unwrap()
            .iter()
            .find(|g| g["gate"] == gate)
            .unwrap()["self_test"]["controls"]
            .as_array()
            .unwrap()
            .clone()
    };
    for (gate, name, says) in [
        ("include-probes", "live-value-header", "MGPipeValueTypes.h"),
        ("include-probes", "live-mutation-header", "PipeMutation.h"),
        ("dirty-surface", "live-dropped-row", "UNMAPPED"),
        ("fatals", "live-MobileGL/MG_Test/logs/*.log", "FAT001"),
        ("fatal-sites", "live-unmarked-abort", "FSI001"),
    ] {
        let c = controls(gate);
        let c = c
            .iter()
            .find(|c| c["name"] == name)
            .unwrap_or_else(|| panic!("{gate}: no control {name}\n{}", run.dump()));
        assert_eq!(c["tripped"], true, "{gate}/{name}: {c}");
        assert!(
            c["detail"].as_str().unwrap().contains(says),
            "{gate}/{name}: {c}"
        );
    }
    assert_eq!(before, snapshot(&root), "the workspace was written");
}

#[test]
fn issue18_a_neutered_live_control_is_reported_as_not_tripped() {
    let (_g, root) = copy_driver();
    for (gate, control) in [
        ("include-probes", "live-value-header"),
        ("dirty-surface", "live-dropped-row"),
        ("fatals", "live-MobileGL/MG_Test/logs/*.log"),
        ("fatal-sites", "live-unmarked-abort"),
    ] {
        let neuter = format!("{gate}/{control}");
        let run = mgctl(
            &[
                "check",
                ".",
                "--self-test",
                "--only",
                gate,
                "--neuter",
                &neuter,
            ],
            &root,
        )
        .expect(1);
        run.assert_stdout_has(&format!("{control}: negative control did not trip"));
    }
}

#[test]
fn issue18_a_probe_log_or_root_that_matches_nothing_fails_the_self_test_with_that_reason() {
    let (_g, root) = copy_driver();
    let toml = root.join("mgctl.toml");
    let text = std::fs::read_to_string(&toml).unwrap();
    for (from, to, gate, says) in [
        (
            "header = \"MobileGL/MG_Pipe/PipeMutation.h\"",
            "header = \"MobileGL/MG_Pipe/PipeMutaton.h\"",
            "include-probes",
            "probe `mutation-header`: its header MobileGL/MG_Pipe/PipeMutaton.h is not a file",
        ),
        (
            "logs = [\"MobileGL/MG_Test/logs/*.log\"]",
            "logs = [\"MobileGL/MG_Test/logs/*.log\", \"MobileGL/MG_Test/log/*.log\"]",
            "fatals",
            "\"MobileGL/MG_Test/log/*.log\" matches no log of this workspace",
        ),
        (
            "root = \"MobileGL/MG_Remote\"",
            "root = \"MobileGL/MG_Remot\"",
            "fatal-sites",
            "census root does not exist",
        ),
        (
            "def = \"MobileGL/MG_Pipe/DirtySurface.def\"",
            "def = \"MobileGL/MG_Pipe/DirtySurfce.def\"",
            "dirty-surface",
            "the check cannot run here",
        ),
    ] {
        let bad = text.replacen(from, to, 1);
        assert_ne!(text, bad, "{from}");
        std::fs::write(&toml, &bad).unwrap();
        let run = mgctl(&["check", ".", "--self-test", "--only", gate], &root).expect(1);
        run.assert_stdout_has(says);
    }
    std::fs::write(&toml, &text).unwrap();
}

/// A workspace whose mgctl.toml is broken is an input error under `--self-test` too, not a quiet
/// run of the canned controls alone.
#[test]
fn self_test_on_a_broken_config_is_exit_2_naming_it() {
    let dir = crate::util::scratch();
    crate::util::write_tree(dir.path(), &[("mgctl.toml", "[tokens\n")]);
    let run = crate::util::mgctl(&["check", ".", "--self-test"], dir.path()).expect(2);
    run.assert_stderr_has("mgctl.toml");
}
