//! The `generated` gate (issue 33, mechanism 4): generator outputs stay fresh (run in a
//! throw-away copy, never the workspace) and sha256 pins hold, on copies of `driver/`.

use std::path::Path;

use crate::util::*;

const INC: &str = "MobileGL/MG_Pipe/generated/PipeFields.inc";
const DEF: &str = "MobileGL/MG_Pipe/FillPoints.def";
const BASE_H: &str = "MobileGL/MG_Remote/Protocol/mg_protocol_base.h";

fn edit(root: &Path, rel: &str, from: &str, to: &str) {
    let p = root.join(rel);
    let text = std::fs::read_to_string(&p).unwrap();
    assert!(text.contains(from), "{rel} lacks {from:?}");
    std::fs::write(&p, text.replacen(from, to, 1)).unwrap();
}

fn generated(root: &Path) -> Run {
    mgctl(&["check", ".", "--only", "generated"], root)
}

#[test]
fn clean_driver_is_green_and_never_written() {
    let (_g, root) = copy_driver();
    let inc = root.join(INC);
    // a stale committed file that the run must not repair in the workspace
    edit(
        &root,
        INC,
        "MGP_FILL_POINT_COUNT 10",
        "MGP_FILL_POINT_COUNT 11",
    );
    let before = std::fs::read(&inc).unwrap();
    generated(&root).expect(1);
    assert_eq!(
        std::fs::read(&inc).unwrap(),
        before,
        "the workspace was written"
    );
    edit(
        &root,
        INC,
        "MGP_FILL_POINT_COUNT 11",
        "MGP_FILL_POINT_COUNT 10",
    );
    let run = generated(&root).expect(0);
    run.assert_stdout_has("1 generators / 1 outputs / 0 stale or missing; 1 pins / 1 hold");
}

#[test]
fn stale_overlay_is_red_at_the_first_differing_line_with_the_diff() {
    let (_g, root) = copy_driver();
    apply_violation(&root, "generated-stale-pipe-fields");
    let run = generated(&root).expect(1);
    run.assert_stdout_has(&format!(
        "error[GEN001] {INC}:13: `{INC}` is stale: generator `pipe-fields` writes something else from line 13 on"
    ));
    run.assert_stdout_has("+MGP_FILL_POINT_ROW(Present, kVerbFrame, 9)");
    run.assert_stdout_has("-#define MGP_FILL_POINT_COUNT 9");
}

#[test]
fn schema_edit_without_bump_overlay_is_red() {
    let (_g, root) = copy_driver();
    apply_violation(&root, "generated-schema-edit-without-bump");
    let run = generated(&root).expect(1);
    run.assert_stdout_has(
        "error[GEN008] MobileGL/MG_Remote/Protocol/protocol.fbs: `MobileGL/MG_Remote/Protocol/protocol.fbs` changed but revision 2 (MobileGL/MG_Remote/Protocol/mg_protocol_base.h:9) still pins 2d03eb83b524a96d: bump the revision and pin the new hash",
    );
}

#[test]
fn a_bump_without_a_pin_and_a_key_matching_nothing_are_red() {
    let (_g, root) = copy_driver();
    edit(&root, BASE_H, "CONTROL_REVISION 2", "CONTROL_REVISION 3");
    let run = generated(&root).expect(1);
    run.assert_stdout_has(&format!(
        "error[GEN009] {BASE_H}:9: revision 3 has no pin in scripts/ci/protocol_revision_pins.json"
    ));
    edit(&root, BASE_H, "CONTROL_REVISION 3", "CONTROL_REV 3");
    let run = generated(&root).expect(1);
    run.assert_stdout_has("[GEN010]");
    run.assert_stdout_has("matches nothing in `MobileGL/MG_Remote/Protocol/mg_protocol_base.h`");
}

#[test]
fn a_crlf_checkout_hashes_like_an_lf_one() {
    let (_g, root) = copy_driver();
    let p = root.join("MobileGL/MG_Remote/Protocol/protocol.fbs");
    let text = std::fs::read_to_string(&p).unwrap();
    std::fs::write(&p, text.replace('\n', "\r\n")).unwrap();
    generated(&root).expect(0);
}

