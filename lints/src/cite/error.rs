//! Unusable input: every variant names the file (and position where there is one).

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{}: no such document", .path.display())]
    NoDocument { path: PathBuf },
    #[error("{}:{line}: document is not valid UTF-8 (byte {byte} of the line)", .path.display())]
    NotUtf8 {
        path: PathBuf,
        line: usize,
        byte: usize,
    },
    #[error("{}: cannot read: {reason}", .path.display())]
    Read { path: PathBuf, reason: String },
    #[error("{}: cannot write: {reason}", .path.display())]
    Write { path: PathBuf, reason: String },
    #[error("{}: cannot list the tree: {reason}", .path.display())]
    Walk { path: PathBuf, reason: String },
    #[error("{}: revision `{rev}` is unusable: {reason}", .root.display())]
    BadRev {
        rev: String,
        root: PathBuf,
        reason: String,
    },
    #[error("{pattern}: bad glob: {reason}")]
    BadGlob { pattern: String, reason: String },
    #[error("{pattern}: bad document glob: {reason}")]
    BadDocGlob { pattern: String, reason: String },
    #[error("{}: cannot list: {reason}", .path.display())]
    List { path: PathBuf, reason: String },
    #[error("{}: no documents given and no [cite] section in {}/{config}", .root.display(), .root.display())]
    NoDocuments { root: PathBuf, config: &'static str },
    #[error("{}: document pattern `{pattern}` matches no file", .root.display())]
    NoMatch { root: PathBuf, pattern: String },
}
