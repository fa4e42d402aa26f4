//! Scans C++ for frontend mutator calls, classifies how each is published, and checks
//! `DirtySurface.def` against the scan (issue 4; spec: upstream-dirty-surface-citations.md §1–§2).
//!
//! parse (`lex`, `scope`, `scan`, `compat`, `def`, `tracker`, `tree`) → model (`surface`) →
//! analyse (`render`, `check`) → report (`report`).
#![warn(unreachable_pub)]

pub mod compat;
pub mod error;
pub mod lex;
pub mod live;
pub mod scan;
pub mod scope;
pub mod selftest;

pub use code::Code;
pub use error::{Error, Result};
pub mod audit;
pub mod cfg;
pub mod check;
pub mod code;
pub mod def;
pub(crate) mod fast;
pub mod nonrender;
pub mod render;
pub mod report;
pub(crate) mod rx;
pub mod surface;
pub mod tracker;
pub mod tree;
