//! `mgctl dirty-surface …` and the `dirty-surface` gate, end to end.

use crate::util::{apply_violation, copy_driver, driver, mgctl, repo_root, scratch, write_tree};

const SUMMARY_SHAPE: &str = r"^\d+ files / \d+ mutator calls / \d+ distinct mutators / \d+ in \d+ IMMEDIATE PUBLISH POINTS across \d+ distinct mutators / -?\d+ DEFERRED$";

#[test]
fn summary_line_has_the_quoted_shape_then_upstream_lines() {
    let d = driver();
    let r = mgctl(
        &["dirty-surface", "-C", d.to_str().unwrap(), "--summary"],
        &repo_root(),
    )
    .expect(0);
    let first = r.stdout.lines().next().unwrap();
    assert!(
        regex::Regex::new(SUMMARY_SHAPE).unwrap().is_match(first),
        "{}",
        r.dump()
    );
    assert!(
        r.stdout.contains(
            "\ndirty-surface: distinct mutators, by call count, with what publishes each\n"
        ),
        "{}",
        r.dump()
    );
    // --summary still prints the table but no per-file section.
    assert!(!r.stdout.contains(" -> backend: "), "{}", r.dump());
}

#[test]
fn driver_checks_green_and_gate_passes_in_check() {
    let d = driver();
    let r = mgctl(
        &["dirty-surface", "-C", d.to_str().unwrap(), "--check"],
        &repo_root(),
    )
    .expect(0);
    assert!(
        r.stdout
            .lines()
            .next()
            .unwrap()
            .contains("mutators, all mapped, no stale rows;"),
        "{}",
        r.dump()
    );
    assert!(
        r.stdout
            .lines()
            .last()
            .unwrap()
            .starts_with("dirty-surface: the under-firing half read "),
        "{}",
        r.dump()
    );
    mgctl(
        &["check", d.to_str().unwrap(), "--only", "dirty-surface"],
        &repo_root(),
    )
    .expect(0);
}

#[test]
fn self_test_trips_everything_and_a_neutered_control_fails_it() {
    let r = mgctl(&["dirty-surface", "--self-test"], &repo_root()).expect(0);
    assert!(
        r.stdout.contains("self-test passed: ") && r.stdout.contains("negative controls tripped"),
        "{}",
        r.dump()
    );
    let r = mgctl(
        &["dirty-surface", "--self-test", "--neuter", "touch-prefix"],
        &repo_root(),
    )
    .expect(1);
    assert!(
        r.stdout
            .contains("negative control touch-prefix: NEGATIVE CONTROL DID NOT TRIP"),
        "{}",
        r.dump()
    );
    let r = mgctl(
        &[
            "check",
            "--self-test",
            "--only",
            "dirty-surface",
            "--neuter",
            "dirty-surface/raw-string",
        ],
        &driver(),
    )
    .expect(1);
    r.assert_stdout_has("raw-string");
}

#[test]
fn a_missing_row_is_unmapped_and_a_bad_row_is_an_input_error() {
    let (_g, root) = copy_driver();
    let def = root.join("MobileGL/MG_Pipe/DirtySurface.def");
    let text = std::fs::read_to_string(&def).unwrap();
    let row = text
        .lines()
        .find(|l| l.trim_start().starts_with("X(SetBlendColor,"))
        .unwrap()
        .to_string();
    std::fs::write(&def, text.replace(&format!("{row}\n"), "")).unwrap();
    let r = mgctl(
        &["dirty-surface", "-C", root.to_str().unwrap(), "--check"],
        &root,
    )
    .expect(1);
    assert!(
        r.stdout.contains(
            "dirty-surface: UNMAPPED mutator SetBlendColor - add a row to MG_Pipe/DirtySurface.def"
        ),
        "{}",
        r.dump()
    );
    assert!(
        r.stdout
            .contains("problem(s); the mapping must cover every mutator"),
        "{}",
        r.dump()
    );
    let r = mgctl(
        &[
            "check",
            root.to_str().unwrap(),
            "--only",
            "dirty-surface",
            "--format",
            "json",
        ],
        &root,
    )
    .expect(1);
    r.assert_stdout_has("DSF001");

    std::fs::write(
        &def,
        text.replace(&row, "    X(SetBlendColor NEW_RENDER_STATE) \\"),
    )
    .unwrap();
    let r = mgctl(
        &["dirty-surface", "-C", root.to_str().unwrap(), "--check"],
        &root,
    )
    .expect(2);
    let line = text.lines().position(|l| l == row).unwrap() + 1;
    assert!(r.stderr.contains(&format!("MobileGL/MG_Pipe/DirtySurface.def:{line}: malformed row: expected `X(Mutator, ANSWER)`")), "{}", r.dump());
}

