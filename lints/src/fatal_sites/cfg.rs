//! `[fatal_sites]` in mgctl.toml: the census's paths and windows, MobileGL-profile defaults.

use serde::Deserialize;

/// `[fatal_sites]` in mgctl.toml. Every key has upstream's (`scripts/ci/fatal_census.py`) value.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FatalSitesConfig {
    /// The scanned tree (recursive), workspace-relative.
    #[serde(default = "default_root")]
    pub root: String,
    /// File extensions scanned, without the dot.
    #[serde(default = "default_extensions")]
    pub extensions: Vec<String>,
    /// A path with any of these components is skipped.
    #[serde(default = "default_skip_components")]
    pub skip_components: Vec<String>,
    /// The funnel files (workspace-relative): their aborts and funnel calls need no marker.
    #[serde(default = "default_funnel_files")]
    pub funnel_files: Vec<String>,
    /// The baseline JSON (`abort_sites`, `families`), workspace-relative.
    #[serde(default = "default_baseline")]
    pub baseline: String,
    /// Lines searched for a marker, ending at an abort's own line.
    #[serde(default = "default_abort_window")]
    pub abort_window: usize,
    /// Lines searched for a marker, starting at a funnel call's own line.
    #[serde(default = "default_funnel_window")]
    pub funnel_window: usize,
}

impl crate::diag::Section for FatalSitesConfig {
    const NAME: &'static str = "[fatal_sites]";
}

fn default_root() -> String {
    "MobileGL/MG_Remote".into()
}
fn default_extensions() -> Vec<String> {
    vec!["cpp".into(), "h".into()]
}
fn default_skip_components() -> Vec<String> {
    vec!["MG_Test".into()]
}
fn default_funnel_files() -> Vec<String> {
    vec![
        "MobileGL/MG_Remote/Transport/WireLog.cpp".into(),
        "MobileGL/MG_Remote/Transport/WireLog.h".into(),
    ]
}
fn default_baseline() -> String {
    "scripts/ci/fatal_census_baseline.json".into()
}
fn default_abort_window() -> usize {
    12
}
fn default_funnel_window() -> usize {
    12
}

impl Default for FatalSitesConfig {
    fn default() -> Self {
        FatalSitesConfig {
            root: default_root(),
            extensions: default_extensions(),
            skip_components: default_skip_components(),
            funnel_files: default_funnel_files(),
            baseline: default_baseline(),
            abort_window: default_abort_window(),
            funnel_window: default_funnel_window(),
        }
    }
}

/// The MobileGL profile: upstream's paths and windows.
pub fn mobilegl_profile() -> Option<FatalSitesConfig> {
    Some(FatalSitesConfig::default())
}
