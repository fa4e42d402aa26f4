//! One verdict per analysis (issue 28 item 2): every command that is also a gate decides from the
//! same diagnostics as its gate. Each command/gate pair runs on the same overlays of a copy of
//! `driver/` — clean, one planted violation, a dangling link, strictness from the config — and
//! must reach the same exit and, where the command names codes, the same codes.

use std::collections::BTreeSet;
use std::path::Path;

use crate::util::*;

/// A command and the gate it is: the command's argv (run in the workspace root).
struct Pair {
    gate: &'static str,
    command: &'static [&'static str],
}

const PAIRS: &[Pair] = &[
    Pair {
        gate: "include-probes",
        command: &["include", "probes"],
    },
    Pair {
        gate: "include-layering",
        command: &["include", "rules"],
    },
    Pair {
        gate: "cite",
        command: &["cite"],
    },
    Pair {
        gate: "dirty-surface",
        command: &["dirty-surface", "--check"],
    },
    Pair {
        gate: "fatal-sites",
        command: &["lint", "fatal-sites"],
    },
    Pair {
        gate: "ctest",
        command: &["lint", "ctest"],
    },
];

/// One mutation of a fresh copy of the driver: a planted violation overlay
/// (`driver/fixtures/violations/<name>`), then an edit.
struct Overlay {
    name: &'static str,
    planted: Option<&'static str>,
    then: fn(&Path),
}

impl Overlay {
    fn apply(&self, root: &Path) {
        if let Some(p) = self.planted {
            apply_violation(root, p);
        }
        (self.then)(root);
    }
}

fn overlays() -> Vec<Overlay> {
    let none: fn(&Path) = |_| {};
    let mut v = vec![Overlay {
        name: "clean",
        planted: None,
        then: none,
    }];
    for n in [
        "cite-code-moved",
        "cite-past-end",
        "include-backend-two-hops",
        "dirty-surface-stale-row",
        "dirty-surface-unmapped-mutator",
        "ctest-pass-to-skip",
    ] {
        v.push(Overlay {
            name: n,
            planted: Some(n),
            then: none,
        });
    }
    // The first split: include probes/rules passed while the gates failed with INC010.
    v.push(Overlay {
        name: "dangling-backend-header",
        planted: None,
        then: |r| {
            std::os::unix::fs::symlink("Nowhere.h", r.join("MobileGL/MG_Backend/Gone.h")).unwrap()
        },
    });
    // The second split: `cite` ignored `[cite] strict = true`, so a moved citation (a warning
    // the config makes fatal) passed the command; with `strict = false` both pass.
    v.push(Overlay {
        name: "cite-moved-not-strict",
        planted: Some("cite-code-moved"),
        then: |r| {
            let p = r.join("mgctl.toml");
            let text = std::fs::read_to_string(&p).unwrap();
            assert!(text.contains("strict = true\n"));
            std::fs::write(&p, text.replacen("strict = true\n", "strict = false\n", 1)).unwrap();
        },
    });
    v
}

fn overlay(name: &str) -> Overlay {
    overlays().into_iter().find(|o| o.name == name).unwrap()
}

