//! Time the phases of a diff on one pair: `cargo run --release -p symbols --example phases -- A B`.
//! Each phase is timed on its own (best of five runs); demangling is timed apart from the rest.
#![allow(clippy::unwrap_used)]

use std::path::Path;
use std::time::{Duration, Instant};

use symbols::diff::{self, DiffOptions, NameTable};
use symbols::gate::{self, GateOptions};
use symbols::report::{self, ReportInput, SortOrder};
use symbols::TableChoice;

/// Best wall time of `runs` calls of `f`, and its last result.
fn best<T>(runs: usize, mut f: impl FnMut() -> T) -> (Duration, T) {
    let mut best = Duration::MAX;
    let mut last = None;
    for _ in 0..runs {
        let t = Instant::now();
        let v = f();
        best = best.min(t.elapsed());
        last = Some(v);
    }
    (best, last.unwrap())
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (a, b) = (Path::new(&args[1]), Path::new(&args[2]));
    let runs = 5;
    let read = |p: &Path| symbols::elf::read_library(p, TableChoice::Auto).unwrap();
    let (t_read_one, _) = best(runs, || read(a));
    let (t_read, (la, lb)) = best(runs, || rayon::join(|| read(a), || read(b)));
    let (t_table, names) = best(runs, || NameTable::new(&[&la, &lb]));
    let (t_sides, (sa, sb)) = best(runs, || diff::sides_from_libraries(&la, &lb, false));
    let opts = DiffOptions::default();
    let (t_fold, (fa, fb)) = best(runs, || {
        rayon::join(
            || diff::fold(&sa.rows, &opts),
            || diff::fold(&sb.rows, &opts),
        )
    });
    let (t_bucket, _) = best(runs, || diff::bucket(&fa, &fb, 0, &[]));
    let (t_diff, d) = best(runs, || diff::diff(&sa, &sb, &opts));
    let (t_rollup, _) = best(runs, || symbols::group::group(&d.listing, 1));
    let gates = GateOptions::default();
    let outcome = gate::evaluate(&d, &gates);
    let warnings = report::pair_warnings(&sa, &sb);
    let input = ReportInput {
        before: &sa,
        after: &sb,
        diff: &d,
        opts: &opts,
        gates: &gates,
        outcome: &outcome,
        keep_versions: false,
        warnings: &warnings,
        groups: None,
        rollup: None,
        sort: SortOrder::Abs,
        limits: Default::default(),
    };
    let (t_md, md) = best(runs, || report::markdown(&input));
    let (t_json, js) = best(runs, || report::json_string(&input).unwrap());
    let t = Instant::now();
    drop((sa, sb, la, lb));
    let t_drop = t.elapsed();
    println!(
        "{} -> {}: {} distinct names, {} resized, markdown {} bytes, json {} bytes",
        a.display(),
        b.display(),
        names.mangled.len(),
        d.listing.resized.len(),
        md.len(),
        js.len()
    );
    println!("read one       {t_read_one:>12.2?}");
    println!("read both (||) {t_read:>12.2?}");
    println!(
        "name table     {t_table:>12.2?}  (distinct names + demangling: not this crate's phase)"
    );
    println!(
        "sides          {t_sides:>12.2?}  (includes the name table; rows alone ~{:.2?})",
        t_sides.saturating_sub(t_table)
    );
    println!("fold both (||) {t_fold:>12.2?}");
    println!("bucket         {t_bucket:>12.2?}");
    println!("diff           {t_diff:>12.2?}  (fold, bucket twice, sections, type letters)");
    println!("rollup         {t_rollup:>12.2?}  (the Markdown's per-scope totals)");
    println!("markdown       {t_md:>12.2?}");
    println!("json           {t_json:>12.2?}");
    println!("drop all       {t_drop:>12.2?}");
    println!(
        "mine (read, rows, diff, rollup, markdown) ~{:.2?}",
        t_read + t_sides.saturating_sub(t_table) + t_diff + t_rollup + t_md
    );
}
