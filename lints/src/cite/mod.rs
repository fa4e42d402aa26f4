//! Doc citations: keep every `path:line` in the design docs true, and say where it moved.
//!
//! parse ([`scan`] for documents, [`tree`] for the cited sources, [`read_doc`]) → model
//! ([`model`]) → analyse ([`check`], [`fix::plan`]) → report ([`report`]).
//!
//! ```
//! use std::collections::BTreeMap;
//! use lints::cite::{check::{check, Options}, scan::scan, tree::SourceTree, model::Class};
//! let mut files = BTreeMap::new();
//! files.insert("src/A.cpp".to_string(), b"// a\nvoid Foo() {}\n".to_vec());
//! let tree = SourceTree::in_memory("MEM", files);
//! let doc = scan("d.md", None, "`Foo` lives at `A.cpp:1`.\n");
//! let report = check(vec![doc], &tree, &Options::default()).unwrap();
//! let (_, k) = report.citations().next().unwrap();
//! assert_eq!(k.class, Class::Moved); // `Foo` is on line 2 now
//! ```

pub mod cfg;
pub mod check;
pub mod controls;
pub mod error;
pub mod fix;
pub mod model;
pub mod report;
pub mod run;
pub mod scan;
pub mod tree;

use std::path::{Path, PathBuf};

use globset::{Glob, GlobSet, GlobSetBuilder};

pub use error::Error;
pub use model::{CiteReport, Level};
pub use run::{diags, expand_docs, outcome, run_check, Code};

/// Read a document: it must exist and be UTF-8 (the error names the line and byte).
pub fn read_doc(path: &Path) -> Result<String, Error> {
    let bytes = diag::walk::read(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => Error::NoDocument {
            path: path.to_path_buf(),
        },
        _ => Error::Read {
            path: path.to_path_buf(),
            reason: e.to_string(),
        },
    })?;
    if path.is_dir() {
        return Err(Error::Read {
            path: path.to_path_buf(),
            reason: "is a directory".to_string(),
        });
    }
    String::from_utf8(bytes).map_err(|e| {
        let bad = e.utf8_error().valid_up_to();
        let bytes = e.as_bytes();
        let line = bytes[..bad].iter().filter(|&&b| b == b'\n').count() + 1;
        let line_start = bytes[..bad]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |p| p + 1);
        Error::NotUtf8 {
            path: path.to_path_buf(),
            line,
            byte: bad - line_start + 1,
        }
    })
}

/// Display form of a document path: workspace-relative when inside `root`, else as given.
pub fn doc_display(root: &Path, doc: &Path) -> (String, Option<String>) {
    let canon_root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let canon = doc.canonicalize().unwrap_or_else(|_| doc.to_path_buf());
    match canon.strip_prefix(&canon_root) {
        Ok(rel) => {
            let rel = rel.to_string_lossy().replace('\\', "/");
            let dir = rel
                .rsplit_once('/')
                .map_or(String::new(), |(d, _)| d.to_string());
            (rel, Some(dir))
        }
        Err(_) => (doc.to_string_lossy().replace('\\', "/"), None),
    }
}

/// Read and scan every document (missing or non-UTF-8 documents are errors).
pub fn load_docs(root: &Path, docs: &[PathBuf]) -> Result<Vec<model::DocScan>, Error> {
    docs.iter()
        .map(|d| {
            let text = read_doc(d)?;
            let (shown, dir) = doc_display(root, d);
            Ok(scan::scan(&shown, dir.as_deref(), &text))
        })
        .collect()
}

/// Build a glob set from workspace-relative patterns (a pattern naming a directory also covers
/// everything below it).
pub fn globs(patterns: &[String]) -> Result<GlobSet, Error> {
    let mut b = GlobSetBuilder::new();
    for p in patterns {
        let trimmed = p.trim_end_matches('/');
        for pat in [trimmed.to_string(), format!("{trimmed}/**")] {
            let g = Glob::new(&pat).map_err(|e| Error::BadGlob {
                pattern: p.clone(),
                reason: e.to_string(),
            })?;
            b.add(g);
        }
    }
    b.build().map_err(|e| Error::BadGlob {
        pattern: patterns.join(", "),
        reason: e.to_string(),
    })
}

/// True when the report has no errors and no warnings.
pub fn problem_free(report: &CiteReport) -> bool {
    report.count_level(Level::Error) == 0 && report.count_level(Level::Warning) == 0
}
