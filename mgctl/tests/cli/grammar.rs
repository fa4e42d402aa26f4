//! One CLI grammar (issue 17 item 7): `-C/--workspace`, `--format`, `--output FILE`,
//! `--self-test` and `-` for stdin mean the same on every command; old spellings still work.

use std::io::Write;
use std::path::Path;
use std::process::Stdio;

use crate::util::{command, driver, mgctl, repo_root, scratch, Run};

const RUNS: &str = "MobileGL/MG_Test/runs/minecraft-like-330-DirectGLES";

/// `mgctl ARGS` in `cwd` with `input` on stdin.
fn with_stdin(args: &[&str], cwd: &Path, input: &[u8]) -> Run {
    let mut child = command(args, cwd, &[])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // A command that refuses its arguments exits before it reads stdin, closing the pipe.
    match child.stdin.take().unwrap().write_all(input) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        written => written.unwrap(),
    }
    let out = child.wait_with_output().unwrap();
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        cmdline: format!("mgctl {} < input", args.join(" ")),
    }
}

#[test]
fn old_spellings_still_work() {
    let root = repo_root();
    // cite --root (now -C/--workspace)
    mgctl(&["cite", "--root", "driver", "--strict"], &root)
        .expect(0)
        .assert_stdout_has("0 problem(s)");
    // the self-test subcommands (now --self-test)
    for cmd in ["cite", "include", "symbols"] {
        mgctl(&[cmd, "self-test"], &root).expect(0);
    }
    // --json / --markdown switches (now --format json|markdown)
    let log = format!("driver/{RUNS}/pull/mobilegl.log");
    let r = mgctl(&["stats", "summary", "--json", &log], &root).expect(0);
    assert!(r.stdout.starts_with('{'), "{}", r.dump());
    let r = mgctl(&["stats", "summary", "--markdown", &log], &root).expect(0);
    assert!(r.stdout.starts_with('|'), "{}", r.dump());
    let r = mgctl(&["dirty-surface", "-C", "driver", "--json"], &root).expect(0);
    assert!(r.stdout.starts_with('{'), "{}", r.dump());
    // an old switch and --format cannot both say what to print
    mgctl(
        &["stats", "summary", "--json", "--format", "markdown", &log],
        &root,
    )
    .expect(2);
    // and the old spellings are not listed
    let r = mgctl(&["stats", "summary", "--help"], &root).expect(0);
    assert!(!r.stdout.contains("--json"), "{}", r.dump());
    let r = mgctl(&["cite", "--help"], &root).expect(0);
    assert!(
        !r.stdout.contains("--root") && !r.stdout.contains("self-test  "),
        "{}",
        r.dump()
    );
}

/// `--format text` of the symbol commands is `human` now, under its old name too.
#[test]
fn symbols_format_text_is_human() {
    let (_g, root) = crate::symbols::driver_with_builds();
    let lib = root.join("build/pull/libMobileGL.so");
    let lib = lib.to_str().unwrap();
    let human = mgctl(
        &["symbols", "list", lib, "--top", "3", "--format", "human"],
        &root,
    )
    .expect(0);
    let text = mgctl(
        &["symbols", "list", lib, "--top", "3", "--format", "text"],
        &root,
    )
    .expect(0);
    assert_eq!(human.stdout, text.stdout);
    let r = mgctl(&["symbols", "list", "--help"], &root).expect(0);
    assert!(
        r.stdout.contains("- human:") && !r.stdout.contains("- text:"),
        "{}",
        r.dump()
    );
}

#[test]
fn check_takes_the_workspace_as_c_too() {
    let root = repo_root();
    let a = mgctl(&["check", "-C", "driver", "--only", "tokens"], &root).expect(0);
    let b = mgctl(&["check", "driver", "--only", "tokens"], &root).expect(0);
    let first = |r: &Run| r.stdout.lines().next().unwrap_or_default().to_string();
    assert_eq!(first(&a), first(&b));
    // one workspace, not two
    mgctl(&["check", "driver", "-C", "driver"], &root).expect(2);
}

#[test]
fn output_writes_any_report_to_a_file() {
    let dir = scratch();
    let out = dir.path().join("summary.json");
    let log = driver().join(RUNS).join("pull/mobilegl.log");
    let r = mgctl(
        &[
            "stats",
            "summary",
            "--format",
            "json",
            "--output",
            out.to_str().unwrap(),
            log.to_str().unwrap(),
        ],
        dir.path(),
    )
    .expect(0);
    assert!(r.stdout.is_empty(), "{}", r.dump());
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(v["schema"], 1);
    // a failing gate still writes its report; a directory is never replaced
    let md = dir.path().join("rules.txt");
    mgctl(
        &[
            "include",
            "-C",
            driver().to_str().unwrap(),
            "rules",
            "--output",
            md.to_str().unwrap(),
        ],
        dir.path(),
    )
    .expect(0);
    assert!(std::fs::read_to_string(&md)
        .unwrap()
        .contains("include-layering:"));
    let r = mgctl(
        &[
            "include",
            "-C",
            driver().to_str().unwrap(),
            "rules",
            "--output",
            dir.path().to_str().unwrap(),
        ],
        dir.path(),
    )
    .expect(2);
    r.assert_stderr_has("is a directory");
    // the live view has no report to write
    mgctl(
        &[
            "stats",
            "watch",
            log.to_str().unwrap(),
            "--output",
            md.to_str().unwrap(),
        ],
        dir.path(),
    )
    .expect(2)
    .assert_stderr_has("--once");
}

#[test]
fn dash_reads_stdin_on_every_log_and_json_input() {
    let d = driver();
    let bench = std::fs::read(d.join(RUNS).join("pull/benchmark-run1.json")).unwrap();
    let r = with_stdin(&["bench", "frames", "-"], &d, &bench).expect(0);
    r.assert_stdout_has("<stdin>");
    let log = std::fs::read(d.join(RUNS).join("pull/mobilegl.log")).unwrap();
    let other = d.join(RUNS).join("push/mobilegl.log");
    with_stdin(&["stats", "summary", "-"], &d, &log)
        .expect(0)
        .assert_stdout_has("<stdin>");
    with_stdin(&["stats", "diff", "-", other.to_str().unwrap()], &d, &log).expect(0);
    with_stdin(&["stats", "fatals", "-"], &d, &log).expect(0);
    let list = std::fs::read(d.join("MobileGL/MG_Test/ctest-baseline.txt")).unwrap();
    with_stdin(
        &[
            "lint",
            "test-names",
            "--ratchet",
            "-",
            "MobileGL/MG_Test/ctest-list.txt",
        ],
        &d,
        &list,
    )
    .expect(0)
    .assert_stdout_has("<stdin>");
    // stdin is read once
    with_stdin(&["stats", "summary", "-", "-"], &d, &log)
        .expect(2)
        .assert_stderr_has("can be read once");
}

#[test]
fn a_subcommand_or_self_test_is_required() {
    for cmd in ["include", "symbols"] {
        mgctl(&[cmd], &repo_root())
            .expect(2)
            .assert_stderr_has("--self-test");
        mgctl(&[cmd, "--self-test"], &repo_root()).expect(0);
    }
}
