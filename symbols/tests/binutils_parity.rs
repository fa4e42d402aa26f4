//! The in-process reader against the machine's GNU binutils: `nm --defined-only -S`,
//! `nm -D --defined-only -S`, `nm --undefined-only` and `size --format=sysv` on real libraries.
//! A missing tool fails the test naming its package; a library missing from this machine is
//! reported on stderr and left out, and at least one must be there.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::process::Command;

use symbols::elf::read_library;
use symbols::TableChoice;

/// Real libraries of several shapes: huge with versioned `.dynsym` (libLLVM), unstripped with
/// `.symtab` (sanitizer runtimes, libsframe), Rust (rustc_driver), static archives' objects.
fn candidates() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = [
        "/usr/lib/x86_64-linux-gnu/libLLVM-15.so.1",
        "/usr/lib/x86_64-linux-gnu/libsframe.so.0.0.0",
        "/usr/lib/x86_64-linux-gnu/libubsan.so.1.0.0",
        "/usr/lib/x86_64-linux-gnu/libstdc++.so.6",
        "/usr/lib/x86_64-linux-gnu/libc.so.6",
        "/usr/lib/x86_64-linux-gnu/crt1.o",
        "/usr/lib/x86_64-linux-gnu/crti.o",
    ]
    .iter()
    .map(PathBuf::from)
    .collect();
    if let Ok(home) = std::env::var("RUSTUP_HOME")
        .or_else(|_| std::env::var("HOME").map(|h| format!("{h}/.rustup")))
    {
        if let Ok(rd) = std::fs::read_dir(format!("{home}/toolchains")) {
            for tc in rd.flatten() {
                if let Ok(libs) = std::fs::read_dir(tc.path().join("lib")) {
                    for l in libs.flatten() {
                        if l.file_name()
                            .to_string_lossy()
                            .starts_with("librustc_driver")
                        {
                            v.push(l.path());
                            break;
                        }
                    }
                }
            }
        }
    }
    let found: Vec<PathBuf> = v
        .into_iter()
        .filter(|p| {
            let ok = p.exists();
            if !ok {
                eprintln!("not compared: {} not on this machine", p.display());
            }
            ok
        })
        .collect();
    assert!(
        !found.is_empty(),
        "no library to compare with nm on this machine"
    );
    found
}

/// binutils are a test requirement (.ci/run installs them): a missing tool fails, never skips.
/// A missing tool fails the test: a skip would read as a pass.
fn tool(name: &str) {
    let ok = Command::new(name).arg("--version").output().is_ok();
    assert!(ok, "{name} not on PATH: install binutils");
}

type Row = (String, char, u64);

