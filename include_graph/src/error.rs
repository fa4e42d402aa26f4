//! The one error type of the crate; every variant names the file and, where known, the position.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{}: cannot read: {source}", .path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}: not a directory (include root or search directory)", .path.display())]
    NotADir { path: PathBuf },
    #[error("{}:{line}:{column}: malformed compile_commands.json: {reason}", .path.display())]
    CompDb {
        path: PathBuf,
        line: usize,
        column: usize,
        reason: String,
    },
    #[error("{}: entry {index}: {reason}", .path.display())]
    CompDbEntry {
        path: PathBuf,
        index: usize,
        reason: String,
    },
    #[error("{}: file is not in the include graph", .path.display())]
    NotInGraph { path: PathBuf },
    #[error("{}:{line}: {reason}", .path.display())]
    Rule {
        path: PathBuf,
        line: usize,
        reason: String,
    },
    #[error("compiler `{compiler}` could not be run: {source}")]
    Compiler {
        compiler: String,
        source: std::io::Error,
    },
    #[error("no {what} configured for {} (see docs/include.md)", .root.display())]
    NotConfigured { what: &'static str, root: PathBuf },
    #[error("{at}: invalid rule: {reason}")]
    InvalidRule { at: String, reason: String },
    #[error("unknown probe(s): {names}")]
    UnknownProbes { names: String },
    #[error("{}: {source}", .path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

pub type Result<T> = std::result::Result<T, Error>;
