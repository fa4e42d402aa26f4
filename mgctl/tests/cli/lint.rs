//! `mgctl lint regions | test-names | commits` and the `regions`, `test-names`, `preproc` and
//! `commits` gates of `mgctl check`, on temporary git repositories built with git2.

use std::path::Path;

use lints::gitread::fixture::commit_files;

use crate::util::*;

const MANAGERS: &str = "#include \"Managers.h\"\nnamespace DirectGLES {\nvoid ClearBufferPool(Pool& p) {\n    p.blocks.clear();\n}\nauto RingAvailable(const Ring& r) -> bool {\n    return r.head != r.tail;\n}\n} // namespace DirectGLES\n";

/// SHA-256 of `ClearBufferPool`'s extent in MANAGERS (lines 3-5, no final newline), computed
/// with Python's hashlib, independently of mgctl.
const CLEAR_PIN: &str = "a93ee7ee41758ac1a730b69f3bd7509cf361f25bc6075b9d5b50b34b0573f696";

fn regions_toml(pin: &str) -> String {
    format!(
        "[[regions.region]]\nname = \"ClearBufferPool\"\nfile = \"src/Managers.cpp\"\nsha256 = \"{pin}\"\nreason = \"pool must move verbatim\"\n\n[[regions.region]]\nname = \"RingAvailable\"\nfile = \"src/Managers.cpp\"\n"
    )
}

/// A repository whose HEAD holds mgctl.toml and src/Managers.cpp.
fn repo(toml: &str) -> tempfile::TempDir {
    let dir = scratch();
    commit_files(
        dir.path(),
        &[("mgctl.toml", toml), ("src/Managers.cpp", MANAGERS)],
        "[Test] (lint): base",
    )
    .unwrap();
    dir
}

fn edit(dir: &Path, from: &str, to: &str) {
    let p = dir.join("src/Managers.cpp");
    let text = std::fs::read_to_string(&p).unwrap();
    assert!(text.contains(from));
    std::fs::write(p, text.replacen(from, to, 1)).unwrap();
}

/// mgctl's hash of the extent upstream defines (start of the name's line to the closing brace).
fn pin() -> String {
    let start = MANAGERS.find("void ClearBufferPool").unwrap();
    let end = MANAGERS.find("}\nauto").unwrap() + 1;
    lints::regions::sha256_hex(&MANAGERS.as_bytes()[start..end])
}

#[test]
fn pinned_hash_computed_elsewhere_verifies() {
    assert_eq!(pin(), CLEAR_PIN);
}

#[test]
fn regions_identical_then_moved_with_diff() {
    let dir = repo(&regions_toml(CLEAR_PIN));
    let ws = dir.path().to_str().unwrap();
    let r = mgctl(&["lint", "regions", "--workspace", ws, "HEAD"], dir.path()).expect(0);
    assert!(
        r.stdout
            .contains(&format!("{CLEAR_PIN}  ClearBufferPool\n")),
        "{}",
        r.dump()
    );
    assert!(
        r.stdout
            .contains("the 2 regions are byte-identical between HEAD"),
        "{}",
        r.dump()
    );

    edit(
        dir.path(),
        "    return r.head != r.tail;\n",
        "    return r.head != r.tail; // edited\n",
    );
    edit(
        dir.path(),
        "    p.blocks.clear();\n",
        "    p.blocks.clear();\n    p.bytes = 0;\n",
    );
    let r = mgctl(&["lint", "regions", "--workspace", ws, "HEAD"], dir.path()).expect(1);
    assert!(
        r.stdout
            .contains("FIRST REGION THAT MOVED: ClearBufferPool"),
        "{}",
        r.dump()
    );
    r.assert_stdout_has("ClearBufferPool IS A PINNED ROW");
    r.assert_stdout_has("also moved: RingAvailable");
    r.assert_stdout_has("+    p.bytes = 0;");
    r.assert_stdout_has("-    return r.head != r.tail;");

    // Two refs: commit the edit and compare HEAD~1 with HEAD; JSON names the first mover.
    commit_files(dir.path(), &[], "[Test] (lint): edit").unwrap();
    let r = mgctl(
        &[
            "lint",
            "regions",
            "--workspace",
            ws,
            "HEAD~1",
            "HEAD",
            "--format",
            "json",
        ],
        dir.path(),
    )
    .expect(1);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["schema"], 1);
    assert_eq!(v["first_mover"], "ClearBufferPool");
    assert_eq!(v["moved"], 2);
}

