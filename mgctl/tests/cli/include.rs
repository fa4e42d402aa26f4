//! `mgctl include …` and the include-probes / include-layering gates, end to end.

use crate::util::{apply_violation, copy_driver, driver, mgctl, scratch, write_tree};

/// The [include] section these tests rely on (the driver's own may grow; tests pin theirs).
const SECTION: &str = r#"[include]
dirs = ["MobileGL"]
scan = ["MobileGL"]
require_all = true
expect_probes = 2

[[include.probe]]
name = "value-header"
header = "MobileGL/MG_Pipe/MGPipeValueTypes.h"
forbidden = ["MobileGL/MG_State/", "MobileGL/MG_Impl/", "MobileGL/MG_Backend/", "MobileGL/MG_Remote/"]
required = true

[[include.probe]]
name = "mutation-header"
header = "MobileGL/MG_Pipe/PipeMutation.h"
forbidden = ["MobileGL/MG_Impl/", "MobileGL/MG_State/GLState/Core.h", "MobileGL/MG_Remote/"]

[[include.layer]]
dir = "MobileGL/MG_Backend"
transitive = true
rules = ["-MobileGL/MG_State/GLState", "-MobileGL/MG_Impl"]
"#;

/// A copy of the driver whose mgctl.toml holds only the include section.
fn driver_copy() -> (tempfile::TempDir, std::path::PathBuf) {
    let (g, root) = copy_driver();
    std::fs::write(root.join("mgctl.toml"), SECTION).unwrap();
    (g, root)
}

fn append(path: &std::path::Path, text: &str) {
    let mut s = std::fs::read_to_string(path).unwrap();
    s.push_str(text);
    std::fs::write(path, s).unwrap();
}

#[test]
fn driver_is_green_on_both_include_gates() {
    let (_g, root) = driver_copy();
    let r = mgctl(&["include", "probes"], &root).expect(0);
    r.assert_stdout_has("include-closure: value-header OK");
    assert!(
        r.stdout
            .contains("include-closure: 2 probes, 0 skipped, 0 problem(s)"),
        "{}",
        r.dump()
    );
    mgctl(&["include", "rules"], &root).expect(0);
    let r = mgctl(
        &["check", ".", "--only", "include-probes,include-layering"],
        &root,
    )
    .expect(0);
    r.assert_stdout_has("include-layering");
}

#[test]
fn embedded_driver_probes_pass() {
    let r = mgctl(
        &["include", "-C", driver().to_str().unwrap(), "probes"],
        &driver(),
    );
    assert_eq!(r.code, 0, "{}", r.dump());
}

#[test]
fn backend_reaching_glstate_fails_with_witness_chain_and_rule_line() {
    let (_g, root) = driver_copy();
    // A pipe header the backend already includes now pulls in the frontend state: a 3-hop chain.
    let handles = root.join("MobileGL/MG_Pipe/MGPipeValueTypes.h");
    append(
        &handles,
        "#include \"MG_State/GLState/RenderState/RenderState.h\"\n",
    );
    let r = mgctl(&["include", "rules"], &root).expect(1);
    r.assert_stdout_has("VIOLATION MobileGL/MG_Backend/");
    assert!(
        r.stdout
            .contains("(rule `-MobileGL/MG_State/GLState` at mgctl.toml:21)"),
        "{}",
        r.dump()
    );
    r.assert_stdout_has("MobileGL/MG_Pipe/MGPipeValueTypes.h:");
    // The value-header probe goes red too, with an upstream-shaped chain.
    let r = mgctl(&["include", "probes"], &root).expect(1);
    r.assert_stdout_has("include-closure: value-header FORBIDDEN");
    r.assert_stdout_has("forbidden: MobileGL/MG_State/GLState/RenderState/RenderState.h (rule MobileGL/MG_State/) reached by:");
    r.assert_stdout_has("include-closure: error: gate failed: 1 problem(s); see the chains above");
    assert!(
        !r.stdout.contains("::error::"),
        "plain output: {}",
        r.dump()
    );
    let r = mgctl(&["include", "probes", "--format", "github"], &root).expect(1);
    r.assert_stdout_has("::error::include-closure gate failed");
    // and `check` fails on both gates, with INC codes.
    let r = mgctl(
        &[
            "check",
            ".",
            "--only",
            "include-probes,include-layering",
            "--format",
            "json",
        ],
        &root,
    )
    .expect(1);
    assert!(
        r.stdout.contains("INC001") && r.stdout.contains("INC005"),
        "{}",
        r.dump()
    );
}

