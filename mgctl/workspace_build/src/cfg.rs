//! `[build]` in mgctl.toml (docs/config.md).

use serde::Deserialize;

/// `[build]`: how the workspace makes the files its gates read.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BuildConfig {
    /// argv of the build, run with the workspace as cwd (no shell).
    pub command: toml::Spanned<Vec<String>>,
    /// Workspace-relative paths the command makes; `check` builds when one is missing or stale.
    pub outputs: toml::Spanned<Vec<String>>,
    /// Workspace-relative globs of the files the outputs are made from; an output older than
    /// the newest of them, or built from other contents, is stale. Each glob must match a file.
    pub inputs: Option<toml::Spanned<Vec<String>>>,
    /// Seconds the build may take before it is stopped and the gates reading it fail.
    pub timeout: Option<toml::Spanned<u64>>,
}

/// The build's time limit when `timeout` is not given.
pub const DEFAULT_TIMEOUT_S: u64 = 3600;
