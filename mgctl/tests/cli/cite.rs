//! `mgctl cite` and the `cite` gate: forms, classes, --fix, --rev through a git2 repository,
//! bad input, self-test, GitHub annotations at the doc line.

use std::path::Path;

use crate::util::*;

const RENDER: &str = "#include \"RenderState.h\"

// the capability switch

void RenderState::SetCapability(unsigned cap, bool on)
{
    switch (cap) {
    case 1: m_blend = on; break;
    default:
        RecordUnknown(cap);
    }
    BumpVersions();
}
";

const TRACKER: &str = "#pragma once
enum MGPipeDirty : unsigned {
    NEW_RENDER_STATE = 1u << 0,
    NEW_VIEWPORT = 1u << 1,
};
struct MGPipeTracker {
    void Update(unsigned bits);
};
";

const CLEAN_DOC: &str = "# Design

`RenderState::SetCapability` (`MobileGL/MG_State/RenderState.cpp:5-13`) switches on the capability;
its `default:` arm (:9\u{2013}10) records the unknown value and `BumpVersions` (RenderState.cpp:12) publishes.

- `NEW_RENDER_STATE` and `NEW_VIEWPORT` are bits (`Tracker.h:3,4`), `MGPipeTracker` is at MG_Impl/Pipe/Tracker.h:6.
- The `switch` spans RenderState.cpp:7\u{2013}11.
- Not citations: 10:45, 3:2, \u{a7}3.8, https://example.invalid/x/Tracker.h:3.

| what | where |
|---|---|
| `Update` | `Tracker.h:7` |
";

fn tree(dir: &Path, doc: &str) {
    write_tree(
        dir,
        &[
            ("MobileGL/MG_State/RenderState.cpp", RENDER),
            ("MobileGL/MG_Impl/Pipe/Tracker.h", TRACKER),
            ("MobileGL/A/Init.cpp", "void Init() {}\n"),
            ("MobileGL/B/Init.cpp", "void Init() {}\n"),
            ("docs/DESIGN.md", doc),
        ],
    );
}

#[test]
fn clean_doc_passes_with_per_form_breakdown() {
    let dir = scratch();
    tree(dir.path(), CLEAN_DOC);
    let run = mgctl(&["cite", "docs/DESIGN.md"], dir.path()).expect(0);
    assert!(
        run.stdout
            .starts_with("cite: 8 citations in 1 document(s) against WORKTREE, 0 problem(s)\n"),
        "{}",
        run.dump()
    );
    for row in [
        "path:line                   3        3            0",
        "path:first–last             1        1            0",
        "path:first-last             1        1            0",
        "comma-list member           2        2            0",
        ":line continuation          1        1            0",
        "total                       8        8            0",
        "skipped: 1 URL(s)",
        "drift: 8 ok,",
    ] {
        assert!(run.stdout.contains(row), "missing {row:?}\n{}", run.dump());
    }
}

#[test]
fn problems_use_upstream_texts_and_exit_1() {
    let dir = scratch();
    let doc = "A `Init.cpp:1` and `Tracker.h:99` and `Gone.cpp:3` and `Tracker.h:5-2`.\n\n\
               `Update` at `MG_Pipe/Tracker.h:7` and `Tracker.h:0`; x Tracker.h:1,2,400.\n";
    tree(dir.path(), doc);
    let run = mgctl(&["cite", "docs/DESIGN.md"], dir.path()).expect(1);
    for want in [
        "docs/DESIGN.md:1: `Init.cpp:1` -> ambiguous: MobileGL/A/Init.cpp, MobileGL/B/Init.cpp",
        "docs/DESIGN.md:1: `Tracker.h:99` -> MobileGL/MG_Impl/Pipe/Tracker.h has 8 lines at WORKTREE",
        "docs/DESIGN.md:1: `Gone.cpp:3` -> no such file at WORKTREE",
        "docs/DESIGN.md:1: `Tracker.h:5-2` -> inverted line range",
        "docs/DESIGN.md:3: `MG_Pipe/Tracker.h:7` -> no such file at WORKTREE; the file of that name is MobileGL/MG_Impl/Pipe/Tracker.h",
        "docs/DESIGN.md:3: `Tracker.h:0` -> line 0 does not exist",
        "docs/DESIGN.md:3: `Tracker.h:400` -> MobileGL/MG_Impl/Pipe/Tracker.h has 8 lines",
    ] {
        assert!(run.stdout.contains(want), "missing {want:?}\n{}", run.dump());
    }
}

