//! The in-process demangler against the machine's GNU `c++filt` over every defined name of
//! real libraries. The fast Itanium path must print exactly c++filt's text wherever it answers,
//! and answer nearly everything; the whole demangler (fast path plus fallback) must agree on
//! every libLLVM name and all but the documented exceptions elsewhere (docs/symbols.md).
#![allow(clippy::unwrap_used)]

use std::path::Path;

use symbols::demangle::{demangle, fast_path};
use symbols::elf::read_library;
use symbols::TableChoice;

#[path = "../examples/support/cxxfilt.rs"]
mod support;
use support::cxxfilt;

/// `allowed`: how many names may differ from c++filt (the documented exceptions).
fn check(lib: &str, allowed: usize) {
    let path = Path::new(lib);
    assert!(path.exists(), "{lib} is missing: .ci/run installs it");
    let l = read_library(path, TableChoice::Auto).unwrap();
    let mut names: Vec<String> = l
        .defined
        .iter()
        .map(|s| s.name.to_string())
        .filter(|n| n.starts_with("_Z"))
        .collect();
    names.sort_unstable();
    names.dedup();
    assert!(names.len() > 1000, "{lib}: only {} names", names.len());
    let theirs = cxxfilt(&names);
    let (mut answered, mut whole_agree) = (0usize, 0usize);
    let mut wrong = Vec::new();
    for (n, t) in names.iter().zip(&theirs) {
        if let Some(f) = fast_path(n) {
            answered += 1;
            if &f != t {
                wrong.push(format!("{n}\n  c++filt: {t}\n  fast   : {f}"));
            }
        }
        if demangle(n) == t.as_str() {
            whole_agree += 1;
        }
    }
    assert!(
        wrong.is_empty(),
        "{lib}: the fast path differs from c++filt on {} names:\n{}",
        wrong.len(),
        wrong[..wrong.len().min(10)].join("\n")
    );
    let share = |k: usize| 100.0 * k as f64 / names.len() as f64;
    eprintln!(
        "{lib}: {} names, fast path answers {:.2} %, whole demangler agrees on {:.3} %",
        names.len(),
        share(answered),
        share(whole_agree)
    );
    assert!(
        share(answered) >= 99.0,
        "{lib}: fast path answers only {:.2} %",
        share(answered)
    );
    let differ = names.len() - whole_agree;
    assert!(
        differ <= allowed,
        "{lib}: {differ} names differ from c++filt (at most {allowed} are documented exceptions)"
    );
}

#[test]
fn libllvm15_names_print_as_cxxfilt_prints_them() {
    check("/usr/lib/x86_64-linux-gnu/libLLVM-15.so.1", 0);
}

#[test]
fn libllvm14_names_print_as_cxxfilt_prints_them() {
    check("/usr/lib/x86_64-linux-gnu/libLLVM-14.so.1", 0);
}

#[test]
fn libstdcxx_names_print_as_cxxfilt_prints_them() {
    // `operator void (A::*)()() const`: a conversion to a member pointer.
    check("/usr/lib/x86_64-linux-gnu/libstdc++.so.6", 1);
}
