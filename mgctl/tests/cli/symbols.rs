//! `mgctl symbols …` end to end: real libraries built with the machine's C++ compiler, upstream's
//! line shapes, gate exit codes, allow lists, bad input, and the `symbols` / `symbol-rules` gates.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::util::{copy_driver, mgctl, scratch};

/// Builds `lib<name>.so` from C++ source with the machine's g++.
fn build_lib(dir: &Path, name: &str, src: &str) -> Option<PathBuf> {
    let cpp = dir.join(format!("{name}.cpp"));
    std::fs::write(&cpp, src).unwrap();
    let out = dir.join(format!("lib{name}.so"));
    let ok = Command::new("g++")
        .args(["-shared", "-fPIC", "-O1", "-Wl,--build-id", "-o"])
        .arg(&out)
        .arg(&cpp)
        .status()
        .is_ok_and(|s| s.success());
    // g++ is a test requirement (.ci/run installs it): a missing compiler fails, never skips.
    assert!(ok, "g++ could not build {name}: install g++");
    Some(out)
}

const BEFORE: &str = r#"
namespace MobileGL { namespace RenderState {
int Apply(int x) { return x + 1; }
int Gone(int x) { return x * 3; }
}
int Stable(int x) { return x - 7; }
}
"#;

const AFTER: &str = r#"
namespace MobileGL { namespace RenderState {
volatile int sink;
int Apply(int x) { for (int i = 0; i < x; ++i) { sink = sink + i * x; } return x + 1 + sink; }
int BrandNew(int x) { return x * 5 + sink; }
}
int Stable(int x) { return x - 7; }
}
"#;

/// `mgctl symbols diff --before B --after A EXTRA…` in `cwd`.
fn diff(cwd: &Path, b: &str, a: &str, extra: &[&str]) -> crate::util::Run {
    let mut args = vec!["symbols", "diff", "--before", b, "--after", a];
    args.extend_from_slice(extra);
    mgctl(&args, cwd)
}

fn pair() -> Option<(tempfile::TempDir, PathBuf, PathBuf)> {
    let dir = scratch();
    let b = build_lib(dir.path(), "before", BEFORE)?;
    let a = build_lib(dir.path(), "after", AFTER)?;
    Some((dir, b, a))
}

#[test]
fn diff_prints_upstream_lines_and_is_informational_by_default() {
    let Some((dir, b, a)) = pair() else { return };
    let r = diff(dir.path(), b.to_str().unwrap(), a.to_str().unwrap(), &[]).expect(0);
    let out = &r.stdout;
    assert!(
        out.contains(&format!("symbol-report: before: {} (", b.display())),
        "{}",
        r.dump()
    );
    assert!(
        regex::Regex::new(r"symbol-report: \.text \d+ -> \d+ \([+-]\d+, [+-]\d+\.\d{3}%\)")
            .unwrap()
            .is_match(out),
        "{}",
        r.dump()
    );
    assert!(regex::Regex::new(r"symbol-report: \d+ -> \d+ defined symbols: [1-9]\d* added, [1-9]\d* removed, [1-9]\d* resized, 0 renamed").unwrap().is_match(out), "{}", r.dump());
    assert!(
        out.contains("normalised names,")
            && out.contains("unchanged (name, size and mangling all identical)")
    );
    assert!(out.contains("symbol-report: no gate flag: informational run"));
    assert!(
        out.contains("# MobileGL symbol report")
            && out.contains("### Removed (")
            && out.contains("MobileGL::RenderState::Gone(int)")
    );
    assert!(out.contains("symbols from .symtab"), "{}", r.dump());
}

#[test]
fn gates_fail_with_exit_1_and_allow_entries_admit_changes() {
    let Some((dir, b, a)) = pair() else { return };
    let (b, a) = (b.to_str().unwrap(), a.to_str().unwrap());
    let r = diff(dir.path(), b, a, &["--fail-on-symbol-set-change"]).expect(1);
    assert!(
        r.stdout
            .contains("symbol-report: FAIL --fail-on-symbol-set-change: "),
        "{}",
        r.dump()
    );
    // Admit every change: the gate passes.
    let allow = dir.path().join("allow.txt");
    std::fs::write(
        &allow,
        "# admitted by the commit\nresized MobileGL::RenderState::Apply(int)\nremoved MobileGL::RenderState::Gone(int)\nadded MobileGL::RenderState::BrandNew(int)\nadded MobileGL::RenderState::sink\n",
    )
    .unwrap();
    let r = diff(
        dir.path(),
        b,
        a,
        &[
            "--fail-on-symbol-set-change",
            "--allow",
            allow.to_str().unwrap(),
            "--format",
            "json",
        ],
    );
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["schema"], 1);
    assert_eq!(v["verdict"], "pass", "{}", r.dump());
    assert_eq!(r.code, 0, "{}", r.dump());
    // A stale entry is reported, and fails under --strict-allow.
    let r = diff(
        dir.path(),
        b,
        a,
        &["--allow-resize", "MobileGL::Nothing()", "--strict-allow"],
    )
    .expect(1);
    assert!(
        r.stdout
            .contains("stale allow entry: resized MobileGL::Nothing()"),
        "{}",
        r.dump()
    );
    // --only-names narrows the listing, never the gates.
    let r = diff(
        dir.path(),
        b,
        a,
        &["--only-names", "Stable", "--fail-on-symbol-set-change"],
    )
    .expect(1);
    assert!(
        r.stdout
            .contains("0 added, 0 removed, 0 resized, 0 renamed"),
        "{}",
        r.dump()
    );
    // An identical pair passes every gate.
    mgctl(
        &[
            "symbols",
            "diff",
            "--before",
            b,
            "--after",
            b,
            "--fail-on-symbol-set-change",
            "--fail-on-added-bytes",
            "0",
            "--fail-on-text-delta",
        ],
        dir.path(),
    )
    .expect(0);
    // Text budget 0 fires on any .text move.
    let r = diff(dir.path(), b, a, &["--fail-on-added-bytes", "0"]).expect(1);
    assert!(
        r.stdout
            .contains("symbol-report: FAIL --fail-on-added-bytes 0: .text moved by "),
        "{}",
        r.dump()
    );
}