#[test]
fn drift_is_a_warning_unless_strict_and_shows_the_excerpt() {
    let dir = scratch();
    tree(
        dir.path(),
        "`SetCapability` (`RenderState.cpp:3`). `Vanished` (`RenderState.cpp:12`).\n",
    );
    let run = mgctl(&["cite", "docs/DESIGN.md"], dir.path()).expect(0);
    assert!(
        run.stdout.contains(
            "`RenderState.cpp:3` -> moved: `SetCapability` is now at MobileGL/MG_State/RenderState.cpp:5"
        ),
        "{}",
        run.dump()
    );
    assert!(
        run.stdout
            .contains("now at MobileGL/MG_State/RenderState.cpp:3: // the capability switch"),
        "{}",
        run.dump()
    );
    assert!(
        run.stdout
            .contains("`RenderState.cpp:12` -> changed: `Vanished`"),
        "{}",
        run.dump()
    );
    mgctl(&["cite", "--strict", "docs/DESIGN.md"], dir.path()).expect(1);
    // slack widens the window: line 3 +- 2 reaches line 5, so only the changed one is left
    let run = mgctl(&["cite", "--slack", "2", "docs/DESIGN.md"], dir.path()).expect(0);
    run.assert_stdout_has(", 1 problem(s)");
    assert!(!run.stdout.contains("moved:"), "{}", run.dump());
}

#[test]
fn fix_rewrites_only_certain_moves_and_keeps_the_rest_byte_for_byte() {
    let dir = scratch();
    let doc = "# T\r\n\r\n`SetCapability` (`RenderState.cpp:3`);\u{a0}`default:` at RenderState.cpp:7-8 and `Vanished` (:12).\r\n";
    tree(dir.path(), doc);
    let run = mgctl(&["cite", "--fix", "docs/DESIGN.md"], dir.path()).expect(0);
    assert!(
        run.stdout
            .starts_with("cite --fix: rewrote 1 citation(s) in 1 document(s)\n"),
        "{}",
        run.dump()
    );
    assert!(
        run.stdout
            .contains("docs/DESIGN.md:3: `RenderState.cpp:3` -> `RenderState.cpp:5`"),
        "{}",
        run.dump()
    );
    let after = std::fs::read_to_string(dir.path().join("docs/DESIGN.md")).unwrap();
    assert_eq!(
        after,
        doc.replace("RenderState.cpp:3`", "RenderState.cpp:5`")
    );
    // the uncertain range move and the changed citation stay findings
    run.assert_stdout_has("range start uncertain");
    run.assert_stdout_has("changed: `Vanished`");
}

#[test]
fn json_carries_schema_and_every_citation() {
    let dir = scratch();
    tree(dir.path(), CLEAN_DOC);
    let run = mgctl(&["cite", "--format", "json", "docs/DESIGN.md"], dir.path()).expect(0);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(v["schema"], 1);
    assert_eq!(v["summary"]["citations"], 8);
    assert_eq!(v["summary"]["by_form"]["continuation"]["checked"], 1);
    let c = &v["citations"][1];
    assert_eq!(c["form"], "continuation");
    assert_eq!(c["resolved"], "MobileGL/MG_State/RenderState.cpp");
    assert_eq!(c["anchors"][0], "default:");
}

#[test]
fn bad_input_exits_2_with_a_clear_message() {
    let dir = scratch();
    tree(dir.path(), CLEAN_DOC);
    std::fs::write(dir.path().join("docs/BAD.md"), b"ok line\nbad \xff byte\n").unwrap();
    let run = mgctl(&["cite", "docs/NOPE.md"], dir.path()).expect(2);
    run.assert_stderr_has("docs/NOPE.md: no such document");
    let run = mgctl(&["cite", "docs/BAD.md"], dir.path()).expect(2);
    assert!(
        run.stderr
            .contains("docs/BAD.md:2: document is not valid UTF-8 (byte 5 of the line)"),
        "{}",
        run.dump()
    );
    let run = mgctl(&["cite", "--rev", "HEAD", "docs/DESIGN.md"], dir.path()).expect(2);
    run.assert_stderr_has("revision `HEAD` is unusable");
    mgctl(&["cite", "-C", "nowhere", "docs/DESIGN.md"], dir.path()).expect(2);
    // a document that cannot be read (a directory here) is unusable input too
    let run = mgctl(&["cite", "docs"], dir.path()).expect(2);
    run.assert_stderr_has("docs: cannot read");
    let run = mgctl(&["cite"], dir.path()).expect(2);
    run.assert_stderr_has("no documents given");
    // a binary file and a huge line number are findings, not crashes
    write_tree(
        dir.path(),
        &[(
            "docs/BIN.md",
            "see `blob.json:1` and `Tracker.h:99999999999999999999999999`\n",
        )],
    );
    std::fs::write(dir.path().join("blob.json"), b"\x00\x01\x02").unwrap();
    let run = mgctl(&["cite", "docs/BIN.md"], dir.path()).expect(1);
    assert!(
        run.stdout
            .contains("blob.json is a binary file at WORKTREE"),
        "{}",
        run.dump()
    );
    run.assert_stdout_has("has 8 lines at WORKTREE");
}

