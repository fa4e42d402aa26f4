//! `mgctl check`: the runner, the token gate, every output format, exit codes.

use crate::util::*;

const TOKENS_TOML: &str = r#"
[workspace]
name = "tmp"

[[tokens.rule]]
name = "purity-c"
ident = "pGLContext"
paths = ["MobileGL/MG_Backend/**"]
mask = "none"
message = "backend must not reach the frontend context"

[[tokens.rule]]
name = "no-stdio"
pattern = '\b(printf|fprintf|puts)\s*\('
paths = ["MobileGL/MG_Backend/**", "MobileGL/MG_State/**"]
"#;

fn planted() -> tempfile::TempDir {
    let dir = scratch();
    write_tree(
        dir.path(),
        &[
            ("mgctl.toml", TOKENS_TOML),
            (
                "MobileGL/MG_Backend/DirectGLES/Draw.cpp",
                "void Draw() {\n  // fine\n  auto* c = MG_State::pGLContext;\n}\n",
            ),
            (
                "MobileGL/MG_State/Clean.cpp",
                "// printf(\"only a comment\")\nint x;\n",
            ),
        ],
    );
    dir
}

#[test]
fn planted_token_violation_fails_with_file_and_line() {
    let dir = planted();
    let run = mgctl(&["check", "."], dir.path()).expect(1);
    assert!(
        run.stdout
            .contains("MobileGL/MG_Backend/DirectGLES/Draw.cpp:3:23"),
        "{}",
        run.dump()
    );
    run.assert_stdout_has("TOK001");
    run.assert_stdout_has("FAIL");
}

