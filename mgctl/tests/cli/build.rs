//! `[build]` (issue 18 item 8): `check` makes the missing outputs first (progress on stderr),
//! `--no-build` refuses, a failing or incomplete build fails the gates that read its outputs,
//! and the commits gate says why a copy cannot hold its range.

use std::path::Path;

use crate::util::{copy_driver, mgctl_building, scratch, write_tree};

const LIB: &str = "extern \"C\" int mg_entry(int x) { return x + 1; }\n";

/// A workspace whose `[build]` runs `script` under `sh -c`; the symbols gate reads the two
/// libraries it declares, the tokens gate reads nothing built.
fn workspace(dir: &Path, script: &str) {
    let toml = format!(
        r#"[build]
command = ["sh", "-c", {script:?}]
outputs = ["build/a.so", "build/b.so"]

[symbols]
before = "build/a.so"
after = "build/b.so"

[[tokens.rule]]
name = "no-printf"
ident = "printf"
paths = ["src/**"]
message = "no printf"
"#
    );
    write_tree(dir, &[("mgctl.toml", &toml), ("src/lib.cpp", LIB)]);
}

const MAKES_BOTH: &str = "mkdir -p build && g++ -shared -fPIC -o build/a.so src/lib.cpp && cp build/a.so build/b.so && echo built";

fn gate<'a>(v: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    v["gates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["gate"] == name)
        .unwrap()
}

#[test]
fn issue18_a_workspace_without_its_outputs_builds_them_first_and_runs_the_gates() {
    let dir = scratch();
    workspace(dir.path(), MAKES_BOTH);
    let r = mgctl_building(&["check", ".", "--format", "json"], dir.path()).expect(0);
    let name = dir
        .path()
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    r.assert_stderr_has(&format!(
        "mgctl: building {name}: sh -c '{MAKES_BOTH}' (2 outputs missing)\n"
    ));
    r.assert_stderr_has(&format!("mgctl: building {name}: done in "));
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(gate(&v, "symbols")["verdict"], "pass", "{}", r.dump());
    assert_eq!(gate(&v, "tokens")["verdict"], "pass", "{}", r.dump());
    let b = &v["build"];
    assert_eq!(b["ran"], true, "{}", r.dump());
    assert_eq!(b["status"], 0);
    assert_eq!(b["success"], true);
    assert_eq!(b["missing_before"].as_array().unwrap().len(), 2);
    assert!(b["ms"].as_f64().unwrap() > 0.0);
    // The build's own output ("built") never reaches stdout, which carries only the report.
    assert!(!r.stdout.contains("built\n"), "{}", r.dump());

    // Up to date now: no build, no progress line.
    let r = mgctl_building(&["check", ".", "--format", "json"], dir.path()).expect(0);
    assert!(!r.stderr.contains("building"), "{}", r.dump());
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["build"]["ran"], false);
    assert_eq!(v["build"]["not_run"], "up to date");
}

#[test]
fn issue18_no_selected_gate_reading_an_output_builds_nothing() {
    let dir = scratch();
    workspace(dir.path(), MAKES_BOTH);
    let r = mgctl_building(&["check", ".", "--only", "tokens"], dir.path()).expect(0);
    assert!(!r.stderr.contains("building"), "{}", r.dump());
    assert!(!dir.path().join("build").exists());
}

#[test]
fn issue18_no_build_refuses_and_the_gates_say_so() {
    let dir = scratch();
    workspace(dir.path(), MAKES_BOTH);
    let r = mgctl_building(
        &["check", ".", "--no-build", "--format", "json"],
        dir.path(),
    )
    .expect(0);
    assert!(!r.stderr.contains("building"), "{}", r.dump());
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(gate(&v, "symbols")["verdict"], "skipped");
    assert_eq!(
        gate(&v, "symbols")["reason"],
        "build/a.so and build/b.so not built: --no-build given"
    );
    assert_eq!(gate(&v, "tokens")["verdict"], "pass");
    assert_eq!(v["build"]["not_run"], "--no-build given");
    assert!(!dir.path().join("build").exists());
    // Nothing else selected: nothing was checked, and the refusal is named as the cause.
    let r = mgctl_building(
        &["check", ".", "--no-build", "--only", "symbols"],
        dir.path(),
    )
    .expect(2);
    r.assert_stderr_has("(23 by --only/--skip, 1 by --no-build)");
}

