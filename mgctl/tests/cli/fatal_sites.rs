//! `mgctl lint fatal-sites` and the `fatal-sites` gate (issue 18 item 6), end to end.

use crate::util::{copy_driver, driver, mgctl, repo_root};

#[test]
fn driver_census_is_green_with_upstreams_line_and_the_gate_passes() {
    let d = driver();
    let r = mgctl(
        &["lint", "fatal-sites", "-C", d.to_str().unwrap()],
        &repo_root(),
    )
    .expect(0);
    assert_eq!(
        r.stdout,
        "fatal census: 2 abort sites under MG_Remote/, 4 distinct family words, 0 unmarked\n",
        "{}",
        r.dump()
    );
    let c = mgctl(
        &["check", d.to_str().unwrap(), "--only", "fatal-sites"],
        &repo_root(),
    )
    .expect(0);
    c.assert_stdout_has("fatal census: 2 abort sites under MG_Remote/");
}

/// Each rule goes red on a copy of the driver: an unmarked abort, a marker 13 lines up, an unnamed
/// funnel call and a new family word, each one error; an abort in a comment or under MG_Test is not.
#[test]
fn every_rule_goes_red_on_a_planted_site_and_the_gate_agrees() {
    let body = |extra: &str| {
        format!("#pragma once\n#include <cstdlib>\ninline void Planted()\n{{\n{extra}}}\n")
    };
    for (name, extra, code, needle) in [
        (
            "unmarked",
            "    std::abort();\n".to_string(),
            "FSI001",
            ":5: std::abort() with no Fatal{Family} marker",
        ),
        (
            "thirteen-up",
            format!(
                "    Log(\"Fatal{{ReplyToNoSlot, x}}\");{}    std::abort();\n",
                "\n".repeat(13)
            ),
            "FSI001",
            ":18: std::abort() with no Fatal{Family} marker",
        ),
        (
            "funnel",
            "    MG_Remote::WireLogFatal(\"lost\");\n".to_string(),
            "FSI002",
            ":5: WireLogFatal( call names no family",
        ),
        (
            "new-word",
            "    MG_Remote::WireLogFatal(\"Fatal{BrandNewFamily, x}\");\n".to_string(),
            "FSI003",
            ":5: family word BrandNewFamily is not in the baseline",
        ),
    ] {
        let (_g, root) = copy_driver();
        std::fs::write(
            root.join("MobileGL/MG_Remote/Session/Planted.h"),
            body(&extra),
        )
        .unwrap();
        let ws = root.to_str().unwrap();
        let r = mgctl(&["lint", "fatal-sites", "-C", ws], &root).expect(1);
        r.assert_stderr_has(&format!(
            "::error::MobileGL/MG_Remote/Session/Planted.h{needle}"
        ));
        r.assert_stderr_has(code);
        assert_eq!(
            r.stderr
                .lines()
                .filter(|l| l.starts_with("::error::"))
                .count(),
            1,
            "{name}: {}",
            r.dump()
        );
        let unmarked = if code == "FSI001" { 1 } else { 0 };
        assert!(
            r.stdout.ends_with(" unmarked\n")
                && r.stdout.contains(&format!(", {unmarked} unmarked")),
            "{name}: {}",
            r.dump()
        );
        let c = mgctl(&["check", ws, "--only", "fatal-sites"], &root).expect(1);
        c.assert_stdout_has(code);
    }
    // Positives: an abort in a comment and one under MG_Test are not sites.
    let (_g, root) = copy_driver();
    std::fs::write(
        root.join("MobileGL/MG_Remote/Session/Quiet.h"),
        "// std::abort();\n/* std::abort() */\nconst char* s = \"std::abort() is named in a string, Fatal{ReplyTooLarge\";\n",
    )
    .unwrap();
    std::fs::write(
        root.join("MobileGL/MG_Remote/MG_Test/More.cpp"),
        "void X() { std::abort(); }\n",
    )
    .unwrap();
    let r = mgctl(
        &["lint", "fatal-sites", "-C", root.to_str().unwrap()],
        &root,
    )
    .expect(0);
    // The string literal is kept (upstream blanks only comments), so its abort counts and is marked.
    assert_eq!(
        r.stdout,
        "fatal census: 3 abort sites under MG_Remote/, 4 distinct family words, 0 unmarked\n",
        "{}",
        r.dump()
    );
}

#[test]
fn write_baseline_records_todays_numbers_and_a_missing_baseline_is_bad_input() {
    let (_g, root) = copy_driver();
    let ws = root.to_str().unwrap();
    let base = root.join("scripts/ci/fatal_census_baseline.json");
    std::fs::remove_file(&base).unwrap();
    let r = mgctl(&["lint", "fatal-sites", "-C", ws], &root).expect(2);
    r.assert_stderr_has("fatal_census_baseline.json: missing baseline");
    mgctl(&["check", ws, "--only", "fatal-sites"], &root)
        .expect(1)
        .assert_stdout_has("FSI004");
    let w = mgctl(
        &["lint", "fatal-sites", "-C", ws, "--write-baseline"],
        &root,
    )
    .expect(0);
    w.assert_stdout_has("fatal census baseline written: 2 abort sites, 4 families");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&base).unwrap()).unwrap();
    assert_eq!(v["abort_sites"], 2);
    assert_eq!(v["families"][0], "ProtocolCorruption");
    mgctl(&["lint", "fatal-sites", "-C", ws], &root).expect(0);
    std::fs::write(&base, "{\"abort_sites\": \"many\", \"families\": []}").unwrap();
    mgctl(&["lint", "fatal-sites", "-C", ws], &root)
        .expect(2)
        .assert_stderr_has("bad baseline: `abort_sites` must be a non-negative integer");
}

#[test]
fn self_test_trips_every_negative_and_a_neutered_control_fails_it() {
    let r = mgctl(&["lint", "fatal-sites", "--self-test"], &repo_root()).expect(0);
    for c in [
        "unmarked-abort",
        "marker-13-lines-up",
        "unnamed-funnel-call",
        "new-word",
    ] {
        r.assert_stdout_has(&format!("negative control {c}: tripped"));
    }
    for c in ["abort-in-comment", "abort-under-MG_Test"] {
        r.assert_stdout_has(&format!("positive control {c}: clean"));
    }
    let n = mgctl(
        &[
            "lint",
            "fatal-sites",
            "--self-test",
            "--neuter",
            "fatal-sites/new-word",
        ],
        &repo_root(),
    )
    .expect(1);
    n.assert_stdout_has("negative control new-word: NEGATIVE CONTROL DID NOT TRIP");
    mgctl(
        &[
            "check",
            "--self-test",
            "--neuter",
            "fatal-sites/marker-13-lines-up",
        ],
        &repo_root(),
    )
    .expect(1);
}
