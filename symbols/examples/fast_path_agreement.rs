//! Measure the fast Itanium path against GNU `c++filt` over every distinct `_Z` name of some
//! files (ELF libraries, or text files with one name per line):
//! `cargo run --release -p symbols --example fast_path_agreement -- FILE... [--show N]`.
//! Prints how many names the fast path answers, how many of those differ from c++filt (each is
//! a bug), how many it declines, and the time of each path.
#![allow(clippy::unwrap_used)]

#[path = "support/cxxfilt.rs"]
mod support;
use std::time::Instant;
use support::cxxfilt;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let show: usize = args
        .iter()
        .position(|a| a == "--show")
        .and_then(|i| args.get(i + 1))
        .and_then(|n| n.parse().ok())
        .unwrap_or(20);
    let mut names: Vec<String> = Vec::new();
    for f in args.iter().take_while(|a| *a != "--show") {
        let path = std::path::Path::new(f);
        match symbols::elf::read_library(path, symbols::TableChoice::Auto) {
            Ok(l) => names.extend(l.defined.iter().map(|s| s.name.to_string())),
            Err(_) => names.extend(
                std::fs::read_to_string(path)
                    .unwrap()
                    .lines()
                    .map(str::to_string),
            ),
        }
    }
    names.retain(|n| n.starts_with("_Z"));
    names.sort_unstable();
    names.dedup();
    let theirs = cxxfilt(&names);

    let t = Instant::now();
    let fast: Vec<Option<String>> = names
        .iter()
        .map(|n| symbols::demangle::fast_path(n))
        .collect();
    let t_fast = t.elapsed();
    let t = Instant::now();
    let full: Vec<String> = names
        .iter()
        .map(|n| symbols::demangle::demangle(n).into_owned())
        .collect();
    let t_full = t.elapsed();

    let (mut answered, mut differ, mut full_differ) = (0, 0, 0);
    let mut declined = Vec::new();
    for (((n, t), f), all) in names.iter().zip(&theirs).zip(&fast).zip(&full) {
        if all != t {
            full_differ += 1;
        }
        match f {
            Some(f) => {
                answered += 1;
                if f != t {
                    differ += 1;
                    if differ <= show {
                        println!("{n}\n  c++filt: {t}\n  fast   : {f}");
                    }
                }
            }
            None => declined.push(n.as_str()),
        }
    }
    if std::env::var_os("SHOW_DECLINED").is_some() {
        for n in declined.iter().take(show) {
            println!("declined: {n}");
        }
    }
    println!(
        "{} distinct _Z names: fast path answers {answered} ({:.2} %), {differ} of them differ from c++filt; declines {}",
        names.len(),
        100.0 * answered as f64 / names.len() as f64,
        declined.len()
    );
    println!(
        "whole demangler: {full_differ} differ from c++filt ({:.3} % agree)",
        100.0 * (names.len() - full_differ) as f64 / names.len() as f64
    );
    println!(
        "single thread: fast path alone {:?} ({:.2} us/name), whole demangler {:?} ({:.2} us/name)",
        t_fast,
        t_fast.as_secs_f64() * 1e6 / names.len() as f64,
        t_full,
        t_full.as_secs_f64() * 1e6 / names.len() as f64
    );
}