#[test]
fn regions_list_prints_the_baseline_with_pins() {
    let dir = repo(&regions_toml(CLEAR_PIN));
    let r = mgctl(&["lint", "regions", "--list", "HEAD"], dir.path()).expect(0);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{}", r.dump());
    assert_eq!(lines[0], format!("{CLEAR_PIN}  ClearBufferPool"));
    assert!(
        lines[1].ends_with("  RingAvailable") && lines[1].len() == 64 + 2 + "RingAvailable".len()
    );
}

#[test]
fn regions_could_not_run_is_exit_2_with_every_hit() {
    let dir = repo(&regions_toml(CLEAR_PIN));
    edit(
        dir.path(),
        "} // namespace",
        "void ClearBufferPool(Pool& p) {\n    p.blocks.clear();\n}\n} // namespace",
    );
    let r = mgctl(&["lint", "regions", "HEAD"], dir.path()).expect(2);
    r.assert_stderr_has("ClearBufferPool: expected exactly one function definition in src/Managers.cpp at 'working tree', found 2");
    assert!(
        r.stderr
            .contains("definition at src/Managers.cpp:3, 3 lines")
            && r.stderr.contains("src/Managers.cpp:9, 3 lines"),
        "{}",
        r.dump()
    );

    let r = mgctl(&["lint", "regions", "no-such-ref"], dir.path()).expect(2);
    r.assert_stderr_has("no commit 'no-such-ref'");

    let toml = regions_toml(CLEAR_PIN).replace(
        "name = \"RingAvailable\"\nfile = \"src/Managers.cpp\"",
        "name = \"RingAvailable\"\nfile = \"src/Other.cpp\"",
    );
    let dir = repo(&toml);
    let r = mgctl(&["lint", "regions", "HEAD"], dir.path()).expect(2);
    assert!(
        r.stderr.contains(
            "RingAvailable: cannot read src/Other.cpp at 'HEAD' (no such file at that ref)"
        ),
        "{}",
        r.dump()
    );
}

#[test]
fn regions_repo_without_commits_is_named() {
    let dir = scratch();
    write_tree(
        dir.path(),
        &[
            ("mgctl.toml", &regions_toml(CLEAR_PIN)),
            ("src/Managers.cpp", MANAGERS),
        ],
    );
    lints::gitread::fixture::init(dir.path()).unwrap();
    let r = mgctl(&["lint", "regions", "HEAD"], dir.path()).expect(2);
    r.assert_stderr_has("has no commits yet");
}

#[test]
fn regions_self_test_passes_and_a_neutered_control_fails_it() {
    let dir = scratch();
    let r = mgctl(&["lint", "regions", "--self-test"], dir.path()).expect(0);
    r.assert_stdout_has("negative control wrong-pin: tripped");
    assert!(
        r.stdout
            .contains("negative control duplicated-definition: tripped"),
        "{}",
        r.dump()
    );
    let r = mgctl(
        &[
            "lint",
            "regions",
            "--self-test",
            "--neuter",
            "regions/edited-body",
        ],
        dir.path(),
    )
    .expect(1);
    assert!(
        r.stdout
            .contains("negative control edited-body: NEGATIVE CONTROL DID NOT TRIP"),
        "{}",
        r.dump()
    );
}

#[test]
fn check_compares_the_working_tree_with_the_pins() {
    let toml = format!("{}\n[commits]\n", regions_toml(CLEAR_PIN));
    let dir = repo(&toml);
    let ws = dir.path().to_str().unwrap();
    let r = mgctl(&["check", ws, "--only", "regions,commits"], dir.path()).expect(0);
    assert!(
        r.stdout
            .contains("2 regions / 1 pinned / 1 verified / 0 moved"),
        "{}",
        r.dump()
    );
    r.assert_stdout_has("[commits] has no range");
    edit(
        dir.path(),
        "    p.blocks.clear();\n",
        "    p.blocks.clear(); \n",
    );
    let r = mgctl(
        &["check", ws, "--only", "regions", "--format", "json"],
        dir.path(),
    )
    .expect(1);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let s = v.to_string();
    assert!(
        s.contains("REG001") && s.contains("first region that moved: function `ClearBufferPool`"),
        "{}",
        r.dump()
    );
}