#[test]
fn clean_tree_passes_and_lists_skipped_gates() {
    let dir = scratch();
    write_tree(
        dir.path(),
        &[
            ("mgctl.toml", TOKENS_TOML),
            ("MobileGL/MG_Backend/A.cpp", "int a;\n"),
        ],
    );
    let run = mgctl(&["check", "."], dir.path()).expect(0);
    run.assert_stdout_has("tokens");
    run.assert_stdout_has("mgctl check: PASS");
    run.assert_stdout_has("23 skipped");
    // The list itself: every gate but tokens, each saying which section it lacks.
    let run = mgctl(&["check", ".", "--format", "json"], dir.path()).expect(0);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let skipped: Vec<(String, String)> = v["gates"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|g| g["verdict"] == "skipped")
        .map(|g| {
            (
                g["gate"].as_str().unwrap().to_string(),
                g["reason"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let names: Vec<&str> = skipped.iter().map(|(g, _)| g.as_str()).collect();
    assert_eq!(
        names,
        [
            "budgets",
            "census",
            "cite",
            "commits",
            "controls",
            "counters",
            "ctest",
            "dirty-surface",
            "evidence",
            "fatal-sites",
            "fatals",
            "generated",
            "include-layering",
            "include-probes",
            "layout",
            "link-ratchet",
            "preproc",
            "regions",
            "retrace",
            "symbol-rules",
            "symbols",
            "test-names",
            "test-sets"
        ],
        "{}",
        run.dump()
    );
    for (gate, reason) in &skipped {
        assert!(
            reason.starts_with("no [") && reason.ends_with(" in mgctl.toml"),
            "{gate}: {reason}"
        );
    }
}

#[test]
fn json_output_parses_and_carries_schema() {
    let dir = planted();
    let run = mgctl(&["check", ".", "--format", "json"], dir.path()).expect(1);
    let v: serde_json::Value =
        serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}\n{}", run.dump()));
    assert_eq!(v["schema"], 1);
    assert_eq!(v["passed"], false);
    let tokens = v["gates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["gate"] == "tokens")
        .unwrap();
    assert_eq!(tokens["verdict"], "fail");
    assert_eq!(
        tokens["findings"][0]["location"]["path"],
        "MobileGL/MG_Backend/DirectGLES/Draw.cpp"
    );
    assert_eq!(tokens["findings"][0]["location"]["line"], 3);
}

#[test]
fn junit_output_parses() {
    let dir = planted();
    let run = mgctl(&["check", ".", "--format", "junit"], dir.path()).expect(1);
    let doc =
        roxmltree::Document::parse(&run.stdout).unwrap_or_else(|e| panic!("{e}\n{}", run.dump()));
    let suite = doc
        .descendants()
        .find(|n| n.has_tag_name("testsuite") && n.attribute("name") == Some("tokens"))
        .unwrap();
    assert_eq!(suite.attribute("failures"), Some("1"));
    let failed: Vec<_> = suite
        .descendants()
        .filter(|n| n.has_tag_name("failure"))
        .collect();
    assert_eq!(failed.len(), 1);
    assert!(failed[0].text().unwrap().contains("Draw.cpp:3:23"));
}

#[test]
fn github_output_has_annotations_then_full_report() {
    let dir = planted();
    let run = mgctl(&["check", ".", "--format", "github"], dir.path()).expect(1);
    let re = regex::Regex::new(
        r"^::(error|warning|notice) file=([^,]+),line=(\d+),col=(\d+),title=[^:]+::(.+)$",
    )
    .unwrap();
    let ann: Vec<_> = run.stdout.lines().filter_map(|l| re.captures(l)).collect();
    assert_eq!(ann.len(), 1, "{}", run.dump());
    assert_eq!(&ann[0][2], "MobileGL/MG_Backend/DirectGLES/Draw.cpp");
    assert_eq!(&ann[0][3], "3");
    run.assert_stdout_has("mgctl check: FAIL");
}

#[test]
fn markdown_output_has_table() {
    let dir = planted();
    let run = mgctl(&["check", ".", "--format", "markdown"], dir.path()).expect(1);
    run.assert_stdout_has("| `tokens` | FAIL | 1 |");
}

#[test]
fn output_file_gets_format_and_stdout_gets_summary() {
    let dir = planted();
    let out = dir.path().join("report.json");
    let run = mgctl(
        &[
            "check",
            ".",
            "--format",
            "json",
            "--output",
            out.to_str().unwrap(),
        ],
        dir.path(),
    )
    .expect(1);
    run.assert_stdout_has("mgctl check: FAIL");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(v["schema"], 1);
}

#[test]
fn malformed_config_exits_2_naming_line_and_column() {
    let dir = scratch();
    write_tree(
        dir.path(),
        &[("mgctl.toml", "[workspace]\nname = \"x\"\nbogus = 1\n")],
    );
    let run = mgctl(&["check", "."], dir.path()).expect(2);
    run.assert_stderr_has("mgctl.toml:3:1: unknown field `bogus`");
    assert_eq!(run.stderr.trim().lines().count(), 1, "{}", run.dump());

    write_tree(dir.path(), &[("mgctl.toml", "[workspace\n")]);
    let run = mgctl(&["check", "."], dir.path()).expect(2);
    run.assert_stderr_has("mgctl.toml:1:");
}

#[test]
fn bad_rule_fails_only_its_gate() {
    let dir = scratch();
    write_tree(
        dir.path(),
        &[(
            "mgctl.toml",
            "[[tokens.rule]]\nname = \"bad\"\npattern = \"(\"\npaths = [\"**\"]\n",
        )],
    );
    let run = mgctl(&["check", "."], dir.path()).expect(1);
    assert!(
        run.stdout.contains("TOK003") && run.stdout.contains("mgctl.toml:2:"),
        "{}",
        run.dump()
    );
}

#[test]
fn unknown_gate_and_missing_path_exit_2() {
    let dir = planted();
    let run = mgctl(&["check", ".", "--only", "nosuchgate"], dir.path()).expect(2);
    run.assert_stderr_has("unknown gate `nosuchgate`");
    let run = mgctl(&["check", "does/not/exist"], dir.path()).expect(2);
    run.assert_stderr_has("does/not/exist");
    assert_eq!(run.stderr.trim().lines().count(), 1);
}

#[test]
fn no_config_and_not_mobilegl_exits_2_saying_what_was_looked_for() {
    let dir = scratch();
    let run = mgctl(&["check", "."], dir.path()).expect(2);
    assert!(
        run.stderr.contains("MobileGL/MG_Backend") && run.stderr.contains("mgctl.toml"),
        "{}",
        run.dump()
    );
}

#[test]
fn mobilegl_checkout_without_config_gets_the_profile() {
    let dir = scratch();
    write_tree(
        dir.path(),
        &[("MobileGL/MG_Backend/X.cpp", "void f() { printf(\"x\"); }\n")],
    );
    let run = mgctl(&["check", ".", "--only", "tokens"], dir.path()).expect(1);
    run.assert_stdout_has("built-in MobileGL profile");
    run.assert_stdout_has("no-stdio");
}

#[test]
fn skip_lists_the_gate_with_its_reason() {
    let dir = planted();
    // tokens is this workspace's only gate: skipping it leaves nothing checked (exit 2, issue 15).
    let run = mgctl(&["check", ".", "--skip", "tokens"], dir.path()).expect(2);
    run.assert_stdout_has("skipped by --skip");
}

#[test]
fn self_test_passes_and_fails_when_a_control_is_neutered() {
    let dir = scratch();
    let run = mgctl(&["check", "--self-test"], dir.path()).expect(0);
    run.assert_stdout_has("negative controls tripped");
    let run = mgctl(
        &[
            "check",
            "--self-test",
            "--only",
            "tokens",
            "--neuter",
            "tokens/printf-in-state",
        ],
        dir.path(),
    )
    .expect(1);
    assert!(
        run.stdout
            .contains("printf-in-state: negative control did not trip"),
        "{}",
        run.dump()
    );
}

#[test]
fn driver_workspace_is_green() {
    let run = mgctl(&["check", "driver"], &repo_root()).expect(0);
    run.assert_stdout_has("mgctl check: PASS");
}

#[test]
fn version_names_the_commit() {
    let run = mgctl(&["--version"], &repo_root()).expect(0);
    assert!(
        run.stdout.starts_with("mgctl 0.1.0 (commit "),
        "{}",
        run.dump()
    );
}

#[test]
fn completions_for_each_shell() {
    for shell in ["bash", "zsh", "fish"] {
        let run = mgctl(&["completions", shell], &repo_root()).expect(0);
        assert!(run.stdout.contains("check"), "{shell}: {}", run.dump());
    }
}

/// Issue 32: every command finds its workspace upwards, as `check` does: from inside
/// `driver/MobileGL` the analyser commands read `driver/mgctl.toml`.
#[test]
fn commands_discover_the_workspace_above_them() {
    let (_g, root) = copy_driver();
    let inner = root.join("MobileGL");
    for args in [
        &["cite"][..],
        &["dirty-surface", "--summary"][..],
        &["include", "rules"][..],
        &["lint", "fatal-sites"][..],
    ] {
        mgctl(args, &inner).expect(0);
    }
}

/// Issue 32: from a directory that holds a workspace one level down (the repository root), the
/// error names it and the command that would run it.
#[test]
fn no_workspace_here_suggests_the_one_below() {
    let d = scratch();
    write_tree(d.path(), &[("ws/mgctl.toml", TOKENS_TOML)]);
    let r = mgctl(&["check"], d.path()).expect(2);
    r.assert_stderr_has("a workspace is one level down: ws (run `mgctl check ws`)");
}

/// Issue 32: bare `mgctl` prints its help as clap lays it out (many lines, on stderr), exit 2.
#[test]
fn bare_mgctl_prints_the_whole_help() {
    let d = scratch();
    let r = mgctl::<&str>(&[], d.path()).expect(2);
    assert!(r.stderr.lines().count() > 10, "{}", r.dump());
    assert!(r.stderr.contains("\nCommands:\n"), "{}", r.dump());
}

/// Issue 32: a probe selection is not held to the configured `expect_probes` (a count of the full
/// run); an explicit `--expect-probes` still is.
#[test]
fn a_probe_selection_is_not_held_to_the_configured_count() {
    mgctl(
        &[
            "include",
            "-C",
            "driver",
            "probes",
            "--probe",
            "value-header",
        ],
        &repo_root(),
    )
    .expect(0);
    mgctl(
        &[
            "include",
            "-C",
            "driver",
            "probes",
            "--probe",
            "value-header",
            "--expect-probes",
            "2",
        ],
        &repo_root(),
    )
    .expect(1);
}

/// An error names the file it could not read: a name with control characters is printed escaped,
/// so it cannot recolour the terminal or start a workflow command.
#[test]
fn error_messages_escape_the_names_they_quote() {
    let d = scratch();
    let r = mgctl(
        &["stats", "summary", "a\u{1b}[31m\n::error::x.log"],
        d.path(),
    )
    .expect(2);
    assert!(!r.stderr.contains('\u{1b}'), "{}", r.dump());
    assert!(
        r.stderr.contains("a\\x1b[31m\\n::error::x.log"),
        "{}",
        r.dump()
    );
    assert_eq!(r.stderr.lines().count(), 1, "{}", r.dump());
}

/// Issue 32: the changes symbols.allow admits are counted once per code, not listed on every run
/// (`-v` lists them), and a selection is said in one line, not as a row per gate left out.
#[test]
fn admitted_notes_are_counted_once_and_a_selection_is_one_line() {
    let (_g, root) = crate::symbols::driver_with_builds();
    let ws = root.to_str().unwrap();
    let run = mgctl(&["check", ws, "--only", "symbols"], &root).expect(0);
    let notes: Vec<&str> = run
        .stdout
        .lines()
        .filter(|l| l.contains("SYM009"))
        .collect();
    assert_eq!(notes.len(), 1, "{}", run.stdout);
    assert!(
        notes[0].contains("notes SYM009 (a change an allow entry admitted); -v lists them"),
        "{}",
        notes[0]
    );
    assert!(!run.stdout.contains("note[SYM009]"), "{}", run.stdout);
    let rows = run
        .stdout
        .lines()
        .filter(|l| l.contains("not selected"))
        .count();
    assert_eq!(rows, 1, "{}", run.stdout);
    run.assert_stdout_has("gates not selected by --only: budgets, census, cite,");
    let verbose = mgctl(&["check", ws, "--only", "symbols", "-v"], &root).expect(0);
    let listed = verbose.stdout.matches("note[SYM009]").count();
    assert!(listed > 1, "{}", verbose.stdout);
    let md = mgctl(
        &["check", ws, "--only", "symbols", "--format", "markdown"],
        &root,
    )
    .expect(0);
    assert!(md.stdout.contains("notes SYM009"), "{}", md.stdout);
    assert!(!md.stdout.contains(" 1 findings"), "{}", md.stdout);
}

/// Issue 32: text and Markdown paths are relative to where the user stands (a printed
/// `path:line` opens from that shell), machine formats stay workspace/repository-relative, and
/// the HTML page links each finding by its absolute `file://` address and line.
#[test]
fn paths_are_shown_from_the_current_directory() {
    let dir = planted();
    let ws = dir.path();
    let from_parent = mgctl(
        &["check", ws.file_name().unwrap().to_str().unwrap()],
        ws.parent().unwrap(),
    );
    let name = ws.file_name().unwrap().to_str().unwrap();
    let want = format!("{name}/MobileGL/MG_Backend/DirectGLES/Draw.cpp:3:");
    from_parent.expect(1).assert_stdout_has(&want);
    let inside = ws.join("MobileGL/MG_Backend");
    let run = mgctl(&["check", "--format", "markdown"], &inside).expect(1);
    run.assert_stdout_has("`DirectGLES/Draw.cpp:3:");
    let sibling = ws.join("MobileGL/MG_State");
    let run = mgctl(&["check"], &sibling).expect(1);
    run.assert_stdout_has("../MG_Backend/DirectGLES/Draw.cpp:3:");
    let json = mgctl(&["check", "--format", "json"], &sibling).expect(1);
    json.assert_stdout_has("\"path\": \"MobileGL/MG_Backend/DirectGLES/Draw.cpp\"");
    let html = mgctl(&["check", "--format", "html"], &sibling).expect(1);
    let abs = ws
        .canonicalize()
        .unwrap()
        .join("MobileGL/MG_Backend/DirectGLES/Draw.cpp");
    html.assert_stdout_has(&format!("href=\"file://{}#L3\"", abs.display()));
}