#[test]
fn self_test_passes_and_a_neutered_control_fails_it() {
    let dir = scratch();
    let run = mgctl(&["cite", "--self-test"], dir.path()).expect(0);
    assert!(
        run.stdout
            .contains("self-test passed: 10 negative controls tripped"),
        "{}",
        run.dump()
    );
    for name in [
        "past-end",
        "missing-file",
        "ambiguous",
        "moved",
        "changed",
        "continuation-wrong-file",
        "comma-list-member-out-of-range",
        "line-zero",
    ] {
        assert!(
            run.stdout
                .contains(&format!("negative control {name}: tripped")),
            "{name}\n{}",
            run.dump()
        );
    }
    let run = mgctl(
        &["cite", "--self-test", "--neuter", "continuation-wrong-file"],
        dir.path(),
    )
    .expect(1);
    run.assert_stdout_has(
        "negative control continuation-wrong-file: NEGATIVE CONTROL DID NOT TRIP",
    );
}

#[test]
fn check_gate_annotates_the_doc_line_for_github() {
    let dir = scratch();
    tree(dir.path(), "# T\n\n`Update` is at `Tracker.h:99`.\n");
    write_tree(
        dir.path(),
        &[("mgctl.toml", "[cite]\ndocs = [\"docs/*.md\"]\n")],
    );
    let run = mgctl(
        &["check", ".", "--only", "cite", "--format", "github"],
        dir.path(),
    )
    .expect(1);
    run.assert_stdout_has("::error file=docs/DESIGN.md,line=3,col=17,title=mgctl cite CIT006::`Tracker.h:99` -> MobileGL/MG_Impl/Pipe/Tracker.h has 8 lines at WORKTREE");
    // a document glob that matches nothing fails the gate with a message, other gates unaffected
    write_tree(
        dir.path(),
        &[("mgctl.toml", "[cite]\ndocs = [\"nodocs/*.md\"]\n")],
    );
    let run = mgctl(&["check", ".", "--only", "cite"], dir.path()).expect(1);
    run.assert_stdout_has("matches no file");
}

