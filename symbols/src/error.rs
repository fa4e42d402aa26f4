//! The one error type of the `symbols` library: every variant names the file and where in it.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{}: cannot read: {source}", .path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}: is a directory, not a library", .path.display())]
    Directory { path: PathBuf },
    #[error("{}:0: empty file (0 bytes), not an ELF library", .path.display())]
    Empty { path: PathBuf },
    #[error("{}: is a {kind}, not a regular file; copy the library to a file first", .path.display())]
    NotRegular { path: PathBuf, kind: &'static str },
    #[error("{}: changed while being read ({what}); read it again once the build that writes it has finished", .path.display())]
    Changed { path: PathBuf, what: String },
    #[error("{}:{line}:{column}: not UTF-8 text (byte {byte:#04x})", .path.display())]
    NotText {
        path: PathBuf,
        line: usize,
        column: usize,
        byte: u8,
    },
    #[error("{}: larger than {limit} bytes, refused (is it the right file?)", .path.display())]
    TooLarge { path: PathBuf, limit: u64 },
    #[error("{}:0: not an ELF file (first bytes {magic})", .path.display())]
    NotElf { path: PathBuf, magic: String },
    #[error("{}: malformed ELF: {what}: {reason}", .path.display())]
    Malformed {
        path: PathBuf,
        what: String,
        reason: String,
    },
    #[error("{}: no symbol table: {reason}", .path.display())]
    NoSymbols { path: PathBuf, reason: String },
    #[error("{origin}: bad entry {entry:?}: {reason}")]
    BadEntry {
        origin: String,
        entry: String,
        reason: String,
    },
    #[error("{}: is a {after} library but {} is a {before} one: a symbol diff across machines compares nothing (sizes and sets differ by target, not by source); diff two builds of one target", .path.display(), .before_path.display())]
    MachinesDiffer {
        path: PathBuf,
        after: String,
        before_path: PathBuf,
        before: String,
    },
    #[error("{}:{line}: {reason}", .path.display())]
    BadAllowLine {
        path: PathBuf,
        line: usize,
        reason: String,
    },
}

pub type Result<T> = std::result::Result<T, Error>;
