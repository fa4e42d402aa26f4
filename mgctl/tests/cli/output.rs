//! Issue 15: a closed stdout never changes the exit code; `--output` and `cite --fix` write safely;
//! input data is escaped in human and Markdown output; a check that runs no gate exits 2; config
//! and usage errors are one line with a position.

use std::io::{BufRead, BufReader, Read};
use std::process::Stdio;

use crate::util::*;

const RULE_TOML: &str = r#"
[[tokens.rule]]
name = "purity-c"
ident = "pGLContext"
paths = ["MobileGL/MG_Backend/**"]
mask = "none"
"#;

/// A workspace whose tokens gate fails `hits` times.
fn failing(hits: usize) -> tempfile::TempDir {
    let dir = scratch();
    let body = "auto* c = MG_State::pGLContext;\n".repeat(hits);
    write_tree(
        dir.path(),
        &[
            ("mgctl.toml", RULE_TOML),
            ("MobileGL/MG_Backend/Draw.cpp", body.as_str()),
        ],
    );
    dir
}

/// Runs mgctl with its stdout on a pipe whose reader takes `lines` lines and then closes it
/// (0: closes it before mgctl writes anything, like `| true`); returns the exit code and stderr.
fn with_closing_reader(args: &[&str], cwd: &std::path::Path, lines: usize) -> (i32, String) {
    let mut child = command(args, cwd, &[])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    if lines > 0 {
        let mut r = BufReader::new(stdout);
        for _ in 0..lines {
            let mut line = String::new();
            r.read_line(&mut line).unwrap();
        }
        drop(r);
    } else {
        drop(stdout);
    }
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    let status = child.wait().unwrap();
    (status.code().unwrap_or(-1), stderr)
}

#[test]
fn issue15_closed_stdout_keeps_a_failing_verdict() {
    // More than the output buffer, so the closed pipe shows while the report is being written.
    let dir = failing(300);
    let (code, err) = with_closing_reader(&["check", ".", "--format", "json"], dir.path(), 0);
    assert_eq!(code, 1, "stderr: {err}");
    assert!(err.is_empty(), "a closed pipe is not an error: {err}");
}

#[test]
fn issue15_head_on_a_large_failing_report_exits_1() {
    // Far more than a pipe buffer holds, so mgctl is still writing when the reader goes away.
    let dir = failing(4000);
    let (code, err) = with_closing_reader(&["check", "."], dir.path(), 1);
    assert_eq!(code, 1, "stderr: {err}");
}

#[test]
fn issue15_closed_stdout_under_pipefail() {
    let dir = failing(300);
    let status = std::process::Command::new("bash")
        .args([
            "-o",
            "pipefail",
            "-c",
            &format!("'{}' check . --format json | true", bin()),
        ])
        .current_dir(dir.path())
        .env("NO_COLOR", "1")
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(1));
}

#[test]
fn issue15_completions_and_stats_into_a_closed_pipe_pass() {
    let dir = scratch();
    let (code, err) = with_closing_reader(&["completions", "zsh"], dir.path(), 1);
    assert_eq!(code, 0, "stderr: {err}");
    let log = repo_root().join("stats_viewer/tests/data/abA-pull-DirectGLES.mobilegl.log");
    let (code, err) = with_closing_reader(
        &[
            "stats",
            "summary",
            "--format",
            "json",
            log.to_str().unwrap(),
        ],
        dir.path(),
        0,
    );
    assert_eq!(code, 0, "stderr: {err}");
}

fn json_report_at(dir: &std::path::Path, out: &std::path::Path) -> Run {
    mgctl(
        &[
            "check",
            ".",
            "--format",
            "json",
            "--output",
            out.to_str().unwrap(),
        ],
        dir,
    )
}