#[test]
fn if0_hidden_include_does_not_trip() {
    let (_g, root) = driver_copy();
    let h = root.join("MobileGL/MG_Pipe/MGPipeValueTypes.h");
    append(&h, "#if 0\n#include \"MG_State/GLState/Core.h\"\n#endif\n/* #include \"MG_State/GLState/Core.h\" */\n");
    mgctl(&["include", "rules"], &root).expect(0);
    mgctl(&["include", "probes"], &root).expect(0);
}

#[test]
fn expect_probes_counts_selected_probes_as_upstream() {
    let (_g, root) = driver_copy();
    let r = mgctl(&["include", "probes", "--expect-probes", "3"], &root).expect(1);
    r.assert_stdout_has("include-closure: error: expected 3 probe(s), ran 2");
    // No chain was printed, so the summary does not point at any.
    r.assert_stdout_has("error: gate failed: 1 problem(s); see the lines above");
    assert!(!r.stdout.contains("::error::"), "{}", r.dump());
    let r = mgctl(
        &[
            "include",
            "probes",
            "--expect-probes",
            "3",
            "--format",
            "github",
        ],
        &root,
    )
    .expect(1);
    r.assert_stdout_has("::error::expected 3 probe(s), ran 2");
    std::fs::remove_file(root.join("MobileGL/MG_Pipe/PipeMutation.h")).unwrap();
    // A SKIP counts as a selected probe (upstream): no count error, the SKIP stays visible.
    let r = mgctl(&["include", "probes", "--expect-probes", "2"], &root).expect(1);
    r.assert_stdout_has("include-closure: mutation-header SKIP  header not present yet: MobileGL/MG_Pipe/PipeMutation.h");
    assert!(!r.stdout.contains("expected 2 probe(s)"), "{}", r.dump());
    r.assert_stdout_has("SKIP is a failure under --require-all");
    // Without require_all the SKIP alone passes the count.
    std::fs::write(
        root.join("mgctl.toml"),
        SECTION.replace("require_all = true\n", ""),
    )
    .unwrap();
    let r = mgctl(&["include", "probes", "--expect-probes", "2"], &root).expect(0);
    r.assert_stdout_has("mutation-header SKIP");
    let r = mgctl(&["check", ".", "--only", "include-probes"], &root).expect(0);
    r.assert_stdout_has("2 probes / 1 ran");
}

#[test]
fn queries_why_closure_graph_cycles() {
    let d = scratch();
    write_tree(
        d.path(),
        &[
            ("src/a.cpp", "#include \"b.h\"\n#include <lib/c.h>\n"),
            ("src/b.h", "#pragma once\n\n#include <lib/c.h>\n"),
            ("inc/lib/c.h", "#include \"d.h\"\n"),
            ("inc/lib/d.h", "#include \"c.h\"\n"),
        ],
    );
    let r = mgctl(
        &["include", "-I", "inc", "why", "src/a.cpp", "inc/lib/d.h"],
        d.path(),
    )
    .expect(0);
    assert_eq!(
        r.stdout,
        "src/a.cpp:2\n  -> inc/lib/c.h:1\n    -> inc/lib/d.h\n2 hop(s), shortest chain\n",
        "{}",
        r.dump()
    );
    mgctl(
        &["include", "-I", "inc", "why", "inc/lib/c.h", "src/b.h"],
        d.path(),
    )
    .expect(1);
    let r = mgctl(&["include", "-I", "inc", "closure", "src/a.cpp"], d.path()).expect(0);
    r.assert_stdout_has("  2  inc/lib/d.h");
    let r = mgctl(&["include", "-I", "inc", "cycles"], d.path()).expect(1);
    assert!(
        r.stdout
            .contains("cycle of 2 file(s): inc/lib/c.h:1 -> inc/lib/d.h:1 -> inc/lib/c.h"),
        "{}",
        r.dump()
    );
    let r = mgctl(
        &[
            "include", "-I", "inc", "graph", "--format", "json", "--under", "src",
        ],
        d.path(),
    )
    .expect(0);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["schema"], 1);
    assert_eq!(v["edges"].as_array().unwrap().len(), 3);
    let r = mgctl(
        &["include", "-I", "inc", "graph", "--format", "dot"],
        d.path(),
    )
    .expect(0);
    assert!(r.stdout.starts_with("digraph includes {"), "{}", r.dump());
    mgctl(
        &["include", "-I", "inc", "why", "src/nope.h", "src/b.h"],
        d.path(),
    )
    .expect(2);
}

