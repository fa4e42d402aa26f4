//! What a gate is and what it may read. The vocabulary it reports in (findings, verdicts,
//! controls, the per-gate report) is `check_report`'s model, re-exported here.
//!
//! Libraries return their own domain results; `<gate>.rs` of this crate maps them into [`Finding`]s and a
//! [`GateReport`]. `check` aggregates reports without knowing which gate produced them.

pub use check_report::{Control, Finding, GateReport, Location, SelfTest, Verdict};
use std::collections::BTreeSet;
pub use workspace_config::CheckCtx;

/// The one way a gate turns its library's controls into a self-test: each library runs its
/// controls through the same entry point as a real run.
pub fn self_test(controls: impl IntoIterator<Item = Control>) -> SelfTest {
    SelfTest::new(controls.into_iter().collect())
}

/// Names of negative controls to neuter (run on clean input) — the hook that proves `--self-test`
/// itself fails when a control stops tripping. Names are `gate/control`.
#[derive(Debug, Clone, Default)]
pub struct Neutered(pub BTreeSet<String>);

impl Neutered {
    pub fn contains(&self, gate: &str, control: &str) -> bool {
        self.0.contains(&format!("{gate}/{control}"))
    }
}

/// A gate of `mgctl check`. Implementations live in `<name>.rs` of this crate and are listed in
/// `gates::all()`. A gate never prints and never panics; bad input becomes an error finding.
pub trait Gate: Sync + Send {
    /// Stable gate name used by `--only`/`--skip` and in every output format.
    fn name(&self) -> &'static str;
    /// One line for `mgctl check --list`.
    fn description(&self) -> &'static str;
    /// Why this gate does not run for this configuration (its section absent), or None to run it.
    fn skip_reason(&self, ctx: &CheckCtx) -> Option<String>;
    fn run(&self, ctx: &CheckCtx) -> GateReport;
    /// Canned controls; must not depend on the workspace. Honour `neutered` by feeding a neutered
    /// negative control its clean counterpart (so it cannot trip).
    fn self_test(&self, neutered: &Neutered) -> SelfTest;
    /// Live controls (issue 18 item 7): canned mutations of an in-memory overlay of `ctx`'s
    /// workspace (never written) that must turn the gate red. None by default.
    fn live_controls(&self, _ctx: &CheckCtx, _neutered: &Neutered) -> Vec<Control> {
        Vec::new()
    }
    /// Workspace-relative files this gate reads that a `[build]` may make (issue 18 item 8).
    fn artifacts(&self, _ctx: &CheckCtx) -> Vec<String> {
        Vec::new()
    }
    /// Rough relative cost of `run` on a typical workspace (issue 16): `check` starts the
    /// costliest gates first, so the longest one does not start last. 1 by default.
    fn cost(&self) -> u32 {
        1
    }
}
