//! `cargo bench -p mgctl --bench scaling [-- --base N]`: runs the REAL (bench-profile, optimised)
//! `mgctl` binary end to end at 1x, 4x and 16x its input and prints wall time and peak RSS
//! against the input ratio, next to the I/O floor `grep -c 'MGPipe stats:'` on the same file.
//! Linear cost means time ratio ≈ input ratio (the issue-16 bar: 16x input ≤ 24x time).
//!
//! Inputs are generated in a temporary directory: logcat captures by windows (one session, 1 window
//! line in 10) and by lines (a fixed window count, more noise), DriverBench arms by cases, and the
//! TUI snapshot (`stats watch --once`) by history length. Peak RSS comes from `/usr/bin/time -f %M`
//! when it is installed (else "n/a"). Total run time is bounded (about a minute at the default base).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

struct Measured {
    secs: f64,
    rss_kib: Option<u64>,
}

fn mgctl() -> &'static str {
    env!("CARGO_BIN_EXE_mgctl")
}

/// Best of `reps` wall times of `program args` (stdout discarded), with its peak RSS.
fn run(program: &str, args: &[&str], dir: &Path, reps: usize) -> Measured {
    let time = Path::new("/usr/bin/time");
    let mut best = Measured {
        secs: f64::INFINITY,
        rss_kib: None,
    };
    for _ in 0..reps {
        let rss_file = dir.join("rss.txt");
        let mut cmd = if time.is_file() {
            let mut c = Command::new(time);
            c.arg("-f").arg("%M").arg("-o").arg(&rss_file).arg(program);
            c
        } else {
            Command::new(program)
        };
        cmd.args(args)
            .current_dir(dir)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        let t = Instant::now();
        let status = cmd.status();
        let secs = t.elapsed().as_secs_f64();
        if let Err(e) = status {
            panic!("scaling: cannot run {program}: {e}");
        }
        let rss = std::fs::read_to_string(&rss_file)
            .ok()
            .and_then(|s| s.lines().last().and_then(|l| l.trim().parse().ok()));
        if secs < best.secs {
            best = Measured { secs, rss_kib: rss };
        }
    }
    best
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    if let Err(e) = std::fs::write(&p, bytes) {
        panic!("scaling: cannot write {}: {e}", p.display());
    }
    p
}

fn logcat(lines: usize, window_every: usize) -> Vec<u8> {
    stats_viewer::synth::logcat(stats_viewer::synth::SynthSpec {
        lines,
        window_every,
        ..Default::default()
    })
    .0
}

/// A DriverBench arm: `cases` cases, one row each.
fn driverbench(cases: usize, ns: f64) -> Vec<u8> {
    let mut s = String::from("case,frames,ops_per_frame,median_frame_ms,ns_per_op,fps\n");
    for i in 0..cases {
        s.push_str(&format!(
            "case_{i},240,100,1.000,{:.1},60.0\n",
            ns + (i % 97) as f64
        ));
    }
    s.into_bytes()
}

fn mib(k: Option<u64>) -> String {
    k.map_or_else(|| "n/a".into(), |k| format!("{:.1}", k as f64 / 1024.0))
}

struct Row {
    what: String,
    ratio: usize,
    input: String,
    m: Measured,
    reference: Option<Measured>,
}

fn print(rows: &[Row]) {
    println!(
        "{:<36} {:>5} {:>22} {:>9} {:>8} {:>9} {:>10}",
        "command (input)", "ratio", "input", "time s", "t/t(1x)", "RSS MiB", "grep -c s"
    );
    let mut base: Option<f64> = None;
    let mut last_what = String::new();
    for r in rows {
        if r.what != last_what {
            base = None;
            last_what = r.what.clone();
        }
        let b = *base.get_or_insert(r.m.secs);
        println!(
            "{:<36} {:>4}x {:>22} {:>9.3} {:>7.1}x {:>9} {:>10}",
            r.what,
            r.ratio,
            r.input,
            r.m.secs,
            r.m.secs / b.max(1e-9),
            mib(r.m.rss_kib),
            r.reference
                .as_ref()
                .map_or_else(|| "—".into(), |g| format!("{:.3}", g.secs))
        );
    }
}

fn main() {
    let base: usize = std::env::args()
        .skip_while(|a| a != "--base")
        .nth(1)
        .and_then(|v| v.parse().ok())
        .unwrap_or(62_500);
    let dir = match tempfile::tempdir() {
        Ok(d) => d,
        Err(e) => {
            eprintln!("scaling: no temporary directory: {e}");
            std::process::exit(2);
        }
    };
    let d = dir.path();
    let bin = mgctl();
    let mut rows = Vec::new();
    println!("mgctl end to end ({bin}), best of 2; base {base} log lines");
    for ratio in [1usize, 4, 16] {
        // By windows: one session, 1 line in 10 a window (16x: 1,000,000 lines, 100,000 windows).
        let lines = base * ratio;
        let p = write(d, "windows.log", &logcat(lines, 10));
        let name = p.to_string_lossy().into_owned();
        let m = run(bin, &["stats", "summary", &name], d, 2);
        let g = run("grep", &["-c", "MGPipe stats:", &name], d, 2);
        rows.push(Row {
            what: "stats summary (by windows)".into(),
            ratio,
            input: format!("{lines} l / {} w", lines / 10),
            m,
            reference: Some(g),
        });
    }
    for ratio in [1usize, 4, 16] {
        // By lines: the same windows among more and more noise.
        let lines = base * ratio;
        let p = write(d, "lines.log", &logcat(lines, 10 * ratio));
        let name = p.to_string_lossy().into_owned();
        let m = run(bin, &["stats", "summary", &name], d, 2);
        let g = run("grep", &["-c", "MGPipe stats:", &name], d, 2);
        rows.push(Row {
            what: "stats summary (by lines)".into(),
            ratio,
            input: format!("{lines} l / {} w", base / 10),
            m,
            reference: Some(g),
        });
    }
    for ratio in [1usize, 4, 16] {
        // DriverBench by cases: two arms (pull, push); 16x = 100,000 cases per arm.
        let cases = base / 10 * ratio;
        let a = write(d, "espryt-pull.csv", &driverbench(cases, 1000.0));
        let b = write(d, "espryt-push.csv", &driverbench(cases, 900.0));
        let (a, b) = (
            a.to_string_lossy().into_owned(),
            b.to_string_lossy().into_owned(),
        );
        let m = run(bin, &["bench", "driver", &a, &b], d, 2);
        rows.push(Row {
            what: "bench driver (cases per arm)".into(),
            ratio,
            input: format!("{cases} cases"),
            m,
            reference: None,
        });
    }
    // The TUI snapshot by history length, over the 16x windows log (100,000 windows).
    let p = write(d, "windows.log", &logcat(base * 16, 10));
    let name = p.to_string_lossy().into_owned();
    for ratio in [1usize, 4, 16] {
        let history = base / 10 * ratio;
        let h = history.to_string();
        let m = run(
            bin,
            &["stats", "watch", "--once", "--history", &h, &name],
            d,
            2,
        );
        rows.push(Row {
            what: "stats watch --once (--history)".into(),
            ratio,
            input: format!("{history} windows"),
            m,
            reference: None,
        });
    }
    print(&rows);
    println!("not covered here yet: citations, dirty-surface, include graph, symbols");
}
