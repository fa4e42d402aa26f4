//! `[[control]]` of mgctl.toml: one negative control each — a command (argv, no shell), the
//! perturbation that must turn it red, the evidence that says it went red for that reason, and
//! the test selection that must not be empty.

use std::collections::BTreeMap;

use serde::Deserialize;

/// The default of `timeout`, in seconds, per run (a control runs its command three times).
pub const DEFAULT_TIMEOUT_S: u64 = 120;

/// One `[[control]]` table.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ControlConfig {
    /// Unique; `--only` and the report use it.
    pub name: toml::Spanned<String>,
    /// argv of the test, run with `cwd` (default: the workspace copy's root) as working directory.
    /// A relative program path with a `/` is relative to that directory.
    pub command: toml::Spanned<Vec<String>>,
    /// Workspace-relative working directory of the command.
    pub cwd: Option<toml::Spanned<String>>,
    /// Seconds each run may take before its process group is killed.
    pub timeout: Option<toml::Spanned<u64>>,
    /// A regex that must match the perturbed run's stdout+stderr: the control's own Fatal,
    /// assertion or sentence (a red for another reason is a failure of the control).
    pub evidence: toml::Spanned<String>,
    /// A regex each green run's output must match on at least `expect_tests` lines (the test
    /// selection is not empty). Default: any non-blank line.
    pub selection: Option<toml::Spanned<String>>,
    /// How many output lines `selection` must match in each green run (default 1, at least 1).
    pub expect_tests: Option<toml::Spanned<u64>>,
    /// Workspace-relative files the command reads that `[build]` makes (the gate asks for them).
    #[serde(default)]
    pub requires: Vec<String>,
    /// Why the control exists; printed with its findings.
    pub why: Option<String>,
    // --- exactly one perturbation ---
    /// A workspace-relative unified diff applied to the copy (exact context, `a/` `b/` prefixes).
    pub patch: Option<toml::Spanned<String>>,
    /// A literal replacement in one file; `from` must occur exactly once.
    pub replace: Option<toml::Spanned<ReplaceConfig>>,
    /// Environment variables set for the perturbed run only.
    pub env: Option<toml::Spanned<BTreeMap<String, String>>>,
    /// A built file replaced by another for the perturbed run.
    pub swap: Option<toml::Spanned<SwapConfig>>,
}

/// `replace = { file, from, to }`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReplaceConfig {
    pub file: String,
    pub from: String,
    pub to: String,
}

/// `swap = { artifact, with }`: both workspace-relative.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SwapConfig {
    pub artifact: String,
    pub with: String,
}

impl ControlConfig {
    /// The files this control reads that a build makes: `requires`, and a swap's two files.
    pub fn artifacts(&self) -> Vec<String> {
        let mut out = self.requires.clone();
        if let Some(s) = &self.swap {
            out.push(s.get_ref().artifact.clone());
            out.push(s.get_ref().with.clone());
        }
        out
    }
}

/// The files the controls run by `check(…, only)` read that a build makes: every control's, or
/// the one `only` names. The gate and `lint controls` ask this one question.
pub fn artifacts(controls: &[ControlConfig], only: Option<&str>) -> Vec<String> {
    controls
        .iter()
        .filter(|c| only.is_none_or(|n| c.name.get_ref() == n))
        .flat_map(ControlConfig::artifacts)
        .collect()
}
