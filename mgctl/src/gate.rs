//! What a gate is and what it may read. The vocabulary it reports in (findings, verdicts,
//! controls, the per-gate report) is `check_report`'s model, re-exported here.
//!
//! Libraries return their own domain results; `gates/<gate>.rs` maps them into [`Finding`]s and a
//! [`GateReport`]. `check` aggregates reports without knowing which gate produced them.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use check_report::{Control, Finding, GateReport, Location, SelfTest, Severity, Verdict};

use crate::config::Config;

/// A library's self-test control result as a check [`Control`]. Each library reports its controls
/// in a type of the same shape (the libraries depend neither on each other nor on the report
/// crate), so one macro below converts all of them.
pub trait IntoControl {
    fn into_control(self) -> Control;
}

impl IntoControl for Control {
    fn into_control(self) -> Control {
        self
    }
}

macro_rules! library_controls {
    ($($t:ty),* $(,)?) => {
        $(impl IntoControl for $t {
            fn into_control(self) -> Control {
                Control {
                    name: self.name,
                    expect_trip: self.expect_trip,
                    tripped: self.tripped,
                    detail: self.detail,
                }
            }
        })*
    };
}

library_controls!(
    lints::diag::ControlResult,
    lints::fatal_sites::ControlResult,
    include_graph::controls::ControlResult,
    dirty_surface::selftest::ControlResult,
    symbols::selftest::ControlResult,
    stats_viewer::budget::ControlResult,
    stats_viewer::g4::ControlResult,
);

/// A library's typed violation as a [`Finding`] of `gate`, field for field. Each library reports
/// its violations in a type of the same shape (code enum, severity, message, path/line/column,
/// unit, detail), so one macro below maps all of them.
pub trait IntoFinding {
    fn into_finding(self, gate: &'static str) -> Finding;
}

macro_rules! library_findings {
    ($($t:ty => $sev:path),* $(,)?) => {
        $(impl IntoFinding for $t {
            fn into_finding(self, gate: &'static str) -> Finding {
                use $sev as S;
                let severity = match self.severity {
                    S::Error => Severity::Error,
                    S::Warning => Severity::Warning,
                    S::Note => Severity::Note,
                };
                let location = self.path.map(|path| Location {
                    path,
                    line: self.line,
                    column: self.column,
                });
                Finding {
                    gate,
                    code: self.code.as_str(),
                    severity,
                    message: self.message,
                    location,
                    unit: self.unit,
                    detail: self.detail,
                }
            }
        })*
    };
}

library_findings!(
    include_graph::analysis::Diag => include_graph::analysis::Severity,
    dirty_surface::audit::Violation => dirty_surface::audit::Severity,
    stats_viewer::budget::Finding => stats_viewer::violation::Severity,
    stats_viewer::counters::Finding => stats_viewer::violation::Severity,
    stats_viewer::g4::Violation => stats_viewer::violation::Severity,
    symbols::findings::Violation<symbols::codes::SymbolsCode> => symbols::findings::Severity,
    symbols::findings::Violation<symbols::codes::SymbolRulesCode> => symbols::findings::Severity,
);

/// The one way a gate turns its library's control results into a self-test: each library runs
/// its controls through the same entry point as a real run.
pub fn self_test<T: IntoControl>(controls: impl IntoIterator<Item = T>) -> SelfTest {
    SelfTest::new(
        controls
            .into_iter()
            .map(IntoControl::into_control)
            .collect(),
    )
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

/// Everything a gate may read: the workspace root and the resolved configuration, plus what
/// several gates of one run share (built once, by the first gate that needs it).
pub struct CheckCtx {
    pub root: PathBuf,
    pub config: Arc<Config>,
    /// The `mgctl.toml` that was read, or None when the built-in MobileGL profile applies.
    pub config_path: Option<PathBuf>,
    /// Its text (empty for the built-in profile), to turn `toml::Spanned` byte ranges into lines.
    pub config_text: String,
    /// The include graph of this run's workspace, shared by both include gates. Per run, not
    /// per process: a later run in the same process sees the files as they are then.
    pub include_graph: std::sync::OnceLock<Result<Arc<include_graph::Graph>, String>>,
}

impl CheckCtx {
    /// Workspace-relative display form of a path (forward slashes).
    pub fn rel(&self, path: &Path) -> String {
        let p = path.strip_prefix(&self.root).unwrap_or(path);
        p.to_string_lossy().replace('\\', "/")
    }

    /// The location in `mgctl.toml` of a `toml::Spanned` value's byte range start; for the
    /// built-in profile, the pseudo-path `<mobilegl-profile>`.
    pub fn config_location(&self, span_start: usize) -> Location {
        match &self.config_path {
            Some(p) => {
                let (line, col) = crate::config::line_col(&self.config_text, span_start);
                Location::at(
                    self.rel(p),
                    u32::try_from(line).unwrap_or(u32::MAX),
                    u32::try_from(col).ok(),
                )
            }
            None => Location::file("<mobilegl-profile>"),
        }
    }
}

/// A gate of `mgctl check`. Implementations live in `gates/<name>.rs` and are listed in
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
