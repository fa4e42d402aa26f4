//! `cargo bench -p stats_viewer --bench parse [-- --lines N --window-every K --repeat R]`: parser
//! throughput on a generated `adb logcat -v threadtime` capture vs the 1,000,000 lines/s target
//! (was `mgctl stats bench`; the same figures), then the library end to end from disk (what
//! `mgctl stats summary` runs: `Log::open` streaming the file, then the summary report rendered)
//! beside `grep -c 'MGPipe stats:'` on the same file, the I/O floor. The binary itself, process
//! start included, is timed by `cargo bench -p mgctl --bench scaling` (also beside `grep -c`).

use std::path::Path;

use stats_viewer::{synth, Event, EventKind, LogBuilder, LogParser, Role};

mod common;

/// `Log::open` + the summary report on the generated log written to a temporary file, best of
/// `repeat` by wall time, beside `grep -c` on the same file (its stdout piped: GNU grep stops at
/// the first match when stdout is /dev/null).
fn end_to_end(bytes: &[u8], repeat: usize) {
    let dir = match tempfile::tempdir() {
        Ok(d) => d,
        Err(e) => {
            eprintln!("parse bench: no temporary directory: {e}");
            return;
        }
    };
    let path = dir.path().join("synth.logcat.txt");
    if let Err(e) = std::fs::write(&path, bytes) {
        eprintln!("parse bench: cannot write {}: {e}", path.display());
        return;
    }
    let mut best = f64::INFINITY;
    for _ in 0..repeat {
        let t = std::time::Instant::now();
        let log = match stats_viewer::Log::open(&path) {
            Ok(l) => l,
            Err(e) => {
                eprintln!("parse bench: {e}");
                return;
            }
        };
        let mut sink = std::io::sink();
        if let Err(e) = stats_viewer::report::summary_text(&log, Default::default(), &mut sink) {
            eprintln!("parse bench: {e}");
            return;
        }
        best = best.min(t.elapsed().as_secs_f64());
    }
    let mut grep = f64::INFINITY;
    for _ in 0..repeat {
        let t = std::time::Instant::now();
        let ok = std::process::Command::new("grep")
            .arg("-c")
            .arg("MGPipe stats:")
            .arg(&path)
            .output()
            .is_ok_and(|o| o.status.success() || o.status.code() == Some(1));
        if !ok {
            println!("end to end: grep not available, no I/O floor");
            grep = f64::NAN;
            break;
        }
        grep = grep.min(t.elapsed().as_secs_f64());
    }
    println!(
        "end to end from disk (Log::open + summary report, best of {repeat}): {best:.3} s wall, {:.2} M lines/s; grep -c 'MGPipe stats:' {grep:.3} s: {:.1}x the I/O floor (issue 16 bar: within 10x)",
        bytes.iter().filter(|&&b| b == b'\n').count() as f64 / best / 1e6,
        best / grep
    );
}

fn main() {
    let lines: usize = common::arg("--lines", 2_000_000);
    let window_every: usize = common::arg("--window-every", 50);
    let repeat: usize = common::arg("--repeat", 3);
    if lines == 0 || repeat == 0 || window_every == 0 {
        eprintln!("parse bench: --lines, --window-every and --repeat must be positive");
        std::process::exit(2);
    }
    let (bytes, windows) = synth::logcat(synth::SynthSpec {
        lines,
        window_every,
        ..Default::default()
    });
    println!(
        "generated: {lines} lines, {:.1} MiB, {windows} window lines (1 in {window_every}), the rest other tags' noise",
        bytes.len() as f64 / (1024.0 * 1024.0),
    );
    let path = Path::new("synth.logcat.txt");
    let rss_before = common::peak_rss_kib();
    // Best of N by CPU time of this thread (wall time when the platform has no thread clock).
    let mut best: Option<(f64, Option<f64>)> = None;
    let mut kept = 0usize;
    for _ in 0..repeat {
        let mut log = None;
        let t = common::timed(&mut || {
            let mut parser = LogParser::new(Role::Main);
            let mut b = LogBuilder::new(path, Role::Main);
            for chunk in bytes.chunks(64 * 1024) {
                parser.feed(chunk, &mut |e| b.push(e));
            }
            parser.finish(&mut |e| b.push(e));
            log = Some(b.finish(parser.crlf_lines()));
        });
        let Some(log) = log else { return };
        if log.lines.total != lines || log.window_count() != windows {
            eprintln!(
                "parse bench: parse disagrees: {} lines, {} windows",
                log.lines.total,
                log.window_count()
            );
            std::process::exit(3);
        }
        kept = log.window_count();
        let key = |x: &(f64, Option<f64>)| x.1.unwrap_or(x.0);
        if best.as_ref().is_none_or(|b| key(&t) < key(b)) {
            best = Some(t);
        }
    }
    let Some((wall, cpu)) = best else { return };
    let secs = cpu.unwrap_or(wall);
    let lps = lines as f64 / secs;
    let target = 1_000_000.0;
    println!(
        "parse + sessions (one thread, streamed in 64 KiB chunks, best of {repeat}): {} CPU s, {wall:.3} s wall",
        cpu.map_or_else(|| "n/a".to_string(), |c| format!("{c:.3}"))
    );
    println!(
        "stats_viewer {lps:.0} lines/s ({:.0} MB/s) per core vs target {target:.0} lines/s: {:.2}x the target",
        bytes.len() as f64 / secs / 1e6,
        lps / target
    );
    // Worst case: nothing but window lines (the parser alone, events dropped as they come).
    let dense_n = (lines / 10).max(1);
    let (dense, _) = synth::logcat(synth::SynthSpec {
        lines: dense_n,
        window_every: 1,
        ..Default::default()
    });
    let mut dense_best = f64::INFINITY;
    for _ in 0..repeat {
        let mut seen = 0usize;
        let (w, c) = common::timed(&mut || {
            let mut parser = LogParser::new(Role::Main);
            let mut count = |e: Event| {
                if matches!(e.kind, EventKind::Window(_)) {
                    seen += 1;
                }
            };
            for chunk in dense.chunks(64 * 1024) {
                parser.feed(chunk, &mut count);
            }
            parser.finish(&mut count);
        });
        if seen + 3 < dense_n {
            eprintln!("parse bench: {seen} windows parsed of {dense_n} lines");
            std::process::exit(3);
        }
        dense_best = dense_best.min(c.unwrap_or(w));
    }
    println!(
        "worst case, every line a push-build window line ({dense_n} lines, {:.0} B/line, parser only): {:.0} window lines/s ({:.0} MB/s)",
        dense.len() as f64 / dense_n as f64,
        dense_n as f64 / dense_best,
        dense.len() as f64 / dense_best / 1e6
    );
    end_to_end(&bytes, repeat);
    let per_window = std::mem::size_of::<stats_viewer::Window>()
        + 56 * std::mem::size_of::<stats_viewer::Field>();
    println!(
        "memory kept: {kept} windows (≈{:.1} MiB at ≈{per_window} B each); the input is streamed, never held by the parser",
        (kept * per_window) as f64 / (1024.0 * 1024.0)
    );
    if let (Some(b), Some(a)) = (rss_before, common::peak_rss_kib()) {
        println!(
            "peak RSS: {:.1} MiB before parsing (the generated log itself), {:.1} MiB after",
            b as f64 / 1024.0,
            a as f64 / 1024.0
        );
    }
    if lps < target {
        std::process::exit(1);
    }
}