#[test]
fn group_and_sort_and_artifacts() {
    let Some((dir, b, a)) = pair() else { return };
    let md = dir.path().join("r.md");
    let js = dir.path().join("r.json");
    let r = diff(
        dir.path(),
        b.to_str().unwrap(),
        a.to_str().unwrap(),
        &[
            "--group",
            "namespace:2",
            "--sort",
            "delta",
            "--markdown",
            md.to_str().unwrap(),
            "--json",
            js.to_str().unwrap(),
        ],
    )
    .expect(0);
    r.assert_stdout_has("symbol-report: markdown written to");
    let md = std::fs::read_to_string(md).unwrap();
    assert!(
        md.contains("### By namespace (depth 2)") && md.contains("| MobileGL::RenderState |"),
        "{md}"
    );
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(js).unwrap()).unwrap();
    assert_eq!(v["schema"], 1);
    assert_eq!(v["versions"], "stripped");
    mgctl(
        &[
            "symbols", "diff", "--before", "x", "--after", "y", "--group", "files",
        ],
        dir.path(),
    )
    .expect(2);
}

#[test]
fn list_and_undefined() {
    let Some((dir, _b, a)) = pair() else { return };
    let r = mgctl(
        &["symbols", "list", a.to_str().unwrap(), "--top", "3"],
        dir.path(),
    )
    .expect(0);
    assert!(
        r.stdout.contains("defined symbols from .symtab") && r.stdout.lines().count() == 4,
        "{}",
        r.dump()
    );
    let r = mgctl(
        &[
            "symbols",
            "list",
            a.to_str().unwrap(),
            "--table",
            "dynsym",
            "--sort",
            "name",
            "--format",
            "json",
        ],
        dir.path(),
    )
    .expect(0);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["table"], ".dynsym");
    let r = mgctl(&["symbols", "undefined", a.to_str().unwrap()], dir.path()).expect(0);
    r.assert_stdout_has("undefined symbols from");
}

#[test]
fn bad_input_is_exit_2_with_one_line_naming_the_file() {
    let dir = scratch();
    let text = dir.path().join("notes.txt");
    std::fs::write(&text, "not a library\n").unwrap();
    let empty = dir.path().join("empty.so");
    std::fs::write(&empty, "").unwrap();
    let sub = dir.path().join("adir");
    std::fs::create_dir(&sub).unwrap();
    let missing = dir.path().join("missing.so");
    for (p, what) in [
        (&text, "not an ELF file"),
        (&empty, "empty file"),
        (&sub, "is a directory"),
        (&missing, "cannot read"),
    ] {
        let r = mgctl(&["symbols", "list", p.to_str().unwrap()], dir.path()).expect(2);
        assert!(
            r.stderr.starts_with("mgctl: ")
                && r.stderr.contains(p.to_str().unwrap())
                && r.stderr.contains(what),
            "{}",
            r.dump()
        );
        assert_eq!(r.stderr.trim_end().lines().count(), 1, "{}", r.dump());
        mgctl(
            &[
                "symbols",
                "diff",
                "--before",
                p.to_str().unwrap(),
                "--after",
                p.to_str().unwrap(),
                "--fail-on-symbol-set-change",
            ],
            dir.path(),
        )
        .expect(2);
    }
    // A truncated real library.
    if let Some(a) = build_lib(dir.path(), "t", BEFORE) {
        let bytes = std::fs::read(&a).unwrap();
        std::fs::write(&a, &bytes[..bytes.len() / 2]).unwrap();
        let r = mgctl(&["symbols", "list", a.to_str().unwrap()], dir.path()).expect(2);
        r.assert_stderr_has("malformed ELF");
    }
}

