//! The runner's results: one `result.json` per case and backend, in
//! `<result root>/<safe_case>-<backend>/result.json` (upstream
//! `tools/trace_replay/run_android_retrace_local.py` `RESULT_ROOT`, `mark_skipped`, and
//! `android-plugin/trace-replay-ci.sh` `run_retrace`, which pulls the device's `result.json`).
//!
//! Fields read: `passed` (bool), `statusCode` (2 = skipped by the runner), `message`
//! (`SKIPPED_LFS_POINTER: …`, `SKIPPED_MISSING_APK: …`), `backend`, `ssim` (a number; `-1` when
//! skipped; `null` or absent when the replay produced no comparison), `ssimThreshold`, and the
//! provenance the run was made from: `tracePath`, `goldenPath`, `targetCall`, `width`, `height`,
//! `cropX`, `cropY`, `cropWidth`, `cropHeight`. Other fields are kept, not interpreted.

use serde_json::{Map, Value};

/// The `ssim` of a result.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Ssim {
    /// No `ssim` key.
    Absent,
    /// `null` (Python's `None`), or not a finite number.
    None,
    Value(f64),
}

/// One parsed `result.json`.
#[derive(Debug, Clone, PartialEq)]
pub struct RunResult {
    pub passed: Option<bool>,
    pub status_code: Option<i64>,
    pub message: String,
    pub backend: Option<String>,
    pub ssim: Ssim,
    pub ssim_threshold: Option<f64>,
    pub fields: Map<String, Value>,
}

/// The message prefix of a case the runner skipped because a fixture was an LFS pointer.
pub const SKIPPED_LFS: &str = "SKIPPED_LFS_POINTER";

impl RunResult {
    /// The runner skipped it (`statusCode` 2 or a `SKIPPED_` message): it was never replayed.
    pub fn skipped(&self) -> bool {
        self.status_code == Some(2) || self.message.starts_with("SKIPPED_")
    }

    /// The runner skipped it because a fixture was an LFS pointer.
    pub fn skipped_lfs(&self) -> bool {
        self.message.starts_with(SKIPPED_LFS)
    }
}

/// Why a result file is not a runner `result.json`; both name the file.
#[derive(Debug, thiserror::Error)]
pub enum ResultError {
    #[error("{rel}: not a runner result.json: {reason}")]
    NotJson {
        rel: String,
        reason: serde_json::Error,
    },
    #[error("{rel}: not a runner result.json: not a JSON object")]
    NotAnObject { rel: String },
}

/// Parses one result file.
pub fn parse(rel: &str, bytes: &[u8]) -> Result<RunResult, ResultError> {
    // Python's json.dumps writes a NaN SSIM (a constant image) as a bare `NaN`, which is not JSON:
    // read it, and `Infinity`, as null, so it is "ssim=None", not an unreadable file.
    let v: Value = serde_json::from_slice(bytes)
        .or_else(|e| serde_json::from_slice(&python_non_finite_as_null(bytes)).map_err(|_| e))
        .map_err(|reason| ResultError::NotJson {
            rel: rel.to_string(),
            reason,
        })?;
    let Value::Object(fields) = v else {
        return Err(ResultError::NotAnObject {
            rel: rel.to_string(),
        });
    };
    let ssim = match fields.get("ssim") {
        None => Ssim::Absent,
        Some(v) => match v.as_f64() {
            Some(x) if x.is_finite() => Ssim::Value(x),
            _ => Ssim::None,
        },
    };
    Ok(RunResult {
        passed: fields.get("passed").and_then(Value::as_bool),
        status_code: fields.get("statusCode").and_then(Value::as_i64),
        message: fields
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string(),
        backend: fields
            .get("backend")
            .and_then(Value::as_str)
            .map(str::to_string),
        ssim,
        ssim_threshold: fields.get("ssimThreshold").and_then(Value::as_f64),
        fields,
    })
}

/// `bytes` with the bare `NaN`, `Infinity` and `-Infinity` tokens Python writes outside strings
/// replaced by `null`.
fn python_non_finite_as_null(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    let (mut i, mut in_str, mut esc) = (0, false, false);
    while i < bytes.len() {
        let b = bytes[i];
        if in_str {
            out.push(b);
            match (esc, b) {
                (true, _) => esc = false,
                (false, b'\\') => esc = true,
                (false, b'"') => in_str = false,
                _ => {}
            }
            i += 1;
            continue;
        }
        let rest = &bytes[i..];
        if let Some(tok) = [&b"-Infinity"[..], b"Infinity", b"NaN"]
            .into_iter()
            .find(|t| rest.starts_with(t))
        {
            out.extend_from_slice(b"null");
            i += tok.len();
            continue;
        }
        in_str = b == b'"';
        out.push(b);
        i += 1;
    }
    out
}

/// The file name of a path the runner recorded (Windows or POSIX separators).
pub fn base_name(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

/// Result-key / case-list-key pairs of the numbers a run was made from.
pub const PROVENANCE_NUMBERS: [(&str, &str); 7] = [
    ("targetCall", "target_call"),
    ("width", "width"),
    ("height", "height"),
    ("cropX", "crop_x"),
    ("cropY", "crop_y"),
    ("cropWidth", "crop_width"),
    ("cropHeight", "crop_height"),
];

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn the_runner_shapes_parse() {
        let skipped = br#"{"passed": false, "statusCode": 2, "message": "SKIPPED_LFS_POINTER: trace archive is missing or still an LFS pointer", "backend": "DirectGLES", "ssim": -1, "ssimThreshold": 0.99}"#;
        let r = parse("r.json", skipped).unwrap();
        assert!(r.skipped() && r.skipped_lfs());
        assert_eq!(r.ssim, Ssim::Value(-1.0));
        let none = parse("r.json", br#"{"passed": false, "ssim": null}"#).unwrap();
        assert_eq!(none.ssim, Ssim::None);
        assert_eq!(parse("r.json", b"{}").unwrap().ssim, Ssim::Absent);
        let nan = parse("r.json", br#"{"message": "NaN \" Infinity", "ssim": NaN}"#).unwrap();
        assert_eq!(
            (nan.ssim, nan.message.as_str()),
            (Ssim::None, "NaN \" Infinity")
        );
        assert_eq!(
            parse("r.json", br#"{"ssim": -Infinity}"#).unwrap().ssim,
            Ssim::None
        );
        assert!(parse("r.json", b"[1]")
            .unwrap_err()
            .to_string()
            .contains("not a JSON object"));
        assert_eq!(base_name("C:\\w\\fixtures\\openra.png"), "openra.png");
        assert_eq!(base_name("/w/fixtures/openra.png"), "openra.png");
    }
}