#[test]
fn issue18_a_failing_build_fails_the_gates_that_need_it_and_the_others_still_run() {
    let dir = scratch();
    workspace(
        dir.path(),
        "echo compiling; echo 'lib.cpp:1: error: boom' >&2; exit 3",
    );
    let r = mgctl_building(&["check", ".", "--format", "json"], dir.path()).expect(1);
    r.assert_stderr_has("failed (exit status 3) after ");
    r.assert_stderr_has("  | lib.cpp:1: error: boom");
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let s = gate(&v, "symbols");
    assert_eq!(s["verdict"], "fail", "{}", r.dump());
    let f = &s["findings"][0];
    assert_eq!(f["code"], "BLD001");
    let msg = f["message"].as_str().unwrap();
    assert!(
        msg.contains("failed (exit status 3), so build/a.so and build/b.so were not built: lib.cpp:1: error: boom"),
        "{msg}"
    );
    assert_eq!(gate(&v, "tokens")["verdict"], "pass");
    assert_eq!(v["build"]["status"], 3);
    assert_eq!(v["build"]["success"], false);

    // `["false"]`, the brief's shape: no output at all, still the exit status.
    write_tree(
        dir.path(),
        &[(
            "mgctl.toml",
            "[build]\ncommand = [\"false\"]\noutputs = [\"build/a.so\"]\n\n[symbols]\nbefore = \"build/a.so\"\nafter = \"build/a.so\"\n",
        )],
    );
    let r = mgctl_building(&["check", "."], dir.path()).expect(1);
    r.assert_stdout_has("BLD001");
    r.assert_stdout_has("the build `false` failed (exit status 1), so build/a.so was not built");
}

#[test]
fn issue18_a_build_that_does_not_make_an_output_is_a_finding_naming_it() {
    let dir = scratch();
    workspace(
        dir.path(),
        "mkdir -p build && g++ -shared -fPIC -o build/a.so src/lib.cpp",
    );
    let r = mgctl_building(&["check", ".", "--format", "json"], dir.path()).expect(1);
    r.assert_stderr_has("but it did not make build/b.so");
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let f = &gate(&v, "symbols")["findings"][0];
    assert_eq!(f["code"], "BLD002", "{}", r.dump());
    assert!(
        f["message"]
            .as_str()
            .unwrap()
            .ends_with("succeeded but did not make build/b.so (declared in [build] outputs)"),
        "{}",
        r.dump()
    );
    assert_eq!(f["location"]["path"], "mgctl.toml");
    assert_eq!(f["location"]["line"], 3);
    assert_eq!(v["build"]["missing_after"][0], "build/b.so");
}

#[test]
fn issue18_an_empty_build_command_is_a_config_error_at_its_line() {
    let dir = scratch();
    write_tree(
        dir.path(),
        &[(
            "mgctl.toml",
            "[workspace]\nname = \"w\"\n\n[build]\ncommand = []\noutputs = [\"build/a.so\"]\n",
        )],
    );
    let r = mgctl_building(&["check", "."], dir.path()).expect(2);
    r.assert_stderr_has("mgctl.toml:5:11: [build] command is empty");
    write_tree(
        dir.path(),
        &[(
            "mgctl.toml",
            "[build]\ncommand = [\"make\"]\noutputs = [\"build/a.so\"]\nouput = 1\n",
        )],
    );
    let r = mgctl_building(&["check", "."], dir.path()).expect(2);
    r.assert_stderr_has("mgctl.toml:4:1: unknown field `ouput`");
}

/// The README's main command on a copy of `driver/` without `build/`: the real driver build runs
/// first and every gate runs; only `commits` is skipped, because a copy outside git holds no history.
#[test]
fn issue18_a_driver_copy_without_build_runs_every_gate() {
    let (_g, root) = copy_driver();
    assert!(!root.join("build").exists());
    let r = mgctl_building(&["check", ".", "--format", "json"], &root);
    r.assert_stderr_has("mgctl: building driver: bash build.sh --no-run (4 outputs missing)\n");
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    for g in v["gates"].as_array().unwrap() {
        if g["gate"] == "commits" {
            assert_eq!(g["verdict"], "skipped");
            let reason = g["reason"].as_str().unwrap();
            assert!(
                reason.contains("not inside a git repository") && reason.contains("HEAD~20..HEAD"),
                "{reason}"
            );
        } else {
            assert_ne!(g["verdict"], "skipped", "{g}\n{}", r.dump());
        }
    }
    assert_eq!(r.code, 0, "{}", r.dump());
}

