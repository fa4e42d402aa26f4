//! Issue 17 item 9: every example of `mgctl … --help` and every command of the README runs
//! against a copy of `driver/` and exits 0 or 1 (a verdict), never 2 (usage or input error).
//!
//! The examples run with bash from a repository root (issue 32): a playground holding what the
//! repository ships at its own paths, `driver/` (with its pull and push libraries built) and the
//! sample logs under `stats_viewer/tests/data/`, so each example reads the files it names. The
//! playground is a git repository with a few commits (for `HEAD~5`, `main`, `origin/main`);
//! `adb` is a stub that prints a push log, and the live view runs with `--once` (there is no
//! terminal). An example exits 0 unless its line ends in `# exits N`.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::util::{bin, mgctl, repo_root};

const RUNS: &str = "driver/MobileGL/MG_Test/runs/minecraft-like-330-DirectGLES";

struct Playground {
    _guard: tempfile::TempDir,
    root: PathBuf,
    path: String,
    home: PathBuf,
}

fn copy(from: &Path, to: &Path) {
    fs::create_dir_all(to.parent().unwrap()).unwrap();
    fs::copy(from, to).unwrap_or_else(|e| panic!("{}: {e}", from.display()));
}

fn git(root: &Path, args: &[&str]) {
    let ok = Command::new("git")
        .args([
            "-c",
            "user.name=mgctl",
            "-c",
            "user.email=mgctl@example.invalid",
        ])
        .args([
            "-c",
            "commit.gpgsign=false",
            "-c",
            "init.defaultBranch=main",
        ])
        .args(args)
        .current_dir(root)
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(ok, "git {args:?} failed in {}", root.display());
}

fn copy_tree(from: &Path, to: &Path) {
    for e in fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_dir() {
            copy_tree(&e.path(), &to.join(e.file_name()));
        } else {
            copy(&e.path(), &to.join(e.file_name()));
        }
    }
}

