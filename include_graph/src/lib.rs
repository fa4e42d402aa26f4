//! Scans `#include` directives, resolves them like a compiler, builds the workspace include
//! graph once, and answers closure, witness-chain, cycle, probe and layering questions from it.
//!
//! parse ([`lex`], [`compdb`], [`graph::Graph::build`]) → model ([`graph::Graph`]) → analyse
//! ([`query`], [`probe`], [`rules`], [`pp::walk`], [`compiler::compare`]) → report ([`report`]).
//!
//! The gates' analyses have one entry point each, [`analysis::probes`] and [`analysis::layering`];
//! their config is [`cfg`], their self-test controls [`controls`], their codes [`codes::Code`].
#![warn(unreachable_pub)]

pub mod analysis;
pub mod cfg;
pub mod codes;
pub mod compdb;
pub mod compiler;
pub mod controls;
pub mod error;
pub mod graph;
pub mod lex;
pub mod live;
pub mod pp;
pub mod probe;
pub mod query;
pub mod report;
pub mod rules;
pub mod search;
pub mod workspace;

/// A small deterministic generator (xorshift) for the tests over generated inputs.
#[cfg(test)]
pub(crate) fn xorshift(mut seed: u64) -> impl FnMut() -> u64 {
    move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    }
}

pub use error::{Error, Result};
pub use graph::{Graph, GraphOptions, NodeId};
pub use workspace::Workspace;
