//! One input assembly for the include gates and the `mgctl include` command: the `[include]`
//! config with the command line's extra directories and compile database, turned into graph
//! options, the rule groups and the probe options. The gate and the command both go through
//! [`Workspace`], so they build the same graph and run the same analyses with the same flags.
//!
//! The environment is the caller's: `$CXX` and `PATH` arrive as [`CompilerEnv`].

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::analysis::{self, LayeringOutcome, Mode, ProbeOptions, ProbesOutcome};
use crate::cfg::{ConfigSource, IncludeConfig, Inputs, ProbeMode};
use crate::error::{Error, Result};
use crate::graph::Graph;
use crate::rules::{Origin, RuleError, RuleGroup};

/// A workspace's include analysis inputs: its root, `[include]` config (with `-I` directories
/// added), where that config came from, and the graph options and compile database derived
/// from them.
#[derive(Debug, Clone)]
pub struct Workspace {
    pub root: PathBuf,
    pub cfg: IncludeConfig,
    /// The config file as messages name it (workspace-relative); None for the built-in profile.
    pub config_path: Option<String>,
    /// Its text, to turn rule spans into lines.
    pub config_text: String,
    pub inputs: Inputs,
}

/// What the environment says about compilers, read by the caller (never by the library).
#[derive(Debug, Clone, Default)]
pub struct CompilerEnv {
    /// `$CXX`.
    pub cxx: Option<String>,
    /// `$PATH`.
    pub path: Option<OsString>,
}

/// The compiler for compiler mode: an explicit one, else `$CXX` (when not blank), else the
/// first of `c++`, `g++`, `clang++` on PATH.
pub fn pick_compiler(explicit: Option<&str>, env: &CompilerEnv) -> Option<String> {
    if let Some(c) = explicit {
        return Some(c.to_string());
    }
    if let Some(c) = env.cxx.as_ref().filter(|c| !c.trim().is_empty()) {
        return Some(c.clone());
    }
    let path = env.path.as_ref()?;
    ["c++", "g++", "clang++"]
        .into_iter()
        .find(|name| std::env::split_paths(path).any(|d| d.join(name).is_file()))
        .map(str::to_string)
}

/// A probe run's choices beyond the config (the command's flags; the gate leaves them default).
#[derive(Debug, Clone, Default)]
pub struct ProbeRequest {
    /// Names of the probes to run; empty runs all.
    pub only: Vec<String>,
    /// Added to `[include] require_all`.
    pub require_all: bool,
    /// Overrides `[include] expect_probes`.
    pub expect_probes: Option<usize>,
    /// Overrides `[include] mode`.
    pub mode: Option<Mode>,
    /// The compiler for compiler/both mode (see [`pick_compiler`]).
    pub compiler: Option<String>,
}

impl Workspace {
    /// Reads the compile database (`compile_commands`, else `[include] compile_commands`) and
    /// derives the graph options; `extra_dirs` are `-I` directories added to `[include] dirs`.
    pub fn load(
        root: PathBuf,
        mut cfg: IncludeConfig,
        config_path: Option<String>,
        config_text: String,
        extra_dirs: &[String],
        compile_commands: Option<&Path>,
    ) -> Result<Workspace> {
        cfg.dirs.extend(extra_dirs.iter().cloned());
        let inputs = Inputs::load(&root, &cfg, compile_commands)?;
        Ok(Workspace {
            root,
            cfg,
            config_path,
            config_text,
            inputs,
        })
    }

    pub fn graph(&self) -> Result<Graph> {
        Graph::build(&self.inputs.options)
    }

    /// The probe mode `[include] mode` asks for.
    fn config_mode(&self) -> Mode {
        match self.cfg.mode {
            ProbeMode::Text => Mode::Text,
            ProbeMode::Both => Mode::Both,
        }
    }

    /// What `include-probes` runs: the config alone, with its compiler (`[include] compiler`,
    /// `$CXX`, PATH) when its mode uses one.
    pub fn config_request(&self, env: &CompilerEnv) -> ProbeRequest {
        let compiler = match self.config_mode() {
            Mode::Text => None,
            _ => pick_compiler(self.cfg.compiler.as_deref(), env),
        };
        ProbeRequest {
            compiler,
            ..ProbeRequest::default()
        }
    }

    /// Runs the configured probes over `g` (built from this workspace).
    pub fn probes(&self, g: &Graph, req: &ProbeRequest) -> Result<ProbesOutcome> {
        let probes = self.cfg.probes();
        if probes.is_empty() {
            return Err(Error::NotConfigured {
                what: "[[include.probe]]",
                root: self.root.clone(),
            });
        }
        let mode = req.mode.unwrap_or_else(|| self.config_mode());
        let opts = ProbeOptions {
            probes: &probes,
            only: &req.only,
            require_all: req.require_all || self.cfg.require_all,
            // The configured count is of a full run: a selection (`--probe`) is not held to it;
            // an explicit `--expect-probes` still is.
            expect_probes: req
                .expect_probes
                .or(self.cfg.expect_probes.filter(|_| req.only.is_empty())),
            mode,
            compiler: req.compiler.as_deref(),
            compiler_flags: &self.cfg.compiler_flags,
            compile_db: self.inputs.compile_db.as_ref(),
        };
        analysis::probes(g, &opts)
    }

    /// The `[[include.layer]]` groups with each rule's config line; a malformed rule is an error
    /// at its line.
    pub fn rule_groups(&self) -> std::result::Result<Vec<RuleGroup>, (RuleError, Origin)> {
        let src = ConfigSource {
            path: self.config_path.clone(),
            text: &self.config_text,
        };
        crate::cfg::rule_groups(&self.cfg, &src)
    }

    /// [`Self::rule_groups`] and [`Self::layering`] in one step; a malformed rule is an error
    /// naming its config line.
    pub fn rules(&self, g: &Graph) -> Result<LayeringOutcome> {
        let groups = self
            .rule_groups()
            .map_err(|(reason, at)| Error::InvalidRule {
                at: at.to_string(),
                reason: reason.to_string(),
            })?;
        self.layering(g, &groups)
    }

    /// Checks the layering rules over `g`; no configured layer is an error.
    pub fn layering(&self, g: &Graph, groups: &[RuleGroup]) -> Result<LayeringOutcome> {
        if groups.is_empty() {
            return Err(Error::NotConfigured {
                what: "[[include.layer]]",
                root: self.root.clone(),
            });
        }
        Ok(analysis::layering(g, groups))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn explicit_then_cxx_then_path() {
        let bin = tempfile::tempdir().unwrap();
        std::fs::write(bin.path().join("g++"), "").unwrap();
        let env = |cxx: Option<&str>| CompilerEnv {
            cxx: cxx.map(str::to_string),
            path: Some(bin.path().as_os_str().to_os_string()),
        };
        assert_eq!(
            pick_compiler(Some("cl"), &env(Some("x"))).as_deref(),
            Some("cl")
        );
        assert_eq!(pick_compiler(None, &env(Some("x"))).as_deref(), Some("x"));
        assert_eq!(pick_compiler(None, &env(Some(" "))).as_deref(), Some("g++"));
        assert_eq!(pick_compiler(None, &CompilerEnv::default()), None);
    }
}
