//! Issue 30, "real artifacts": MobileGL ships `arm64-v8a` and `armeabi-v7a` libraries. A pair of
//! AArch64 and a pair of ARM 32-bit (Thumb-2: bit 0 of a function's `st_value` set) shared
//! libraries are built here with Debian's cross compilers, and mgctl's reader and diff are held
//! to the cross binutils' `nm -D --defined-only -S`: the same rows, the same addresses (the Thumb
//! bit masked, as nm masks it), and the same added / removed / resized sets. A pair of two
//! machines is refused. The cross compilers are test requirements (`scripts/test` installs
//! `g++-aarch64-linux-gnu` and `g++-arm-linux-gnueabihf`): a missing one fails, naming its package.
#![allow(clippy::unwrap_used)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use symbols::check::{request_from_flags, run_pair, PairFlags};
use symbols::elf::read_library;
use symbols::TableChoice;

const BEFORE: &str = r#"
extern "C" int keep(int x) { return x + 1; }
extern "C" int grow(int x) { return x * 3; }
extern "C" int gone(int x, int y) { return x - y * 2 + (x >> 3); }
extern "C" { int g_table[4] = {1, 2, 3, 4}; }
namespace MobileGL { struct S { virtual ~S(); int f(int); }; S::~S() {} int S::f(int x) { return x ^ 5; } }
"#;

const AFTER: &str = r#"
extern "C" int keep(int x) { return x + 1; }
extern "C" int grow(int x) { int s = 0; for (int i = 0; i < x; ++i) s += i * x ^ (s >> 1); return s * 3; }
extern "C" int added_fn(int x) { return x * 11 + 4; }
extern "C" { int g_table[16] = {1, 2, 3, 4}; }
namespace MobileGL { struct S { virtual ~S(); int f(int); }; S::~S() {} int S::f(int x) { return x ^ 5; } }
"#;

struct Target {
    triple: &'static str,
    package: &'static str,
    flags: &'static [&'static str],
    machine: &'static str,
}

const TARGETS: [Target; 2] = [
    Target {
        triple: "aarch64-linux-gnu",
        package: "g++-aarch64-linux-gnu",
        flags: &[],
        machine: "AArch64",
    },
    Target {
        triple: "arm-linux-gnueabihf",
        package: "g++-arm-linux-gnueabihf",
        flags: &["-mthumb"],
        machine: "ARM",
    },
];

fn build(t: &Target, dir: &Path, name: &str, src: &str) -> PathBuf {
    let cpp = dir.join(format!("{name}.cpp"));
    std::fs::write(&cpp, src).unwrap();
    let out = dir.join(format!("{}-{name}.so", t.triple));
    let cxx = format!("{}-g++", t.triple);
    let ok = Command::new(&cxx)
        .args(["-shared", "-fPIC", "-O1"])
        .args(t.flags)
        .arg(&cpp)
        .arg("-o")
        .arg(&out)
        .status()
        .is_ok_and(|s| s.success());
    assert!(
        ok,
        "{cxx} could not build {name}: apt-get install {} (bash scripts/test does)",
        t.package
    );
    out
}

/// `nm -D --defined-only -S` rows: name -> (address, type letter, size).
fn nm(t: &Target, lib: &Path) -> BTreeMap<String, (u64, char, u64)> {
    let tool = format!("{}-nm", t.triple);
    let out = Command::new(&tool)
        .args(["-D", "--defined-only", "-S"])
        .arg(lib)
        .output()
        .unwrap_or_else(|e| panic!("{tool}: {e}: apt-get install binutils-{}", t.triple));
    assert!(out.status.success(), "{tool} failed on {}", lib.display());
    let mut rows = BTreeMap::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let t: Vec<&str> = line.splitn(4, ' ').collect();
        let (addr, size, kind, name) = match t.as_slice() {
            [a, s, k, n] if k.len() == 1 => (*a, u64::from_str_radix(s, 16).unwrap(), *k, *n),
            [a, k, n] if k.len() == 1 => (*a, 0, *k, *n),
            _ => panic!("unexpected nm line {line:?}"),
        };
        let addr = u64::from_str_radix(addr, 16).unwrap();
        rows.insert(name.to_string(), (addr, kind.chars().next().unwrap(), size));
    }
    rows
}

fn ours(lib: &Path) -> BTreeMap<String, (u64, char, u64)> {
    let l = read_library(lib, TableChoice::Dynsym).unwrap();
    l.defined
        .iter()
        .map(|s| (s.versioned_name(), (s.address, s.kind, s.size)))
        .collect()
}

type Sets = (BTreeSet<String>, BTreeSet<String>, BTreeSet<String>);

