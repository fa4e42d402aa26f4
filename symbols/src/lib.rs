//! Reads ELF libraries in process, demangles like GNU `c++filt`, folds and diffs their symbol
//! sets (`parse → model → analyse → report`). Knows nothing of the CLI or of `check`.
#![warn(unreachable_pub)]

pub mod demangle;
pub mod elf;
mod elf_dynamic;
pub mod error;
mod fast;
pub mod model;
mod sparse;

pub use error::{Error, Result};
pub use model::{Library, SectionSize, Symbol, Table, TableChoice};
pub mod cfg;
pub mod check;
pub mod codes;
pub mod diff;
pub mod findings;
pub mod gate;
pub mod group;
pub mod listing;
pub mod ratchet;
pub mod report;
pub mod rules;
pub mod selftest;
pub mod top;