#[test]
fn bad_input_is_reported_not_fatal_or_exit_2() {
    let d = scratch();
    write_tree(d.path(), &[("a.cpp", "#include \"b.h\"\n"), ("b.h", "")]);
    std::fs::write(d.path().join("bad.h"), b"\xff\xfe\n#include \"b.h\"\n").unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(d.path(), d.path().join("loop")).unwrap();
    let r = mgctl(
        &["include", "-I", "missing_dir", "closure", "bad.h"],
        d.path(),
    )
    .expect(0);
    assert!(
        r.stderr
            .contains("missing_dir: include directory does not exist"),
        "{}",
        r.dump()
    );
    r.assert_stderr_has("bad.h:1:1: invalid UTF-8");
    #[cfg(unix)]
    r.assert_stderr_has("symlink loop");
    r.assert_stdout_has("  1  b.h");
    std::fs::write(
        d.path().join("cc.json"),
        "[\n {\"directory\": \"/x\",\n  \"file\": 7 }\n]\n",
    )
    .unwrap();
    let r = mgctl(
        &["include", "--compile-commands", "cc.json", "cycles"],
        d.path(),
    )
    .expect(2);
    r.assert_stderr_has("cc.json:3:");
}

#[test]
fn compile_commands_supplies_search_dirs() {
    let d = scratch();
    write_tree(
        d.path(),
        &[
            ("src/a.cpp", "#include <x.h>\n"),
            ("third/x.h", "#include \"y.h\"\n"),
            ("third/y.h", ""),
        ],
    );
    let cc = format!(
        "[{{\"directory\": \"{}\", \"file\": \"src/a.cpp\", \"command\": \"c++ -isystem third -c src/a.cpp -o a.o\"}}]",
        d.path().display()
    );
    std::fs::write(d.path().join("compile_commands.json"), cc).unwrap();
    let r = mgctl(
        &[
            "include",
            "--compile-commands",
            "compile_commands.json",
            "why",
            "src/a.cpp",
            "third/y.h",
        ],
        d.path(),
    )
    .expect(0);
    r.assert_stdout_has("third/x.h:1");
}

#[test]
fn self_test_passes_and_a_neutered_control_fails_it() {
    let r = mgctl(&["include", "--self-test"], scratch().path()).expect(0);
    // One report per gate, through the one self-test printer (issue 28).
    r.assert_stdout_has("include-probes:\n");
    r.assert_stdout_has("include-layering:\n");
    assert_eq!(
        r.stdout.matches("self-test passed:").count(),
        2,
        "{}",
        r.dump()
    );
    r.assert_stdout_has("positive control hidden-by-if0-comment-and-string: clean");
    let r = mgctl(
        &[
            "include",
            "--self-test",
            "--neuter",
            "include-layering/three-hop-transitive",
        ],
        scratch().path(),
    )
    .expect(1);
    assert!(
        r.stdout
            .contains("negative control three-hop-transitive: NEGATIVE CONTROL DID NOT TRIP"),
        "{}",
        r.dump()
    );
    let r = mgctl(
        &[
            "check",
            "--self-test",
            "--only",
            "include-probes,include-layering",
        ],
        &driver(),
    )
    .expect(0);
    r.assert_stdout_has("include-probes");
}

#[test]
fn stale_rule_and_new_temporary_use_fail_with_config_lines() {
    let (_g, root) = driver_copy();
    let cfg = format!(
        "{SECTION}\n[[include.layer]]\ndir = \"MobileGL/MG_Impl\"\nrules = [\n  \"!MobileGL/MG_Backend\",\n  \"+MobileGL/MG_Nowhere/X.h\",\n]\n"
    );
    std::fs::write(root.join("mgctl.toml"), cfg).unwrap();
    let r = mgctl(&["include", "rules"], &root).expect(1);
    r.assert_stdout_has("NEW temporary use: MobileGL/MG_Impl/");
    r.assert_stdout_has(
        "STALE rule `+MobileGL/MG_Nowhere/X.h` at mgctl.toml:27: no include uses this allowance",
    );
}

