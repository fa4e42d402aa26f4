//! The `generated` gate (issue 33, mechanism 4): generated files stay fresh, and content pins hold.
//!
//! - `[[generated]]`: a generator (argv, no shell) runs in a throw-away copy of the workspace
//!   (the `controls` gate's sandbox, [`crate::control::run::TempCopy`]: its own process group, a
//!   deadline, removed on every exit) after its committed outputs were removed from the copy, and
//!   each output it writes must be byte-equal to the committed file — upstream's `gen_pipe.py`
//!   followed by `git diff --exit-code`, without ever writing the workspace.
//! - `[[pin]]`: a file's sha256 (CRLF folded to LF, as upstream's `protocol_revision_pin.py`
//!   hashes) equals its pin: a plain `sha256`, or the pin of the revision a regex reads from a
//!   source constant (`revisions` inline or a JSON `pins` file) — a schema edit without a bump is
//!   red, and so is a bump without a pin.
//!
//! parse/model: [`cfg`], [`check::validate`]; analysis: [`check::judge_outputs`] and
//! [`check::judge_pin`], pure; I/O: [`check::check`], the one entry point of the gate.

pub mod cfg;
pub mod check;
pub mod controls;

pub use check::{check, Code};
