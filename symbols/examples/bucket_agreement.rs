//! Does the demangler's remaining disagreement with GNU c++filt change a diff? Buckets one pair
//! twice, with mgctl's demangled text and with c++filt's:
//! `cargo run --release -p symbols --example bucket_agreement -- BEFORE AFTER`.
#![allow(clippy::unwrap_used)]

use std::collections::HashMap;
use std::io::Write;
use std::process::{Command, Stdio};

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
    let mut child = Command::new("c++filt")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let input = names.join("\n") + "\n";
    let mut stdin = child.stdin.take().unwrap();
    let w = std::thread::spawn(move || stdin.write_all(input.as_bytes()).unwrap());
    let out = child.wait_with_output().unwrap();
    w.join().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let map: HashMap<&str, &str> = names.iter().map(String::as_str).zip(text.lines()).collect();
    for r in b.rows.iter_mut().chain(a.rows.iter_mut()) {
        r.demangled = map[&*r.mangled].into();
    }
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
