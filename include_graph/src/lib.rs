//! Scans `#include` directives, resolves them like a compiler, builds the workspace include
//! graph once, and answers closure, witness-chain, cycle, probe and layering questions from it.
//!
//! parse ([`lex`], [`compdb`], [`graph::Graph::build`]) → model ([`graph::Graph`]) → analyse
//! ([`query`], [`probe`], [`rules`], [`pp::walk`], [`compiler::compare`]) → report ([`report`]).

pub mod compdb;
pub mod compiler;
pub mod error;
pub mod graph;
pub mod lex;
pub mod pp;
pub mod probe;
pub mod query;
pub mod report;
pub mod rules;
pub mod search;

pub use error::{Error, Result};
pub use graph::{Graph, GraphOptions, NodeId};

/// Writes `files` (root-relative path, text) into a fresh temporary directory; the directory is
/// removed when the returned guard drops. Self-tests use it to build canned trees.
pub fn temp_tree(files: &[(&str, &str)]) -> std::io::Result<tempfile::TempDir> {
    let d = tempfile::tempdir()?;
    for (p, t) in files {
        let full = d.path().join(p);
        if let Some(parent) = full.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(full, t)?;
    }
    Ok(d)
}
