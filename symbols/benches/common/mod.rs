//! Measurement helpers shared by the `symbols` benches: best-of-N / median wall time, this
//! process's CPU time and peak RSS, and one external tool run under GNU time.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

/// Peak resident set of this process so far (VmHWM), in MiB.
pub fn own_peak_rss_mib() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let kb: f64 = s
        .lines()
        .find(|l| l.starts_with("VmHWM:"))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()?;
    Some(kb / 1024.0)
}

/// CPU time (user + system) this process has used so far, in ms (Linux; 10 ms ticks).
pub fn own_cpu_ms() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/self/stat").ok()?;
    let rest = s.rsplit_once(')')?.1;
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?;
    Some(ticks * 10.0)
}

pub fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(0.0)
}

/// What GNU time measured for one tool run: peak RSS (MiB) and CPU time (ms).
#[derive(Default, Clone, Copy)]
pub struct ToolCost {
    pub rss_mib: Option<f64>,
    pub cpu_ms: Option<f64>,
}

impl ToolCost {
    /// The larger peak RSS and the summed CPU time of two runs.
    pub fn combine(self, b: ToolCost) -> ToolCost {
        let max = |x: Option<f64>, y: Option<f64>| x.into_iter().chain(y).reduce(f64::max);
        let sum = |x: Option<f64>, y: Option<f64>| x.into_iter().chain(y).reduce(|p, q| p + q);
        ToolCost {
            rss_mib: max(self.rss_mib, b.rss_mib),
            cpu_ms: sum(self.cpu_ms, b.cpu_ms),
        }
    }
}

/// Run a tool (under `/usr/bin/time` when `rss`), feeding `input` on stdin; its stdout.
pub fn run_tool(
    cmd: &mut Command,
    input: Option<String>,
    rss: bool,
) -> Result<(Vec<u8>, ToolCost), String> {
    let mut full = if rss && Path::new("/usr/bin/time").exists() {
        let mut t = Command::new("/usr/bin/time");
        t.arg("-f")
            .arg("MGCTL_MAXRSS=%M MGCTL_CPU=%U %S")
            .arg(cmd.get_program())
            .args(cmd.get_args());
        t
    } else {
        let mut c = Command::new(cmd.get_program());
        c.args(cmd.get_args());
        c
    };
    full.stdin(if input.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    })
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
    let mut child = full
        .spawn()
        .map_err(|e| format!("cannot run {:?}: {e}", cmd.get_program()))?;
    let writer = match (input, child.stdin.take()) {
        (Some(text), Some(mut stdin)) => {
            Some(std::thread::spawn(move || stdin.write_all(text.as_bytes())))
        }
        _ => None,
    };
    let o = child.wait_with_output().map_err(|e| e.to_string())?;
    if let Some(w) = writer {
        let _ = w.join();
    }
    if !o.status.success() {
        return Err(format!(
            "{:?} failed: {}",
            cmd.get_program(),
            String::from_utf8_lossy(&o.stderr).trim()
        ));
    }
    let err = String::from_utf8_lossy(&o.stderr);
    let line = err
        .lines()
        .find(|l| l.starts_with("MGCTL_MAXRSS="))
        .unwrap_or("");
    let mut cost = ToolCost::default();
    if let Some((rss, cpu)) = line
        .strip_prefix("MGCTL_MAXRSS=")
        .and_then(|r| r.split_once(" MGCTL_CPU="))
    {
        cost.rss_mib = rss.trim().parse::<f64>().ok().map(|kb| kb / 1024.0);
        let secs: Option<f64> = cpu.split_whitespace().map(|x| x.parse::<f64>().ok()).sum();
        cost.cpu_ms = secs.map(|s| s * 1000.0);
    }
    Ok((o.stdout, cost))
}

/// `load average L on N cores` (a busy machine overstates every wall figure).
pub fn load_line() -> Option<String> {
    let load = std::fs::read_to_string("/proc/loadavg").ok()?;
    let l1 = load.split_whitespace().next().unwrap_or("?").to_string();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    Some(format!(
        "  load average {l1} on {cores} cores (wall figures from a busy machine overstate both sides)"
    ))
}
