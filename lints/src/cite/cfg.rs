//! `[cite]` of mgctl.toml and the MobileGL profile.

use serde::Deserialize;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CiteConfig {
    /// Documents to check: workspace-relative paths or globs (`docs/Disaggregated/*.md`).
    pub docs: Vec<String>,
    /// Workspace-relative globs (or directories) that are never citation targets, e.g. build
    /// output or fixture copies that would make bare file names ambiguous.
    #[serde(default)]
    pub exclude: Vec<String>,
    /// Lines of tolerance either side of a cited range when looking for its backticked anchors.
    #[serde(default)]
    pub slack: u64,
    /// Warnings (moved, changed, orphan continuation) fail the gate too (upstream's `--strict`).
    #[serde(default = "default_strict")]
    pub strict: bool,
    /// Check against this git revision instead of the working tree (`HEAD`, a tag, a commit).
    pub rev: Option<String>,
}

fn default_strict() -> bool {
    true
}

/// Upstream CI: `check_doc_citations.py --rev HEAD --strict docs/Disaggregated/*.md`.
pub fn mobilegl_profile() -> Option<CiteConfig> {
    Some(CiteConfig {
        docs: vec!["docs/Disaggregated/*.md".into()],
        exclude: Vec::new(),
        slack: 0,
        strict: true,
        rev: Some("HEAD".into()),
    })
}