fn playground() -> Playground {
    let (guard, _driver) = crate::symbols::driver_with_builds();
    let root = guard.path().to_path_buf();
    let data = "stats_viewer/tests/data";
    copy_tree(&repo_root().join(data), &root.join(data));
    // `mgctl` itself, a stub `adb` (a device that prints the push run) and, when GraphViz is
    // missing, a stub `dot`, first on PATH.
    let tools = root.join(".tools");
    fs::create_dir_all(&tools).unwrap();
    std::os::unix::fs::symlink(bin(), tools.join("mgctl")).unwrap();
    let stub = |name: &str, body: String| {
        use std::os::unix::fs::PermissionsExt;
        let p = tools.join(name);
        fs::write(&p, format!("#!/bin/sh\n{body}\n")).unwrap();
        fs::set_permissions(&p, fs::Permissions::from_mode(0o755)).unwrap();
    };
    let push_log = root.join(RUNS).join("push/mobilegl.log");
    stub("adb", format!("cat '{}'", push_log.display()));
    let has_dot = Command::new("sh")
        .args(["-c", "command -v dot"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_dot {
        stub("dot", "cat > /dev/null".to_string());
    }
    let home = root.join(".home");
    for d in [
        ".local/share/bash-completion/completions",
        ".zfunc",
        ".config/fish/completions",
    ] {
        fs::create_dir_all(home.join(d)).unwrap();
    }
    fs::write(root.join(".gitignore"), ".tools/\n.home/\n").unwrap();
    git(&root, &["init", "-q"]);
    // As in this repository's history, the budgets are committed before the runs and the
    // session they bound (the budgets gate's pin).
    git(
        &root,
        &[
            "add",
            "-A",
            "--",
            ".",
            ":!driver/MobileGL/MG_Test/runs",
            ":!driver/MobileGL/MG_Test/sessions",
        ],
    );
    git(
        &root,
        &["commit", "-q", "-m", "[Test] (examples): the tree"],
    );
    git(&root, &["add", "-A"]);
    git(
        &root,
        &["commit", "-q", "-m", "[Test] (examples): the runs"],
    );
    for i in 1..=5 {
        let m = format!("[Test] (examples): commit {i}");
        git(&root, &["commit", "-q", "--allow-empty", "-m", &m]);
    }
    git(&root, &["update-ref", "refs/remotes/origin/main", "HEAD~2"]);
    let path = format!(
        "{}:{}",
        tools.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    Playground {
        _guard: guard,
        root,
        path,
        home,
    }
}

/// Every command path of the CLI, from `mgctl help`'s listings.
fn command_paths() -> Vec<Vec<String>> {
    let mut paths = vec![Vec::new()];
    let mut i = 0;
    while i < paths.len() {
        let mut args = paths[i].clone();
        args.push("--help".into());
        let r = mgctl(&args, &repo_root()).expect(0);
        let mut in_commands = false;
        for l in r.stdout.lines() {
            if l == "Commands:" {
                in_commands = true;
                continue;
            }
            if in_commands {
                match l.split_whitespace().next() {
                    Some(name) if l.starts_with("  ") && name != "help" => {
                        let mut p = paths[i].clone();
                        p.push(name.to_string());
                        paths.push(p);
                    }
                    Some(_) if l.starts_with("  ") => {}
                    _ => in_commands = false,
                }
            }
        }
        i += 1;
    }
    paths
}

/// The example lines of every `--help` (after "Examples:"), with where they come from.
fn help_examples() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for p in command_paths() {
        let mut args = p.clone();
        args.push("--help".into());
        let r = mgctl(&args, &repo_root()).expect(0);
        let lines = r.stdout.lines().skip_while(|l| *l != "Examples:").skip(1);
        let mut joined: Vec<String> = Vec::new();
        for l in lines.take_while(|l| l.starts_with("  ")) {
            // A long example goes on after ` \`, as a shell reads it when pasted.
            match joined.last_mut() {
                Some(prev) if prev.ends_with('\\') => {
                    prev.pop();
                    prev.push_str(l.trim());
                }
                _ => joined.push(l.trim().to_string()),
            }
        }
        let from = format!("mgctl {} --help", p.join(" "));
        out.extend(joined.into_iter().map(|l| (from.clone(), l)));
    }
    out
}

/// The README's commands: `$ …` lines of its code blocks, every line of ```sh blocks and the
/// `- run:` steps of workflow snippets, when they run mgctl.
fn readme_examples() -> Vec<(String, String)> {
    let text = fs::read_to_string(repo_root().join("README.md")).unwrap();
    let mut out = Vec::new();
    let mut block: Option<String> = None;
    for (n, l) in text.lines().enumerate() {
        if let Some(info) = l.strip_prefix("```") {
            block = match block {
                None => Some(info.trim().to_string()),
                Some(_) => None,
            };
            continue;
        }
        let Some(kind) = &block else { continue };
        let cmd = if let Some(c) = l.strip_prefix("$ ") {
            c
        } else if kind == "sh" {
            l
        } else if let Some(c) = l.trim().strip_prefix("- run: ") {
            c
        } else {
            continue;
        };
        // A trailing `# comment` is the shell's too; strip it for the mgctl test below.
        // (`# exits N` is kept: it is what the example says of its exit).
        let cmd = match cmd.split_once("  #") {
            Some((c, note)) if !note.trim_start().starts_with("exits ") => c.trim(),
            _ => cmd.trim(),
        };
        if cmd.starts_with("mgctl ") || cmd.contains("&& mgctl ") || cmd.contains("| mgctl ") {
            out.push((format!("README.md:{}", n + 1), cmd.to_string()));
        }
    }
    out
}

/// The live view needs a terminal: the same source with `--once` draws it as text.
fn without_a_terminal(cmd: &str) -> String {
    if cmd.contains("stats watch") && !cmd.contains("--once") {
        format!("{cmd} --once")
    } else {
        cmd.to_string()
    }
}

fn run_all(pg: &Playground, examples: &[(String, String)]) -> Vec<String> {
    let mut bad = Vec::new();
    for (from, ex) in examples {
        if ex.ends_with('\\') {
            bad.push(format!("{from}: `{ex}` is wrapped mid-command"));
            continue;
        }
        let (ex, expect) = match ex.split_once("# exits ") {
            Some((cmd, note)) => {
                let code = note.split(|c: char| !c.is_ascii_digit()).next();
                (cmd.trim(), code.and_then(|c| c.parse::<i32>().ok()))
            }
            None => (ex.as_str(), Some(0)),
        };
        let cmd = without_a_terminal(ex);
        let out = Command::new("bash")
            .args(["-o", "pipefail", "-c", &cmd])
            .current_dir(&pg.root)
            .env("PATH", &pg.path)
            .env("HOME", &pg.home)
            .env("NO_COLOR", "1")
            .env("COLUMNS", "100")
            .env_remove("GITHUB_STEP_SUMMARY")
            .env_remove("GITHUB_WORKSPACE")
            .output()
            .unwrap();
        let code = out.status.code().unwrap_or(-1);
        let stderr = String::from_utf8_lossy(&out.stderr);
        if Some(code) != expect || stderr.contains("not in the include graph") {
            bad.push(format!("{from}: `{cmd}` exited {code}: {}", stderr.trim()));
        }
    }
    bad
}

#[test]
fn every_help_example_runs_against_the_driver() {
    let examples = help_examples();
    assert!(examples.len() > 60, "{examples:#?}");
    let pg = playground();
    let bad = run_all(&pg, &examples);
    assert!(bad.is_empty(), "{bad:#?}");
}

#[test]
fn every_readme_command_runs_against_the_driver() {
    let examples = readme_examples();
    assert!(examples.len() >= 12, "{examples:#?}");
    let pg = playground();
    let bad = run_all(&pg, &examples);
    assert!(bad.is_empty(), "{bad:#?}");
}

/// An example is copied from an 80-column terminal: clap must never have to wrap one mid-command
/// (a longer one goes on after ` \\`).
#[test]
fn examples_fit_an_80_column_terminal() {
    let mut bad = Vec::new();
    for p in command_paths() {
        let mut args = p.clone();
        args.push("--help".into());
        let r = mgctl(&args, &repo_root()).expect(0);
        let lines = r.stdout.lines().skip_while(|l| *l != "Examples:").skip(1);
        for l in lines.take_while(|l| l.starts_with("  ")) {
            if l.trim_end().chars().count() > 78 {
                bad.push(format!("mgctl {} --help: {l}", p.join(" ")));
            }
        }
    }
    assert!(bad.is_empty(), "{bad:#?}");
}

/// A file named after a format holds that format: `check --format github` writes annotations,
/// so an example must not send them to a `.json`.
#[test]
fn example_output_files_are_named_after_their_format() {
    let mut bad = Vec::new();
    for (from, ex) in help_examples().into_iter().chain(readme_examples()) {
        let words: Vec<&str> = ex.split_whitespace().collect();
        let format = words.windows(2).find(|w| w[0] == "--format").map(|w| w[1]);
        let file = words
            .windows(2)
            .find(|w| w[0] == "--output" || w[0] == ">")
            .map(|w| w[1]);
        if let (Some(f), Some(file)) = (format, file) {
            let ok = match f {
                "json" => file.ends_with(".json"),
                "markdown" => file.ends_with(".md"),
                "junit" => file.ends_with(".xml"),
                "sarif" => file.ends_with(".sarif"),
                "html" => file.ends_with(".html"),
                _ => !file.ends_with(".json"),
            };
            if !ok {
                bad.push(format!("{from}: `{ex}`"));
            }
        }
    }
    assert!(bad.is_empty(), "{bad:#?}");
}