#[test]
fn issue15_output_keeps_mode_follows_symlinks_and_leaves_no_temp() {
    use std::os::unix::fs::PermissionsExt;
    let dir = failing(1);
    let real = dir.path().join("real.json");
    std::fs::write(&real, "old").unwrap();
    std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o640)).unwrap();
    let link = dir.path().join("report.json");
    std::os::unix::fs::symlink("real.json", &link).unwrap();
    json_report_at(dir.path(), &link).expect(1);
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&real).unwrap()).unwrap();
    assert_eq!(v["schema"], 1);
    let mode = std::fs::metadata(&real).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o640);
    let temps: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().contains("mgctl-tmp"))
        .collect();
    assert!(temps.is_empty(), "{temps:?}");
}

#[test]
fn issue15_output_to_a_fifo_writes_in_place() {
    let dir = failing(1);
    let fifo = dir.path().join("report.fifo");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read_to_string(fifo).unwrap())
    };
    json_report_at(dir.path(), &fifo).expect(1);
    // Checked before joining: a FIFO replaced by a file would leave the reader blocked forever.
    use std::os::unix::fs::FileTypeExt;
    assert!(
        std::fs::symlink_metadata(&fifo)
            .unwrap()
            .file_type()
            .is_fifo(),
        "the FIFO was replaced"
    );
    let text = reader.join().unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["schema"], 1);
}

