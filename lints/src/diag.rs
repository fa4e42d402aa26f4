//! The one shape every lint analysis reports in, so `mgctl/src/gates/*.rs` only maps each
//! [`Diag`] to a `Finding` and each [`Control`] to a self-test control.

pub use ::diag::{self_test_passed, write_self_test, Control, Diag, Outcome, Severity};

/// `value` as indented JSON with its object keys sorted, as every `--format json` of this crate
/// prints (a `serde_json::Value` keeps its keys sorted).
pub fn pretty_json(value: &impl serde::Serialize) -> serde_json::Result<String> {
    serde_json::to_string_pretty(&serde_json::to_value(value)?)
}

/// A lint's `mgctl.toml` section, as its gate sees it: present or not, and whether it asks
/// for anything to be checked.
pub trait Section {
    /// The section as mgctl.toml spells it, e.g. `[tokens]`.
    const NAME: &'static str;
    /// Why a present section checks nothing (no rules, no documents); None when it checks.
    fn nothing_to_check(&self) -> Option<String> {
        None
    }
}

/// Why the gate over `section` is skipped: the section is absent, or checks nothing.
pub fn skip_reason<S: Section>(section: Option<&S>) -> Option<String> {
    match section {
        None => Some(format!("no {} section in mgctl.toml", S::NAME)),
        Some(s) => s.nothing_to_check(),
    }
}
