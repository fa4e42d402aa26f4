//! The Git LFS preflight: is a fixture a real file, or the pointer text a fresh clone without
//! `git lfs pull` leaves in its place? Any gate that reads fixtures calls [`preflight`] before it
//! judges them, so a run against pointers reads "not run: LFS pointers, run `git lfs pull`", never
//! a total regression (upstream-gates.md trap 10: `passed 2 / 79` with `ssim=None`).
//!
//! A pointer is what git-lfs writes (spec v1): text starting with
//! `version https://git-lfs.github.com/spec/v1`, under 200 bytes (MobileGL's are 131/133 bytes).
//! Only the first bytes of each file are read.

use std::io::Read;
use std::path::{Path, PathBuf};

/// The first line of every Git LFS pointer file.
pub const POINTER_HEADER: &[u8] = b"version https://git-lfs.github.com/spec/v1";
/// A pointer is smaller than this; a larger file that happens to start with the header is data.
pub const POINTER_MAX_BYTES: u64 = 200;

/// True when `bytes` (the whole file, `len` bytes long) is a Git LFS pointer.
pub fn is_pointer(bytes: &[u8], len: u64) -> bool {
    len < POINTER_MAX_BYTES && bytes.starts_with(POINTER_HEADER)
}

/// What the preflight found for one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FixtureState {
    /// A real file of this size.
    Present { size: u64 },
    /// A Git LFS pointer of this size (the object was never fetched).
    Pointer { size: u64 },
    /// No such file.
    Missing,
    /// It could not be read (the reason).
    Unreadable(String),
}

/// One checked fixture: its display path and state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fixture {
    pub rel: String,
    pub state: FixtureState,
}

/// The preflight over a set of fixtures.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Preflight {
    pub fixtures: Vec<Fixture>,
}

impl Preflight {
    /// The fixtures that are LFS pointers, in order.
    pub fn pointers(&self) -> impl Iterator<Item = &Fixture> {
        self.fixtures
            .iter()
            .filter(|f| matches!(f.state, FixtureState::Pointer { .. }))
    }

    /// Whether `rel` is a pointer.
    pub fn is_pointer(&self, rel: &str) -> bool {
        self.pointers().any(|f| f.rel == rel)
    }

    pub fn state(&self, rel: &str) -> Option<&FixtureState> {
        self.fixtures
            .iter()
            .find(|f| f.rel == rel)
            .map(|f| &f.state)
    }

    /// The one wording every gate uses, or None when no fixture is a pointer: how many, which
    /// (the first few), and the fix.
    pub fn message(&self) -> Option<String> {
        let pointers: Vec<&Fixture> = self.pointers().collect();
        let first = pointers.first()?;
        let size = match first.state {
            FixtureState::Pointer { size } => size,
            _ => 0,
        };
        let more = match pointers.len() {
            1 => String::new(),
            n => format!(", and {} more", n - 1),
        };
        Some(format!(
            "{} of {} fixture files are Git LFS pointer files, not the fixtures ({} is a {size}-byte pointer{more}): the objects were never fetched; fix: run `git lfs pull` in the checkout, then re-run",
            pointers.len(),
            self.fixtures.len(),
            first.rel
        ))
    }
}

/// Checks one file: reads at most [`POINTER_MAX_BYTES`] of it.
pub fn check_file(path: &Path) -> FixtureState {
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return FixtureState::Missing,
        Err(e) => return FixtureState::Unreadable(e.to_string()),
    };
    if !meta.is_file() {
        return FixtureState::Unreadable("not a regular file".into());
    }
    let size = meta.len();
    if size >= POINTER_MAX_BYTES {
        return FixtureState::Present { size };
    }
    let mut head = Vec::with_capacity(POINTER_MAX_BYTES as usize);
    let read =
        std::fs::File::open(path).and_then(|f| f.take(POINTER_MAX_BYTES).read_to_end(&mut head));
    match read {
        Err(e) => FixtureState::Unreadable(e.to_string()),
        Ok(_) if is_pointer(&head, size) => FixtureState::Pointer { size },
        Ok(_) => FixtureState::Present { size },
    }
}

/// The preflight over `rels` (workspace-relative paths under `root`), each checked once, in order.
pub fn preflight<'a>(root: &Path, rels: impl IntoIterator<Item = &'a str>) -> Preflight {
    let mut fixtures: Vec<Fixture> = Vec::new();
    for rel in rels {
        if fixtures.iter().any(|f| f.rel == rel) {
            continue;
        }
        let path: PathBuf = root.join(rel);
        fixtures.push(Fixture {
            rel: rel.to_string(),
            state: check_file(&path),
        });
    }
    Preflight { fixtures }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    const POINTER: &str = "version https://git-lfs.github.com/spec/v1\noid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 123456\n";

    #[test]
    fn a_pointer_is_the_header_under_200_bytes() {
        assert_eq!(POINTER.len(), 131);
        assert!(is_pointer(POINTER.as_bytes(), POINTER.len() as u64));
        assert!(!is_pointer(b"\x89PNG\r\n", 6));
        let big = format!("{POINTER}{}", "x".repeat(100));
        assert!(!is_pointer(big.as_bytes(), big.len() as u64));
    }

    #[test]
    fn preflight_names_pointers_first_and_the_fix() {
        let t = tempfile::tempdir().unwrap();
        std::fs::write(t.path().join("a.tgz"), POINTER).unwrap();
        std::fs::write(t.path().join("a.png"), b"\x89PNG not a pointer").unwrap();
        let p = preflight(t.path(), ["a.tgz", "a.png", "gone.png", "a.tgz"]);
        assert_eq!(p.fixtures.len(), 3);
        assert!(p.is_pointer("a.tgz") && !p.is_pointer("a.png"));
        assert_eq!(p.state("gone.png"), Some(&FixtureState::Missing));
        let m = p.message().unwrap();
        assert!(
            m.starts_with("1 of 3 fixture files are Git LFS pointer files"),
            "{m}"
        );
        assert!(
            m.contains("a.tgz is a 131-byte pointer") && m.contains("git lfs pull"),
            "{m}"
        );
        assert_eq!(preflight(t.path(), ["a.png"]).message(), None);
    }
}
