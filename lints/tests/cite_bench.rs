//! The cite benchmark's corpus stays exact and true (the benchmark itself is
//! `cargo bench -p lints --bench cite`).
#![allow(clippy::unwrap_used)]

#[path = "../benches/cite.rs"]
mod bench;

#[test]
fn corpus_is_exact_and_true() {
    let r = bench::run(30, 1000, 1).unwrap();
    assert_eq!(r.citations, 1000);
    assert_eq!(r.docs, 30);
    assert!(r.clean);
    assert_eq!(r.files_read, r.distinct_cited);
}
