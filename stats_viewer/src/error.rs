//! The crate's error type: every variant names the file and, where there is one, the position.

use std::path::PathBuf;

/// A serde_json error as `path:line:column: not valid JSON: reason`.
pub(crate) fn json_error(path: &std::path::Path, e: &serde_json::Error) -> Error {
    let text = e.to_string();
    Error::Json {
        path: path.to_path_buf(),
        line: e.line(),
        column: e.column(),
        reason: text
            .split(" at line ")
            .next()
            .unwrap_or_default()
            .to_string(),
    }
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{}:{line}: binary data (NUL byte), not a text log", .path.display())]
    Binary { path: PathBuf, line: usize },
    #[error("{}: no `MGPipe stats:` window found in {}", .path.display(), .path.display())]
    NoWindow { path: PathBuf },
    #[error("{}: no complete `MGPipe stats:` window (window == period) in the last session (session {session}, line {line})", .path.display())]
    NoCompleteWindow {
        path: PathBuf,
        session: usize,
        line: usize,
    },
    #[error("{}:{line}:{column}: not valid JSON: {reason}", .path.display())]
    Json {
        path: PathBuf,
        line: usize,
        column: usize,
        reason: String,
    },
    #[error("{}: {field}: {reason}", .path.display())]
    BadField {
        path: PathBuf,
        field: String,
        reason: String,
    },
    #[error("{}:{line}: {reason}", .path.display())]
    BadLine {
        path: PathBuf,
        line: usize,
        reason: String,
    },
    #[error("{}:{line}: read error: {reason}", .path.display())]
    Read {
        path: PathBuf,
        line: usize,
        reason: String,
    },
    #[error("{}: {reason}", .path.display())]
    Empty { path: PathBuf, reason: String },
    #[error("{}:{line}: steady-state range {range} is invalid: {reason}", .path.display())]
    BadRange {
        path: PathBuf,
        line: usize,
        range: String,
        reason: String,
    },
}