#[test]
fn compiler_mode_agrees_on_the_driver_and_json_carries_schema() {
    let (_g, root) = driver_copy();
    let r = mgctl(
        &["include", "probes", "--mode", "both", "--compiler", "g++"],
        &root,
    )
    .expect(0);
    r.assert_stdout_has("include-closure: compiler: g++");
    r.assert_stdout_has("value-header OK");
    r.assert_stdout_has("(mode=compiler, cxx=g++)");
    r.assert_stdout_has("value-header modes agree");
    let r = mgctl(&["include", "probes", "--format", "json"], &root).expect(0);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["schema"], 1);
    assert_eq!(v["ran"], 2);
    let r = mgctl(&["include", "rules", "--format", "json"], &root).expect(0);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["schema"], 1);
}

#[test]
fn compiler_mode_sees_through_macros_and_flags_forbidden_reach() {
    let d = scratch();
    write_tree(
        d.path(),
        &[
            (
                "mgctl.toml",
                "[include]\ndirs = [\"src\"]\n[[include.probe]]\nname = \"pure\"\nheader = \"src/Pure.h\"\nforbidden = [\"src/State/\"]\n",
            ),
            // A computed include and a dead #ifdef: the walk resolves the first and skips the second,
            // as the compiler does.
            (
                "src/Pure.h",
                "#pragma once\n#define VALUES \"Values.h\"\n#include VALUES\n#ifdef NEVER_DEFINED\n#include \"Other.h\"\n#endif\n",
            ),
            ("src/Values.h", "#pragma once\n#include \"State/Leak.h\"\n"),
            ("src/Other.h", "#pragma once\n"),
            ("src/State/Leak.h", "#pragma once\n"),
        ],
    );
    let r = mgctl(
        &["include", "probes", "--mode", "both", "--compiler", "g++"],
        d.path(),
    )
    .expect(1);
    r.assert_stdout_has("pure FORBIDDEN");
    assert!(
        r.stdout
            .contains("forbidden: src/State/Leak.h (rule src/State/) reached by:"),
        "{}",
        r.dump()
    );
    r.assert_stdout_has("pure modes agree");
}

#[test]
fn gate_mode_both_runs_the_compiler_and_trips_on_a_planted_reach() {
    let (_g, root) = copy_driver();
    let section = SECTION.replace(
        "expect_probes = 2\n",
        "expect_probes = 2\nmode = \"both\"\ncompiler = \"g++\"\n",
    );
    std::fs::write(root.join("mgctl.toml"), section).unwrap();
    mgctl(&["check", ".", "--only", "include-probes"], &root).expect(0);
    append(
        &root.join("MobileGL/MG_Pipe/MGPipeValueTypes.h"),
        "#include \"MG_State/GLState/Core.h\"\n",
    );
    let r = mgctl(&["check", ".", "--only", "include-probes"], &root).expect(1);
    r.assert_stdout_has("(mode=compiler, cxx=g++)");
}

#[test]
fn planted_two_hop_overlay_turns_layering_red() {
    let (_g, root) = copy_driver();
    apply_violation(&root, "include-backend-two-hops");
    let r = mgctl(
        &["check", ".", "--only", "include-layering,include-probes"],
        &root,
    )
    .expect(1);
    assert!(
        r.stdout
            .contains("error[INC005] MobileGL/MG_Backend/DirectGLES/StateMirror.h:"),
        "{}",
        r.dump()
    );
    assert!(
        r.stdout
            .contains("-> MobileGL/MG_Backend/Common/FrontendBridge.h:"),
        "{}",
        r.dump()
    );
    assert!(
        !r.stdout.contains("INC001"),
        "the probes stay green: {}",
        r.dump()
    );
}

