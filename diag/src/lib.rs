//! The vocabulary every mgctl analysis speaks (DESIGN.md "One vocabulary across gates"): how bad
//! a fact is ([`Severity`]), where it points ([`Location`]), the fact itself ([`Diag`]) with its
//! stable [`Code`], the self-test [`Control`] and its one verdict rule, and the escapers that keep
//! input-derived text inert in each medium ([`escape`]).
//!
//! A leaf crate: libraries produce these, the binary maps them into its report with one `From`,
//! so a command and its gate decide from the same diagnostics.
#![warn(unreachable_pub)]

mod code;
mod control;
mod diagnostic;
pub mod escape;
mod location;
mod shown;
pub mod walk;

pub use code::{malformed, Code};

pub use control::{
    controls_can_fail, self_test_passed, write_self_test, Control, ControlsError, RunControls,
};
pub use diagnostic::{ConfigAt, Diag, Outcome};
pub use location::{Location, Severity};
#[doc(hidden)]
pub use serde as __serde;
pub use shown::Shown;
