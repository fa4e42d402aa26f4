//! The crate's one error type. Every variant names the file and, where there is one, the position.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{}: scan root does not exist or is not a directory", .path.display())]
    MissingRoot { path: PathBuf },
    #[error("{}: missing file ({what})", .path.display())]
    MissingFile { path: PathBuf, what: &'static str },
    #[error("{}: cannot read: {source}", .path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}:{line}: malformed row: expected {expected}, found `{found}`", .path.display())]
    BadRow {
        path: PathBuf,
        line: usize,
        expected: &'static str,
        found: String,
    },
    #[error("{}:{line}: {message}", .path.display())]
    Tracker {
        path: PathBuf,
        line: usize,
        message: String,
    },
    #[error("{}: {message}", .path.display())]
    Derivation { path: PathBuf, message: String },
    #[error("invalid prefix set: {0}")]
    Config(String),
    #[error("[dirty_surface]: set `prefixes` or `prefix_set`, not both")]
    BothPrefixes,
    #[error("[dirty_surface]: unknown prefix_set `{set}` (expected P0, P1, P2, P3a, P4a or P5e)")]
    UnknownPrefixSet { set: String },
}

pub type Result<T> = std::result::Result<T, Error>;
