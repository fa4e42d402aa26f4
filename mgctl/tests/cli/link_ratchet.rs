//! The `link-ratchet` gate (issue 33, mechanism 3; upstream `scripts/link_ratchet.py`): the
//! frontend symbols server objects of the split build (`driver/build/link/`, laid out by
//! `driver/build.sh`) still need may only shrink, and every way to go green without measuring
//! is red.

use std::path::{Path, PathBuf};

use crate::util::*;

const OBJECTS: &str = "build/link/CMakeFiles/MobileGL.dir";
const BASELINE: &str = "scripts/data/link_ratchet_baseline.txt";

fn check(root: &Path, rc: i32) -> (Run, serde_json::Value) {
    gate_report(root, "link-ratchet", rc)
}

fn codes(g: &serde_json::Value) -> Vec<String> {
    finding_codes(g)
}

/// A copy of `driver/` with the split build's objects (copy_driver leaves `build/` out).
fn copy_with_objects() -> (tempfile::TempDir, PathBuf) {
    let (d, root) = copy_driver();
    let built = driver().join("build/link");
    assert!(
        built.join("CMakeCache.txt").is_file(),
        "run `bash driver/build.sh` first: {} is missing",
        built.display()
    );
    copy_dir(&built, &root.join("build/link"));
    (d, root)
}

const GREEN: &str =
    "33 objects (9 server, 22 frontend, 2 shared) / reach 2 (baseline 2) / 0 new, 0 cleared";

#[test]
fn the_driver_split_build_holds_its_baseline() {
    let (run, g) = check(&driver(), 0);
    assert_eq!(g["verdict"], "pass", "{}", run.dump());
    assert_eq!(g["headline"], GREEN);
    assert_eq!(codes(&g), Vec::<String>::new());
}

#[test]
fn new_reach_is_red_naming_the_symbol_and_both_objects() {
    let (_d, root) = copy_with_objects();
    apply_violation(&root, "link-ratchet-new-reach");
    let (run, g) = check(&root, 1);
    assert_eq!(codes(&g), ["LNK001"], "{}", run.dump());
    let f = &g["findings"][0];
    assert_eq!(f["location"]["path"], BASELINE, "{f}");
    assert_eq!(
        f["message"],
        "new frontend reach: `glBindBuffer` (defined in FRONTEND \
         MobileGL/MG_Impl/GLImpl/Buffer/GL_Buffer.cpp.o) is needed by SERVER \
         MobileGL/MG_Remote/Server/ServerApply.cpp.o and is not in the baseline"
    );
    assert_eq!(
        g["headline"],
        "33 objects (9 server, 22 frontend, 2 shared) / reach 2 (baseline 1) / 1 new, 0 cleared"
    );
}

#[test]
fn a_cleared_symbol_is_a_note_at_its_line_never_red() {
    let (_d, root) = copy_with_objects();
    let b = root.join(BASELINE);
    let mut text = std::fs::read_to_string(&b).unwrap();
    text.push_str("glGone  # cleared by the last change\n");
    std::fs::write(&b, text).unwrap();
    let (run, g) = check(&root, 0);
    assert_eq!(codes(&g), ["LNK002"], "{}", run.dump());
    assert_eq!(g["findings"][0]["location"]["line"], 6, "{}", run.dump());
    assert_eq!(g["findings"][0]["severity"], "note");
}

#[test]
fn an_object_no_row_claims_is_red_not_ignored() {
    let (_d, root) = copy_with_objects();
    let objects = root.join(OBJECTS);
    let stray = objects.join("MobileGL/MG_Remote/Client");
    std::fs::create_dir_all(&stray).unwrap();
    std::fs::copy(
        objects.join("MobileGL/MG_Remote/Server/ServerApply.cpp.o"),
        stray.join("ClientSession.cpp.o"),
    )
    .unwrap();
    let (run, g) = check(&root, 1);
    assert_eq!(codes(&g), ["LNK003"], "{}", run.dump());
    run.assert_stdout_has("MobileGL/MG_Remote/Client/ClientSession.cpp.o: no partition row");
}

#[test]
fn a_build_configured_without_the_split_is_refused_by_name() {
    let (_d, root) = copy_with_objects();
    let cache = root.join("build/link/CMakeCache.txt");
    let text = std::fs::read_to_string(&cache).unwrap().replace(
        "MOBILEGL_BUILD_DISAGGREGATED_INPROC:BOOL=ON",
        "MOBILEGL_BUILD_DISAGGREGATED_INPROC:BOOL=OFF",
    );
    std::fs::write(&cache, text).unwrap();
    let (run, g) = check(&root, 1);
    assert_eq!(codes(&g), ["LNK005"], "{}", run.dump());
    run.assert_stdout_has("build option MOBILEGL_BUILD_DISAGGREGATED_INPROC=OFF (need ON)");
}