#[test]
fn self_test_passes_and_a_neutered_control_fails_it() {
    let dir = scratch();
    let r = mgctl(&["symbols", "self-test"], dir.path()).expect(0);
    assert!(
        r.stdout
            .starts_with("symbol-report: self-test: OK (2 canned transcripts, 5 buckets, 3 gates"),
        "{}",
        r.dump()
    );
    let r = mgctl(
        &["symbols", "self-test", "--neuter", "set-change-fires"],
        dir.path(),
    )
    .expect(1);
    r.assert_stdout_has("symbol-report: self-test: FAILED");
}

#[test]
fn gates_skip_with_a_build_hint_when_the_driver_is_not_built() {
    let (_g, root) = copy_driver();
    let r = mgctl(
        &[
            "check",
            root.to_str().unwrap(),
            "--only",
            "symbols,symbol-rules",
            "--format",
            "json",
        ],
        &root,
    );
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap_or_default();
    let text = r.stdout.clone();
    assert!(
        text.contains("not built: run driver/build.sh"),
        "{}\n{v}",
        r.dump()
    );
    r.expect(0);
    let r = mgctl(
        &[
            "check",
            root.to_str().unwrap(),
            "--only",
            "symbols,symbol-rules",
            "--self-test",
        ],
        &root,
    )
    .expect(0);
    let r2 = mgctl(
        &[
            "check",
            root.to_str().unwrap(),
            "--only",
            "symbols",
            "--self-test",
            "--neuter",
            "symbols/set-change",
        ],
        &root,
    );
    assert_eq!(r2.code, 1, "{}\n{}", r.dump(), r2.dump());
}

#[test]
fn gates_run_on_built_libraries() {
    let Some((dir, b, a)) = pair() else { return };
    let root = dir.path();
    std::fs::write(
        root.join("mgctl.toml"),
        format!(
            "[symbols]\nbefore = \"{}\"\nafter = \"{}\"\nallow_resize = [\"MobileGL::RenderState::Apply(int)\"]\n\n[symbol_rules]\n[[symbol_rules.rule]]\nname = \"no-gone\"\nlibrary = \"{}\"\nforbid = \"defined\"\npattern = \"RenderState::Gone\"\n",
            b.file_name().unwrap().to_str().unwrap(),
            a.file_name().unwrap().to_str().unwrap(),
            b.file_name().unwrap().to_str().unwrap(),
        ),
    )
    .unwrap();
    let r = mgctl(
        &[
            "check",
            ".",
            "--only",
            "symbols,symbol-rules",
            "--format",
            "json",
        ],
        root,
    )
    .expect(1);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let s = v.to_string();
    for code in ["SYM001", "SYM002", "SYM009", "SYR001"] {
        assert!(s.contains(code), "{code} missing: {}", r.dump());
    }
    assert!(
        s.contains("_ZN8MobileGL11RenderState4GoneEi"),
        "rule finding names the mangled symbol: {}",
        r.dump()
    );
}

/// Builds `lib<name>.so` exporting its symbols under version node `node`.
fn build_versioned(dir: &Path, name: &str, node: &str) -> Option<PathBuf> {
    let map = dir.join(format!("{name}.map"));
    std::fs::write(&map, format!("{node} {{ global: *; }};\n")).unwrap();
    let cpp = dir.join(format!("{name}.cpp"));
    std::fs::write(&cpp, BEFORE).unwrap();
    let out = dir.join(format!("lib{name}.so"));
    let ok = Command::new("g++")
        .args(["-shared", "-fPIC", "-O1", "-s"])
        .arg(format!("-Wl,--version-script={}", map.display()))
        .arg("-o")
        .arg(&out)
        .arg(&cpp)
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "g++ could not build versioned {name}: install g++");
    Some(out)
}

#[test]
fn versions_are_stripped_unless_kept_and_stripped_libraries_use_dynsym() {
    let dir = scratch();
    let (Some(b), Some(a)) = (
        build_versioned(dir.path(), "v1", "LIB_1"),
        build_versioned(dir.path(), "v2", "LIB_2"),
    ) else {
        return;
    };
    let (b, a) = (b.to_str().unwrap(), a.to_str().unwrap());
    let r = diff(dir.path(), b, a, &["--fail-on-symbol-set-change"]).expect(0);
    r.assert_stdout_has("symbols from .dynsym (stripped)");
    assert!(
        r.stdout
            .contains("0 added, 0 removed, 0 resized, 0 renamed"),
        "{}",
        r.dump()
    );
    let r = diff(
        dir.path(),
        b,
        a,
        &["--keep-versions", "--fail-on-symbol-set-change"],
    )
    .expect(1);
    assert!(
        r.stdout
            .contains("MobileGL::RenderState::Apply(int)@@LIB_2"),
        "{}",
        r.dump()
    );
    let r = mgctl(&["symbols", "list", a, "--sort", "name"], dir.path()).expect(0);
    r.assert_stdout_has("MobileGL::Stable(int) @LIB_2");
    mgctl(&["symbols", "list", a, "--table", "symtab"], dir.path()).expect(2);
}