fn nm_sets(b: &BTreeMap<String, (u64, char, u64)>, a: &BTreeMap<String, (u64, char, u64)>) -> Sets {
    let added = a.keys().filter(|k| !b.contains_key(*k)).cloned().collect();
    let removed = b.keys().filter(|k| !a.contains_key(*k)).cloned().collect();
    let resized = a
        .iter()
        .filter(|(k, v)| b.get(*k).is_some_and(|w| w.2 != v.2))
        .map(|(k, _)| k.clone())
        .collect();
    (added, removed, resized)
}

fn flags<'a>(before: &'a Path, after: &'a Path) -> PairFlags<'a> {
    PairFlags {
        before,
        after,
        table: TableChoice::Dynsym,
        keep_versions: false,
        strip_scope: &[],
        rename_map: &[],
        only_names: None,
        threshold: 0,
        group: None,
        fail_on_symbol_set_change: false,
        fail_on_text_delta: false,
        fail_on_added_bytes: None,
        strict_allow: false,
        allow_resize: &[],
        allow_files: &[],
    }
}

fn mgctl_sets(before: &Path, after: &Path) -> Sets {
    let (req, _) = request_from_flags(&flags(before, after)).unwrap();
    let run = run_pair(&req).unwrap();
    let v = run.analysis.diff.gate_view();
    let names = |c: &[symbols::diff::Change], after: bool| -> BTreeSet<String> {
        c.iter()
            .map(|c| {
                if after {
                    c.after_mangled.to_string()
                } else {
                    c.before_mangled.to_string()
                }
            })
            .collect()
    };
    let mut added = names(&v.added, true);
    let mut removed = names(&v.removed, false);
    // A rename is an added and a removed name to nm.
    added.extend(names(&v.renamed, true));
    removed.extend(names(&v.renamed, false));
    (added, removed, names(&v.resized, true))
}

#[test]
fn arm_pairs_give_the_cross_nm_rows_and_added_removed_resized_sets() {
    let dir = tempfile::tempdir().unwrap();
    let mut libs = Vec::new();
    for t in &TARGETS {
        let before = build(t, dir.path(), "before", BEFORE);
        let after = build(t, dir.path(), "after", AFTER);
        for lib in [&before, &after] {
            let l = read_library(lib, TableChoice::Dynsym).unwrap();
            assert_eq!(l.identity.machine, t.machine, "{}", lib.display());
            let (theirs, mine) = (nm(t, lib), ours(lib));
            assert!(theirs.contains_key("keep"), "{theirs:?}");
            assert_eq!(
                theirs,
                mine,
                "nm -D --defined-only -S rows of {}",
                lib.display()
            );
        }
        if t.machine == "ARM" {
            // Thumb-2 code: the raw st_value is odd; nm and mgctl print the even address.
            let raw = thumb_values(&after);
            assert!(!raw.is_empty(), "no Thumb function in {}", after.display());
            let mine = ours(&after);
            for (name, value) in raw {
                assert_eq!(mine[&name].0, value & !1, "{name}: st_value {value:#x}");
            }
        }
        let want = nm_sets(&nm(t, &before), &nm(t, &after));
        assert!(
            want.0.contains("added_fn") && want.1.contains("gone"),
            "{want:?}"
        );
        assert!(
            want.2.contains("grow") && want.2.contains("g_table"),
            "{want:?}"
        );
        assert_eq!(mgctl_sets(&before, &after), want, "{} pair", t.triple);
        libs.push(after);
    }
    // A pair of two machines is refused, naming both, never diffed into a verdict.
    let (req, _) = request_from_flags(&flags(&libs[0], &libs[1])).unwrap();
    let err = run_pair(&req).err().unwrap().error.to_string();
    assert!(
        err.contains("is a ARM ELF32 library but") && err.contains("is a AArch64 ELF64 one"),
        "{err}"
    );
}

/// `(name, st_value)` of the defined `.dynsym` functions whose value has bit 0 set, read with
/// `readelf` semantics from the raw table (object, independent of mgctl's reader).
fn thumb_values(lib: &Path) -> Vec<(String, u64)> {
    let out = Command::new("arm-linux-gnueabihf-readelf")
        .args(["--dyn-syms", "-W"])
        .arg(lib)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    text.lines()
        .filter_map(|l| {
            let t: Vec<&str> = l.split_whitespace().collect();
            // Num: Value Size Type Bind Vis Ndx Name
            match t.as_slice() {
                [_, value, _, "FUNC", _, _, ndx, name] if *ndx != "UND" => {
                    let v = u64::from_str_radix(value, 16).ok()?;
                    (v & 1 == 1).then(|| (name.to_string(), v))
                }
                _ => None,
            }
        })
        .collect()
}