const BEFORE: &str = "Test project /build\n  Test  #1: DirectGLES.Clear\n  Test  #2: DirectVulkan.Clear\n  Test  #3: smoke\n\nTotal Tests: 3\n";

#[test]
fn test_names_ratchet_and_same() {
    let dir = scratch();
    write_tree(
        dir.path(),
        &[
            ("before.txt", BEFORE),
            (
                "grown.txt",
                "DirectGLES.Clear\nDirectVulkan.Clear\nsmoke\nDirectGLES.Blend\n",
            ),
            ("shrunk.txt", "DirectGLES.Clear\nsmoke\n"),
            (
                "push.json",
                r#"{"kind":"ctestInfo","version":{"major":1,"minor":0},"tests":[{"name":"DirectGLES.Clear"},{"name":"DirectVulkan.Clear"},{"name":"smoke"}]}"#,
            ),
            ("binary.txt", "a\0b"),
        ],
    );
    let r = mgctl(
        &["lint", "test-names", "--ratchet", "before.txt", "grown.txt"],
        dir.path(),
    )
    .expect(0);
    r.assert_stdout_has("\n0 removed / +1\n");
    assert!(
        r.stdout
            .contains("added (1):\n  DirectGLES. (1)\n    DirectGLES.Blend\n"),
        "{}",
        r.dump()
    );
    let r = mgctl(
        &[
            "lint",
            "test-names",
            "--ratchet",
            "before.txt",
            "shrunk.txt",
        ],
        dir.path(),
    )
    .expect(1);
    assert!(
        r.stdout
            .contains("removed (1):\n  DirectVulkan. (1)\n    DirectVulkan.Clear\n"),
        "{}",
        r.dump()
    );
    r.assert_stdout_has("\n1 removed / +0\n");
    mgctl(
        &["lint", "test-names", "--same", "before.txt", "push.json"],
        dir.path(),
    )
    .expect(0);
    let r = mgctl(
        &[
            "lint",
            "test-names",
            "--same",
            "grown.txt",
            "push.json",
            "--format",
            "json",
        ],
        dir.path(),
    )
    .expect(1);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["removed"], serde_json::json!(["DirectGLES.Blend"]));
    let r = mgctl(
        &[
            "lint",
            "test-names",
            "--ratchet",
            "before.txt",
            "missing.txt",
        ],
        dir.path(),
    )
    .expect(2);
    r.assert_stderr_has("missing.txt: cannot read");
    let r = mgctl(
        &["lint", "test-names", "--same", "binary.txt", "before.txt"],
        dir.path(),
    )
    .expect(2);
    r.assert_stderr_has("binary.txt:1: binary data");
}

#[test]
fn test_names_gate_ratchets_against_the_checked_in_baseline() {
    let dir = scratch();
    let toml = "[test_names]\ncurrent = \"t/now.txt\"\nbaseline = \"t/base.txt\"\n";
    write_tree(
        dir.path(),
        &[
            ("mgctl.toml", toml),
            ("t/base.txt", BEFORE),
            (
                "t/now.txt",
                "DirectGLES.Clear\nsmoke\nDirectVulkan.Clear\nx\n",
            ),
        ],
    );
    let ws = dir.path().to_str().unwrap();
    let r = mgctl(&["check", ws, "--only", "test-names"], dir.path()).expect(0);
    r.assert_stdout_has("4 tests / 0 removed / +1");
    std::fs::write(dir.path().join("t/now.txt"), "smoke\n").unwrap();
    let r = mgctl(
        &["check", ws, "--only", "test-names", "--format", "json"],
        dir.path(),
    )
    .expect(1);
    assert!(
        r.stdout.contains("TST001") && r.stdout.contains("DirectVulkan.Clear"),
        "{}",
        r.dump()
    );
}

