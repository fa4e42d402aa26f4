//! Issue 17: outputs that land where CI and reviewers read them (repository-relative paths,
//! errors first, SARIF, the step summary), a table that fits the terminal, config discovery,
//! man pages and completions.

use std::path::Path;

use crate::util::*;

/// A git repository holding a copy of driver/ with one planted violation; returns (guard, repo).
fn repo_with_violation() -> (tempfile::TempDir, std::path::PathBuf) {
    let (guard, root) = copy_driver();
    apply_violation(&root, "tokens-backend-pglcontext");
    let repo = guard.path().to_path_buf();
    git2::Repository::init(&repo).unwrap();
    (guard, repo)
}

fn annotations(stdout: &str) -> Vec<&str> {
    stdout.lines().filter(|l| l.starts_with("::")).collect()
}

#[test]
fn issue17_github_errors_lead_with_repository_paths_and_notices_are_summarised() {
    let (_g, repo) = repo_with_violation();
    let run = mgctl(&["check", "driver", "--format", "github"], &repo).expect(1);
    let ann = annotations(&run.stdout);
    assert!(
        ann[0].starts_with("::error file=driver/MobileGL/"),
        "{}",
        run.dump()
    );
    let first_notice = ann.iter().position(|l| l.starts_with("::notice"));
    let last_error = ann.iter().rposition(|l| l.starts_with("::error"));
    if let (Some(n), Some(e)) = (first_notice, last_error) {
        assert!(e < n, "errors lead: {}", run.dump());
    }
    let notices = ann.iter().filter(|l| l.starts_with("::notice")).count();
    assert!(notices <= 6, "notices are summarised: {}", run.dump());
}

#[test]
fn issue17_github_workspace_sets_the_path_base() {
    let (guard, root) = copy_driver();
    apply_violation(&root, "tokens-backend-pglcontext");
    // No git repository here: $GITHUB_WORKSPACE alone says where paths start.
    let ws = guard.path().to_str().unwrap();
    let run = mgctl_env(
        &["check", "driver", "--format", "github", "--only", "tokens"],
        guard.path(),
        &[("GITHUB_WORKSPACE", ws)],
    )
    .expect(1);
    assert!(
        annotations(&run.stdout)[0].starts_with("::error file=driver/MobileGL/"),
        "{}",
        run.dump()
    );
}

