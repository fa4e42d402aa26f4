//! Bad input never panics: a real library truncated at many offsets and with corrupted section
//! headers parses to a clear error (or, for harmless corruption, a result), never a panic.
#![allow(clippy::unwrap_used)]

use std::path::Path;

use symbols::elf::parse;
use symbols::{Error, TableChoice};

fn sample() -> (Vec<u8>, &'static str) {
    for p in [
        "/usr/lib/x86_64-linux-gnu/libsframe.so.0.0.0",
        "/usr/lib/x86_64-linux-gnu/libz.so.1",
        "/bin/true",
    ] {
        if let Ok(b) = std::fs::read(p) {
            return (b, p);
        }
    }
    // A missing sample fails the test: a skip would read as a pass.
    panic!("no sample ELF on this machine (/bin/true, libz): apt-get install zlib1g coreutils")
}

#[test]
fn truncated_everywhere_is_an_error_naming_the_file() {
    let (bytes, path) = sample();
    let p = Path::new(path);
    assert!(parse(&bytes, p, TableChoice::Auto).is_ok());
    // Every offset in the headers, then a spread over the whole file.
    let mut cuts: Vec<usize> = (0..4096.min(bytes.len())).step_by(3).collect();
    cuts.extend((0..bytes.len()).step_by((bytes.len() / 500).max(1)));
    cuts.push(bytes.len() - 1);
    for cut in cuts {
        match parse(&bytes[..cut], p, TableChoice::Auto) {
            Ok(_) => panic!("{path} truncated at {cut} parsed without error"),
            Err(e) => {
                let msg = e.to_string();
                assert!(msg.starts_with(path), "error does not name the file: {msg}");
                assert!(!msg.contains('\n'), "error is not one line: {msg}");
            }
        }
    }
}

#[test]
fn corrupted_section_headers_never_panic() {
    let (bytes, path) = sample();
    let shoff = u64::from_le_bytes(bytes[0x28..0x30].try_into().unwrap()) as usize;
    let end = bytes.len();
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut errors = 0;
    for i in 0..3000 {
        let mut b = bytes.clone();
        // Corrupt 1-4 bytes inside the section header table (or the ELF header every 10th run).
        for _ in 0..(1 + i % 4) {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let at = if i % 10 == 0 {
                (seed as usize) % 64
            } else {
                shoff + (seed as usize) % (end - shoff).max(1)
            };
            if at < end {
                b[at] = (seed >> 32) as u8;
            }
        }
        if let Err(e) = parse(&b, Path::new(path), TableChoice::Auto) {
            errors += 1;
            assert!(!e.to_string().contains('\n'));
        }
    }
    assert!(errors > 0, "no corruption was detected at all");
}

#[test]
fn non_elf_and_empty_inputs_are_named_errors() {
    let p = Path::new("x.so");
    assert!(matches!(
        parse(b"", p, TableChoice::Auto),
        Err(Error::Empty { .. })
    ));
    assert!(matches!(
        parse(b"#!/bin/sh\n", p, TableChoice::Auto),
        Err(Error::NotElf { .. })
    ));
    assert!(matches!(
        parse(b"\x7fELF\x03", p, TableChoice::Auto),
        Err(Error::Malformed { .. })
    ));
    let dir = tempfile::tempdir().unwrap();
    assert!(matches!(
        symbols::elf::read_library(dir.path(), TableChoice::Auto),
        Err(Error::Directory { .. })
    ));
    assert!(matches!(
        symbols::elf::read_library(&dir.path().join("missing.so"), TableChoice::Auto),
        Err(Error::Io { .. })
    ));
}

/// Issue 29: a library whose section headers are gone (`e_shoff`/`e_shnum`/`e_shstrndx` zeroed,
/// as `sstrip` leaves it) still has its dynamic symbols, read through `PT_DYNAMIC`: the same as
/// the original's `.dynsym`, not "neither .symtab nor .dynsym".
#[test]
fn no_section_headers_reads_the_dynamic_table() {
    let mut tried = 0;
    for path in [
        "/usr/lib/x86_64-linux-gnu/libz.so.1",
        "/usr/lib/x86_64-linux-gnu/libLLVM-15.so.1",
        "/bin/true",
    ] {
        let Ok(bytes) = std::fs::read(path) else {
            continue;
        };
        tried += 1;
        let p = Path::new(path);
        let original = parse(&bytes, p, TableChoice::Dynsym).unwrap();
        let mut b = bytes.clone();
        b[0x28..0x30].fill(0); // e_shoff
        b[0x3c..0x40].fill(0); // e_shnum, e_shstrndx
        let headless = parse(&b, p, TableChoice::Auto)
            .unwrap_or_else(|e| panic!("{path} without section headers: {e}"));
        let facts = |syms: &[symbols::Symbol]| -> Vec<String> {
            syms.iter()
                .map(|s| {
                    format!(
                        "{} {:?} {} {:x} {} {:?} {:?} {}",
                        s.name,
                        s.version,
                        s.version_hidden,
                        s.address,
                        s.size,
                        s.binding,
                        s.visibility,
                        s.kind
                    )
                })
                .collect()
        };
        assert!(!original.defined.is_empty(), "{path}");
        for (got, want) in [
            (facts(&headless.defined), facts(&original.defined)),
            (facts(&headless.undefined), facts(&original.undefined)),
        ] {
            let differ: Vec<(&String, &String)> = got
                .iter()
                .zip(&want)
                .filter(|(g, w)| g != w)
                .take(5)
                .collect();
            assert!(
                got.len() == want.len() && differ.is_empty(),
                "{path}: {} symbols, {} expected; first differences (got, want): {differ:#?}",
                got.len(),
                want.len()
            );
        }
        assert!(headless.identity.has_dynsym && !headless.identity.has_symtab);
    }
    assert!(tried >= 2, "no sample library on this machine");
}
