//! Measure how often the in-process demangler prints the same text as GNU `c++filt`, over every
//! defined symbol of a library: `cargo run --release -p symbols --example demangle_agreement -- LIB [--show N]`.
#![allow(clippy::unwrap_used)]

#[path = "support/cxxfilt.rs"]
mod support;
use support::cxxfilt;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let lib = args
        .get(1)
        .expect("usage: demangle_agreement LIB [--show N]");
    let show: usize = args
        .iter()
        .position(|a| a == "--show")
        .and_then(|i| args.get(i + 1))
        .and_then(|n| n.parse().ok())
        .unwrap_or(20);
    let l =
        symbols::elf::read_library(std::path::Path::new(lib), symbols::TableChoice::Auto).unwrap();
    let mut names: Vec<&str> = l.defined.iter().map(|s| &*s.name).collect();
    names.sort_unstable();
    names.dedup();
    let theirs = cxxfilt(&names);
    let ours = names
        .iter()
        .map(|n| symbols::demangle::demangle(n))
        .collect::<Vec<_>>();
    let mut differ = 0;
    for ((n, t), o) in names.iter().zip(&theirs).zip(&ours) {
        if t != o {
            differ += 1;
            if differ <= show {
                println!("{n}\n  c++filt: {t}\n  mgctl  : {o}");
            }
        }
    }
    println!(
        "{lib}: {} distinct names, {differ} differ from c++filt ({:.3} % agree)",
        names.len(),
        100.0 * (names.len() - differ) as f64 / names.len() as f64
    );
}