const PREPROC_TOML: &str = "[[preproc.retired]]\nmacros = [\"MOBILEGL_PIPE_PUSH\"]\nmessage = \"retired at P13 W3b\"\n\n[[preproc.banned]]\nidentifiers = [\"MGB_CTX\"]\ncomments = false\nmessage = \"MGB_CTX is back\"\n";

#[test]
fn preproc_scans_tracked_files_only() {
    let dir = scratch();
    commit_files(
        dir.path(),
        &[
            ("ws/mgctl.toml", PREPROC_TOML),
            ("ws/src/a.cpp", "#if defined(X) && \\\n    MOBILEGL_PIPE_PUSH\n#endif\n// MGB_CTX in a comment is fine here\n"),
            ("ws/src/b.h", "#define MOBILEGL_PIPE_PUSH 1\n"),
            ("outside.cpp", "#if MOBILEGL_PIPE_PUSH\n#endif\n"),
        ],
        "[Test] (lint): tree",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("ws/src/untracked.cpp"),
        "int x = MGB_CTX;\n",
    )
    .unwrap();
    let ws = dir.path().join("ws");
    let r = mgctl(
        &[
            "check",
            ws.to_str().unwrap(),
            "--only",
            "preproc",
            "--format",
            "github",
        ],
        dir.path(),
    )
    .expect(1);
    assert!(
        r.stdout.contains("src/a.cpp") && r.stdout.contains("line=2"),
        "{}",
        r.dump()
    );
    assert!(
        r.stdout.contains("PPR002") || r.stdout.contains("#define of retired MOBILEGL_PIPE_PUSH"),
        "{}",
        r.dump()
    );
    assert!(
        !r.stdout.contains("untracked.cpp") && !r.stdout.contains("outside.cpp"),
        "{}",
        r.dump()
    );

    // Not a git repository: said clearly (a warning), and every file is scanned instead.
    let plain = scratch();
    let toml = PREPROC_TOML.replace(
        "[[preproc.retired]]",
        "[preproc]\nexclude = [\"fixtures/**\"]\n\n[[preproc.retired]]",
    );
    write_tree(
        plain.path(),
        &[
            ("mgctl.toml", &toml),
            ("a.cpp", "int x;\n"),
            (
                "fixtures/planted.cpp",
                "#ifdef MOBILEGL_PIPE_PUSH\n#endif\n",
            ),
        ],
    );
    let r = mgctl(
        &[
            "check",
            plain.path().to_str().unwrap(),
            "--only",
            "preproc",
            "--format",
            "json",
        ],
        plain.path(),
    )
    .expect(0);
    assert!(
        r.stdout.contains("PPR004") && r.stdout.contains("not inside a git repository"),
        "{}",
        r.dump()
    );
    std::fs::write(plain.path().join("b.h"), "#elifndef MOBILEGL_PIPE_PUSH\n").unwrap();
    let r = mgctl(
        &[
            "check",
            plain.path().to_str().unwrap(),
            "--only",
            "preproc",
            "--format",
            "json",
        ],
        plain.path(),
    )
    .expect(1);
    assert!(
        r.stdout.contains("PPR001")
            && r.stdout.contains("b.h")
            && !r.stdout.contains("planted.cpp"),
        "{}",
        r.dump()
    );
}

#[test]
fn commits_style_over_a_range() {
    let dir = scratch();
    commit_files(dir.path(), &[("a", "1")], "[Feat] (core): first").unwrap();
    commit_files(dir.path(), &[("a", "2")], "[Fix] (core): second").unwrap();
    let r = mgctl(&["lint", "commits", "HEAD~1..HEAD"], dir.path()).expect(0);
    r.assert_stdout_has("commits: 1 in HEAD~1..HEAD, 0 off-style");
    let bad = commit_files(
        dir.path(),
        &[("a", "3")],
        "[Feature] (core): third\n\nCo-Authored-By: Bot <b@x>\n",
    )
    .unwrap();
    let r = mgctl(&["lint", "commits", "HEAD~2..HEAD"], dir.path()).expect(1);
    assert!(
        r.stdout
            .contains(&format!("{} FAIL [Feature] (core): third", &bad[..10])),
        "{}",
        r.dump()
    );
    r.assert_stdout_has("known-type: unknown Type '[Feature]'");
    assert!(
        r.stdout
            .contains("no-attribution: attribution trailer 'Co-Authored-By:'"),
        "{}",
        r.dump()
    );
    r.assert_stdout_has("single-line:");
    let r = mgctl(&["lint", "commits", "nope..HEAD"], dir.path()).expect(2);
    r.assert_stderr_has("no commit 'nope'");
    let r = mgctl(&["lint", "commits"], dir.path()).expect(2);
    r.assert_stderr_has("give a RANGE");
}

