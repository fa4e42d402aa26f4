//! Does the demangler's remaining disagreement with GNU c++filt change a diff? Buckets one pair
//! twice, with mgctl's demangled text and with c++filt's:
//! `cargo run --release -p symbols --example bucket_agreement -- BEFORE AFTER`.
#![allow(clippy::unwrap_used)]

use std::collections::HashMap;

#[path = "support/cxxfilt.rs"]
mod support;
use support::cxxfilt;

use symbols::diff::{diff, sides_from_libraries, DiffOptions};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let read = |p: &str| {
        symbols::elf::read_library(std::path::Path::new(p), symbols::TableChoice::Auto).unwrap()
    };
    let (lb, la) = (read(&args[1]), read(&args[2]));
    let (mut b, mut a) = sides_from_libraries(&lb, &la, false);
    let opts = DiffOptions::default();
    let ours = diff(&b, &a, &opts);
    let mut names: Vec<String> = b
        .rows
        .iter()
        .chain(&a.rows)
        .map(|r| r.mangled.to_string())
        .collect();
    names.sort();
    names.dedup();
    let text = cxxfilt(&names);
    let map: HashMap<&str, &str> = names
        .iter()
        .map(String::as_str)
        .zip(text.iter().map(String::as_str))
        .collect();
    for r in b.rows.iter_mut().chain(a.rows.iter_mut()) {
        r.demangled = map[&*r.mangled].into();
    }
    // The rows now carry c++filt's texts: the name table's numbers no longer describe them.
    b.name_ids = None;
    a.name_ids = None;
    let theirs = diff(&b, &a, &opts);
    let show = |what: &str, d: &symbols::diff::Diff| {
        let l = &d.listing;
        println!(
            "{what:>8}: {} -> {} names, {} added, {} removed, {} resized, {} renamed, {} unchanged",
            d.names_before,
            d.names_after,
            l.added.len(),
            l.removed.len(),
            l.resized.len(),
            l.renamed.len(),
            l.unchanged
        );
    };
    show("mgctl", &ours);
    show("c++filt", &theirs);
}
