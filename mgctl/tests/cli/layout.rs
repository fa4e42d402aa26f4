//! The `layout` gate (G10, issue 30): an `offsetof` assertion per data member of each configured
//! struct, and size macros that are at most their `max` and never above their base-ref value.

use std::path::Path;

use crate::util::*;

const HEADER: &str = "MobileGL/MG_Pipe/MGPipeResidual.h";

fn edit(root: &Path, rel: &str, from: &str, to: &str) {
    let p = root.join(rel);
    let text = std::fs::read_to_string(&p).unwrap();
    assert!(text.contains(from), "{rel} lacks {from:?}");
    std::fs::write(&p, text.replacen(from, to, 1)).unwrap();
}

fn commit_all(dir: &Path, message: &str) -> String {
    let repo = git2::Repository::open(dir).unwrap_or_else(|_| git2::Repository::init(dir).unwrap());
    let mut index = repo.index().unwrap();
    index
        .add_all(["*"], git2::IndexAddOption::DEFAULT, None)
        .unwrap();
    index.write().unwrap();
    let tree = repo.find_tree(index.write_tree().unwrap()).unwrap();
    let sig = git2::Signature::now("t", "t@example.invalid").unwrap();
    let parent = repo.head().ok().and_then(|h| h.peel_to_commit().ok());
    let parents: Vec<&git2::Commit<'_>> = parent.iter().collect();
    repo.commit(Some("HEAD"), &sig, &sig, message, &tree, &parents)
        .unwrap()
        .to_string()
}

fn gate(run: &Run) -> serde_json::Value {
    let v: serde_json::Value =
        serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}\n{}", run.dump()));
    v["gates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["gate"] == "layout")
        .cloned()
        .unwrap_or_else(|| panic!("no layout gate\n{}", run.dump()))
}

#[test]
fn driver_layout_is_green_in_the_repository() {
    let run = mgctl(
        &["check", "driver", "--only", "layout", "--format", "json"],
        &repo_root(),
    )
    .expect(0);
    let g = gate(&run);
    assert_eq!(g["verdict"], "pass", "{}", run.dump());
    assert_eq!(
        g["headline"],
        "1 structs / 1 members / 0 without offsetof; 1 macros / 0 over max / 0 raised"
    );
    let inputs = g["inputs"].to_string();
    assert!(inputs.contains("base HEAD ("), "{}", run.dump());
}

#[test]
fn missing_offsetof_overlay_turns_only_layout_red_at_the_member() {
    let (_g, clean) = copy_driver();
    let (_g2, root) = copy_driver();
    apply_violation(&root, "layout-missing-offsetof");
    let run = mgctl(&["check", ".", "--only", "layout"], &root).expect(1);
    run.assert_stdout_has(&format!(
        "error[LAY001] {HEADER}:23:12: `ResidualValueBlock::CapabilityBits` has no `static_assert(offsetof(ResidualValueBlock, CapabilityBits) == …)`"
    ));
    // every other gate is as it was on the clean copy
    let verdicts = |root: &Path| -> Vec<(String, String)> {
        let run = mgctl(&["check", ".", "--format", "json"], root);
        let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
        v["gates"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| {
                (
                    g["gate"].as_str().unwrap().to_string(),
                    g["verdict"].to_string(),
                )
            })
            .collect()
    };
    let before = verdicts(&clean);
    let after = verdicts(&root);
    let changed: Vec<_> = before
        .iter()
        .zip(&after)
        .filter(|(b, a)| b != a)
        .map(|(b, _)| b.0.clone())
        .collect();
    assert_eq!(changed, ["layout"], "{before:?}\n{after:?}");
}

#[test]
fn size_macro_raised_to_16_is_above_its_max() {
    let (_g, root) = copy_driver();
    edit(
        &root,
        HEADER,
        "#define MGL_RESIDUAL_BLOCK_SIZE 8",
        "#define MGL_RESIDUAL_BLOCK_SIZE 16",
    );
    let run = mgctl(&["check", ".", "--only", "layout"], &root).expect(1);
    run.assert_stdout_has(&format!(
        "error[LAY004] {HEADER}:16: `MGL_RESIDUAL_BLOCK_SIZE` is 16, above its max 8"
    ));
    // outside git the ratchet is said not to be checked, never silently skipped
    run.assert_stdout_has("warning[LAY009]");
}