const MY_GATES: &str = "regions,test-names,preproc,commits";

#[test]
fn driver_is_green_for_these_gates() {
    let r = mgctl(
        &["check", driver().to_str().unwrap(), "--only", MY_GATES],
        &repo_root(),
    )
    .expect(0);
    assert!(
        r.stdout.contains("0 moved") && r.stdout.contains("0 removed / +0"),
        "{}",
        r.dump()
    );
}

/// Checks a driver copy with `overlay` applied: exactly `gate` fails, and the report names `needles`.
fn only_red(overlay_name: &str, gate: &str, needles: &[&str]) {
    let (_guard, copy) = copy_driver();
    apply_violation(&copy, overlay_name);
    let ws = copy.to_str().unwrap();
    let r = mgctl(
        &["check", ws, "--only", MY_GATES, "--format", "json"],
        &copy,
    )
    .expect(1);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    for g in v["gates"].as_array().unwrap() {
        let failed = g["verdict"] == "fail";
        assert_eq!(failed, g["gate"] == gate, "{}: {}", g["gate"], r.dump());
    }
    for n in needles {
        assert!(r.stdout.contains(n), "{n}: {}", r.dump());
    }
}

#[test]
fn driver_planted_region_edit_turns_only_regions_red() {
    only_red(
        "regions-edited-ring-allocate",
        "regions",
        &["first region that moved: function `RingAllocate`"],
    );
}

#[test]
fn driver_planted_dropped_test_turns_only_test_names_red() {
    only_red(
        "test-names-dropped-test",
        "test-names",
        &["TST001", "DirectGLES.demo_benchmark_json"],
    );
}

#[test]
fn check_with_a_base_ref_and_a_bad_pin() {
    let toml = format!("[regions]\nbase = \"HEAD\"\n\n{}", regions_toml(CLEAR_PIN));
    let dir = repo(&toml);
    let ws = dir.path().to_str().unwrap();
    let r = mgctl(&["check", ws, "--only", "regions"], dir.path()).expect(0);
    assert!(
        r.stdout
            .contains("2 regions / 1 pinned / 2 verified / 0 moved"),
        "{}",
        r.dump()
    );
    edit(
        dir.path(),
        "    return r.head != r.tail;\n",
        "    return r.tail != r.head;\n",
    );
    let r = mgctl(
        &["check", ws, "--only", "regions", "--format", "github"],
        dir.path(),
    )
    .expect(1);
    assert!(
        r.stdout
            .contains("first region that moved: function `RingAvailable` differs from 'HEAD'"),
        "{}",
        r.dump()
    );

    let bad = toml.replace(CLEAR_PIN, "ABC123");
    std::fs::write(dir.path().join("mgctl.toml"), &bad).unwrap();
    let r = mgctl(
        &["check", ws, "--only", "regions", "--format", "github"],
        dir.path(),
    )
    .expect(1);
    assert!(
        r.stdout.contains("REG004") && r.stdout.contains("file=mgctl.toml,line=7"),
        "{}",
        r.dump()
    );
}

