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

#[derive(Debug, Clone, thiserror::Error)]
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
    /// `stats frames`: a marker row the script cannot read (a field missing or not an integer).
    #[error("{}:{line}: malformed {marker} row: {reason}", .path.display())]
    FrameRow {
        path: PathBuf,
        line: usize,
        marker: &'static str,
        reason: String,
    },
    /// `stats frames`: the same frame id twice in one role log.
    #[error("{}:{line}: duplicate frame {frame} (first at line {first_line})", .path.display())]
    DuplicateFrame {
        path: PathBuf,
        line: usize,
        frame: i64,
        first_line: usize,
    },
    /// `stats frames`: clocks the script rejects (non-positive, or CPU or transport wait beyond
    /// the wall time plus its tolerance).
    #[error("{}:{line}: invalid clocks in frame {frame}: {reason}", .path.display())]
    InvalidClocks {
        path: PathBuf,
        line: usize,
        frame: i64,
        reason: String,
    },
    /// `stats frames`: a role log without one usable frame row.
    #[error("{}: no usable {marker} frames ({reason})", .path.display())]
    NoFrames {
        path: PathBuf,
        marker: &'static str,
        reason: String,
    },
    /// `stats frames`: warmup and tail left no client frame.
    #[error("{}: no frames remain after warmup/tail selection ({reason})", .path.display())]
    EmptySelection { path: PathBuf, reason: String },
    /// `stats frames`: a gap in the selected client frame ids.
    #[error("{}:{line}: selected client frame IDs are not contiguous: frame {frame} follows frame {previous} (line {previous_line})", .path.display())]
    FrameGap {
        path: PathBuf,
        line: usize,
        frame: i64,
        previous: i64,
        previous_line: usize,
    },
    /// `stats frames`: selected client frames the server log has no usable row for.
    #[error("{0}")]
    MissingServerFrames(Box<MissingFrames>),
}

/// The selected client frames without a usable server row (boxed in [`Error`]: it is large).
#[derive(Debug, Clone)]
pub struct MissingFrames {
    pub server: PathBuf,
    pub client: PathBuf,
    /// The missing ids in order.
    pub frames: Vec<i64>,
    /// The client line of the first one.
    pub client_line: usize,
    /// The server's unusable row for the first one (line, `valid=…`), when it has one.
    pub invalid_row: Option<(usize, String)>,
}

impl std::fmt::Display for MissingFrames {
    /// `server.log: server is missing matched frames: [3, 4]; frame 3 is client.log:3` (the script's
    /// list of at most ten, then the total when longer, and the server's unusable row for it).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let ids: Vec<String> = self.frames.iter().take(10).map(i64::to_string).collect();
        write!(
            f,
            "{}: server is missing matched frames: [{}]",
            self.server.display(),
            ids.join(", ")
        )?;
        if self.frames.len() > 10 {
            write!(f, " ({} in all)", self.frames.len())?;
        }
        if let Some(first) = self.frames.first() {
            write!(
                f,
                "; frame {first} is {}:{}",
                self.client.display(),
                self.client_line
            )?;
        }
        if let Some((line, valid)) = &self.invalid_row {
            write!(
                f,
                ", and {}:{line} has it with {valid}",
                self.server.display()
            )?;
        }
        Ok(())
    }
}
