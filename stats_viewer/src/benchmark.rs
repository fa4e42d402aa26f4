//! `benchmark.json` of the trace-replay harness (spec §8, §9): frame-time arrays, the device's
//! summary fields, host-side percentiles (nearest rank, as upstream computes them) and best-of-N.

use std::path::{Path, PathBuf};

use serde_json::Value as Json;

use crate::error::Error;

/// One parsed `benchmark.json` (or `benchmark-run<i>.json`).
#[derive(Debug, Clone, PartialEq)]
pub struct BenchmarkFile {
    pub path: PathBuf,
    pub trace_path: Option<String>,
    pub backend: Option<String>,
    pub finish: Option<bool>,
    /// Raw fields as the device printed them; `None` when absent (the runner prints -1).
    pub total_frames: Option<f64>,
    pub tail_frames: Option<f64>,
    pub total_seconds: Option<f64>,
    pub mean_frame_ms: Option<f64>,
    pub median_frame_ms: Option<f64>,
    pub p95_frame_ms: Option<f64>,
    pub fps: Option<f64>,
    pub mean_cpu_ms: Option<f64>,
    pub median_cpu_ms: Option<f64>,
    pub p95_cpu_ms: Option<f64>,
    pub wall: Vec<f64>,
    /// Empty = no per-thread CPU clock on that platform (not the same claim as all zeros).
    pub cpu: Vec<f64>,
}

fn number(
    path: &Path,
    obj: &serde_json::Map<String, Json>,
    key: &str,
) -> Result<Option<f64>, Error> {
    match obj.get(key) {
        None | Some(Json::Null) => Ok(None),
        Some(Json::Number(n)) => match n.as_f64() {
            Some(v) if v.is_finite() => Ok(Some(v)),
            _ => Err(Error::BadField {
                path: path.to_path_buf(),
                field: key.into(),
                reason: format!("{n} is not a finite number"),
            }),
        },
        Some(other) => Err(Error::BadField {
            path: path.to_path_buf(),
            field: key.into(),
            reason: format!("expected a number, found {other}"),
        }),
    }
}

/// A frame count: a whole number from 0 to 2^53 (exact in a JSON double), never negative or
/// fractional (the runner reads it as an integer; `-1` is its own "absent" marker, not data).
fn frame_count(
    path: &Path,
    obj: &serde_json::Map<String, Json>,
    key: &str,
) -> Result<Option<f64>, Error> {
    let v = number(path, obj, key)?;
    match v {
        Some(x) if x < 0.0 || x.fract() != 0.0 || x > 9_007_199_254_740_992.0 => {
            Err(Error::BadField {
                path: path.to_path_buf(),
                field: key.into(),
                reason: format!("{x} is not a frame count (a whole number from 0 to 2^53)"),
            })
        }
        _ => Ok(v),
    }
}

fn series(
    path: &Path,
    obj: &serde_json::Map<String, Json>,
    key: &str,
    required: bool,
) -> Result<Vec<f64>, Error> {
    let arr = match obj.get(key) {
        Some(Json::Array(a)) => a,
        None if !required => return Ok(Vec::new()),
        None => {
            return Err(Error::BadField {
                path: path.to_path_buf(),
                field: key.into(),
                reason: "missing".into(),
            })
        }
        Some(other) => {
            return Err(Error::BadField {
                path: path.to_path_buf(),
                field: key.into(),
                reason: format!("expected an array, found {}", short(other)),
            })
        }
    };
    let mut out = Vec::with_capacity(arr.len());
    for (i, v) in arr.iter().enumerate() {
        let x = v
            .as_f64()
            .filter(|x| x.is_finite())
            .ok_or_else(|| Error::BadField {
                path: path.to_path_buf(),
                field: format!("{key}[{i}]"),
                reason: format!("{} is not a finite number", short(v)),
            })?;
        if x < 0.0 {
            return Err(Error::BadField {
                path: path.to_path_buf(),
                field: format!("{key}[{i}]"),
                reason: format!("negative frame time {x}"),
            });
        }
        out.push(x);
    }
    Ok(out)
}

fn short(v: &Json) -> String {
    let s = v.to_string();
    if s.len() > 40 {
        format!(
            "{}…",
            &s[..s.char_indices().nth(40).map_or(s.len(), |(i, _)| i)]
        )
    } else {
        s
    }
}

