//! The `evidence` gate (issue 33, mechanism 5): per-test log evidence. Each `[[evidence]]` set
//! maps the ctest entries of a lane's JUnit that its `tests` regex selects to their role logs
//! (`client`, `server`; `{test}` in a path stands for the entry's name), refuses logs last
//! written before the run began (dated from the JUnit's file time less the run's recorded
//! duration), and applies `require` / `forbid` / `count` line rules to each log — upstream's
//! `runtime_mode_proof.py` logs half, `junit_tally.py`'s TCP proof per entry and
//! `magma_runahead_checks.py`'s zero `VUID`/`SYNC-HAZARD` lines, as configuration.
//!
//! parse/model: [`cfg`], `rules::validate`, the JUnit through [`crate::ctest::parse_junit`];
//! analysis: `check::scan` (one log, streamed line by line, memory bounded) and
//! `check::judge_test`, pure; I/O: [`check::check`], the one entry point of the gate, over
//! [`check::Files`] (the disk, or texts in memory for the controls).

pub mod cfg;
pub mod check;
pub mod controls;
mod rules;

pub use check::{check, Code};
