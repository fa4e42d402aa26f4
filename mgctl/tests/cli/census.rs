//! The `census` gate (issue 33, mechanism 1): registry entries and the call sites naming them
//! agree, on copies of `driver/` (its `wire-declines` and `pipeline-key-purity` censuses).

use std::path::Path;

use crate::util::*;

const DEF: &str = "MobileGL/MG_Remote/Server/WireDeclines.def";
const SITES: &str = "MobileGL/MG_Remote/Server/ServerDeclines.cpp";
const KEY: &str = "MobileGL/MG_Backend/DirectVulkan/PipelineCache.h";

fn check(root: &Path, rc: i32) -> (Run, serde_json::Value) {
    gate_report(root, "census", rc)
}

fn codes(g: &serde_json::Value) -> Vec<String> {
    finding_codes(g)
}

fn edit(root: &Path, rel: &str, from: &str, to: &str) {
    let p = root.join(rel);
    let text = std::fs::read_to_string(&p).unwrap();
    assert!(text.contains(from), "{rel} lacks {from:?}");
    std::fs::write(&p, text.replacen(from, to, 1)).unwrap();
}

fn at(g: &serde_json::Value, i: usize) -> String {
    let l = &g["findings"][i]["location"];
    format!("{}:{}", l["path"].as_str().unwrap_or(""), l["line"])
}

#[test]
fn the_driver_censuses_hold() {
    let (run, g) = check(&driver(), 0);
    assert_eq!(g["verdict"], "pass", "{}", run.dump());
    assert_eq!(
        g["headline"],
        "2 censuses / 3 entries / 3 sites in 4 files / 0 errors"
    );
}

#[test]
fn a_bare_count_whose_log_is_in_a_sibling_branch_is_red_at_the_count() {
    let (_d, root) = copy_driver();
    apply_violation(&root, "census-unlogged-decline");
    let (run, g) = check(&root, 1);
    assert_eq!(codes(&g), ["CEN004"], "{}", run.dump());
    assert_eq!(at(&g, 0), format!("{SITES}:31"));
    let m = g["findings"][0]["message"].as_str().unwrap();
    assert!(
        m.contains("the site of `StaleHandle` has no line matching `MGLOG_[WE](_ONCE)?\\s*\\(` in its own block within 8 lines above it"),
        "{m}"
    );
}

#[test]
fn a_row_without_a_site_and_a_site_without_a_row_are_red_where_they_stand() {
    let (_d, root) = copy_driver();
    edit(
        &root,
        DEF,
        "MGL_WIRE_DECLINE(StaleHandle)\n",
        "MGL_WIRE_DECLINE(StaleHandle)\nMGL_WIRE_DECLINE(NeverWired)\n",
    );
    edit(&root, SITES, "UnknownVerb, \"wire", "UnknownVerbs, \"wire");
    let (run, g) = check(&root, 1);
    // Sorted by place: the site (ServerDeclines.cpp) before the registry rows.
    assert_eq!(codes(&g), ["CEN003", "CEN001", "CEN001"], "{}", run.dump());
    let all = format!("{g}");
    assert!(all.contains("`UnknownVerb` has no site"), "{all}");
    assert!(all.contains("`NeverWired` has no site"), "{all}");
    assert!(
        all.contains("names `UnknownVerbs`, which is not an entry"),
        "{all}"
    );
    run.assert_stdout_has(&format!("\"path\": \"{DEF}\""));
}

#[test]
fn a_forbidden_key_field_in_scope_is_red_and_a_renamed_anchor_too() {
    let (_d, root) = copy_driver();
    edit(
        &root,
        KEY,
        "    Uint64 LayoutHash = 0;\n",
        "    Uint64 LayoutHash = 0;\n    Uint64 Lifetime = GetLifetimeId();\n",
    );
    let (run, g) = check(&root, 1);
    assert_eq!(codes(&g), ["CEN005"], "{}", run.dump());
    assert_eq!(at(&g, 0), format!("{KEY}:16"));
    let (_d, root) = copy_driver();
    edit(&root, KEY, "    struct Entry {", "    struct CacheEntry {");
    let (run, g) = check(&root, 1);
    assert_eq!(codes(&g), ["CEN007"], "{}", run.dump());
    run.assert_stdout_has("scope anchor `struct\\\\s+Entry\\\\b` matches no braced region");
}