#[test]
fn uncommitted_and_no_longer_generated_outputs_are_red() {
    let (_g, root) = copy_driver();
    std::fs::remove_file(root.join(INC)).unwrap();
    let run = generated(&root).expect(1);
    run.assert_stdout_has(&format!(
        "error[GEN004] {INC}: generator `pipe-fields` writes `{INC}`, which is not committed"
    ));
    let (_g2, root) = copy_driver();
    write_tree(
        &root,
        &[("MobileGL/MG_Pipe/generated/Old.inc", "// retired\n")],
    );
    let run = generated(&root).expect(1);
    run.assert_stdout_has("`MobileGL/MG_Pipe/generated/Old.inc` is committed under");
}

#[test]
fn a_failing_generator_is_red_with_its_stderr_tail() {
    let (_g, root) = copy_driver();
    edit(&root, DEF, "X(Clear,", "X(Clear;");
    let run = generated(&root).expect(1);
    run.assert_stdout_has("error[GEN005] mgctl.toml:");
    run.assert_stdout_has("generator `pipe-fields` failed (exit 1)");
    run.assert_stdout_has("MobileGL/MG_Pipe/FillPoints.def:15: not an X(Verb, kVerbClass) row");
}

#[test]
fn an_invalid_pin_fails_the_gate_at_its_line() {
    let (_g, root) = copy_driver();
    edit(
        &root,
        "mgctl.toml",
        r"key = '#define\s+MOBILEGL_PROTOCOL_CONTROL_REVISION\s+(\d+)'",
        r"key = '#define\s+MOBILEGL_PROTOCOL_CONTROL_REVISION\s+\d+'",
    );
    let run = generated(&root).expect(1);
    run.assert_stdout_has("[GEN006]");
    run.assert_stdout_has("must have exactly one capture group (the revision), it has 0");
}

#[test]
fn self_test_passes_and_fails_when_a_control_is_neutered() {
    let (_g, root) = copy_driver();
    let run = mgctl(&["check", ".", "--self-test", "--only", "generated"], &root).expect(0);
    run.assert_stdout_has("negative controls tripped: 11/11");
    for control in [
        "generated/stale-output",
        "generated/schema-edit-without-bump",
        "generated/live-gen-pipe-fields",
        "generated/live-pin-MobileGL/MG_Remote/Protocol/protocol.fbs",
    ] {
        let run = mgctl(
            &[
                "check",
                ".",
                "--self-test",
                "--only",
                "generated",
                "--neuter",
                control,
            ],
            &root,
        )
        .expect(1);
        let name = control.trim_start_matches("generated/");
        run.assert_stdout_has(&format!("{name}: negative control did not trip"));
    }
}

/// The gate's verdict, as a JSON document's codes.
fn codes(root: &Path, rc: i32) -> Vec<String> {
    let run = mgctl(
        &["check", ".", "--only", "generated", "--format", "json"],
        root,
    )
    .expect(rc);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let g = v["gates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["gate"] == "generated")
        .unwrap()
        .clone();
    g["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["severity"] == "error")
        .map(|f| f["code"].as_str().unwrap().to_string())
        .collect()
}

/// What upstream does on the same trees (MobileGL-Dev/MobileGL's CI: `scripts/gen_pipe.py` then
/// `git diff --exit-code`, and the flatc-check job's revision pin over
/// `scripts/ci/protocol_revision_pins.json`, hashing with CRLF folded to LF), next to mgctl's
/// codes: green (both exit 0); a committed output edited by hand (`git diff` exits 1); a schema
/// edit without a revision bump (the pin check fails); and the edge upstream documents, a CRLF
/// checkout of the pinned schema, which hashes like the LF one (exit 0).
#[test]
fn upstream_generator_and_pin_checks_agree_on_four_trees() {
    type Plant = fn(&Path);
    let trees: [(&str, i32, Plant, &[&str]); 4] = [
        ("green", 0, |_| {}, &[]),
        (
            "a hand-edited output",
            1,
            |r| edit(r, INC, "MGP_FILL_POINT_COUNT 10", "MGP_FILL_POINT_COUNT 11"),
            &["GEN001"],
        ),
        (
            "a schema edit without a bump",
            1,
            |r| apply_violation(r, "generated-schema-edit-without-bump"),
            &["GEN008"],
        ),
        (
            "a CRLF checkout of the pinned schema",
            0,
            |r| {
                let p = r.join("MobileGL/MG_Remote/Protocol/protocol.fbs");
                let text = std::fs::read_to_string(&p).unwrap();
                std::fs::write(&p, text.replace('\n', "\r\n")).unwrap();
            },
            &[],
        ),
    ];
    for (name, upstream_exit, plant, want) in trees {
        let (_g, root) = copy_driver();
        plant(&root);
        assert_eq!(codes(&root, upstream_exit), want, "{name}");
    }
}