/// A git2 repository: commit 1 cites code, commit 2 moves the code; `--rev` on both, then `--fix`.
#[test]
fn rev_checks_each_commit_and_fix_follows_the_move() {
    let dir = scratch();
    let root = dir.path();
    let repo = git2::Repository::init(root).unwrap();
    let commit = |msg: &str| -> git2::Oid {
        let mut index = repo.index().unwrap();
        index
            .add_all(["*"].iter(), git2::IndexAddOption::DEFAULT, None)
            .unwrap();
        index.write().unwrap();
        let tree_id = index.write_tree().unwrap();
        let tree = repo.find_tree(tree_id).unwrap();
        let sig = git2::Signature::now("t", "t@example.invalid").unwrap();
        let parents: Vec<git2::Commit<'_>> = repo
            .head()
            .ok()
            .and_then(|h| h.peel_to_commit().ok())
            .into_iter()
            .collect();
        let refs: Vec<&git2::Commit<'_>> = parents.iter().collect();
        repo.commit(Some("HEAD"), &sig, &sig, msg, &tree, &refs)
            .unwrap()
    };
    let src1 = "// pipe\nvoid Flush();\nvoid Publish(int bits)\n{\n}\n";
    let src2 = "// pipe\nvoid Flush();\n// added\n// two lines\nvoid Publish(int bits)\n{\n}\n";
    let doc = "# Pipe\n\n`Publish` (`Pipe.cpp:3`) and `Flush` (`src/Pipe.cpp:2`).\n";
    write_tree(root, &[("src/Pipe.cpp", src1), ("docs/P.md", doc)]);
    let first = commit("one");
    write_tree(root, &[("src/Pipe.cpp", src2)]);
    commit("two");
    let first = first.to_string();
    let run = mgctl(&["cite", "--rev", &first, "--strict", "docs/P.md"], root).expect(0);
    assert!(
        run.stdout.contains(&format!("(commit {first})")),
        "{}",
        run.dump()
    );
    let run = mgctl(&["cite", "--rev", "HEAD", "--strict", "docs/P.md"], root).expect(1);
    assert!(
        run.stdout
            .contains("moved: `Publish` is now at src/Pipe.cpp:5"),
        "{}",
        run.dump()
    );
    mgctl(&["cite", "--rev", "no-such-rev", "docs/P.md"], root).expect(2);
    // the working tree has the same content as HEAD
    let run = mgctl(&["cite", "--fix", "docs/P.md"], root).expect(0);
    run.assert_stdout_has("`Pipe.cpp:3` -> `Pipe.cpp:5`");
    let after = std::fs::read_to_string(root.join("docs/P.md")).unwrap();
    assert_eq!(after, doc.replace("Pipe.cpp:3", "Pipe.cpp:5"));
    mgctl(&["cite", "--rev", "HEAD", "--strict", "docs/P.md"], root).expect(0);
    // and the old commit now disagrees
    mgctl(&["cite", "--rev", &first, "--strict", "docs/P.md"], root).expect(1);
}

/// The failing gates of `mgctl check <ws>` (JSON), sorted.
fn failing_gates(ws: &Path) -> Vec<String> {
    let r = mgctl(&["check", ws.to_str().unwrap(), "--format", "json"], ws);
    let v: serde_json::Value =
        serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{e}\n{}", r.dump()));
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

#[test]
fn driver_docs_are_clean_with_every_form() {
    let root = driver();
    let run = mgctl(&["cite", "-C", ".", "--strict"], &root).expect(0);
    run.assert_stdout_has("against WORKTREE, 0 problem(s)");
    // at least 60 citations, every form present and checked
    let v: serde_json::Value =
        serde_json::from_str(&mgctl(&["cite", "--format", "json"], &root).expect(0).stdout)
            .unwrap();
    assert!(v["summary"]["citations"].as_u64().unwrap() >= 60, "{v}");
    for form in [
        "line",
        "range",
        "en-dash-range",
        "list-member",
        "continuation",
    ] {
        assert!(
            v["summary"]["by_form"][form]["checked"].as_u64().unwrap() > 0,
            "{form}: {v}"
        );
    }
    let styles: Vec<&str> = v["citations"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["path"].as_str())
        .collect();
    assert!(
        styles.iter().any(|p| p.starts_with("MobileGL/")),
        "root-relative"
    );
    assert!(
        styles.iter().any(|p| p.starts_with("../../")),
        "docs-relative"
    );
    assert!(styles.iter().any(|p| !p.contains('/')), "bare");
}

/// Each cite overlay turns the cite gate red, and no other gate changes its verdict.
#[test]
fn driver_cite_overlays_turn_only_cite_red() {
    for (overlay, code, needle) in [
        (
            "cite-past-end",
            "CIT006",
            "file=docs/Disaggregated/PLANTED-past-end.md",
        ),
        (
            "cite-code-moved",
            "CIT007",
            "file=docs/Disaggregated/PLANTED-moved.md",
        ),
    ] {
        let (_guard, ws) = copy_driver();
        let before = failing_gates(&ws);
        assert!(!before.contains(&"cite".to_string()), "{before:?}");
        apply_violation(&ws, overlay);
        let mut expected = before.clone();
        expected.push("cite".to_string());
        expected.sort();
        assert_eq!(failing_gates(&ws), expected, "{overlay}");
        let run = mgctl(
            &[
                "check",
                ws.to_str().unwrap(),
                "--only",
                "cite",
                "--format",
                "github",
            ],
            &ws,
        )
        .expect(1);
        assert!(
            run.stdout.contains(&format!("title=mgctl cite {code}::")),
            "{}",
            run.dump()
        );
        assert!(run.stdout.contains(needle), "{}", run.dump());
    }
}
