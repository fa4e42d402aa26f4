//! Where an analysis reads workspace files from: the disk, or an in-memory overlay of it. The
//! live self-test controls mutate the audited workspace through an overlay, so they run the same
//! entry point as a real run without ever writing the workspace.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub trait Source: Sync {
    /// The workspace root; the file list is always the disk's (an overlay replaces bytes only).
    fn root(&self) -> &Path;
    /// The bytes of a workspace-relative file (forward slashes).
    fn read(&self, rel: &str) -> std::io::Result<Vec<u8>>;
    /// The bytes of a file a walk found at `path`, named `rel` in reports. `rel` is lossy when
    /// the name is not UTF-8 (issue 29): the disk reads `path` itself, never a lossy name.
    fn read_found(&self, rel: &str, _path: &Path) -> std::io::Result<Vec<u8>> {
        self.read(rel)
    }
}

/// The workspace as it is on disk.
pub struct Disk {
    pub root: PathBuf,
}

impl Source for Disk {
    fn root(&self) -> &Path {
        &self.root
    }
    fn read(&self, rel: &str) -> std::io::Result<Vec<u8>> {
        diag::walk::read(&self.root.join(rel))
    }
    fn read_found(&self, _rel: &str, path: &Path) -> std::io::Result<Vec<u8>> {
        diag::walk::read(path)
    }
}

/// Replaced bytes (workspace-relative path -> contents) over another source.
pub struct Overlay<'a> {
    pub base: &'a dyn Source,
    pub files: BTreeMap<String, Vec<u8>>,
}

impl Source for Overlay<'_> {
    fn root(&self) -> &Path {
        self.base.root()
    }
    fn read(&self, rel: &str) -> std::io::Result<Vec<u8>> {
        match self.files.get(rel) {
            Some(b) => Ok(b.clone()),
            None => self.base.read(rel),
        }
    }
    fn read_found(&self, rel: &str, path: &Path) -> std::io::Result<Vec<u8>> {
        match self.files.get(rel) {
            Some(b) => Ok(b.clone()),
            None => self.base.read_found(rel, path),
        }
    }
}
