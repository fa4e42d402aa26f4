//! What a gate is and what it may read. The vocabulary it reports in (findings, verdicts,
//! controls, the per-gate report) is `check_report`'s model, re-exported here.
//!
//! Libraries return their own domain results; `gates/<gate>.rs` maps them into [`Finding`]s and a
//! [`GateReport`]. `check` aggregates reports without knowing which gate produced them.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use check_report::{Control, Finding, GateReport, Location, SelfTest, Verdict};
use diag::{Code, ConfigAt, Diag, Outcome};

use crate::config::Config;

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
    /// `$CXX` and `PATH` as `Settings` read them (no gate reads the environment).
    pub compiler: include_graph::workspace::CompilerEnv,
    /// `check --no-build`: no gate starts a build either (`[symbols] base` uses its cache only).
    pub no_build: bool,
    /// `-q/--quiet`: no progress display for the builds the gates start.
    pub quiet: bool,
}

impl CheckCtx {
    /// The workspace on disk, as the libraries read it.
    pub fn disk(&self) -> lints::source::Disk {
        lints::source::Disk {
            root: self.root.clone(),
        }
    }

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

    /// A library diagnostic as a finding of `gate`; one that points into the configuration is
    /// placed at its line of `mgctl.toml`.
    pub fn finding<C: Code>(&self, gate: &'static str, d: Diag<C>) -> Finding {
        let config = d.config;
        let mut f = Finding::from(d);
        f.gate = gate;
        match config {
            Some(ConfigAt::Byte(at)) => f.location = Some(self.config_location(at)),
            Some(ConfigAt::File) => {
                f.location = self
                    .config_path
                    .as_deref()
                    .map(|p| Location::file(self.rel(p)))
            }
            None => {}
        }
        f
    }

    /// A finished analysis as the gate's report: the verdict follows from the diagnostics.
    pub fn report<C: Code>(&self, gate: &'static str, o: Outcome<C>) -> GateReport {
        let findings = o.diags.into_iter().map(|d| self.finding(gate, d)).collect();
        let mut r = GateReport::from_findings(gate, findings, o.headline);
        r.figures = o.figures;
        r.units = o.units;
        r.inputs = o.inputs;
        r
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