#[test]
fn an_unreadable_object_fails_the_gate_naming_it_and_the_others_still_run() {
    let (_d, root) = copy_with_objects();
    let bad = root.join(OBJECTS).join("MobileGL/MG_Pipe/Truncated.cpp.o");
    std::fs::write(&bad, b"\x7fELF\x02\x01\x01").unwrap();
    let (run, g) = check(&root, 1);
    assert_eq!(codes(&g), ["LNK006"], "{}", run.dump());
    assert_eq!(
        g["findings"][0]["location"]["path"],
        format!("{OBJECTS}/MobileGL/MG_Pipe/Truncated.cpp.o")
    );
    // Inside a whole check, the other gates still run and decide.
    let (all, failed) = failed_gates(&root, 1);
    assert_eq!(failed, ["link-ratchet"], "{}", all.dump());
}

#[test]
fn without_the_objects_a_copy_skips_under_no_build_and_never_passes() {
    // copy_driver leaves build/ out: the gate's build output is missing, so under --no-build it is
    // skipped by name (and a check that ran nothing fails); with the cache there but no objects
    // it is red.
    let (_d, root) = copy_driver();
    let run = mgctl(
        &["check", root.to_str().unwrap(), "--only", "link-ratchet"],
        &root,
    )
    .expect(2);
    run.assert_stdout_has("build/link/CMakeCache.txt not built: --no-build given");
    std::fs::create_dir_all(root.join("build/link")).unwrap();
    std::fs::copy(
        driver().join("build/link/CMakeCache.txt"),
        root.join("build/link/CMakeCache.txt"),
    )
    .unwrap();
    let (run, g) = check(&root, 1);
    assert_eq!(codes(&g), ["LNK006"], "{}", run.dump());
    run.assert_stdout_has("no object directory build/link/CMakeFiles/MobileGL.dir");
}

/// The upstream script's verdicts on the same trees (read from `scripts/link_ratchet.py` of
/// MobileGL-Dev/MobileGL: exit 0 green, 1 new reach, 2 "fix the measurement first" for an
/// unclassified object, an empty set or a wrong CMakeCache flag); mgctl's side is run here.
/// An upstream 2 is an mgctl measurement code (LNK003–LNK006), a 1 is LNK001.
#[test]
fn upstream_link_ratchet_agrees_on_three_trees() {
    struct Tree {
        name: &'static str,
        upstream_exit: i32,
        plant: fn(&Path),
        codes: &'static [&'static str],
    }
    let trees = [
        Tree {
            name: "green: the recorded baseline",
            upstream_exit: 0,
            plant: |_| {},
            codes: &[],
        },
        Tree {
            name: "red: a symbol missing from the baseline (`NEW since baseline`)",
            upstream_exit: 1,
            plant: |root| apply_violation(root, "link-ratchet-new-reach"),
            codes: &["LNK001"],
        },
        Tree {
            name: "edge: the SHARED set is empty (the script's `an empty … set` refusal)",
            upstream_exit: 2,
            plant: |root| {
                let util = root.join(OBJECTS).join("MobileGL/MG_Util");
                std::fs::remove_dir_all(util).unwrap();
                // Without the shared log the server's Write() is not reach either way: the
                // refusal, not a number, is the verdict.
            },
            codes: &["LNK004", "LNK007"],
        },
    ];
    for t in trees {
        let (_d, root) = copy_with_objects();
        (t.plant)(&root);
        let rc = if t.upstream_exit == 0 { 0 } else { 1 };
        let (run, g) = check(&root, rc);
        assert_eq!(codes(&g), t.codes, "{}: {}", t.name, run.dump());
        let measurement = codes(&g).iter().any(|c| c != "LNK001" && c != "LNK002");
        assert_eq!(measurement, t.upstream_exit == 2, "{}", t.name);
    }
}