fn mini(extra: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = scratch();
    let mut files: Vec<(&str, &str)> = vec![
        ("mgctl.toml", "[dirty_surface]\nscan_roots = [\"src\"]\ndef = \"Surface.def\"\n"),
        ("Surface.def", "#define MGP_DIRTY_SURFACE_LIST(X) \\\n    X(SetA, kNoBackendRead) \\\n    X(SetB, kImmediate)\n"),
        ("src/Entry.cpp", "void glA()\n{\n    int n = 1'000; pGLContext->SetA(1); int m = 2'0;\n}\nvoid glB()\n{\n    pGLContext->SetB(2);\n    gBackendFunctionsTable.GL.Flush();\n}\n"),
    ];
    files.extend_from_slice(extra);
    write_tree(dir.path(), &files);
    dir
}

#[test]
fn compat_upstream_reproduces_the_blind_spot_and_the_default_explains_it() {
    let dir = mini(&[]);
    let ws = dir.path().to_str().unwrap();
    let r = mgctl(&["dirty-surface", "-C", ws, "--summary"], dir.path()).expect(0);
    assert!(r.stdout.starts_with("1 files / 2 mutator calls / 2 distinct mutators / 1 in 1 IMMEDIATE PUBLISH POINTS across 1 distinct mutators / 1 DEFERRED\n"), "{}", r.dump());
    r.assert_stdout_has("digit separator in `1'000` at line 3");
    let r = mgctl(
        &[
            "dirty-surface",
            "-C",
            ws,
            "--summary",
            "--compat",
            "upstream",
        ],
        dir.path(),
    )
    .expect(0);
    assert!(r.stdout.starts_with("1 files / 1 mutator calls / 1 distinct mutators / 1 in 1 IMMEDIATE PUBLISH POINTS across 1 distinct mutators / 0 DEFERRED\n"), "{}", r.dump());
    let r = mgctl(&["dirty-surface", "-C", ws], dir.path()).expect(0);
    r.assert_stdout_has("\nsrc/Entry.cpp\n  glB (line 6) -> backend: Flush\n      SetB                                         :7  kImmediate\n");
}

#[test]
fn json_carries_every_call_with_its_position() {
    let dir = mini(&[]);
    let r = mgctl(
        &[
            "dirty-surface",
            "-C",
            dir.path().to_str().unwrap(),
            "--format",
            "json",
            "--call-graph",
        ],
        dir.path(),
    )
    .expect(0);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["schema"], 1);
    let calls = v["calls"].as_array().unwrap();
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[0]["path"], "src/Entry.cpp");
    assert_eq!(calls[0]["line"], 3);
    assert_eq!(calls[0]["column"], 20);
    assert_eq!(calls[0]["function"], "glA");
    assert_eq!(calls[1]["immediate"], true);
    assert_eq!(calls[1]["answer"], "kImmediate");
}

#[test]
fn bad_input_is_reported_never_a_panic() {
    // Missing scan root: exit 2 naming it.
    let dir = scratch();
    write_tree(
        dir.path(),
        &[("mgctl.toml", "[dirty_surface]\nscan_roots = [\"nope\"]\n")],
    );
    let r = mgctl(
        &["dirty-surface", "-C", dir.path().to_str().unwrap()],
        dir.path(),
    )
    .expect(2);
    r.assert_stderr_has("nope: scan root does not exist");
    // Missing def: the report runs without it (issue 18 item 2, was exit 2); --check exits 2 naming it.
    let dir = mini(&[(
        "mgctl.toml",
        "[dirty_surface]\nscan_roots = [\"src\"]\ndef = \"Missing.def\"\n",
    )]);
    let r = mgctl(
        &["dirty-surface", "-C", dir.path().to_str().unwrap()],
        dir.path(),
    )
    .expect(0);
    r.assert_stderr_has("Missing.def: no DirtySurface.def mapping");
    let r = mgctl(
        &[
            "dirty-surface",
            "-C",
            dir.path().to_str().unwrap(),
            "--check",
        ],
        dir.path(),
    )
    .expect(2);
    r.assert_stderr_has("Missing.def: missing file");
    // Unterminated literal and invalid UTF-8: warnings with positions, the rest still scanned.
    let dir = mini(&[(
        "src/Broken.cpp",
        "void glC() { Log(\"oops); }\nvoid glD() { pGLContext->SetA(3); }\n",
    )]);
    std::fs::write(
        dir.path().join("src/Latin1.h"),
        b"// caf\xe9\nvoid glE() { pGLContext->SetB(4); }\n",
    )
    .unwrap();
    let r = mgctl(
        &[
            "dirty-surface",
            "-C",
            dir.path().to_str().unwrap(),
            "--summary",
        ],
        dir.path(),
    )
    .expect(0);
    assert!(
        r.stderr
            .contains("src/Broken.cpp:1:18: unterminated string literal"),
        "{}",
        r.dump()
    );
    r.assert_stderr_has("src/Latin1.h:1:7: invalid UTF-8");
    assert!(
        r.stdout.starts_with("3 files / 4 mutator calls"),
        "{}",
        r.dump()
    );
}

