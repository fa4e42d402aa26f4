//! Runs the real binary with a clean environment and dumps everything on failure.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
    pub cmdline: String,
}

impl Run {
    /// Asserts the exit code, printing the command, stdout and stderr when it differs.
    pub fn expect(self, code: i32) -> Run {
        assert_eq!(self.code, code, "{}", self.dump());
        self
    }
    /// Asserts that stdout contains `needle`, printing the whole run when it does not.
    #[track_caller]
    pub fn assert_stdout_has(&self, needle: &str) {
        assert!(
            self.stdout.contains(needle),
            "stdout lacks {needle:?}\n{}",
            self.dump()
        );
    }

    /// Asserts that stderr contains `needle`, printing the whole run when it does not.
    #[track_caller]
    pub fn assert_stderr_has(&self, needle: &str) {
        assert!(
            self.stderr.contains(needle),
            "stderr lacks {needle:?}\n{}",
            self.dump()
        );
    }

    pub fn dump(&self) -> String {
        format!(
            "command: {}\nexit: {}\n--- stdout\n{}\n--- stderr\n{}",
            self.cmdline, self.code, self.stdout, self.stderr
        )
    }
}

pub fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_mgctl")
}

/// The repository root (the workspace of the mgctl crates).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// The embedded `driver/` workspace.
pub fn driver() -> PathBuf {
    repo_root().join("driver")
}

/// Runs `mgctl ARGS` in `cwd` with NO_COLOR set and no inherited MGCTL_* variables.
pub fn mgctl<S: AsRef<std::ffi::OsStr>>(args: &[S], cwd: &Path) -> Run {
    mgctl_env(args, cwd, &[])
}

/// The command `mgctl` runs: a clean environment (no MGCTL_*, no GitHub Actions variables, so a
/// test run inside CI does not write CI's step summary) with a fixed, wide `COLUMNS=160` (tables
/// do not wrap headlines that tests look for), plus `env`. `check` and the gate commands that read
/// `[build]` outputs (`symbols ratchet`, `lint controls`) get `--no-build`: a copy of `driver/`
/// must not start the driver build (slow); tests of `[build]` use [`mgctl_building`].
pub fn command<S: AsRef<std::ffi::OsStr>>(args: &[S], cwd: &Path, env: &[(&str, &str)]) -> Command {
    let mut args: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_ref()).collect();
    let builds = |a: &[&std::ffi::OsStr]| match a {
        [c, ..] if *c == "check" => Some(1),
        [g, c, ..]
            if (*g == "symbols" && *c == "ratchet") || (*g == "lint" && *c == "controls") =>
        {
            Some(2)
        }
        _ => None,
    };
    if let Some(at) = builds(&args) {
        args.insert(at, std::ffi::OsStr::new("--no-build"));
    }
    command_as_typed(&args, cwd, env)
}

/// [`command`] without the `--no-build` it gives `check`.
pub fn command_as_typed<S: AsRef<std::ffi::OsStr>>(
    args: &[S],
    cwd: &Path,
    env: &[(&str, &str)],
) -> Command {
    let mut cmd = Command::new(bin());
    cmd.args(args).current_dir(cwd).env("NO_COLOR", "1");
    for (k, _) in std::env::vars_os() {
        let name = k.to_string_lossy();
        if name.starts_with("MGCTL_") || name.starts_with("GITHUB_") || name == "COLUMNS" {
            cmd.env_remove(k);
        }
    }
    cmd.env("COLUMNS", "160");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd
}

/// [`mgctl`] with extra environment variables.
pub fn mgctl_env<S: AsRef<std::ffi::OsStr>>(args: &[S], cwd: &Path, env: &[(&str, &str)]) -> Run {
    finish(command(args, cwd, env), args)
}

/// [`mgctl`] without `--no-build`: `check` may run the workspace's `[build]`.
pub fn mgctl_building<S: AsRef<std::ffi::OsStr>>(args: &[S], cwd: &Path) -> Run {
    finish(command_as_typed(args, cwd, &[]), args)
}

fn finish<S: AsRef<std::ffi::OsStr>>(mut cmd: Command, args: &[S]) -> Run {
    let out = cmd.output().unwrap();
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        cmdline: format!(
            "mgctl {}",
            args.iter()
                .map(|a| a.as_ref().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join(" ")
        ),
    }
}

pub fn scratch() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

/// Writes `files` (relative path, content) under `root`, creating directories.
pub fn write_tree(root: &Path, files: &[(&str, &str)]) {
    for (rel, text) in files {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
}

/// Copies `driver/` (without its build output) into a fresh temp dir; returns (guard, copy root).
pub fn copy_driver() -> (tempfile::TempDir, PathBuf) {
    let dir = scratch();
    let dest = dir.path().join("driver");
    copy_dir(&driver(), &dest);
    (dir, dest)
}

/// Copies the planted violation `driver/fixtures/violations/<name>/` over a copy of the driver
/// (its paths mirror the tree).
pub fn apply_violation(root: &Path, name: &str) {
    let overlay = driver().join("fixtures/violations").join(name);
    assert!(
        overlay.is_dir(),
        "no violation overlay {}",
        overlay.display()
    );
    copy_dir(&overlay, root);
}

pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name();
        if name == "build" {
            continue;
        }
        let src = entry.path();
        let dst = to.join(&name);
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&src, &dst);
        } else {
            std::fs::copy(&src, &dst).unwrap();
        }
    }
}

/// `mgctl check ROOT --only GATE --format json`, expecting exit `rc`: the run and that gate's
/// report from the JSON document.
pub fn gate_report(root: &Path, gate: &str, rc: i32) -> (Run, serde_json::Value) {
    let run = mgctl(
        &[
            "check",
            root.to_str().unwrap(),
            "--only",
            gate,
            "--format",
            "json",
        ],
        root,
    )
    .expect(rc);
    let v: serde_json::Value =
        serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}\n{}", run.dump()));
    let g = v["gates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["gate"] == gate)
        .cloned()
        .unwrap_or_else(|| panic!("no {gate} gate\n{}", run.dump()));
    (run, g)
}

/// The codes of a gate report's findings (any document with a `findings` array), in order.
pub fn finding_codes(g: &serde_json::Value) -> Vec<String> {
    g["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["code"].as_str().unwrap().to_string())
        .collect()
}

/// A whole `mgctl check ROOT` (expecting exit `rc`): the gates that failed, in report order.
pub fn failed_gates(root: &Path, rc: i32) -> (Run, Vec<String>) {
    let run = mgctl(&["check", root.to_str().unwrap(), "--format", "json"], root).expect(rc);
    let v: serde_json::Value =
        serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}\n{}", run.dump()));
    let failed = v["gates"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|g| g["verdict"] == "fail")
        .map(|g| g["gate"].as_str().unwrap().to_string())
        .collect();
    (run, failed)
}