impl BenchmarkFile {
    pub fn parse(path: &Path, bytes: &[u8]) -> Result<BenchmarkFile, Error> {
        if bytes.contains(&0) {
            let line = bytes
                .iter()
                .take_while(|&&b| b != 0)
                .filter(|&&b| b == b'\n')
                .count()
                + 1;
            return Err(Error::Binary {
                path: path.to_path_buf(),
                line,
            });
        }
        let v: Json =
            serde_json::from_slice(bytes).map_err(|e| crate::error::json_error(path, &e))?;
        let Json::Object(obj) = &v else {
            return Err(Error::Json {
                path: path.to_path_buf(),
                line: 1,
                column: 1,
                reason: format!("expected an object, found {}", short(&v)),
            });
        };
        let string = |k: &str| obj.get(k).and_then(Json::as_str).map(str::to_string);
        Ok(BenchmarkFile {
            path: path.to_path_buf(),
            trace_path: string("tracePath"),
            backend: string("backend"),
            finish: obj.get("benchmarkFinish").and_then(Json::as_bool),
            total_frames: frame_count(path, obj, "totalFrames")?,
            tail_frames: frame_count(path, obj, "tailFrames")?,
            total_seconds: number(path, obj, "totalSeconds")?,
            mean_frame_ms: number(path, obj, "meanFrameMs")?,
            median_frame_ms: number(path, obj, "medianFrameMs")?,
            p95_frame_ms: number(path, obj, "p95FrameMs")?,
            fps: number(path, obj, "fps")?,
            mean_cpu_ms: number(path, obj, "meanFrameCpuMs")?,
            median_cpu_ms: number(path, obj, "medianFrameCpuMs")?,
            p95_cpu_ms: number(path, obj, "p95FrameCpuMs")?,
            wall: series(path, obj, "frameTimesMs", true)?,
            cpu: series(path, obj, "frameCpuTimesMs", false)?,
        })
    }

    /// The case name: the trace file's stem (`…/minecraft-26.3-vanilla-in-world.trace`).
    pub fn case(&self) -> String {
        self.trace_path
            .as_deref()
            .map(|p| {
                let name = p.rsplit(['/', '\\']).next().unwrap_or(p);
                name.strip_suffix(".trace").unwrap_or(name).to_string()
            })
            .unwrap_or_else(|| "?".into())
    }

    /// The tail length the runner uses for `series`: `tailFrames` if it is a positive integer ≤ the
    /// series length, else the whole series.
    pub fn tail_for(&self, len: usize, requested: Option<usize>) -> usize {
        if let Some(r) = requested {
            return r.min(len);
        }
        match self.tail_frames {
            Some(t) if t.fract() == 0.0 && t > 0.0 && t <= len as f64 => t as usize,
            _ => len,
        }
    }

    /// `format_benchmark` of `run_android_retrace_local.py`, byte for byte.
    pub fn runner_line(&self) -> String {
        let i = |v: Option<f64>| v.map_or_else(|| "-1".to_string(), |v| format!("{}", v as i64));
        let f = |v: Option<f64>, p: usize| format!("{:.p$}", v.unwrap_or(-1.0));
        let mut s = format!(
            "frames={} total={}s tail={} mean={}ms median={}ms p95={}ms fps={}",
            i(self.total_frames),
            f(self.total_seconds, 1),
            i(self.tail_frames),
            f(self.mean_frame_ms, 3),
            f(self.median_frame_ms, 3),
            f(self.p95_frame_ms, 3),
            f(self.fps, 1)
        );
        if self.cpu.is_empty() {
            s.push_str(" | cpu unavailable (no per-thread CPU clock in this run)");
        } else {
            let t = self.tail_for(self.cpu.len(), None);
            let w = &self.cpu[self.cpu.len() - t..];
            let st = SeriesStats::of(w);
            s.push_str(&format!(
                " | cpu mean={}ms p50={:.3}ms p95={}ms p99={:.3}ms",
                f(self.mean_cpu_ms, 3),
                st.as_ref().map_or(-1.0, |x| x.median),
                f(self.p95_cpu_ms, 3),
                st.as_ref().map_or(-1.0, |x| x.p99)
            ));
        }
        s
    }
}

/// Summary of one series window. Mean = sequential f64 sum / n; median = the middle value, or the
/// average of the two middles for even n; p95/p99 = nearest rank, rank = ceil(p·n/100), min 1.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct SeriesStats {
    pub n: usize,
    pub mean: f64,
    pub median: f64,
    pub p95: f64,
    pub p99: f64,
    pub min: f64,
    pub max: f64,
}