#[test]
fn compiler_mode_borrows_the_database_flags() {
    let d = scratch();
    write_tree(
        d.path(),
        &[
            ("mgctl.toml", "[include]\n[[include.probe]]\nname = \"p\"\nheader = \"MobileGL/P.h\"\nforbidden = [\"MobileGL/State/\"]\n"),
            ("MobileGL/P.h", "#pragma once\n#if WITH_STATE\n#include <State/S.h>\n#endif\n"),
            ("MobileGL/State/S.h", "#pragma once\n"),
            ("MobileGL/a.cpp", "#include \"P.h\"\n"),
        ],
    );
    let cc = format!(
        "[{{\"directory\": \"{}\", \"file\": \"MobileGL/a.cpp\", \"arguments\": [\"c++\", \"-I\", \"MobileGL\", \"-DWITH_STATE=1\", \"-c\", \"MobileGL/a.cpp\"]}}]",
        d.path().display()
    );
    std::fs::write(d.path().join("cc.json"), cc).unwrap();
    let r = mgctl(
        &[
            "include",
            "--compile-commands",
            "cc.json",
            "probes",
            "--mode",
            "both",
            "--compiler",
            "g++",
        ],
        d.path(),
    )
    .expect(1);
    assert!(
        r.stdout
            .contains("include-closure: flags from cc.json (3 tokens)"),
        "{}",
        r.dump()
    );
    assert!(
        r.stdout
            .contains("p FORBIDDEN 2 headers in closure, 1 forbidden (mode=compiler, cxx=g++)"),
        "{}",
        r.dump()
    );
    // The static graph follows the conditional include too; the macro-aware walk agrees with g++.
    assert!(
        r.stdout
            .contains("p FORBIDDEN 2 headers in closure, 1 forbidden (mode=text, cxx=-)"),
        "{}",
        r.dump()
    );
    r.assert_stdout_has("p modes agree");
}

/// The figures `check` reports for one gate, by name.
fn gate_json(root: &std::path::Path, gate: &str) -> (String, serde_json::Value) {
    let r = mgctl(&["check", ".", "--only", gate, "--format", "json"], root);
    let v: serde_json::Value =
        serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{e}: {}", r.dump()));
    let g = v["gates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["gate"] == gate)
        .unwrap()
        .clone();
    let figures: serde_json::Map<String, serde_json::Value> = g["figures"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f[0].as_str().unwrap().to_string(), f[1].clone()))
        .collect();
    (g["verdict"].as_str().unwrap().to_string(), figures.into())
}