/// `[commits] range = "HEAD~20..HEAD"`: a clone whose history holds the range is checked; a
/// `--depth 1` clone lists the gate as skipped naming the missing revision, never a pass; a
/// misspelt ref stays an error.
#[test]
fn issue18_the_commits_range_is_checked_on_a_full_clone_and_skipped_on_a_shallow_one() {
    let dir = scratch();
    let origin = dir.path().join("origin");
    let toml = "[commits]\nrange = \"HEAD~2..HEAD\"\n";
    for (i, msg) in ["[Feat] (a): one", "[Feat] (a): two", "[Fix] (a): three"]
        .iter()
        .enumerate()
    {
        lints::gitread::fixture::commit_files(
            &origin,
            &[("mgctl.toml", toml), ("a.txt", &i.to_string())],
            msg,
        )
        .unwrap();
    }
    let r = mgctl_building(&["check", ".", "--format", "json"], &origin).expect(0);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(
        gate(&v, "commits")["headline"],
        "2 commits in HEAD~2..HEAD / 0 off-style"
    );

    let shallow = dir.path().join("shallow");
    let url = format!("file://{}", origin.display());
    let cloned = std::process::Command::new("git")
        .args(["clone", "-q", "--depth", "1", &url])
        .arg(&shallow)
        .status();
    if !cloned.is_ok_and(|s| s.success()) {
        eprintln!("git clone --depth 1 unavailable; shallow half skipped");
        return;
    }
    let r = mgctl_building(&["check", ".", "--format", "json"], &shallow);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap_or_default();
    let c = gate(&v, "commits");
    assert_eq!(c["verdict"], "skipped", "{}", r.dump());
    assert_eq!(
        c["reason"],
        "HEAD~2 does not exist, so HEAD~2..HEAD cannot be checked: this is a shallow clone holding 1 commit(s) from HEAD (fetch more history with `git fetch --deepen` or `--unshallow`)"
    );
    // The only gate skipped: nothing was checked, which is exit 2, not a pass.
    r.expect(2);

    std::fs::write(
        shallow.join("mgctl.toml"),
        "[commits]\nrange = \"mian..HEAD\"\n",
    )
    .unwrap();
    let r = mgctl_building(&["check", ".", "--format", "json"], &shallow).expect(1);
    r.assert_stdout_has("CMT005");
}

/// A relative program path (`./make.sh`) is the workspace's, whatever directory mgctl runs in.
#[test]
fn issue18_a_relative_build_program_is_resolved_in_the_workspace() {
    let dir = scratch();
    let ws = dir.path().join("ws");
    write_tree(
        &ws,
        &[
            (
                "mgctl.toml",
                "[build]\ncommand = [\"./make.sh\"]\noutputs = [\"build/a.so\"]\n\n[symbols]\nbefore = \"build/a.so\"\nafter = \"build/a.so\"\n",
            ),
            ("src/lib.cpp", LIB),
            (
                "make.sh",
                "#!/bin/sh\nmkdir -p build && g++ -shared -fPIC -o build/a.so src/lib.cpp\n",
            ),
        ],
    );
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(ws.join("make.sh"), std::fs::Permissions::from_mode(0o755)).unwrap();
    let r = mgctl_building(&["check", "ws", "--format", "json"], dir.path()).expect(0);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(gate(&v, "symbols")["verdict"], "pass", "{}", r.dump());
    assert_eq!(v["build"]["success"], true);
}

/// [`workspace`] with more `[build]` keys (`inputs`, `timeout`).
fn workspace_with(dir: &Path, script: &str, keys: &str) {
    workspace(dir, script);
    let p = dir.join("mgctl.toml");
    let text = std::fs::read_to_string(&p).unwrap().replacen(
        "outputs = [\"build/a.so\", \"build/b.so\"]\n",
        &format!("outputs = [\"build/a.so\", \"build/b.so\"]\n{keys}"),
        1,
    );
    std::fs::write(p, text).unwrap();
}

fn set_mtime(p: &Path, t: std::time::SystemTime) {
    std::fs::File::options()
        .write(true)
        .open(p)
        .unwrap()
        .set_modified(t)
        .unwrap();
}