#[test]
fn issue15_concurrent_runs_writing_one_report_all_succeed() {
    let dir = failing(50);
    let out = dir.path().join("report.json");
    let children: Vec<_> = (0..4)
        .map(|_| {
            command(
                &[
                    "check",
                    ".",
                    "--format",
                    "json",
                    "--output",
                    out.to_str().unwrap(),
                ],
                dir.path(),
                &[],
            )
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
        })
        .collect();
    for c in children {
        let o = c.wait_with_output().unwrap();
        assert_eq!(
            o.status.code(),
            Some(1),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(v["passed"], false);
}

#[test]
fn issue15_cite_fix_keeps_the_document_mode() {
    use std::os::unix::fs::PermissionsExt;
    let dir = scratch();
    write_tree(
        dir.path(),
        &[
            ("src/a.cpp", "int one;\nint two;\nint target_fn() {}\n"),
            ("docs/d.md", "See `target_fn` (`src/a.cpp:1`).\n"),
        ],
    );
    let doc = dir.path().join("docs/d.md");
    std::fs::set_permissions(&doc, std::fs::Permissions::from_mode(0o600)).unwrap();
    let run = mgctl(&["cite", "--fix", "docs/d.md"], dir.path());
    assert!(run.code == 0 || run.code == 1, "{}", run.dump());
    let text = std::fs::read_to_string(&doc).unwrap();
    assert!(text.contains("src/a.cpp:3"), "{text}\n{}", run.dump());
    let mode = std::fs::metadata(&doc).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
}

#[test]
fn issue15_cite_fix_that_cannot_write_leaves_the_document_whole() {
    let dir = scratch();
    // A document larger than the file-size limit below, so rewriting it fails part-way.
    let filler = "Some prose that pads the document.\n".repeat(300);
    let doc_text = format!("See `target_fn` (`src/a.cpp:1`).\n{filler}");
    write_tree(
        dir.path(),
        &[
            ("src/a.cpp", "int one;\nint two;\nint target_fn() {}\n"),
            ("docs/d.md", doc_text.as_str()),
        ],
    );
    // As on a full disk: writes past 4 KiB fail (EFBIG; SIGXFSZ ignored so the write returns).
    let status = std::process::Command::new("bash")
        .args([
            "-c",
            &format!(
                "trap '' XFSZ; ulimit -f 4; exec '{}' cite --fix docs/d.md",
                bin()
            ),
        ])
        .current_dir(dir.path())
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert_eq!(
        status.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&status.stderr)
    );
    let after = std::fs::read_to_string(dir.path().join("docs/d.md")).unwrap();
    assert_eq!(after, doc_text, "the document was cut");
}

#[test]
fn issue15_a_check_that_runs_no_gate_exits_2() {
    let dir = scratch();
    write_tree(dir.path(), &[("mgctl.toml", "")]);
    let run = mgctl(&["check", "."], dir.path()).expect(2);
    run.assert_stderr_has("no gate ran");
    let dir = failing(1);
    let run = mgctl(
        &["check", ".", "--only", "tokens", "--skip", "tokens"],
        dir.path(),
    )
    .expect(2);
    run.assert_stderr_has("no gate ran");
    run.assert_stderr_has("by --only/--skip");
}

/// A file whose name and content try to start workflow commands and move the terminal.
fn hostile() -> tempfile::TempDir {
    let dir = scratch();
    write_tree(
        dir.path(),
        &[
            ("mgctl.toml", RULE_TOML),
            (
                "MobileGL/MG_Backend/evil\n::error file=Fake.cpp,line=7::INJECTED\n\u{1b}[2J.cpp",
                "auto* c = MG_State::pGLContext; // \u{1b}]0;owned\u{7}\r::warning::x\n",
            ),
        ],
    );
    dir
}

#[test]
fn issue15_hostile_names_start_no_workflow_command_and_no_escape() {
    let dir = hostile();
    for format in ["github", "human", "markdown"] {
        let run = mgctl(&["check", ".", "--format", format], dir.path()).expect(1);
        assert!(!run.stdout.contains('\u{1b}'), "{format}: {}", run.dump());
        assert!(!run.stdout.contains('\r'), "{format}: {}", run.dump());
        for line in run.stdout.lines() {
            let t = line.trim_start();
            assert!(
                !t.starts_with("::error file=Fake.cpp") && !t.starts_with("::warning::x"),
                "{format}: injected command {line:?}\n{}",
                run.dump()
            );
        }
    }
    // Coloured output escapes input data too (colour itself still uses escape codes).
    let run = mgctl(&["--color", "always", "check", "."], dir.path()).expect(1);
    assert!(!run.stdout.contains("\u{1b}[2J"), "{}", run.dump());
    assert!(!run.stdout.contains("\u{1b}]0;"), "{}", run.dump());
}

#[test]
fn issue15_cr_only_and_non_utf8_config_errors_have_line_and_column() {
    let dir = scratch();
    // A lone CR ends a line as LF and CRLF do (docs/config.md; issue 29: a CR-only file was an
    // error with an empty reason): the unknown key is found on its own line.
    write_tree(
        dir.path(),
        &[("mgctl.toml", "[workspace]\rname = \"x\"\rbogus = 1\r")],
    );
    let run = mgctl(&["check", "."], dir.path()).expect(2);
    run.assert_stderr_has("mgctl.toml:3:1: unknown field `bogus`");
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.dump());
    std::fs::write(
        dir.path().join("mgctl.toml"),
        b"[workspace]\nname = \"\xff\"\n",
    )
    .unwrap();
    let run = mgctl(&["check", "."], dir.path()).expect(2);
    run.assert_stderr_has("mgctl.toml:2:9: not UTF-8");
}

#[test]
fn issue15_toml_and_usage_errors_are_one_line() {
    let dir = scratch();
    write_tree(dir.path(), &[("mgctl.toml", "[workspace\nname = 1\n")]);
    let run = mgctl(&["check", "."], dir.path()).expect(2);
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.dump());
    let run = mgctl(&["check", "--bogus"], dir.path()).expect(2);
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.dump());
    run.assert_stderr_has("mgctl: unexpected argument '--bogus'");
    run.assert_stderr_has("usage: mgctl check");
}

#[test]
fn issue15_a_full_stdout_is_an_output_error_not_an_internal_one() {
    let dir = scratch();
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let out = command(&["completions", "zsh"], dir.path(), &[])
        .stdout(full)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(!err.contains("internal error"), "{err}");
}
