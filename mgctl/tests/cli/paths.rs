//! Issue 32: the standalone gate commands (`cite`, `include`, `lint ctest|controls|regions`)
//! print each `path:line` from the directory the user stands in, as `check` does, so it opens
//! from that shell; JSON stays workspace-relative. Each case runs from two directories.

use crate::util::*;

/// A copy of `driver/` at `<tmp>/ws` with the planted violations of each command.
fn planted() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = scratch();
    let ws = dir.path().join("ws");
    copy_dir(&driver(), &ws);
    for v in [
        "cite-past-end",
        "include-backend-two-hops",
        "ctest-pass-to-skip",
        "controls-rotted-patch",
    ] {
        apply_violation(&ws, v);
    }
    (dir, ws)
}

#[test]
fn cite_prints_documents_from_the_current_directory() {
    let (dir, ws) = planted();
    let doc = "docs/Disaggregated/PLANTED-past-end.md:4: ";
    mgctl(&["cite", "-C", "ws"], dir.path())
        .expect(1)
        .assert_stdout_has(&format!("  ws/{doc}"));
    mgctl(&["cite"], &ws.join("MobileGL"))
        .expect(1)
        .assert_stdout_has(&format!("  ../{doc}"));
    // The message names the cited target as the document wrote it, not re-rooted.
    mgctl(&["cite"], &ws.join("MobileGL"))
        .expect(1)
        .assert_stdout_has("-> MobileGL/MG_Pipe/PipeInputs.cpp has 18 lines");
}

#[test]
fn include_prints_chains_and_rule_origins_from_the_current_directory() {
    let (dir, ws) = planted();
    let run = mgctl(&["include", "-C", "ws", "rules"], dir.path()).expect(1);
    run.assert_stdout_has("(rule `-MobileGL/MG_State/GLState` at ws/mgctl.toml:");
    run.assert_stdout_has("\n    ws/MobileGL/MG_Backend/DirectGLES/StateMirror.h:8\n");
    // Rule targets and the headers they name stay in the workspace's own vocabulary.
    run.assert_stdout_has("VIOLATION MobileGL/MG_Backend/DirectGLES/StateMirror.h reaches");
    let inside = ws.join("MobileGL/MG_Backend");
    let run = mgctl(&["include", "rules"], &inside).expect(1);
    run.assert_stdout_has("at ../../mgctl.toml:");
    run.assert_stdout_has("\n    DirectGLES/StateMirror.h:8\n      Common/FrontendBridge.h:5\n");
    let why = mgctl(
        &[
            "include",
            "why",
            "DirectGLES/StateMirror.h",
            "../MG_State/GLState/Core.h",
        ],
        &inside,
    )
    .expect(0);
    assert_eq!(
        why.stdout.lines().take(3).collect::<Vec<_>>(),
        [
            "DirectGLES/StateMirror.h:8",
            "  -> Common/FrontendBridge.h:5",
            "    -> ../MG_State/GLState/Core.h"
        ],
        "{}",
        why.dump()
    );
    // JSON keeps workspace-relative paths.
    let json = mgctl(&["include", "rules", "--format", "json"], &inside).expect(1);
    json.assert_stdout_has("\"MobileGL/MG_Backend/DirectGLES/StateMirror.h\"");
}

#[test]
fn lint_findings_are_placed_from_the_current_directory() {
    let (dir, ws) = planted();
    let run = mgctl(&["lint", "ctest", "-C", "ws"], dir.path()).expect(1);
    run.assert_stdout_has("error[CTS005] ws/MobileGL/MG_Test/ctest/push.xml:7: ");
    let run = mgctl(&["lint", "ctest"], &ws.join("MobileGL/MG_Test")).expect(1);
    run.assert_stdout_has("error[CTS005] ctest/push.xml:7: ");
    let only = [
        "lint",
        "controls",
        "--only",
        "setter-consistency-depth-func",
    ];
    let run = mgctl(&only, &ws.join("MobileGL")).expect(1);
    run.assert_stdout_has("error[CTL002] ../mgctl.toml:");
    let json = mgctl(&["lint", "ctest", "--format", "json"], &ws.join("MobileGL")).expect(1);
    json.assert_stdout_has("\"location\": \"MobileGL/MG_Test/ctest/push.xml:7\"");
}
