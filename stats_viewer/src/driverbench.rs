//! DriverBench output (spec §10): CSV rows found by their header, repeated headers and stderr noise
//! allowed; per case the median `ns_per_op` over repeats with min and n; the T1/T2 decomposition.

use std::path::{Path, PathBuf};

use crate::error::Error;

pub const HEADER: &str = "case,frames,ops_per_frame,median_frame_ms,ns_per_op,fps";

/// One CSV row.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub line: usize,
    pub case: String,
    pub frames: u64,
    pub ops_per_frame: u64,
    pub median_frame_ms: f64,
    pub ns_per_op: f64,
    pub fps: f64,
}

/// One DriverBench output file (one arm, any number of repeats).
#[derive(Debug, Clone, PartialEq)]
pub struct BenchOutput {
    pub path: PathBuf,
    pub rows: Vec<Row>,
    pub headers: usize,
    /// Lines that are neither a header nor a row (stderr captured with `2>&1`, blank lines).
    pub noise: usize,
}

/// Per-case aggregate over repeats.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct CaseStats {
    pub case: String,
    pub n: usize,
    /// `statistics.median`: the average of the two middles for an even count.
    pub median: f64,
    pub min: f64,
    pub max: f64,
}

impl BenchOutput {
    pub fn parse(path: &Path, bytes: &[u8]) -> Result<BenchOutput, Error> {
        let mut out = BenchOutput {
            path: path.to_path_buf(),
            rows: Vec::new(),
            headers: 0,
            noise: 0,
        };
        let mut in_table = false;
        for (i, raw) in bytes.split(|&b| b == b'\n').enumerate() {
            let line_no = i + 1;
            if raw.contains(&0) {
                return Err(Error::Binary {
                    path: path.to_path_buf(),
                    line: line_no,
                });
            }
            let line = match std::str::from_utf8(raw) {
                Ok(s) => std::borrow::Cow::Borrowed(s),
                Err(_) => String::from_utf8_lossy(raw),
            };
            let line = line.trim();
            if line == HEADER {
                out.headers += 1;
                in_table = true;
                continue;
            }
            // Six columns, counted without collecting the line's fields.
            let mut cols = [""; 6];
            let mut n = 0;
            for c in line.split(',') {
                if let Some(slot) = cols.get_mut(n) {
                    *slot = c;
                }
                n += 1;
            }
            if !in_table || n != 6 {
                if !line.is_empty() {
                    out.noise += 1;
                }
                continue;
            }
            let bad = |what: &str| Error::BadLine {
                path: path.to_path_buf(),
                line: line_no,
                reason: format!("DriverBench row: {what} in `{line}`"),
            };
            let int = |s: &str, what: &str| {
                s.trim()
                    .parse::<u64>()
                    .map_err(|_| bad(&format!("{what} `{s}` is not an integer")))
            };
            let float = |s: &str, what: &str| {
                s.trim()
                    .parse::<f64>()
                    .ok()
                    .filter(|v| v.is_finite())
                    .ok_or_else(|| bad(&format!("{what} `{s}` is not a finite number")))
            };
            out.rows.push(Row {
                line: line_no,
                case: cols[0].trim().to_string(),
                frames: int(cols[1], "frames")?,
                ops_per_frame: int(cols[2], "ops_per_frame")?,
                median_frame_ms: float(cols[3], "median_frame_ms")?,
                ns_per_op: float(cols[4], "ns_per_op")?,
                fps: float(cols[5], "fps")?,
            });
        }
        if out.headers == 0 {
            return Err(Error::Empty {
                path: path.to_path_buf(),
                reason: format!("no DriverBench header `{HEADER}` found"),
            });
        }
        Ok(out)
    }

    /// Cases in first-seen order with their repeat statistics.
    pub fn cases(&self) -> Vec<CaseStats> {
        // First-seen order, found by a map: linear in the rows (100,000 cases per arm).
        let mut order: Vec<(String, Vec<f64>)> = Vec::new();
        let mut index: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
        for r in &self.rows {
            match index.get(r.case.as_str()) {
                Some(&i) => order[i].1.push(r.ns_per_op),
                None => {
                    index.insert(r.case.as_str(), order.len());
                    order.push((r.case.clone(), vec![r.ns_per_op]));
                }
            }
        }
        order
            .into_iter()
            .map(|(case, mut v)| {
                v.sort_by(f64::total_cmp);
                let n = v.len();
                let median = if n % 2 == 1 {
                    v[n / 2]
                } else {
                    (v[n / 2 - 1] + v[n / 2]) / 2.0
                };
                CaseStats {
                    case,
                    n,
                    median,
                    min: v[0],
                    max: v[n - 1],
                }
            })
            .collect()
    }
}

/// The arm name of a file: `NAME=PATH` was split by the caller; else the file stem without a
/// `driverbench-` prefix and a one-letter `A-`/`B-` label (`driverbench-A-espryt-pull.csv` → `espryt-pull`).
pub fn arm_name(path: &Path) -> String {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let s = stem.strip_prefix("driverbench-").unwrap_or(&stem);
    let b = s.as_bytes();
    if b.len() > 2 && b[0].is_ascii_alphabetic() && b[1] == b'-' {
        return s[2..].to_string();
    }
    s.to_string()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn rows_after_headers_and_noise() {
        let text = b"EGL 1.5 via x\ncase,frames,ops_per_frame,median_frame_ms,ns_per_op,fps\na,240,8,1.0,10.0,1.0\nWARN: GL error after a\ncase,frames,ops_per_frame,median_frame_ms,ns_per_op,fps\na,240,8,1.0,30.0,1.0\n";
        let o = BenchOutput::parse(Path::new("x.txt"), text).unwrap();
        assert_eq!((o.rows.len(), o.headers, o.noise), (2, 2, 2));
        let c = o.cases();
        assert_eq!((c[0].median, c[0].min, c[0].n), (20.0, 10.0, 2));
        let e = BenchOutput::parse(
            Path::new("x.txt"),
            b"case,frames,ops_per_frame,median_frame_ms,ns_per_op,fps\na,x,8,1,1,1\n",
        )
        .unwrap_err();
        assert!(
            e.to_string()
                .starts_with("x.txt:2: DriverBench row: frames"),
            "{e}"
        );
        assert!(BenchOutput::parse(Path::new("x.txt"), b"garbage\n").is_err());
        assert_eq!(
            arm_name(Path::new("d/driverbench-A-espryt-pull.csv")),
            "espryt-pull"
        );
        assert_eq!(arm_name(Path::new("magma-push.txt")), "magma-push");
    }
}
