//! Measurement helpers shared by this crate's benchmarks (Linux `/proc`; `None` elsewhere).
#![allow(dead_code)]

use std::time::Instant;

/// CPU time of the calling thread in nanoseconds (`/proc/thread-self/schedstat`), so a thread can
/// measure itself (a loaded machine does not deflate a one-core figure).
pub fn thread_cpu_ns() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    s.split_whitespace().next()?.parse().ok()
}

/// CPU time of the whole process (user + system) in nanoseconds: `/proc/self/stat` fields 14 and
/// 15 are in clock ticks of `USER_HZ`, which Linux fixes at 100 for user space.
pub fn process_cpu_ns() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/stat").ok()?;
    let after = s.rsplit_once(')')?.1;
    let f: Vec<&str> = after.split_whitespace().collect();
    // after ')' the fields start at field 3 (state): utime is field 14 → index 11.
    let ut: u64 = f.get(11)?.parse().ok()?;
    let st: u64 = f.get(12)?.parse().ok()?;
    Some((ut + st) * 10_000_000)
}

/// Peak resident set (VmHWM) of this process in KiB.
pub fn peak_rss_kib() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let l = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    l.split_whitespace().nth(1)?.parse().ok()
}

/// Current resident set (VmRSS) of this process in KiB.
pub fn rss_kib() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let l = s.lines().find(|l| l.starts_with("VmRSS:"))?;
    l.split_whitespace().nth(1)?.parse().ok()
}

/// Runs `f`, returning (wall seconds, CPU seconds of this thread if known).
pub fn timed(f: &mut dyn FnMut()) -> (f64, Option<f64>) {
    let c0 = thread_cpu_ns();
    let t = Instant::now();
    f();
    let wall = t.elapsed().as_secs_f64();
    let cpu = match (c0, thread_cpu_ns()) {
        (Some(a), Some(b)) if b > a => Some((b - a) as f64 / 1e9),
        _ => None,
    };
    (wall, cpu)
}

/// `--name VALUE` from the benchmark's arguments (after `cargo bench … --`), parsed.
pub fn arg<T: std::str::FromStr>(name: &str, default: T) -> T {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Whether `--name` is among the benchmark's arguments.
pub fn flag(name: &str) -> bool {
    std::env::args().any(|a| a == name)
}