#[test]
fn self_test_trips_every_control_and_a_neutered_one_fails() {
    let run = mgctl(
        &["check", "driver", "--only", "link-ratchet", "--self-test"],
        &repo_root(),
    )
    .expect(0);
    run.assert_stdout_has("negative controls tripped: 6/6");
    for c in [
        "new-reach-trips",
        "empty-role-trips",
        "live-dropped-baseline-entry",
    ] {
        let run = mgctl(
            &[
                "check",
                "driver",
                "--only",
                "link-ratchet",
                "--self-test",
                "--neuter",
                &format!("link-ratchet/{c}"),
            ],
            &repo_root(),
        )
        .expect(1);
        run.assert_stdout_has(&format!("{c}: negative control did not trip"));
    }
}

/// One verdict per analysis (issue 28): `mgctl symbols ratchet` and the gate decide from the same
/// diagnostics on every tree: the same exit and the same codes.
#[test]
fn the_command_reaches_the_gates_verdict_and_rerecords_only_a_trusted_measurement() {
    type Plant = fn(&Path);
    let trees: [(&str, Plant); 4] = [
        ("clean", |_| {}),
        ("new reach", |r| {
            apply_violation(r, "link-ratchet-new-reach")
        }),
        ("unclassified", |r| {
            let o = r.join(OBJECTS);
            std::fs::copy(
                o.join("MobileGL/MG_Remote/Server/ServerApply.cpp.o"),
                o.join("MobileGL/Stray.cpp.o"),
            )
            .unwrap();
        }),
        ("unreadable", |r| {
            std::fs::write(r.join(OBJECTS).join("MobileGL/MG_Pipe/Bad.cpp.o"), b"junk").unwrap()
        }),
    ];
    for (name, plant) in trees {
        let (_d, root) = copy_with_objects();
        plant(&root);
        let (_, g) = check(&root, if name == "clean" { 0 } else { 1 });
        let r = mgctl(
            &["symbols", "ratchet", "-C", ".", "--format", "json"],
            &root,
        );
        let v: serde_json::Value =
            serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{name}: {e}\n{}", r.dump()));
        assert_eq!(
            r.code,
            if name == "clean" { 0 } else { 1 },
            "{name}: {}",
            r.dump()
        );
        assert_eq!(codes(&v), codes(&g), "{name}");
        // Re-recording is refused while the measurement is in doubt, and leaves the file alone.
        let before = std::fs::read(root.join(BASELINE)).unwrap();
        let w = mgctl(
            &["symbols", "ratchet", "-C", ".", "--write-baseline"],
            &root,
        );
        let doubt = codes(&g).iter().any(|c| c != "LNK001");
        if doubt {
            assert_eq!(w.code, 2, "{name}: {}", w.dump());
            w.assert_stderr_has("not writing the baseline while the measurement is in doubt");
            assert_eq!(
                std::fs::read(root.join(BASELINE)).unwrap(),
                before,
                "{name}"
            );
        } else {
            assert_eq!(w.code, 0, "{name}: {}", w.dump());
            w.assert_stdout_has("link-ratchet baseline written: 2 symbol(s)");
            let text = std::fs::read_to_string(root.join(BASELINE)).unwrap();
            // The kept symbol keeps its note; the new one is added; the gate is green again.
            assert!(text.contains("glBlendColor  # P13\n"), "{text}");
            assert!(
                text.contains("\nglBindBuffer\n") || text.contains("glBindBuffer  #"),
                "{text}"
            );
            check(&root, 0);
        }
    }
}

/// An object whose unit was preprocessed away has no symbol table at all (LLVM 14 ships six):
/// like `nm`, the ratchet reads it as defining and needing nothing, never as unreadable.
#[test]
fn an_object_without_a_symbol_table_defines_nothing() {
    let (d, root) = copy_with_objects();
    let src = d.path().join("empty.cpp");
    std::fs::write(&src, "// everything here is #if'd out\n").unwrap();
    let obj = root.join(OBJECTS).join("MobileGL/MG_Pipe/Empty.cpp.o");
    let ok = |c: &mut std::process::Command| c.status().is_ok_and(|s| s.success());
    assert!(
        ok(std::process::Command::new("g++")
            .arg("-c")
            .arg(&src)
            .arg("-o")
            .arg(&obj))
            && ok(std::process::Command::new("strip")
                .arg("--strip-all")
                .arg(&obj)),
        "g++ and strip (binutils) are needed: apt-get install g++ binutils"
    );
    let (run, g) = check(&root, 0);
    assert_eq!(codes(&g), Vec::<String>::new(), "{}", run.dump());
    assert_eq!(
        g["headline"],
        "34 objects (10 server, 22 frontend, 2 shared) / reach 2 (baseline 2) / 0 new, 0 cleared"
    );
}