/// Issue 30, "never green on a stale build": with `inputs`, an output older than the newest input,
/// or built from other input contents (the record `build/.mgctl-build.json` says which), is
/// rebuilt; `--no-build` fails the gates that read it (BLD003) naming the output and the input.
#[test]
fn issue30_an_edited_input_rebuilds_and_no_build_fails_naming_the_stale_output() {
    let dir = scratch();
    let d = dir.path();
    workspace_with(d, MAKES_BOTH, "inputs = [\"src/*.cpp\"]\n");
    let r = mgctl_building(&["check", ".", "--format", "json"], d).expect(0);
    r.assert_stderr_has("(2 outputs missing)");
    let record = std::fs::read_to_string(d.join("build/.mgctl-build.json")).unwrap();
    assert!(record.contains("\"inputs_digest\""), "{record}");
    let r = mgctl_building(&["check", ".", "--format", "json"], d).expect(0);
    assert!(!r.stderr.contains("building"), "{}", r.dump());

    // A newer source: older outputs.
    std::fs::write(d.join("src/lib.cpp"), LIB.replace("x + 1", "x + 2")).unwrap();
    let later = std::time::SystemTime::now() + std::time::Duration::from_secs(2);
    set_mtime(&d.join("src/lib.cpp"), later);
    let r = mgctl_building(&["check", ".", "--no-build", "--format", "json"], d).expect(1);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let s = gate(&v, "symbols");
    assert_eq!(s["verdict"], "fail", "{}", r.dump());
    assert_eq!(s["findings"][0]["code"], "BLD003");
    assert_eq!(
        s["findings"][0]["message"],
        "build/a.so is older than src/lib.cpp: this gate would read a stale build, and --no-build refused to rebuild it"
    );
    assert_eq!(s["findings"][0]["location"]["path"], "build/a.so");
    assert_eq!(gate(&v, "tokens")["verdict"], "pass");
    assert_eq!(v["build"]["stale_before"][1]["output"], "build/b.so");

    // Same contents change with a time before the outputs' (a checkout of an older file): the
    // recorded digest still tells.
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    set_mtime(&d.join("src/lib.cpp"), old);
    let r = mgctl_building(&["check", ".", "--no-build", "--format", "json"], d).expect(1);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let msg = gate(&v, "symbols")["findings"][0]["message"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        msg.starts_with(
            "build/a.so was built from other inputs than today's (newest: src/lib.cpp)"
        ),
        "{msg}"
    );

    // Without --no-build: rebuilt, saying why, then up to date.
    let r = mgctl_building(&["check", ".", "--format", "json"], d).expect(0);
    r.assert_stderr_has(
        "(build/a.so was built from other inputs than today's (newest: src/lib.cpp) and 1 more stale)",
    );
    let r = mgctl_building(&["check", ".", "--no-build", "--format", "json"], d).expect(0);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["build"]["not_run"], "up to date", "{}", r.dump());
    assert_eq!(v["build"]["inputs"], 1);
}

/// A glob of `inputs` that matches nothing is an error at its line (exit 2), never a build that
/// is "up to date" with respect to nothing.
#[test]
fn issue30_an_input_glob_matching_nothing_is_an_error_at_its_line() {
    let dir = scratch();
    workspace_with(
        dir.path(),
        MAKES_BOTH,
        "inputs = [\"src/*.cpp\", \"include/*.h\"]\n",
    );
    let r = mgctl_building(&["check", "."], dir.path()).expect(2);
    r.assert_stderr_has("mgctl.toml:4:10: [build] input glob `include/*.h` matches no file");
    assert!(!dir.path().join("build").exists());
}

/// Issue 29: a hanging build fails `check` at its `timeout` (BLD004), its process group stopped;
/// `check` does not hang, and the other gates still run.
#[test]
fn issue29_a_hanging_build_fails_at_its_timeout_with_a_code() {
    let dir = scratch();
    workspace_with(dir.path(), "echo started; sleep 120", "timeout = 1\n");
    let start = std::time::Instant::now();
    let r = mgctl_building(&["check", ".", "--format", "json"], dir.path()).expect(1);
    assert!(
        start.elapsed() < std::time::Duration::from_secs(30),
        "{}",
        r.dump()
    );
    r.assert_stderr_has("did not finish within its timeout of 1 s and was stopped after ");
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let s = gate(&v, "symbols");
    assert_eq!(s["findings"][0]["code"], "BLD004", "{}", r.dump());
    assert_eq!(v["build"]["timed_out"], true);
    assert_eq!(gate(&v, "tokens")["verdict"], "pass");
    // 0 is no limit and no build: a config error.
    workspace_with(dir.path(), "true", "timeout = 0\n");
    mgctl_building(&["check", "."], dir.path())
        .expect(2)
        .assert_stderr_has("[build] timeout must be at least 1 second");
}