#[test]
fn raised_above_the_base_ref_fails_and_lowering_passes() {
    let (_g, root) = copy_driver();
    edit(
        &root,
        HEADER,
        "#define MGL_RESIDUAL_BLOCK_SIZE 8",
        "#define MGL_RESIDUAL_BLOCK_SIZE 4",
    );
    let base = commit_all(&root, "[Test] (driver): the block at 4");
    edit(
        &root,
        HEADER,
        "#define MGL_RESIDUAL_BLOCK_SIZE 4",
        "#define MGL_RESIDUAL_BLOCK_SIZE 8",
    );
    let run = mgctl(&["check", ".", "--only", "layout"], &root).expect(1);
    run.assert_stdout_has(&format!(
        "error[LAY005] {HEADER}:16: `MGL_RESIDUAL_BLOCK_SIZE` is 8, above its value 4 at base HEAD ({})",
        &base[..10]
    ));
    assert!(!run.stdout.contains("LAY004"), "{}", run.dump());

    // committed at 8, the ratchet holds at HEAD again, and lowering it is always fine
    commit_all(&root, "[Test] (driver): back to 8");
    mgctl(&["check", ".", "--only", "layout"], &root).expect(0);
    edit(
        &root,
        HEADER,
        "#define MGL_RESIDUAL_BLOCK_SIZE 8",
        "#define MGL_RESIDUAL_BLOCK_SIZE 0",
    );
    let run = mgctl(&["check", ".", "--only", "layout"], &root).expect(0);
    assert!(!run.stdout.contains("LAY0"), "{}", run.dump());
}

#[test]
fn a_base_ref_that_does_not_resolve_is_an_error_at_base() {
    let (_g, root) = copy_driver();
    edit(&root, "mgctl.toml", "base = \"HEAD\"", "base = \"p2-bsae\"");
    commit_all(&root, "[Test] (driver): all");
    let run = mgctl(&["check", ".", "--only", "layout"], &root).expect(1);
    let text = std::fs::read_to_string(root.join("mgctl.toml")).unwrap();
    let line = text
        .lines()
        .position(|l| l.starts_with("base = \"p2-bsae\""))
        .unwrap()
        + 1;
    run.assert_stdout_has(&format!("error[LAY008] mgctl.toml:{line}:8: base p2-bsae:"));
}

#[test]
fn a_struct_that_is_not_there_is_a_finding_not_a_pass() {
    let (_g, root) = copy_driver();
    edit(
        &root,
        "mgctl.toml",
        "name = \"ResidualValueBlock\"",
        "name = \"ResidualValueBlok\"",
    );
    let run = mgctl(&["check", ".", "--only", "layout"], &root).expect(1);
    run.assert_stdout_has("error[LAY003] mgctl.toml:");
    run.assert_stdout_has(&format!(
        "struct `ResidualValueBlok` is not defined in {HEADER}"
    ));
}

#[test]
fn an_assertion_naming_a_retired_member_and_a_new_member_without_one() {
    let (_g, root) = copy_driver();
    edit(
        &root,
        HEADER,
        "    Uint64 CapabilityBits = 0;\n",
        "    Uint64 CapabilityBits = 0;\n    Uint32 PatchVertices = 0;\n",
    );
    edit(
        &root,
        HEADER,
        "} // namespace MG_Pipe",
        "static_assert(offsetof(ResidualValueBlock, PackAlignment) == 8, \"retired\");\n\
         // static_assert(offsetof(ResidualValueBlock, PatchVertices) == 8);\n\
         } // namespace MG_Pipe",
    );
    let run = mgctl(&["check", ".", "--only", "layout"], &root).expect(1);
    run.assert_stdout_has(&format!(
        "error[LAY001] {HEADER}:24:12: `ResidualValueBlock::PatchVertices` has no"
    ));
    run.assert_stdout_has(&format!(
        "error[LAY002] {HEADER}:31:15: the assertion names `ResidualValueBlock::PackAlignment`, which is not a data member"
    ));
    assert!(
        !run.stdout.contains("ResidualValueBlock::CapabilityBits"),
        "{}",
        run.dump()
    );
}

#[test]
fn self_test_trips_every_control_and_each_neutered_control_fails_it() {
    let run = mgctl(
        &["check", "driver", "--self-test", "--only", "layout"],
        &repo_root(),
    )
    .expect(0);
    run.assert_stdout_has("negative controls tripped: 8/8");
    for control in [
        "member-without-offsetof",
        "macro-above-max",
        "macro-above-base",
        "live-ResidualValueBlock",
        "live-MGL_RESIDUAL_BLOCK_SIZE",
    ] {
        let neuter = format!("layout/{control}");
        let run = mgctl(
            &[
                "check",
                "driver",
                "--self-test",
                "--only",
                "layout",
                "--neuter",
                &neuter,
            ],
            &repo_root(),
        )
        .expect(1);
        run.assert_stdout_has(&format!("{control}: negative control did not trip"));
    }
}

#[test]
fn outside_git_the_ratchet_is_a_warning_and_the_max_still_holds() {
    let (_g, root) = copy_driver();
    let run = mgctl(&["check", ".", "--only", "layout"], &root).expect(0);
    run.assert_stdout_has("warning[LAY009] mgctl.toml:");
    run.assert_stdout_has("the ratchet against base HEAD was not checked");
    run.assert_stdout_has("not inside a git repository");
}
