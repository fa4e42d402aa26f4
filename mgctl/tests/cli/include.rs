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
fn expect_probes_counts_probes_that_ran() {
    let (_g, root) = driver_copy();
    let r = mgctl(&["include", "probes", "--expect-probes", "3"], &root).expect(1);
    r.assert_stdout_has("::error::expected 3 probe(s), ran 2");
    std::fs::remove_file(root.join("MobileGL/MG_Pipe/PipeMutation.h")).unwrap();
    let r = mgctl(&["include", "probes", "--expect-probes", "2"], &root).expect(1);
    r.assert_stdout_has("include-closure: mutation-header SKIP  header not present yet: MobileGL/MG_Pipe/PipeMutation.h");
    r.assert_stdout_has("::error::expected 2 probe(s), ran 1");
    r.assert_stdout_has("SKIP is a failure under --require-all");
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
    let r = mgctl(&["include", "self-test"], scratch().path()).expect(0);
    r.assert_stdout_has("include-layering: self-test OK");
    assert!(
        r.stdout
            .contains("hidden-by-if0-comment-and-string (must stay clean): clean"),
        "{}",
        r.dump()
    );
    let r = mgctl(
        &[
            "include",
            "self-test",
            "--neuter",
            "include-layering/three-hop-transitive",
        ],
        scratch().path(),
    )
    .expect(1);
    assert!(
        r.stdout
            .contains("three-hop-transitive (must trip): DID NOT TRIP"),
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
fn bench_prints_files_edges_and_milliseconds() {
    let r = mgctl(
        &["include", "bench", "--synthetic", "60", "--runs", "1"],
        scratch().path(),
    );
    r.assert_stdout_has("graph: 60 files scanned");
    r.assert_stdout_has("time: min ");
    assert!(r.code == 0 || r.code == 1, "{}", r.dump());
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
