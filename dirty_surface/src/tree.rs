//! The only part of the crate that touches the file system: listing the scan roots and reading
//! files (invalid UTF-8 is decoded with replacement and reported with its position).

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// One source file, read once.
#[derive(Debug, Clone)]
pub struct Source {
    /// Workspace-relative path, forward slashes.
    pub rel: String,
    pub text: String,
    /// Line and column of the first invalid UTF-8 byte, when there was one.
    pub bad_utf8: Option<(u32, u32)>,
}

/// Relative display form of `path` under `root`.
pub fn rel(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .to_string_lossy()
        .replace('\\', "/")
}

/// Every `.cpp`/`.h` file under the roots (recursively), sorted bytewise by relative path, as
/// upstream orders them.
pub fn list(root: &Path, roots: &[String]) -> Result<Vec<(String, PathBuf)>> {
    let mut out = Vec::new();
    for r in roots {
        let dir = root.join(r);
        if !dir.is_dir() {
            return Err(Error::MissingRoot { path: dir });
        }
        for entry in walkdir::WalkDir::new(&dir).sort_by_file_name() {
            let entry = entry.map_err(|e| Error::Read {
                path: e
                    .path()
                    .map(Path::to_path_buf)
                    .unwrap_or_else(|| dir.clone()),
                source: e
                    .into_io_error()
                    .unwrap_or_else(|| std::io::Error::other("directory loop")),
            })?;
            let p = entry.path();
            let name = entry.file_name().to_string_lossy();
            if entry.file_type().is_file() && (name.ends_with(".cpp") || name.ends_with(".h")) {
                out.push((rel(root, p), p.to_path_buf()));
            }
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out.dedup_by(|a, b| a.0 == b.0);
    Ok(out)
}

/// Decode bytes; invalid UTF-8 is replaced and its first position returned.
pub fn decode(bytes: Vec<u8>) -> (String, Option<(u32, u32)>) {
    match String::from_utf8(bytes) {
        Ok(s) => (s, None),
        Err(e) => {
            let at = e.utf8_error().valid_up_to();
            let bytes = e.into_bytes();
            let before = &bytes[..at];
            let line = before.iter().filter(|&&b| b == b'\n').count() as u32 + 1;
            let col = before.iter().rev().take_while(|&&b| b != b'\n').count() as u32 + 1;
            (
                String::from_utf8_lossy(&bytes).into_owned(),
                Some((line, col)),
            )
        }
    }
}

pub fn read(path: &Path, rel: String) -> Result<Source> {
    let bytes = diag::walk::read(path).map_err(|source| Error::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let (text, bad_utf8) = decode(bytes);
    Ok(Source {
        rel,
        text,
        bad_utf8,
    })
}

/// Read a single required input (def, RenderState.cpp, Tracker.h).
pub fn read_required(root: &Path, rel_path: &str, what: &'static str) -> Result<Source> {
    let p = root.join(rel_path);
    if !p.is_file() {
        return Err(Error::MissingFile { path: p, what });
    }
    read(&p, rel_path.to_string())
}