/// The brief's case on the real driver: a source edited after a build makes `check --no-build`
/// fail the symbols gate naming the stale library and the edited file, and `check` rebuild.
#[test]
fn issue30_an_edited_driver_source_after_a_build_is_never_read_as_green() {
    let (_g, root) = crate::symbols::driver_with_builds();
    let src = "MobileGL/MG_Backend/DirectGLES/Managers.cpp";
    let path = root.join(src);
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, format!("{text}\n// edited after the build\n")).unwrap();
    set_mtime(
        &path,
        std::time::SystemTime::now() + std::time::Duration::from_secs(2),
    );
    let r = mgctl_building(
        &[
            "check",
            ".",
            "--no-build",
            "--only",
            "symbols",
            "--format",
            "json",
        ],
        &root,
    )
    .expect(1);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let f = &gate(&v, "symbols")["findings"][0];
    assert_eq!(f["code"], "BLD003", "{}", r.dump());
    assert!(
        f["message"]
            .as_str()
            .unwrap()
            .starts_with(&format!("build/pull/libMobileGL.so is older than {src}")),
        "{}",
        r.dump()
    );
    let r = mgctl_building(&["check", ".", "--only", "symbols"], &root);
    r.assert_stderr_has(&format!(
        "build/pull/libMobileGL.so is older than {src} and 1 more stale)"
    ));
    r.expect(0);
}

fn git(dir: &Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.invalid"])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Issue 30, "G1's before library, built by mgctl": in a clone of `driver/` as its own repository
/// with two commits, `symbols diff --base HEAD~1` builds HEAD~1 in a throw-away worktree, diffs
/// its library against the current build, and a second run takes the base from the cache (no
/// build: the build script's marker does not grow); a cache entry that no longer matches its
/// digest is rebuilt, never trusted; no worktree is left.
#[test]
fn issue30_symbols_diff_base_builds_the_base_in_a_worktree_and_caches_it() {
    let (g, root) = copy_driver();
    let marker = g.path().join("builds.log");
    let cfg = root.join("mgctl.toml");
    let text = std::fs::read_to_string(&cfg).unwrap().replacen(
        "command = [\"bash\", \"build.sh\", \"--no-run\"]",
        &format!(
            "command = [\"sh\", \"-c\", \"echo ran >> '{}' && exec bash build.sh --no-run\"]",
            marker.display()
        ),
        1,
    );
    std::fs::write(&cfg, text).unwrap();
    std::fs::write(root.join(".gitignore"), "build/\n").unwrap();
    git(&root, &["init", "-q"]);
    git(&root, &["add", "-A"]);
    git(&root, &["commit", "-qm", "one"]);
    let src = root.join("MobileGL/MG_Backend/DirectGLES/Managers.cpp");
    let text = std::fs::read_to_string(&src).unwrap();
    std::fs::write(
        &src,
        format!("{text}\nextern \"C\" int mg_base_probe(int x) {{ return x * 7; }}\n"),
    )
    .unwrap();
    git(&root, &["commit", "-qam", "two"]);
    let builds = || {
        std::fs::read_to_string(&marker)
            .unwrap_or_default()
            .lines()
            .count()
    };

    let r = mgctl_building(&["symbols", "diff", "--base", "HEAD~1"], &root).expect(0);
    r.assert_stderr_has("building in a throw-away worktree (not cached)");
    r.assert_stdout_has("mg_base_probe");
    assert_eq!(
        builds(),
        2,
        "the current build and the base's\n{}",
        r.dump()
    );
    let worktrees = git(&root, &["worktree", "list", "--porcelain"]);
    assert_eq!(worktrees.matches("worktree ").count(), 1, "{worktrees}");

    let again = mgctl_building(&["symbols", "diff", "--base", "HEAD~1"], &root).expect(0);
    again.assert_stderr_has("): cached in ");
    assert_eq!(
        builds(),
        2,
        "a second run with the same base builds nothing\n{}",
        again.dump()
    );
    assert_eq!(again.stdout, r.stdout);

    // A cache entry whose library changed is rebuilt.
    let cache = root.join(".git/mgctl-base");
    let entry = std::fs::read_dir(&cache)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.join("entry.json").is_file())
        .unwrap();
    let lib = entry.join("build/push/libMobileGL.so");
    let mut bytes = std::fs::read(&lib).unwrap();
    bytes.push(0);
    std::fs::write(&lib, bytes).unwrap();
    let r = mgctl_building(&["symbols", "diff", "--base", "HEAD~1"], &root).expect(0);
    r.assert_stderr_has("(its build/push/libMobileGL.so does not match its recorded digest)");
    assert_eq!(builds(), 3, "{}", r.dump());
    r.assert_stdout_has("mg_base_probe");
    let left: Vec<_> = std::fs::read_dir(&cache)
        .unwrap()
        .flatten()
        .filter(|e| !e.path().join("entry.json").is_file())
        .map(|e| e.path())
        .collect();
    assert!(left.is_empty(), "left in the cache: {left:?}");

    // `[symbols] base`: the gate diffs against the same cached base build.
    let text = std::fs::read_to_string(&cfg).unwrap().replacen(
        "before = \"build/pull/libMobileGL.so\"\n",
        "base = \"HEAD~1\"\n",
        1,
    );
    std::fs::write(&cfg, text).unwrap();
    let r = mgctl_building(
        &["check", ".", "--only", "symbols", "--format", "json"],
        &root,
    )
    .expect(1);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let findings = gate(&v, "symbols")["findings"].to_string();
    assert!(findings.contains("mg_base_probe"), "{}", r.dump());
    assert_eq!(builds(), 3, "{}", r.dump());
    // --no-build starts no base build either: the cache answers, or the gate is skipped saying so.
    let no_build = [
        "check",
        ".",
        "--no-build",
        "--only",
        "symbols",
        "--format",
        "json",
    ];
    mgctl_building(&no_build, &root).expect(1);
    std::fs::remove_dir_all(&cache).unwrap();
    let r = mgctl_building(&no_build, &root).expect(2);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(
        gate(&v, "symbols")["reason"],
        "base HEAD~1: not built: --no-build given (not cached)",
        "{}",
        r.dump()
    );
    assert_eq!(builds(), 3, "{}", r.dump());
}