/// The driver's planted dirty-surface overlays turn exactly this gate red, with the right code.
#[test]
fn planted_overlays_turn_the_gate_red() {
    for (overlay, code, text) in [
        (
            "dirty-surface-unmapped-mutator",
            "DSF001",
            "UNMAPPED mutator SetHint",
        ),
        (
            "dirty-surface-stale-row",
            "DSF002",
            "STALE row SetLineWidth",
        ),
    ] {
        let (_g, root) = copy_driver();
        apply_violation(&root, overlay);
        let r = mgctl(
            &["check", root.to_str().unwrap(), "--only", "dirty-surface"],
            &root,
        )
        .expect(1);
        assert!(
            r.stdout.contains(code) && r.stdout.contains(text),
            "{overlay}: {}",
            r.dump()
        );
    }
}

/// Issue 14: `dirty-surface --check` and the `dirty-surface` gate go through one library entry
/// point, so they agree on the verdict, the problems and the headline on the clean driver and on
/// every dirty-surface overlay.
#[test]
fn issue_14_command_and_gate_agree_on_every_overlay() {
    let overlays = std::fs::read_dir(driver().join("fixtures/violations"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("dirty-surface-"))
        .collect::<Vec<_>>();
    assert!(overlays.len() >= 2, "{overlays:?}");
    for overlay in std::iter::once(None).chain(overlays.iter().map(Some)) {
        let (_g, root) = copy_driver();
        if let Some(o) = overlay {
            apply_violation(&root, o);
        }
        let ws = root.to_str().unwrap();
        let cmd = mgctl(
            &["dirty-surface", "-C", ws, "--check", "--format", "json"],
            &root,
        );
        let gate = mgctl(
            &["check", ws, "--only", "dirty-surface", "--format", "json"],
            &root,
        );
        assert_eq!(
            cmd.code,
            gate.code,
            "{overlay:?}: {}\n{}",
            cmd.dump(),
            gate.dump()
        );
        let c: serde_json::Value = serde_json::from_str(&cmd.stdout).unwrap();
        let g: serde_json::Value = serde_json::from_str(&gate.stdout).unwrap();
        let g = g["gates"]
            .as_array()
            .unwrap()
            .iter()
            .find(|g| g["gate"] == "dirty-surface")
            .unwrap();
        assert_eq!(
            c["pass"].as_bool().unwrap(),
            g["verdict"] == "pass",
            "{overlay:?}"
        );
        let problems: Vec<&str> = c["problems"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["text"].as_str().unwrap())
            .collect();
        let findings: Vec<&str> = g["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["message"].as_str().unwrap())
            .collect();
        assert_eq!(problems, findings, "{overlay:?}");
        assert_eq!(overlay.is_none(), problems.is_empty(), "{overlay:?}");
        // The headline is the report's summary line, computed once.
        let summary = mgctl(&["dirty-surface", "-C", ws, "--summary"], &root).expect(0);
        assert_eq!(
            summary.stdout.lines().next().unwrap(),
            g["headline"].as_str().unwrap(),
            "{overlay:?}"
        );
    }
}

/// Issue 18 item 2: a tree from before DirtySurface.def (upstream's P0 era) still gets its
/// report; every mutator is UNMAPPED; only `--check` needs the mapping.
#[test]
fn issue_18_summary_runs_without_the_mapping_and_check_needs_it() {
    let (_g, root) = copy_driver();
    std::fs::remove_file(root.join("MobileGL/MG_Pipe/DirtySurface.def")).unwrap();
    let ws = root.to_str().unwrap();
    let r = mgctl(&["dirty-surface", "-C", ws, "--summary"], &root).expect(0);
    assert!(
        regex::Regex::new(SUMMARY_SHAPE)
            .unwrap()
            .is_match(r.stdout.lines().next().unwrap()),
        "{}",
        r.dump()
    );
    r.assert_stdout_has(" UNMAPPED - run --check");
    r.assert_stderr_has("no DirtySurface.def mapping");
    let full = mgctl(&["dirty-surface", "-C", ws], &root).expect(0);
    full.assert_stdout_has("UNMAPPED");
    let c = mgctl(&["dirty-surface", "-C", ws, "--check"], &root).expect(2);
    c.assert_stderr_has("missing file (the DirtySurface.def mapping)");
}

/// Issue 18 item 1: driver's `RenderState::SetStencilMask` binds its alias through an indexed call
/// (`m_parameters.StencilStates[FaceFirst(…)]`, upstream's stencil shape); it resolves to
/// `m_parameters{StencilStates}`, so it taints nothing, in default mode and under `--compat upstream`.
#[test]
fn issue_18_an_alias_bound_through_an_indexed_call_resolves() {
    let d = driver();
    for compat in [&[][..], &["--compat", "upstream"][..]] {
        let mut args = vec!["dirty-surface", "-C", d.to_str().unwrap(), "--check"];
        args.extend_from_slice(compat);
        let r = mgctl(&args, &repo_root()).expect(0);
        r.assert_stdout_has(
            "19 of those bodies carry a write it could not attribute and taint whatever reaches them, 1 of the 47 mutators reach one",
        );
    }
}