/// Parse `nm -S` output: `addr [size] type name`; the name is whatever follows the letter.
fn nm_rows(args: &[&str], lib: &Path) -> Vec<Row> {
    let out = Command::new("nm").args(args).arg(lib).output().unwrap();
    assert!(
        out.status.success() || out.stdout.is_empty(),
        "nm failed on {}",
        lib.display()
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let mut rows = Vec::new();
    for line in text.lines() {
        let toks: Vec<&str> = line.splitn(4, ' ').collect();
        let (size, kind, name) = match toks.as_slice() {
            [_, size, kind, name] if kind.len() == 1 && size.len() > 1 => {
                (u64::from_str_radix(size, 16).unwrap(), *kind, *name)
            }
            [_, kind, name] if kind.len() == 1 => (0, *kind, *name),
            // undefined: padding spaces then `U name`
            _ => {
                let t = line.trim_start();
                let (k, n) = t.split_once(' ').unwrap();
                (0, k, n)
            }
        };
        rows.push((name.to_string(), kind.chars().next().unwrap(), size));
    }
    rows.sort();
    rows
}

fn ours(lib: &Path, choice: TableChoice, defined: bool) -> Vec<Row> {
    let l = read_library(lib, choice).unwrap();
    let list = if defined { &l.defined } else { &l.undefined };
    let mut rows: Vec<Row> = list
        .iter()
        .map(|s| (s.versioned_name(), s.kind, if defined { s.size } else { 0 }))
        .collect();
    rows.sort();
    rows
}

fn assert_same(what: &str, lib: &Path, theirs: &[Row], mine: &[Row]) {
    assert!(
        !theirs.is_empty() || what.contains("undefined"),
        "{what} printed nothing for {}",
        lib.display()
    );
    if theirs == mine {
        return;
    }
    let a: std::collections::BTreeSet<_> = theirs.iter().collect();
    let b: std::collections::BTreeSet<_> = mine.iter().collect();
    let only_nm: Vec<_> = a.difference(&b).take(10).collect();
    let only_us: Vec<_> = b.difference(&a).take(10).collect();
    panic!(
        "{what} differs on {} ({} vs {} rows)\n only nm: {only_nm:?}\n only mgctl: {only_us:?}",
        lib.display(),
        theirs.len(),
        mine.len()
    );
}

#[test]
fn defined_symbols_equal_nm() {
    tool("nm");
    for lib in candidates() {
        let l = read_library(&lib, TableChoice::Auto).unwrap();
        if l.identity.has_symtab {
            let theirs = nm_rows(&["--defined-only", "-S"], &lib);
            assert_same(
                "nm --defined-only -S",
                &lib,
                &theirs,
                &ours(&lib, TableChoice::Symtab, true),
            );
        }
        if l.identity.has_dynsym {
            let theirs = nm_rows(&["-D", "--defined-only", "-S"], &lib);
            assert_same(
                "nm -D --defined-only -S",
                &lib,
                &theirs,
                &ours(&lib, TableChoice::Dynsym, true),
            );
            let theirs = nm_rows(&["-D", "--undefined-only"], &lib);
            assert_same(
                "nm -D --undefined-only",
                &lib,
                &theirs,
                &ours(&lib, TableChoice::Dynsym, false),
            );
        }
    }
}

#[test]
fn section_sizes_equal_size_sysv() {
    tool("size");
    for lib in candidates() {
        let out = Command::new("size")
            .arg("--format=sysv")
            .arg(&lib)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        let mut theirs = Vec::new();
        let mut total = None;
        for line in text.lines().skip(2) {
            let toks: Vec<&str> = line.split_whitespace().collect();
            match toks.as_slice() {
                ["Total", n] => total = Some(n.parse::<u64>().unwrap()),
                [name, size, addr] => theirs.push((
                    name.to_string(),
                    size.parse::<u64>().unwrap(),
                    addr.parse::<u64>().unwrap(),
                )),
                _ => {}
            }
        }
        let l = read_library(&lib, TableChoice::Auto).unwrap();
        let mine: Vec<_> = l
            .sections
            .iter()
            .map(|s| (s.name.clone(), s.size, s.address))
            .collect();
        assert!(
            !theirs.is_empty(),
            "size printed no rows for {}",
            lib.display()
        );
        assert_eq!(
            theirs,
            mine,
            "size --format=sysv rows differ on {}",
            lib.display()
        );
        assert_eq!(
            total,
            Some(l.total_size()),
            "Total differs on {}",
            lib.display()
        );
    }
}

/// ELF32 and relocatable objects with COMDAT groups, built here (a compiler that cannot build
/// one fails the test).
#[test]
fn built_objects_elf32_and_comdat_equal_nm_and_size() {
    tool("nm");
    tool("size");
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("t.cpp");
    std::fs::write(
        &src,
        "inline int twice(int x) { return 2 * x; }\nint foo(int x) { return twice(x) + 1; }\nint bar;\nstatic int baz() { return 3; }\nint use() { return baz() + twice(bar); }\nnamespace MobileGL { struct S { virtual ~S(); }; S::~S() {} }\n",
    )
    .unwrap();
    let mut built = Vec::new();
    for (name, flags) in [
        ("t64.o", vec!["-c", "-O1", "-ffunction-sections"]),
        ("t32.o", vec!["-m32", "-c", "-O1"]),
    ] {
        let out = dir.path().join(name);
        let ok = Command::new("g++")
            .args(&flags)
            .arg(&src)
            .arg("-o")
            .arg(&out)
            .status()
            .is_ok_and(|s| s.success());
        // Both objects are test inputs: a compiler that cannot build one fails the test.
        assert!(
            ok,
            "g++ {flags:?} failed: apt-get install g++ (bash scripts/test does)"
        );
        built.push(out);
    }
    for lib in built {
        let theirs = nm_rows(&["--defined-only", "-S"], &lib);
        assert_same(
            "nm --defined-only -S",
            &lib,
            &theirs,
            &ours(&lib, TableChoice::Symtab, true),
        );
        let out = Command::new("size")
            .arg("--format=sysv")
            .arg(&lib)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        let theirs: Vec<(String, u64)> = text
            .lines()
            .skip(2)
            .filter_map(|l| {
                let t: Vec<&str> = l.split_whitespace().collect();
                match t.as_slice() {
                    [n, s, _] => Some((n.to_string(), s.parse().unwrap())),
                    _ => None,
                }
            })
            .collect();
        let l = read_library(&lib, TableChoice::Auto).unwrap();
        let mine: Vec<(String, u64)> = l
            .sections
            .iter()
            .map(|s| (s.name.clone(), s.size))
            .collect();
        assert_eq!(theirs, mine, "size rows differ on {}", lib.display());
    }
}
