//! The non-render bit derivation (spec §1.13): for each (mutator, claimed non-render bit), do
//! the members the mutator writes (transitively, calls resolved by name) meet the members the
//! bit's shutter in `Tracker.h` reads? An absence claim that only ever fails on under-firing.
//!
//! Token model as upstream: `MEM:m_x` and `FIELD:m_x.<first name below the member, or *>`.
//! Function-like macros of the analysed files are expanded first (4 rounds, `##` pasted), as
//! upstream does; a call to a refused token-pasting macro taints the body.
//!
//! One module per job, in the order a run uses them:
//! - [`upstream_macros`]: upstream's macro policy (which function-like `#define`s are expanded,
//!   which refused), built on `cpp_lex::macros::parse_define`, and the expansion itself;
//! - [`body`]: a function's parameters and body as one (macro-expanded) token sequence;
//! - [`lvalue`] and [`locals`]: the lvalue chains a write goes through, and what each local
//!   name is bound to;
//! - [`writes`]: what one body writes itself (tokens, taints, callees);
//! - [`writers`]: every body of the analysed files, joined over the call graph (fixed point);
//! - [`shutter`]: what each bit's shutter in `Tracker.h` reads, resolved through accessors;
//! - [`outside`]: members written in files outside the analysed roots;
//! - [`verdict`]: the match rule and the verdict of each claim.

use std::collections::{BTreeMap, BTreeSet};

mod body;
mod locals;
mod lvalue;
mod outside;
mod shutter;
mod upstream_macros;
mod verdict;
mod writers;
mod writes;

pub use outside::outside_writers;
/// The fixed patterns, for the crate's test over every pattern (`rx.rs`).
#[cfg(test)]
pub(crate) use outside::{OUTSIDE_ASSIGN, OUTSIDE_DECL, OUTSIDE_PRE};
pub use verdict::{derive, tainted_count, Claim};
pub(crate) use writers::writers_parsed;
pub use writers::{writers, Writers};

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "verdict", content = "detail", rename_all = "kebab-case")]
pub enum Verdict {
    Supported,
    Coarse(String),
    Undecided(String),
    UnderFiring(String),
}

#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct Stats {
    pub bodies: usize,
    pub files: usize,
    pub tainted_names: usize,
    pub tainted_mutators: usize,
    pub outside_members: usize,
}

#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct Verdicts {
    /// (mutator, bit) → verdict, sorted.
    pub pairs: BTreeMap<(String, String), Verdict>,
    pub stats: Stats,
}

/// One analysed file.
pub struct Unit<'a> {
    pub rel: &'a str,
    pub text: &'a str,
}

/// Borrow read sources as analysis units.
pub fn units(sources: &[crate::tree::Source]) -> Vec<Unit<'_>> {
    sources
        .iter()
        .map(|u| Unit {
            rel: &u.rel,
            text: &u.text,
        })
        .collect()
}

pub type TokenSet = BTreeSet<String>;