/// Issue 32 item 6: on a terminal the build shows a live spinner with its elapsed time (the
/// real binary in a tmux pseudo-terminal); when it ends the spinner is cleared and the plain
/// `done in` line stays. Off a terminal the lines are as before; `-q` shows none of them.
#[test]
fn issue32_a_build_shows_a_live_spinner_on_a_terminal_and_quiet_silences_it() {
    let dir = scratch();
    workspace(dir.path(), &format!("sleep 3 && {MAKES_BOTH}"));
    let cmd = format!(
        "{} check . --only symbols; echo EXIT=$?; sleep 60",
        crate::util::bin()
    );
    let t = crate::watch::Tmux::start_sized(&cmd, dir.path(), None, (220, 20));
    let spinning = |s: &str| {
        s.lines()
            .any(|l| l.contains("mgctl: building") && l.trim_end().ends_with("s]"))
    };
    let s = t.wait("the live build line", 20, spinning);
    assert!(!s.contains("done in"), "{s}");
    let s = t.wait("the end of the build", 40, |s| s.contains("EXIT="));
    assert!(s.contains("EXIT=0"), "{s}");
    assert!(s.contains(": done in "), "{s}");
    assert!(!spinning(&s), "the spinner was left on screen:\n{s}");
    // The start line (command and cause) stays in the scrollback, as off a terminal.
    assert!(s.contains("(2 outputs missing)\nmgctl: building"), "{s}");

    // Quiet, after the subcommand too (a global flag): the report alone.
    let dir = scratch();
    workspace(dir.path(), MAKES_BOTH);
    let r = mgctl_building(&["check", ".", "-q"], dir.path()).expect(0);
    assert!(!r.stderr.contains("building"), "{}", r.dump());
    assert!(r.stdout.contains("symbols"), "{}", r.dump());
    // Not quiet, not a terminal: the plain lines, as scripts and CI logs read them.
    let dir = scratch();
    workspace(dir.path(), MAKES_BOTH);
    let r = mgctl_building(&["check", "."], dir.path()).expect(0);
    r.assert_stderr_has(": done in ");
}
