//! Builds the include graph of a header tree (default: LLVM 14's, from `llvm-14-dev`) and prints
//! the best-of-N wall time, to check the scan stays fast:
//! `cargo run --release -p include_graph --example llvm_graph [DIR] [N]`.

use std::time::Instant;

use include_graph::graph::{Graph, GraphOptions};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let dir = args
        .next()
        .unwrap_or_else(|| "/usr/include/llvm-14".to_string());
    let runs: usize = args.next().and_then(|n| n.parse().ok()).unwrap_or(10);
    let mut opts = GraphOptions::new(&dir);
    opts.search.user.push(dir.clone().into());
    let mut best = f64::MAX;
    let mut shape = (0, 0);
    for _ in 0..runs.max(1) {
        let t = Instant::now();
        let g = Graph::build(&opts)?;
        best = best.min(t.elapsed().as_secs_f64() * 1e3);
        shape = (g.nodes.len(), g.out.iter().map(Vec::len).sum::<usize>());
    }
    println!(
        "{dir}: {} files, {} edges, best of {runs}: {best:.1} ms",
        shape.0, shape.1
    );
    Ok(())
}