/// Nearest-rank rank for an integer percentile: ceil(p·n/100), at least 1.
pub fn nearest_rank(p: u64, n: usize) -> usize {
    let r = (p as u128 * n as u128).div_ceil(100) as usize;
    r.max(1)
}

impl SeriesStats {
    /// `None` for an empty series (never a silent zero).
    pub fn of(values: &[f64]) -> Option<SeriesStats> {
        if values.is_empty() {
            return None;
        }
        let n = values.len();
        let mut sum = 0.0;
        for v in values {
            sum += v;
        }
        let mut sorted = values.to_vec();
        sorted.sort_by(f64::total_cmp);
        let median = if n % 2 == 1 {
            sorted[n / 2]
        } else {
            0.5 * (sorted[n / 2 - 1] + sorted[n / 2])
        };
        Some(SeriesStats {
            n,
            mean: sum / n as f64,
            median,
            p95: sorted[nearest_rank(95, n) - 1],
            p99: sorted[nearest_rank(99, n) - 1],
            min: sorted[0],
            max: sorted[n - 1],
        })
    }
}

/// Best of N as the runner picks it: the lowest wall `meanFrameMs`, where ≤ 0 (or absent) counts as
/// +∞; ties go to the earliest. Returns the index into `runs`.
pub fn best_of(runs: &[BenchmarkFile]) -> Option<usize> {
    let key = |r: &BenchmarkFile| match r.mean_frame_ms {
        Some(m) if m > 0.0 => m,
        _ => f64::INFINITY,
    };
    let mut best: Option<usize> = None;
    for (i, r) in runs.iter().enumerate() {
        if best.is_none_or(|b| key(r) < key(&runs[b])) {
            best = Some(i);
        }
    }
    best
}

/// The run number of `benchmark-run<i>.json`, if the name has one.
pub fn run_number(path: &Path) -> Option<u32> {
    let name = path.file_name()?.to_str()?;
    name.strip_prefix("benchmark-run")?
        .strip_suffix(".json")?
        .parse()
        .ok()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn nearest_rank_vectors() {
        assert_eq!(nearest_rank(99, 200), 198);
        assert_eq!(nearest_rank(95, 200), 190);
        assert_eq!(nearest_rank(99, 1), 1);
        assert_eq!(nearest_rank(0, 10), 1);
        assert_eq!(nearest_rank(100, 10), 10);
        assert_eq!(nearest_rank(50, 2), 1);
        assert_eq!(nearest_rank(99, 101), 100);
        for n in 1..=5000usize {
            for p in [50u64, 95, 99] {
                let f = ((p as f64 / 100.0) * n as f64).ceil().max(1.0) as usize;
                assert_eq!(nearest_rank(p, n), f, "p{p} n={n}");
            }
        }
    }

    #[test]
    fn stats_rules() {
        let s = SeriesStats::of(&[4.0, 1.0, 3.0, 2.0]).unwrap();
        assert_eq!((s.median, s.mean, s.p95, s.p99), (2.5, 2.5, 4.0, 4.0));
        assert!(SeriesStats::of(&[]).is_none());
    }

    #[test]
    fn bad_json() {
        let p = Path::new("b.json");
        let e = BenchmarkFile::parse(p, b"{\n \"frameTimesMs\": [1.0, NaN]\n}")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("b.json:2:"), "{e}");
        let e = BenchmarkFile::parse(p, b"{\"frameTimesMs\": [1.0, 2")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("b.json:1:"), "{e}");
        let e = BenchmarkFile::parse(p, b"{\"frameTimesMs\": [1e999]}")
            .unwrap_err()
            .to_string();
        assert!(e.contains("b.json"), "{e}");
        let e = BenchmarkFile::parse(p, b"{\"fps\": 1}")
            .unwrap_err()
            .to_string();
        assert_eq!(e, "b.json: frameTimesMs: missing");
        let e = BenchmarkFile::parse(p, b"[1]").unwrap_err().to_string();
        assert!(e.contains("expected an object"), "{e}");
        let e = BenchmarkFile::parse(p, b"{\"frameTimesMs\": [1, \"x\"]}")
            .unwrap_err()
            .to_string();
        assert!(e.contains("frameTimesMs[1]"), "{e}");
    }
}