/// Issue 15 item 3: a `[[tokens.rule]]` whose `paths` glob is misspelt checks nothing; it used
/// to pass while the backend really held `pGLContext`.
#[test]
fn issue15_tokens_rule_glob_matching_no_file_fails() {
    let (_guard, copy) = copy_driver();
    apply_violation(&copy, "tokens-backend-pglcontext");
    let toml = std::fs::read_to_string(copy.join("mgctl.toml")).unwrap();
    let bad = toml.replacen(
        "paths = [\"MobileGL/MG_Backend/**\"]",
        "paths = [\"MobileGL/MG_Backnd/**\"]",
        1,
    );
    assert_ne!(bad, toml);
    std::fs::write(copy.join("mgctl.toml"), &bad).unwrap();
    let ws = copy.to_str().unwrap();
    let r = mgctl(
        &["check", ws, "--only", "tokens", "--format", "github"],
        &copy,
    )
    .expect(1);
    r.assert_stdout_has("TOK006");
    r.assert_stdout_has("paths glob `MobileGL/MG_Backnd/**` matches no file");
    r.assert_stdout_has("file=mgctl.toml,line=11");
    // one misspelt glob of a rule whose other glob matches files is a warning, not a failure
    let two = toml.replacen(
        "paths = [\"MobileGL/MG_Backend/**\", \"MobileGL/MG_State/**\"]",
        "paths = [\"MobileGL/MG_Backend/**\", \"MobileGL/MG_Stat/**\"]",
        1,
    );
    assert_ne!(two, toml);
    std::fs::write(copy.join("mgctl.toml"), &two).unwrap();
    let r = mgctl(
        &["check", ws, "--only", "tokens", "--format", "json"],
        &copy,
    )
    .expect(1);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let gate = v["gates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["gate"] == "tokens")
        .unwrap();
    let fs = gate["findings"].as_array().unwrap();
    assert!(
        fs.iter()
            .any(|f| f["code"] == "TOK007" && f["severity"] == "warning"),
        "{}",
        r.dump()
    );
    assert!(fs.iter().any(|f| f["code"] == "TOK001"), "{}", r.dump());
    // the clean driver stays green: every glob of its rules matches a file
    let (_g2, clean) = copy_driver();
    mgctl(
        &["check", clean.to_str().unwrap(), "--only", "tokens"],
        &clean,
    )
    .expect(0);
}

/// Issue 18 item 4: one ambiguous region no longer withholds the others: they are still
/// printed and verified, and one that moved is reported as moved.
#[test]
fn issue18_ambiguous_region_still_verifies_the_rest() {
    let dir = repo(&regions_toml(CLEAR_PIN));
    edit(
        dir.path(),
        "} // namespace",
        "void ClearBufferPool(Pool& p) {\n    p.blocks.clear();\n}\n} // namespace",
    );
    let r = mgctl(&["lint", "regions", "HEAD"], dir.path()).expect(2);
    r.assert_stdout_has("  RingAvailable");
    r.assert_stdout_has(
        "COULD NOT VERIFY: ClearBufferPool: expected exactly one function definition",
    );
    r.assert_stdout_has("1 configured region(s) could not be verified");
    r.assert_stderr_has("ClearBufferPool: expected exactly one function definition");
    // the other region moves too: that is a failure (exit 1), reported as such
    edit(
        dir.path(),
        "    return r.head != r.tail;\n",
        "    return r.tail != r.head;\n",
    );
    let r = mgctl(&["lint", "regions", "HEAD", "--format", "json"], dir.path()).expect(1);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["first_mover"], "RingAvailable", "{}", r.dump());
    assert_eq!(v["problems"].as_array().unwrap().len(), 1, "{}", r.dump());
    // the gate: a real headline (not "could not run"), REG001 for the mover, REG002 for the twin
    let ws = dir.path().to_str().unwrap();
    let r = mgctl(
        &["check", ws, "--only", "regions", "--format", "json"],
        dir.path(),
    )
    .expect(1);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let g = v["gates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["gate"] == "regions")
        .unwrap();
    assert_eq!(
        g["headline"],
        "1 regions / 0 pinned / 0 verified / 0 moved / 1 could not be checked",
        "{}",
        r.dump()
    );
    let codes: Vec<&str> = g["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["code"].as_str().unwrap())
        .collect();
    assert!(codes.contains(&"REG002"), "{}", r.dump());
}

/// Issue 17 item 12: a moved pinned region in `check` carries the diff against the pinned body
/// (from the workspace's git HEAD), as `lint regions` shows it; it used to be `"diff": null`.
#[test]
fn issue17_check_shows_the_diff_of_a_moved_pinned_region() {
    let dir = repo(&regions_toml(CLEAR_PIN));
    edit(
        dir.path(),
        "    p.blocks.clear();\n",
        "    p.blocks.clear(); // edited\n",
    );
    let ws = dir.path().to_str().unwrap();
    let r = mgctl(
        &["check", ws, "--only", "regions", "--format", "json"],
        dir.path(),
    )
    .expect(1);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let g = v["gates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["gate"] == "regions")
        .unwrap();
    let f = g["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["code"] == "REG001")
        .unwrap();
    let diff = f["detail"]["diff"]
        .as_str()
        .unwrap_or_else(|| panic!("{}", r.dump()));
    assert!(diff.contains("+    p.blocks.clear(); // edited"), "{diff}");
    assert!(diff.contains("-    p.blocks.clear();"), "{diff}");
}

/// The gate's report for `gate` in `check --only gate --format json` on `ws`.
fn gate_json(ws: &Path, gate: &str) -> (serde_json::Value, i32) {
    let r = mgctl(
        &[
            "check",
            ws.to_str().unwrap(),
            "--only",
            gate,
            "--format",
            "json",
        ],
        ws,
    );
    let code = r.code;
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let g = v["gates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["gate"] == gate)
        .unwrap()
        .clone();
    (g, code)
}

fn figure(g: &serde_json::Value, name: &str) -> serde_json::Value {
    g["figures"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f[0] == name)
        .map_or(serde_json::Value::Null, |f| f[1].clone())
}

/// Issue 14 parity: on the clean driver and on every cite overlay, `mgctl cite` and the `cite`
/// gate reach the same verdict and the same headline figures.
#[test]
fn issue14_cite_command_and_gate_agree() {
    for overlay in [None, Some("cite-past-end"), Some("cite-code-moved")] {
        let (_guard, copy) = copy_driver();
        if let Some(o) = overlay {
            apply_violation(&copy, o);
        }
        let (g, gate_code) = gate_json(&copy, "cite");
        let r = mgctl(
            &[
                "cite",
                "--workspace",
                copy.to_str().unwrap(),
                "--strict",
                "--format",
                "json",
            ],
            &copy,
        );
        let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
        let gate_failed = g["verdict"] == "fail";
        assert_eq!(gate_failed, overlay.is_some(), "{overlay:?}: {g}");
        assert_eq!(r.code == 1, gate_failed, "{overlay:?}: {}", r.dump());
        assert_eq!(gate_code, r.code, "{overlay:?}");
        assert_eq!(
            v["summary"]["citations"],
            figure(&g, "citations"),
            "{overlay:?}"
        );
        assert_eq!(
            v["documents"].as_array().unwrap().len(),
            figure(&g, "documents").as_u64().unwrap() as usize,
            "{overlay:?}"
        );
        for class in ["ok", "moved", "changed", "gone", "invalid"] {
            let cmd = v["summary"]["by_class"][class].as_u64().unwrap_or(0);
            assert_eq!(
                serde_json::json!(cmd),
                figure(&g, class),
                "{overlay:?} {class}"
            );
        }
    }
}

/// Issue 14 parity: on the clean driver and the test-names overlay, `lint test-names --ratchet`
/// over the configured lists and the `test-names` gate agree on verdict and figures.
#[test]
fn issue14_test_names_command_and_gate_agree() {
    for overlay in [None, Some("test-names-dropped-test")] {
        let (_guard, copy) = copy_driver();
        if let Some(o) = overlay {
            apply_violation(&copy, o);
        }
        let (g, gate_code) = gate_json(&copy, "test-names");
        let t = copy.join("MobileGL/MG_Test");
        let r = mgctl(
            &[
                "lint",
                "test-names",
                "--ratchet",
                t.join("ctest-baseline.txt").to_str().unwrap(),
                t.join("ctest-list.txt").to_str().unwrap(),
                "--format",
                "json",
            ],
            &copy,
        );
        let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
        assert_eq!(gate_code, r.code, "{overlay:?}: {}", r.dump());
        assert_eq!(v["passed"], g["verdict"] == "pass", "{overlay:?}");
        assert_eq!(v["after"]["count"], figure(&g, "tests"), "{overlay:?}");
        assert_eq!(
            serde_json::json!(v["removed"].as_array().unwrap().len()),
            figure(&g, "removed")
        );
        assert_eq!(
            serde_json::json!(v["added"].as_array().unwrap().len()),
            figure(&g, "added")
        );
    }
}

/// Issue 14 parity for the tokens overlays: the gate's verdict follows the planted token, and
/// the headline figures count it (the tokens analysis has no separate command: `check --only
/// tokens` is its command).
#[test]
fn issue14_tokens_overlays_fail_with_counted_figures() {
    let (_g, clean) = copy_driver();
    let (g, code) = gate_json(&clean, "tokens");
    assert_eq!((g["verdict"].as_str(), code), (Some("pass"), 0), "{g}");
    let clean_files = figure(&g, "files").as_u64().unwrap();
    for overlay in ["tokens-backend-pglcontext", "tokens-state-printf"] {
        let (_guard, copy) = copy_driver();
        apply_violation(&copy, overlay);
        let (g, code) = gate_json(&copy, "tokens");
        assert_eq!((g["verdict"].as_str(), code), (Some("fail"), 1), "{g}");
        // the headline figure counts exactly the TOK001 findings the gate reports
        let hits = g["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["code"] == "TOK001")
            .count();
        assert!(hits >= 1, "{overlay}: {g}");
        assert_eq!(figure(&g, "forbidden"), hits, "{overlay}: {g}");
        assert_eq!(
            figure(&g, "files").as_u64().unwrap(),
            clean_files + 1,
            "{g}"
        );
    }
}

fn git(dir: &std::path::Path, args: &[&str]) {
    let ok = std::process::Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
        .status
        .success();
    assert!(ok, "git {args:?} failed in {}", dir.display());
}

/// Issue 29: a scan that sees nothing because of how the tree is tracked is not a pass. A fresh
/// `git init` (nothing tracked) and an untracked directory inside another repository are scanned
/// from the file system, with a PPR004 warning saying why, exactly as outside git.
#[test]
fn preproc_scans_the_files_when_git_tracks_none_of_them() {
    let files = [
        ("mgctl.toml", PREPROC_TOML),
        ("src/a.cpp", "#ifdef MGB_CTX\nint a;\n#endif\n"),
    ];
    // Outside git: the reference verdict.
    let plain = scratch();
    write_tree(plain.path(), &files);
    mgctl(&["check", ".", "--only", "preproc"], plain.path()).expect(1);
    // A fresh `git init`: the index is empty.
    let fresh = scratch();
    write_tree(fresh.path(), &files);
    git(fresh.path(), &["init", "-q"]);
    let r = mgctl(&["check", ".", "--only", "preproc"], fresh.path()).expect(1);
    r.assert_stdout_has("PPR");
    let r = mgctl(
        &["check", ".", "--only", "preproc", "--format", "json"],
        fresh.path(),
    )
    .expect(1);
    r.assert_stdout_has("git tracks no file under the workspace");
    // An untracked workspace inside another repository that tracks something else.
    let outer = scratch();
    write_tree(outer.path(), &[("README", "x\n")]);
    git(outer.path(), &["init", "-q"]);
    git(outer.path(), &["add", "README"]);
    let ws = outer.path().join("ws");
    write_tree(&ws, &files);
    mgctl(&["check", ".", "--only", "preproc"], &ws).expect(1);
}

/// Issue 29: a tracked file whose name is not UTF-8 is scanned like any other (it used to be
/// dropped from the index listing, so the gate passed while the UTF-8-named copy failed).
#[test]
fn preproc_scans_a_tracked_file_whose_name_is_not_utf8() {
    use std::os::unix::ffi::OsStrExt;
    let d = scratch();
    write_tree(
        d.path(),
        &[("mgctl.toml", PREPROC_TOML), ("src/ok.cpp", "int ok;\n")],
    );
    let name = std::ffi::OsStr::from_bytes(b"src/caf\xe9.cpp");
    std::fs::write(d.path().join(name), "#ifdef MGB_CTX\nint a;\n#endif\n").unwrap();
    git(d.path(), &["init", "-q"]);
    git(d.path(), &["add", "."]);
    let r = mgctl(&["check", ".", "--only", "preproc"], d.path()).expect(1);
    r.assert_stdout_has("caf");
}
