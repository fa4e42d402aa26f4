//! Every gate this build offers, each adapting one library's domain result to `GateReport`.

pub mod tokens;

use crate::gate::Gate;

/// The gates of this build, in display order (reports are sorted by name anyway).
pub fn all() -> Vec<Box<dyn Gate>> {
    vec![Box::new(tokens::TokensGate)]
}
