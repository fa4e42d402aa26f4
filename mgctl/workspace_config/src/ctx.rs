//! What a gate may read: the workspace root, its configuration, and what the gates of one run share.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use check_report::{Finding, GateReport, Location};
use diag::{Code, ConfigAt, Diag, Outcome};

use crate::config::Config;

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
    pub include_graph:
        std::sync::OnceLock<Result<Arc<include_graph::Graph>, Arc<include_graph::Error>>>,
    /// `$CXX` and `PATH` as the binary's settings read them (no gate reads the environment).
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