#[test]
fn bad_bytes_in_a_source_are_counted_and_the_other_gates_still_run() {
    let (_d, root) = copy_driver();
    let p = root.join(SITES);
    let mut bytes = std::fs::read(&p).unwrap();
    bytes.extend_from_slice(b"// \xff\xfe\n");
    std::fs::write(&p, bytes).unwrap();
    let (run, g) = check(&root, 1);
    // The file is not read, so its sites are missing too: each named, none silently.
    assert!(codes(&g).contains(&"CEN010".to_string()), "{}", run.dump());
    run.assert_stdout_has("not UTF-8: 2 bad byte(s), the first at offset");
    let (all, failed) = failed_gates(&root, 1);
    assert_eq!(failed, ["census"], "{}", all.dump());
}

#[test]
fn a_bad_regex_is_a_config_error_at_the_census() {
    let (_d, root) = copy_driver();
    edit(
        &root,
        "mgctl.toml",
        "pattern = 'MGL_WIRE_DECLINE_AT\\(\\s*([A-Za-z][A-Za-z0-9]*)\\s*,'",
        "pattern = 'MGL_WIRE_DECLINE_AT\\(\\s*(['",
    );
    let (run, g) = check(&root, 1);
    assert_eq!(codes(&g), ["CEN009"], "{}", run.dump());
    run.assert_stdout_has("site.pattern");
    run.assert_stdout_has("\"path\": \"mgctl.toml\"");
}

/// What upstream `scripts/ci/wire_declines_audit.py` (MobileGL-Dev/MobileGL) prints and exits
/// with on the same trees, next to mgctl's codes: green (0, `0 unlogged, 0 unknown`), a log in a
/// sibling branch (1, `with no MGLOG_W/E in its own block`), and the edge its self-test
/// documents, a site that is only a comment (1, `has NO SITE`).
#[test]
fn upstream_wire_declines_audit_agrees_on_three_trees() {
    // (tree, upstream exit, what upstream prints, how to plant it, mgctl's codes)
    type Tree = (
        &'static str,
        i32,
        &'static str,
        fn(&Path),
        &'static [&'static str],
    );
    let trees: [Tree; 3] = [
        ("green", 0, "0 unlogged, 0 unknown", |_| {}, &[]),
        (
            "sibling-branch log",
            1,
            "with no MGLOG_W/E in its own block",
            |r| apply_violation(r, "census-unlogged-decline"),
            &["CEN004"],
        ),
        (
            "comment-only site",
            1,
            "has NO SITE",
            |r| {
                edit(
                    r,
                    SITES,
                    "        MGL_WIRE_DECLINE_AT(OversizeRecord,",
                    "        // MGL_WIRE_DECLINE_AT(OversizeRecord,",
                );
            },
            &["CEN001"],
        ),
    ];
    for (name, upstream_exit, _upstream_says, plant, want) in trees {
        let (_d, root) = copy_driver();
        plant(&root);
        let (run, g) = check(&root, upstream_exit);
        assert_eq!(codes(&g), want, "{name}: {}", run.dump());
    }
}

#[test]
fn self_test_trips_every_control_and_a_neutered_one_fails() {
    let run = mgctl(
        &["check", "driver", "--only", "census", "--self-test"],
        &repo_root(),
    )
    .expect(0);
    run.assert_stdout_has("negative controls tripped: 12/12");
    for c in [
        "other-branch-log-trips",
        "two-sites-trip",
        "idle-anchor-trips",
        "live-sources-removed",
    ] {
        let run = mgctl(
            &[
                "check",
                "driver",
                "--only",
                "census",
                "--self-test",
                "--neuter",
                &format!("census/{c}"),
            ],
            &repo_root(),
        )
        .expect(1);
        run.assert_stdout_has(&format!("{c}: negative control did not trip"));
    }
}

/// A registry reached through a link out of the workspace is not read (the walk never follows
/// such a link either): the census fails naming it, rather than judging a file from elsewhere.
#[test]
fn a_registry_linked_from_outside_the_workspace_is_not_followed() {
    let (d, root) = copy_driver();
    let outside = d.path().join("WireDeclines.def");
    std::fs::rename(root.join(DEF), &outside).unwrap();
    std::os::unix::fs::symlink(&outside, root.join(DEF)).unwrap();
    let (run, g) = check(&root, 1);
    assert_eq!(codes(&g), ["CEN010"], "{}", run.dump());
    run.assert_stdout_has("a link leading out of the workspace: not followed");
}