/// The error codes a gate reported in `check --format json`, and whether it passed.
fn gate_verdict(root: &Path, gate: &str) -> (bool, BTreeSet<String>) {
    let r = mgctl(&["check", ".", "--only", gate, "--format", "json"], root);
    let v: serde_json::Value =
        serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{e}: {}", r.dump()));
    let g = v["gates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["gate"] == gate)
        .unwrap_or_else(|| panic!("{gate} not in {}", r.dump()))
        .clone();
    let codes = g["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["severity"] == "error")
        .map(|f| f["code"].as_str().unwrap().to_string())
        .collect();
    (g["verdict"] == "pass", codes)
}

/// Every `ABC123` code a command's output names.
fn named_codes(text: &str) -> BTreeSet<String> {
    let b = text.as_bytes();
    (0..b.len().saturating_sub(5))
        .filter(|&i| {
            (i == 0 || !b[i - 1].is_ascii_alphanumeric())
                && b[i..i + 3].iter().all(u8::is_ascii_uppercase)
                && b[i + 3..i + 6].iter().all(u8::is_ascii_digit)
                && b.get(i + 6).is_none_or(|c| !c.is_ascii_alphanumeric())
        })
        .map(|i| text[i..i + 6].to_string())
        .collect()
}

#[test]
fn every_command_reaches_its_gates_verdict_on_every_overlay() {
    let mut failures = Vec::new();
    let mut cases = 0;
    let mut red = 0;
    for o in overlays() {
        let (_guard, root) = copy_driver();
        o.apply(&root);
        for p in PAIRS {
            let (gate_passed, gate_codes) = gate_verdict(&root, p.gate);
            let r = mgctl(p.command, &root);
            cases += 1;
            red += usize::from(!gate_passed);
            if r.code != 0 && r.code != 1 {
                failures.push(format!(
                    "{} / {}: the command could not run (exit {}): {}",
                    o.name,
                    p.gate,
                    r.code,
                    r.dump()
                ));
                continue;
            }
            if gate_passed != (r.code == 0) {
                failures.push(format!(
                    "{} / {}: gate {} but `mgctl {}` exits {}: {}",
                    o.name,
                    p.gate,
                    if gate_passed { "passes" } else { "fails" },
                    p.command.join(" "),
                    r.code,
                    r.dump()
                ));
            }
            let said = named_codes(&format!("{}{}", r.stdout, r.stderr));
            let extra: Vec<_> = said
                .iter()
                .filter(|c| !gate_codes.contains(*c) && c.starts_with(&gate_codes_family(p.gate)))
                .collect();
            if !extra.is_empty() && !gate_passed {
                failures.push(format!(
                    "{} / {}: the command names {extra:?}, the gate {gate_codes:?}",
                    o.name, p.gate
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    // The table must exercise both verdicts, or it proves nothing.
    assert!(red >= 6 && red < cases, "{red} red of {cases}");
}

fn gate_codes_family(gate: &str) -> String {
    match gate {
        "include-probes" | "include-layering" => "INC",
        "cite" => "CIT",
        "dirty-surface" => "DSF",
        "fatal-sites" => "FSI",
        "ctest" => "CTS",
        _ => "",
    }
    .to_string()
}

/// The two splits the table exists for, spelt out: each gate fails on its overlay, so a command
/// that passes there is the split come back.
#[test]
fn the_two_known_splits_are_red_on_both_sides() {
    for (overlay, gate, command, code) in [
        (
            overlay("dangling-backend-header"),
            "include-probes",
            &["include", "probes"][..],
            "INC010",
        ),
        (
            overlay("dangling-backend-header"),
            "include-layering",
            &["include", "rules"][..],
            "INC010",
        ),
        (overlay("cite-code-moved"), "cite", &["cite"][..], "CIT007"),
    ] {
        let (_guard, root) = copy_driver();
        overlay.apply(&root);
        let (passed, codes) = gate_verdict(&root, gate);
        assert!(!passed && codes.contains(code), "{gate}: {codes:?}");
        let r = mgctl(command, &root).expect(1);
        if code == "INC010" {
            r.assert_stdout_has("INC010");
            r.assert_stdout_has("Gone.h");
        }
    }
}

/// Issue 28 item 2: a command's `--self-test` runs the same controls as `check --self-test` for
/// its gate, live controls on the workspace included, and a neutered live control fails both.
#[test]
fn command_self_tests_run_the_gates_controls_live_ones_included() {
    let (_guard, root) = copy_driver();
    for (gate, command, live) in [
        ("regions", &["lint", "regions"][..], "live-RingAllocate"),
        (
            "fatal-sites",
            &["lint", "fatal-sites"][..],
            "live-unmarked-abort",
        ),
    ] {
        let r = mgctl(
            &[
                "check",
                ".",
                "--self-test",
                "--only",
                gate,
                "--format",
                "json",
            ],
            &root,
        )
        .expect(0);
        let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
        let g = v["gates"]
            .as_array()
            .unwrap()
            .iter()
            .find(|g| g["gate"] == gate)
            .unwrap();
        let names = |cs: &serde_json::Value| -> Vec<String> {
            cs.as_array()
                .unwrap()
                .iter()
                .map(|c| c["name"].as_str().unwrap().to_string())
                .collect()
        };
        let from_check = names(&g["self_test"]["controls"]);
        let mut args = command.to_vec();
        args.extend(["--self-test", "--format", "json"]);
        let r = mgctl(&args, &root).expect(0);
        let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
        assert_eq!(names(&v["controls"]), from_check, "{gate}");
        assert!(
            from_check.iter().any(|n| n == live),
            "{gate}: {from_check:?}"
        );
        let neuter = format!("{gate}/{live}");
        args.extend(["--neuter", neuter.as_str()]);
        mgctl(&args, &root).expect(1);
    }
}

/// A `--neuter` hook that names no control proves nothing: it is a usage error, not a pass.
#[test]
fn a_misspelt_neuter_is_an_error() {
    let (_guard, root) = copy_driver();
    let r = mgctl(
        &[
            "lint",
            "fatal-sites",
            "--self-test",
            "--neuter",
            "fatal-sites/nope",
        ],
        &root,
    )
    .expect(2);
    r.assert_stderr_has("--neuter fatal-sites/nope: no control of that name");
}

/// A command's self-test in a workspace whose mgctl.toml cannot be read is an error (as `check
/// --self-test`), never the canned controls alone passing quietly.
#[test]
fn a_self_test_over_an_unreadable_config_is_an_error() {
    let d = scratch();
    write_tree(d.path(), &[("mgctl.toml", "[regions\n")]);
    let r = mgctl(&["lint", "regions", "--self-test"], d.path()).expect(2);
    r.assert_stderr_has("mgctl.toml:1:");
}

/// The commands that read `[build]` outputs against their gates, on a copy that holds the build:
/// clean, one planted violation each, and a source edited after the build (a stale build, which
/// both refuse under the harness's `--no-build`, the split `symbols ratchet` once read green).
#[test]
fn build_reading_commands_reach_their_gates_verdict() {
    let pairs: [(&str, &[&str]); 2] = [
        ("link-ratchet", &["symbols", "ratchet"]),
        ("controls", &["lint", "controls"]),
    ];
    let stale: fn(&Path) = |r| {
        let p = r.join("MobileGL/MG_Remote/Server/ServerApply.cpp");
        let text = std::fs::read(&p).unwrap();
        std::fs::write(&p, text).unwrap();
    };
    let none: fn(&Path) = |_| {};
    let mut failures = Vec::new();
    let mut red = Vec::new();
    for (name, planted, then) in [
        ("clean", None, none),
        (
            "link-ratchet-new-reach",
            Some("link-ratchet-new-reach"),
            none,
        ),
        ("controls-rotted-patch", Some("controls-rotted-patch"), none),
        ("stale-build", None, stale),
    ] {
        let (_guard, root) = copy_driver();
        let built = driver().join("build");
        assert!(
            built.join("link/CMakeCache.txt").is_file(),
            "run `bash driver/build.sh` first"
        );
        copy_dir(&built, &root.join("build"));
        if let Some(p) = planted {
            apply_violation(&root, p);
        }
        then(&root);
        for (gate, command) in pairs {
            let (gate_passed, gate_codes) = gate_verdict(&root, gate);
            if !gate_passed {
                red.push(format!("{name} / {gate}"));
            }
            let r = mgctl(command, &root);
            let said = named_codes(&format!("{}{}", r.stdout, r.stderr));
            if gate_passed != (r.code == 0) || (!gate_passed && !gate_codes.is_subset(&said)) {
                failures.push(format!(
                    "{name} / {gate}: gate {} with {gate_codes:?}, `mgctl {}` exits {} naming {said:?}: {}",
                    if gate_passed { "passes" } else { "fails" },
                    command.join(" "),
                    r.code,
                    r.dump()
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    // Clean is green for both; each planted violation turns its own gate red; an edited source
    // (the rotted patch's header too) leaves the build stale, which both gates refuse.
    assert_eq!(
        red,
        [
            "link-ratchet-new-reach / link-ratchet",
            "controls-rotted-patch / link-ratchet",
            "controls-rotted-patch / controls",
            "stale-build / link-ratchet",
            "stale-build / controls",
        ]
    );
}
