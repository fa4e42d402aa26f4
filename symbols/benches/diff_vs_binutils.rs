//! `cargo bench -p symbols --bench diff_vs_binutils [-- BEFORE AFTER [RUNS]]`: times, on the same
//! pair, the whole symbol diff as `mgctl symbols diff` runs it (read, demangle, fold, bucket,
//! gates, render) and the reference pipeline upstream shells out to (nm --defined-only -S, or
//! nm -D for a stripped library; size --format=sysv; one c++filt over all names; for both
//! libraries), and prints them side by side with CPU time and peak RSS. Defaults to the
//! libLLVM-14 -> 15 pair Debian installs. A benchmark, not a test: run it on an idle machine.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use common::{load_line, median, own_cpu_ms, own_peak_rss_mib, run_tool, ToolCost};
use symbols::check::{run_pair, PairRequest};
use symbols::gate::GateOptions;
use symbols::report::{self, MarkdownLimits, ReportInput, SortOrder};
use symbols::{elf, TableChoice};

const LLVM14: &str = "/usr/lib/x86_64-linux-gnu/libLLVM-14.so.1";
const LLVM15: &str = "/usr/lib/x86_64-linux-gnu/libLLVM-15.so.1";

/// One pass of the whole diff, rendered into memory (what `symbols diff` does before printing).
fn mgctl_once(before: &Path, after: &Path) -> Result<usize, String> {
    let req = PairRequest {
        before: before.to_path_buf(),
        after: after.to_path_buf(),
        gates: GateOptions {
            fail_on_symbol_set_change: true,
            ..GateOptions::default()
        },
        ..PairRequest::default()
    };
    let run = run_pair(&req).map_err(|e| e.to_string())?;
    let a = &run.analysis;
    let rollup = symbols::group::group(&a.diff.listing, 1);
    let input = ReportInput {
        before: &a.before,
        after: &a.after,
        diff: &a.diff,
        opts: &req.opts,
        gates: &req.gates,
        outcome: &a.outcome,
        keep_versions: false,
        warnings: &a.warnings,
        groups: None,
        rollup: Some((1, &rollup)),
        sort: SortOrder::Abs,
        limits: MarkdownLimits::default(),
    };
    Ok(report::markdown(&input).len() + report::summary_lines(&input).len())
}

/// Upstream's pipeline on one library: nm (or nm -D when stripped), size, one c++filt.
/// Returns the largest peak RSS and the summed CPU time of the three tools (when measured).
fn reference_once(lib: &Path, rss: bool) -> Result<ToolCost, String> {
    let stripped = !elf::read_library(lib, TableChoice::Auto)
        .map_err(|e| e.to_string())?
        .identity
        .has_symtab;
    let mut nm = Command::new("nm");
    if stripped {
        nm.arg("-D");
    }
    nm.args(["--defined-only", "-S"]).arg(lib);
    let (nm_out, c1) = run_tool(&mut nm, None, rss)?;
    let (_, c2) = run_tool(
        Command::new("size").arg("--format=sysv").arg(lib),
        None,
        rss,
    )?;
    let text = String::from_utf8_lossy(&nm_out);
    let mut names: Vec<&str> = text.lines().filter_map(|l| l.rsplit(' ').next()).collect();
    names.sort_unstable();
    names.dedup();
    let (_, c3) = run_tool(
        &mut Command::new("c++filt"),
        Some(names.join("\n") + "\n"),
        rss,
    )?;
    Ok(c1.combine(c2).combine(c3))
}

fn main() -> std::process::ExitCode {
    // `cargo bench` passes `--bench`; everything else positional is ours.
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let before = PathBuf::from(args.first().map_or(LLVM14, String::as_str));
    let after = PathBuf::from(args.get(1).map_or(LLVM15, String::as_str));
    let runs: usize = args.get(2).and_then(|r| r.parse().ok()).unwrap_or(5).max(1);
    match bench(&before, &after, runs) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("diff_vs_binutils: {e}");
            std::process::ExitCode::from(2)
        }
    }
}

fn bench(before: &Path, after: &Path, runs: usize) -> Result<(), String> {
    mgctl_once(before, after)?;
    let mut ours = Vec::new();
    let cpu0 = own_cpu_ms();
    for _ in 0..runs {
        let t = Instant::now();
        mgctl_once(before, after)?;
        ours.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    let our_cpu = cpu0.zip(own_cpu_ms()).map(|(x, y)| (y - x) / runs as f64);
    let our_rss = own_peak_rss_mib();
    let reference = |rss: bool| -> Result<ToolCost, String> {
        Ok(reference_once(before, rss)?.combine(reference_once(after, rss)?))
    };
    let tools = match reference(false) {
        Ok(_) => true,
        Err(e) => {
            println!("reference pipeline unavailable: {e}");
            false
        }
    };
    let mut theirs = Vec::new();
    let mut their = ToolCost::default();
    if tools {
        for _ in 0..runs {
            let t = Instant::now();
            reference(false)?;
            theirs.push(t.elapsed().as_secs_f64() * 1000.0);
        }
        their = reference(true)?;
    }
    let (m, r) = (median(ours), median(theirs));
    let threads = rayon::current_num_threads();
    println!(
        "symbols bench: {} -> {} ({runs} runs each, median wall time, {threads} threads)",
        before.display(),
        after.display()
    );
    let mib = |v: Option<f64>| v.map_or("n/a".to_string(), |x| format!("{x:.0} MiB"));
    let ms = |v: Option<f64>| v.map_or("n/a".to_string(), |x| format!("{x:.0} ms"));
    println!(
        "  mgctl symbols diff (read, demangle, fold, bucket, render)  wall {m:>8.1} ms   cpu {:>8}   peak RSS {}",
        ms(our_cpu),
        mib(our_rss)
    );
    if tools {
        println!(
            "  nm + size + c++filt on both libraries (reference)           wall {r:>8.1} ms   cpu {:>8}   peak RSS {} (largest tool)",
            ms(their.cpu_ms),
            mib(their.rss_mib)
        );
        println!(
            "  mgctl is {:.1}x faster than the bare reference pipeline (wall)",
            r / m.max(f64::EPSILON)
        );
    }
    if let Some(l) = load_line() {
        println!("{l}");
    }
    Ok(())
}