/// The command and the gate agree on the verdict and the headline figures of both analyses.
fn assert_parity(root: &std::path::Path, what: &str) {
    let r = mgctl(&["include", "probes", "--format", "json"], root);
    let cmd: serde_json::Value =
        serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{what}: {e}: {}", r.dump()));
    let (verdict, fig) = gate_json(root, "include-probes");
    assert_eq!(
        verdict == "pass",
        r.code == 0,
        "{what}: probes verdict: gate {verdict}, command {}",
        r.dump()
    );
    assert_eq!(fig["ran"], cmd["ran"], "{what}");
    assert_eq!(fig["skipped"], cmd["skipped"], "{what}");
    let forbidden: u64 = cmd["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["forbidden"].as_u64().unwrap())
        .sum();
    assert_eq!(fig["forbidden"], forbidden, "{what}");
    let r = mgctl(&["include", "rules", "--format", "json"], root);
    let cmd: serde_json::Value =
        serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{what}: {e}: {}", r.dump()));
    let (verdict, fig) = gate_json(root, "include-layering");
    assert_eq!(
        verdict == "pass",
        r.code == 0,
        "{what}: layering verdict: gate {verdict}, command {}",
        r.dump()
    );
    assert_eq!(cmd["failed"], verdict != "pass", "{what}");
    assert_eq!(fig["files_checked"], cmd["files_checked"], "{what}");
    assert_eq!(
        fig["violations"],
        cmd["violations"].as_array().unwrap().len(),
        "{what}"
    );
    assert_eq!(
        fig["stale"],
        cmd["stale"].as_array().unwrap().len(),
        "{what}"
    );
}

#[test]
fn command_and_gate_agree_on_the_driver_and_every_overlay() {
    let (_g, root) = copy_driver();
    assert_parity(&root, "clean driver");
    let overlays = driver().join("fixtures/violations");
    let mut names: Vec<String> = std::fs::read_dir(&overlays)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert!(names.iter().any(|n| n == "include-backend-two-hops"));
    for name in names {
        let (_g, root) = copy_driver();
        apply_violation(&root, &name);
        assert_parity(&root, &name);
    }
}

/// Issue 14's case: the compile database passes `-DMG_NO_STATE`, which hides the forbidden
/// include from the preprocessor; the gate and the command both use the database's flags.
#[test]
fn compiler_mode_uses_the_database_flags_in_the_gate_and_the_command() {
    let d = scratch();
    write_tree(
        d.path(),
        &[
            ("mgctl.toml", "[include]\ndirs = [\"MobileGL\"]\ncompile_commands = \"cc.json\"\nmode = \"both\"\ncompiler = \"g++\"\n[[include.probe]]\nname = \"p\"\nheader = \"MobileGL/P.h\"\nforbidden = [\"MobileGL/State/\"]\n"),
            ("MobileGL/P.h", "#pragma once\n#ifndef MG_NO_STATE\n#include <State/S.h>\n#endif\n"),
            ("MobileGL/State/S.h", "#pragma once\n"),
            ("MobileGL/a.cpp", "#include \"P.h\"\n"),
        ],
    );
    let cc = format!(
        "[{{\"directory\": \"{}\", \"file\": \"MobileGL/a.cpp\", \"arguments\": [\"c++\", \"-I\", \"MobileGL\", \"-DMG_NO_STATE\", \"-c\", \"MobileGL/a.cpp\"]}}]",
        d.path().display()
    );
    std::fs::write(d.path().join("cc.json"), cc).unwrap();
    let r = mgctl(
        &[
            "include",
            "probes",
            "--mode",
            "compiler",
            "--compiler",
            "g++",
        ],
        d.path(),
    )
    .expect(0);
    r.assert_stdout_has("p OK 1 headers in closure, 0 forbidden (mode=compiler, cxx=g++)");
    let r = mgctl(
        &["include", "probes", "--mode", "both", "--compiler", "g++"],
        d.path(),
    )
    .expect(1);
    r.assert_stdout_has("(mode=compiler, cxx=g++)");
    r.assert_stdout_has("p OK 1 headers in closure, 0 forbidden (mode=compiler, cxx=g++)");
    let r = mgctl(
        &["check", ".", "--only", "include-probes", "--format", "json"],
        d.path(),
    )
    .expect(1);
    assert!(
        !r.stdout.contains("(mode=compiler"),
        "the gate's compiler side is clean too: {}",
        r.dump()
    );
    assert_parity_probes_only(d.path());
}

fn assert_parity_probes_only(root: &std::path::Path) {
    let r = mgctl(
        &[
            "include",
            "probes",
            "--mode",
            "both",
            "--compiler",
            "g++",
            "--format",
            "json",
        ],
        root,
    );
    let cmd: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let (verdict, fig) = gate_json(root, "include-probes");
    assert_eq!(verdict == "pass", r.code == 0, "{}", r.dump());
    assert_eq!(fig["ran"], cmd["ran"]);
    let compiler_forbidden: Vec<u64> = cmd["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|x| x["mode"] == "compiler")
        .map(|x| x["forbidden"].as_u64().unwrap())
        .collect();
    assert_eq!(compiler_forbidden, vec![0]);
}

/// `--mode both` never claims agreement when the compiler side failed.
#[test]
fn mode_both_does_not_claim_agreement_when_the_compiler_failed() {
    let d = scratch();
    write_tree(
        d.path(),
        &[
            ("mgctl.toml", "[include]\ndirs = [\"src\"]\n[[include.probe]]\nname = \"p\"\nheader = \"src/P.h\"\nforbidden = [\"src/State/\"]\n"),
            ("src/P.h", "#pragma once\n#error not standalone\n"),
        ],
    );
    let r = mgctl(
        &["include", "probes", "--mode", "both", "--compiler", "g++"],
        d.path(),
    )
    .expect(1);
    r.assert_stdout_has("include-closure: error: p preprocessing failed:");
    r.assert_stdout_has("p modes not compared");
    assert!(!r.stdout.contains("modes agree"), "{}", r.dump());
}

/// `why` and `closure` take a path relative to the current directory, or absolute.
#[test]
fn why_and_closure_take_cwd_relative_and_absolute_paths() {
    let (_g, root) = driver_copy();
    let sub = root.join("MobileGL/MG_Pipe");
    let r = mgctl(
        &["include", "-C", "../..", "closure", "MGPipeValueTypes.h"],
        &sub,
    )
    .expect(0);
    // The file is found, and printed as the user would type it from where they stand.
    assert_eq!(
        r.stdout.lines().next(),
        Some("MGPipeValueTypes.h"),
        "{}",
        r.dump()
    );
    let r = mgctl(
        &["include", "-C", "../..", "closure", "./PipeMutation.h"],
        &sub,
    )
    .expect(0);
    assert_eq!(
        r.stdout.lines().next(),
        Some("PipeMutation.h"),
        "{}",
        r.dump()
    );
    let abs = root.join("MobileGL/MG_Pipe/PipeMutation.h");
    let r = mgctl(&["include", "closure", abs.to_str().unwrap()], &root).expect(0);
    r.assert_stdout_has("MobileGL/MG_Pipe/PipeMutation.h");
}

/// Every `mgctl include` example of --help runs against driver/ (exit 0 or 1, never 2).
#[test]
fn every_include_help_example_runs() {
    let mut examples = Vec::new();
    for sub in [
        "",
        "why",
        "closure",
        "graph",
        "cycles",
        "probes",
        "rules",
        "self-test",
    ] {
        let mut args = vec!["include"];
        if !sub.is_empty() {
            args.push(sub);
        }
        args.push("--help");
        let r = mgctl(&args, &driver()).expect(0);
        for l in r.stdout.lines() {
            if let Some(cmd) = l.trim().strip_prefix("mgctl include ") {
                examples.push(cmd.to_string());
            }
        }
    }
    let readme = std::fs::read_to_string(driver().join("../README.md")).unwrap();
    for l in readme.lines() {
        if let Some(cmd) = l
            .trim()
            .trim_start_matches("$ ")
            .strip_prefix("mgctl include ")
        {
            examples.push(cmd.to_string());
        }
    }
    assert!(examples.len() >= 8, "{examples:?}");
    let parent = driver().join("..");
    for ex in examples {
        // Pipes and redirections are the shell's; run the mgctl part.
        let cmd = ex.split(['|', '>']).next().unwrap().trim();
        let args: Vec<&str> = std::iter::once("include")
            .chain(cmd.split_whitespace())
            .collect();
        if args.iter().any(|a| a.starts_with('~')) {
            continue; // needs a real MobileGL checkout
        }
        let r = mgctl(&args, &parent);
        assert!(
            r.code == 0 || r.code == 1,
            "`mgctl {}`: {}",
            args.join(" "),
            r.dump()
        );
        assert!(
            !r.stderr.contains("not in the include graph"),
            "`mgctl {}`: {}",
            args.join(" "),
            r.dump()
        );
    }
}

/// A layer outside the `scan` directories is walked too: its files are checked (they used to be
/// graphed only when something included them, so the layer checked "0 files").
#[test]
fn a_layer_outside_the_scan_directories_checks_its_files() {
    let d = scratch();
    write_tree(
        d.path(),
        &[
            ("mgctl.toml", "[include]\ndirs = [\"MobileGL\"]\nscan = [\"MobileGL/MG_Pipe\"]\n[[include.layer]]\ndir = \"./MobileGL/MG_Backend/\"\ntransitive = true\nrules = [\"-MobileGL/MG_State\"]\n"),
            ("MobileGL/MG_Pipe/P.h", "#pragma once\n"),
            ("MobileGL/MG_State/S.h", "#pragma once\n"),
            ("MobileGL/MG_Backend/B.cpp", "#include \"MG_Pipe/P.h\"\n#include \"MG_State/S.h\"\n"),
        ],
    );
    let r = mgctl(&["include", "rules"], d.path()).expect(1);
    r.assert_stdout_has("VIOLATION MobileGL/MG_Backend/B.cpp includes MobileGL/MG_State/S.h");
    r.assert_stdout_has("1 file(s) checked");
    let (verdict, fig) = gate_json(d.path(), "include-layering");
    assert_eq!(verdict, "fail");
    assert_eq!(fig["files_checked"], 1);
}

/// INC010 names the path once: in its location, not again in the message.
#[test]
fn input_problems_name_their_path_once() {
    let (_g, root) = copy_driver();
    std::fs::remove_file(root.join("mgctl.toml")).unwrap(); // the MobileGL profile
    let r = mgctl(
        &["check", ".", "--only", "include-probes,include-layering"],
        &root,
    );
    r.assert_stdout_has(
        "warning[INC010] 3rdparty/xxHash: include directory does not exist (ignored)",
    );
    assert!(
        !r.stdout.contains("3rdparty/xxHash: 3rdparty/xxHash"),
        "{}",
        r.dump()
    );
    assert!(!r.stdout.contains("include: include:"), "{}", r.dump());
}
