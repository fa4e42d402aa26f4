//! Time the phases of a diff on one pair: `cargo run --release -p symbols --example phases -- A B`.
#![allow(clippy::unwrap_used)]

use std::path::Path;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (a, b) = (Path::new(&args[1]), Path::new(&args[2]));
    for _ in 0..3 {
        let t = Instant::now();
        let la = symbols::elf::read_library(a, symbols::TableChoice::Auto).unwrap();
        let lb = symbols::elf::read_library(b, symbols::TableChoice::Auto).unwrap();
        let t_read = t.elapsed();
        let t = Instant::now();
        let names: Vec<&str> = la
            .defined
            .iter()
            .chain(&lb.defined)
            .map(|s| s.name.as_str())
            .collect();
        let d = symbols::demangle::demangle_all(&names);
        let t_dem = t.elapsed();
        let t = Instant::now();
        let (sa, sb) = symbols::diff::sides_from_libraries(&la, &lb, false);
        let t_side = t.elapsed();
        let t = Instant::now();
        let opts = symbols::diff::DiffOptions::default();
        let df = symbols::diff::diff(&sa, &sb, &opts);
        let t_diff = t.elapsed();
        let t = Instant::now();
        let mut n = 0usize;
        for s in &names {
            if let Ok(sym) = cpp_demangle::Symbol::new(s.as_bytes()) {
                n += sym
                    .demangle(&cpp_demangle::DemangleOptions::new())
                    .map(|x| x.len())
                    .unwrap_or(0);
            }
        }
        println!("raw cpp_demangle single thread {:?} {n}", t.elapsed());
        let t = Instant::now();
        let mut m = 0usize;
        for s in &names {
            m += symbols::demangle::demangle(s).len();
        }
        println!("ours single thread {:?} {m}", t.elapsed());
        let t = Instant::now();
        let fa = symbols::diff::fold(&sa.rows, &opts);
        let fb = symbols::diff::fold(&sb.rows, &opts);
        let t_fold = t.elapsed();
        let t = Instant::now();
        let bk = symbols::diff::bucket(&fa, &fb, 0, &[]);
        let t_bucket = t.elapsed();
        let t = Instant::now();
        let bk2 = bk.clone();
        println!(
            "fold both {:?} bucket {:?} clone {:?} {}",
            t_fold,
            t_bucket,
            t.elapsed(),
            bk2.unchanged
        );
        println!(
            "read {:?} demangle-only {:?} ({} names) sides {:?} diff {:?} ({} resized)",
            t_read,
            t_dem,
            d.len(),
            t_side,
            t_diff,
            df.listing.resized.len()
        );
    }
}