#[test]
fn issue17_json_and_junit_locations_are_repository_relative() {
    let (_g, repo) = repo_with_violation();
    let run = mgctl(
        &["check", "driver", "--format", "json", "--only", "tokens"],
        &repo,
    )
    .expect(1);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let loc = &v["gates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["gate"] == "tokens")
        .unwrap()["findings"][0]["location"];
    let path = loc["path"].as_str().unwrap();
    let ws = loc["workspace_path"].as_str().unwrap();
    assert!(path.starts_with("driver/MobileGL/"), "{loc}");
    assert_eq!(path, format!("driver/{ws}"));
    let run = mgctl(
        &["check", "driver", "--format", "junit", "--only", "tokens"],
        &repo,
    )
    .expect(1);
    run.assert_stdout_has("driver/MobileGL/MG_Backend/");
}

#[test]
fn issue17_sarif_validates_against_the_2_1_0_schema() {
    let (_g, repo) = repo_with_violation();
    let run = mgctl(&["check", "driver", "--format", "sarif"], &repo).expect(1);
    let doc: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/sarif/sarif-schema-2.1.0.json"),
    )
    .unwrap();
    // The official schema's `run.language` pattern has a stray `]` that a strict regex engine
    // rejects when the schema itself is checked; only that pattern is repaired, in memory.
    let broken = r#""^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$""#;
    assert!(text.contains(broken), "the vendored schema changed");
    let text = text.replace(broken, r#""^[a-zA-Z]{2}(-[a-zA-Z]{2})?$""#);
    let schema: serde_json::Value = serde_json::from_str(&text).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(&doc)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    let runs = doc["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 1);
    let results = runs[0]["results"].as_array().unwrap();
    let error = results
        .iter()
        .find(|r| r["level"] == "error")
        .expect("an error result");
    assert_eq!(error["ruleId"], "TOK001");
    let uri = error["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        .as_str()
        .unwrap();
    assert!(uri.starts_with("driver/MobileGL/"), "{uri}");
    assert!(error["partialFingerprints"]["mgctl/v1"].is_string());
    // Issue 32: every result is placed (GitHub drops one without a start line), relative to the
    // source root, and no admitted change (a SYM009 note) becomes an alert.
    for r in results {
        assert_ne!(r["level"], "note", "{r}");
        assert_ne!(r["ruleId"], "SYM009", "{r}");
        let loc = &r["locations"][0]["physicalLocation"];
        assert!(
            loc["region"]["startLine"].as_u64().is_some_and(|l| l >= 1),
            "{r}"
        );
        assert_eq!(loc["artifactLocation"]["uriBaseId"], "%SRCROOT%", "{r}");
    }
    let rules = runs[0]["tool"]["driver"]["rules"].as_array().unwrap();
    let tok = rules.iter().find(|r| r["id"] == "TOK001").unwrap();
    assert!(tok["shortDescription"]["text"]
        .as_str()
        .unwrap()
        .contains("forbidden token"));
    // Fingerprints are stable from run to run.
    let again = mgctl(&["check", "driver", "--format", "sarif"], &repo).expect(1);
    let doc2: serde_json::Value = serde_json::from_str(&again.stdout).unwrap();
    let fps = |d: &serde_json::Value| -> Vec<String> {
        d["runs"][0]["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["partialFingerprints"]["mgctl/v1"].to_string())
            .collect()
    };
    assert_eq!(fps(&doc), fps(&doc2));
}

#[test]
fn issue17_step_summary_is_appended() {
    let (_g, repo) = repo_with_violation();
    let summary = repo.join("summary.md");
    std::fs::write(&summary, "earlier step\n").unwrap();
    let run = mgctl_env(
        &["check", "driver", "--only", "tokens"],
        &repo,
        &[("GITHUB_STEP_SUMMARY", summary.to_str().unwrap())],
    )
    .expect(1);
    let text = std::fs::read_to_string(&summary).unwrap();
    assert!(text.starts_with("earlier step\n"), "{text}");
    assert!(
        text.contains("| `tokens` | FAIL |"),
        "{text}\n{}",
        run.dump()
    );
}

fn table_rows(stdout: &str) -> Vec<&str> {
    stdout
        .lines()
        .filter(|l| l.starts_with(['┌', '│', '├', '└']))
        .collect()
}

#[test]
fn issue17_table_fits_columns() {
    for (cols, max) in [("80", 80), ("72", 72), ("120", 120)] {
        let run = mgctl_env(&["check", "."], &driver(), &[("COLUMNS", cols)]).expect(0);
        let rows = table_rows(&run.stdout);
        assert!(rows.len() > 3, "{}", run.dump());
        for row in rows {
            assert!(
                row.chars().count() <= max,
                "COLUMNS={cols}: {} columns: {row}",
                row.chars().count()
            );
        }
    }
    // Without a terminal or $COLUMNS: 100.
    let run = mgctl_env(&["check", "."], &driver(), &[("COLUMNS", "")]).expect(0);
    assert!(table_rows(&run.stdout)
        .iter()
        .all(|r| r.chars().count() <= 100));
    let compact = mgctl_env(&["check", "."], &driver(), &[("COLUMNS", "80")]).expect(0);
    compact.assert_stdout_has("e/w/n");
}

#[test]
fn issue17_check_from_a_subdirectory_finds_the_workspace() {
    let sub = driver().join("MobileGL/MG_Backend");
    let run = mgctl(&["check"], &sub).expect(0);
    let header = run.stdout.lines().next().unwrap_or_default().to_string();
    let root = driver().canonicalize().unwrap();
    assert!(
        header.contains(&format!("{} ", root.display())),
        "{}",
        run.dump()
    );
    run.assert_stdout_has("mgctl.toml");
}

#[test]
fn issue17_builtin_profile_skip_reasons_name_the_profile() {
    let dir = scratch();
    write_tree(dir.path(), &[("MobileGL/MG_Backend/X.cpp", "int x;\n")]);
    let run = mgctl(&["check", ".", "--format", "json"], dir.path());
    assert!(run.code == 0 || run.code == 1, "{}", run.dump());
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let reasons: Vec<&str> = v["gates"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|g| g["reason"].as_str())
        .collect();
    assert!(
        reasons.iter().all(|r| !r.contains("mgctl.toml")),
        "no mgctl.toml to blame: {reasons:?}"
    );
    assert!(
        reasons
            .iter()
            .any(|r| r.starts_with("the built-in MobileGL profile has no [fatals]")),
        "{reasons:?}"
    );
}

#[test]
fn issue17_man_pages_for_every_command() {
    let dir = scratch();
    let out = dir.path().join("man");
    mgctl(&["man", out.to_str().unwrap()], dir.path()).expect(0);
    for page in [
        "mgctl.1",
        "mgctl-check.1",
        "mgctl-symbols.1",
        "mgctl-completions.1",
    ] {
        let text = std::fs::read_to_string(out.join(page)).unwrap();
        assert!(text.starts_with(".ie") || text.contains(".TH"), "{page}");
    }
}

#[test]
fn issue17_completions_offer_gate_names() {
    let dir = scratch();
    for shell in ["bash", "zsh", "fish"] {
        let run = mgctl(&["completions", shell], dir.path()).expect(0);
        // A gate name that is no command or file name: only the --only and --skip lists hold it.
        let lists = run.stdout.matches("include-layering").count();
        assert!(lists >= 2, "{shell}: no gate names for --only and --skip");
    }
}

#[test]
fn issue17_self_test_headline_reads_whole() {
    let dir = scratch();
    let run = mgctl(&["check", "--self-test", "--format", "json"], dir.path()).expect(0);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let h = v["gates"][0]["headline"].as_str().unwrap();
    assert!(
        h.starts_with("negative controls tripped: ")
            && h.contains("positive controls stayed clean: "),
        "{h}"
    );
}

/// Issue 32: an admitted symbol change (SYM009) points at the allow-file line that admits it,
/// not at the config that names the file.
#[test]
fn issue32_admissions_point_at_their_allow_line() {
    let (_g, repo) = repo_with_violation();
    // The symbol gate reads the pull and push builds: let `check` make them.
    let run = mgctl_building(
        &["check", "driver", "--only", "symbols", "--format", "json"],
        &repo,
    );
    let doc: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let gate = doc["gates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["gate"] == "symbols")
        .unwrap();
    let admitted: Vec<&serde_json::Value> = gate["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == "SYM009")
        .collect();
    assert!(!admitted.is_empty(), "{}", run.dump());
    let allow = std::fs::read_to_string(repo.join("driver/symbols.allow")).unwrap();
    for f in admitted {
        assert_eq!(f["location"]["workspace_path"], "symbols.allow", "{f}");
        let line = f["location"]["line"].as_u64().unwrap() as usize;
        let text = allow.lines().nth(line - 1).unwrap();
        assert!(
            !text.trim().is_empty() && !text.trim().starts_with('#'),
            "{f}: {text}"
        );
    }
}
