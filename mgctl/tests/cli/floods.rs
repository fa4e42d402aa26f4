//! Findings in the thousands on one line (issue 15, item 8): excerpts are capped, text reports
//! list a bounded number per gate with exact counts of the rest, JSON carries every finding
//! without carrying the whole line each time.

use crate::util::{mgctl, scratch, write_tree};

const CONFIG: &str = r#"
[[tokens.rule]]
name = "purity-c"
ident = "pGLContext"
paths = ["src/**"]
mask = "none"
message = "no frontend context"

[preproc]

[[preproc.banned]]
identifiers = ["MGB_CTX"]
comments = true
message = "MGB_CTX is back"
"#;

/// 16,000 `pGLContext` on one 192 KB line, and 8,000 `MGB_CTX` in one comment.
fn flooded() -> tempfile::TempDir {
    let dir = scratch();
    let tokens = format!("// {}\n", "pGLContext; ".repeat(16_000));
    let banned = format!("/* {} */\n", "MGB_CTX ".repeat(8_000));
    write_tree(
        dir.path(),
        &[
            ("mgctl.toml", CONFIG),
            ("src/Flood.cpp", &tokens),
            ("src/Banned.h", &banned),
        ],
    );
    dir
}

fn gate<'a>(json: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    json["gates"]
        .as_array()
        .and_then(|g| g.iter().find(|g| g["gate"] == name))
        .unwrap_or_else(|| panic!("no gate {name} in {json}"))
}

#[test]
fn text_lists_a_bounded_number_per_gate_with_exact_counts_of_the_rest() {
    let dir = flooded();
    let run = mgctl(&["check", ".", "--only", "tokens,preproc"], dir.path()).expect(1);
    run.assert_stdout_has("… and 15900 more (15900 errors), every one in --format json");
    // The gate's one warning (not inside a git repository) is listed among the first 100.
    run.assert_stdout_has("… and 7901 more (7901 errors), every one in --format json");
    assert!(
        run.stdout.len() < 200_000,
        "{} bytes of text for two gates",
        run.stdout.len()
    );
    let listed = run.stdout.matches("error[TOK001]").count();
    assert_eq!(listed, 100, "{}", run.dump());
}

#[test]
fn json_carries_every_finding_with_a_capped_excerpt() {
    let dir = flooded();
    let run = mgctl(
        &["check", ".", "--only", "tokens,preproc", "--format", "json"],
        dir.path(),
    )
    .expect(1);
    assert!(
        run.stdout.len() < 20_000_000,
        "{} bytes of JSON",
        run.stdout.len()
    );
    let json: serde_json::Value = serde_json::from_str(&run.stdout).expect("JSON");
    let tokens = gate(&json, "tokens")["findings"]
        .as_array()
        .expect("findings");
    assert_eq!(tokens.len(), 16_000);
    for f in tokens {
        let excerpt = f["detail"]["line_text"].as_str().expect("line_text");
        assert!(excerpt.chars().count() <= 162, "{excerpt}");
        assert!(excerpt.contains("pGLContext"), "{excerpt}");
    }
    // The last hit's column is exact: columns count characters, not the excerpt.
    let last = &tokens[15_999]["location"];
    assert_eq!(last["column"], 3 + 12 * 15_999 + 1, "{last}");
    let banned: Vec<_> = gate(&json, "preproc")["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["code"] == "PPR003")
        .collect();
    assert_eq!(banned.len(), 8_000);
    for f in banned {
        let message = f["message"].as_str().expect("message");
        assert!(message.chars().count() < 300, "{message}");
    }
}

#[test]
fn github_annotations_are_capped_and_the_rest_counted() {
    let dir = flooded();
    let run = mgctl(
        &["check", ".", "--only", "tokens", "--format", "github"],
        dir.path(),
    )
    .expect(1);
    assert_eq!(
        run.stdout.matches("\n::error ").count() + usize::from(run.stdout.starts_with("::error ")),
        50
    );
    run.assert_stdout_has("::notice title=mgctl check::15950 more errors in the report below");
}
