//! `[[census]]` in mgctl.toml: a registry of names (a `.def` list, a C++ array, a baseline file)
//! and the call-site patterns that must name them, over the C++ sources a glob selects.

use serde::Deserialize;

/// How many sites each registry entry needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Each {
    /// At least one site (a row nobody counts can never move).
    #[default]
    AtLeastOne,
    /// Exactly one site (one call site per name).
    ExactlyOne,
    /// No requirement: only "every site names an entry" is checked.
    Any,
}

/// What is blanked before matching: comments and literals (`code`) or comments only (`comments`,
/// when the names are string literals).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mask {
    #[default]
    Code,
    Comments,
}

/// The registry: every match of `entry` (its one capture group is the name) in `file`, or, with
/// `block`, inside the braces that follow the first match of `block`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RegistryConfig {
    pub file: String,
    pub entry: String,
    #[serde(default)]
    pub block: Option<String>,
    #[serde(default)]
    pub mask: Mask,
}

/// A marker that must stand above a site: a line matching `pattern` within `within` lines; with
/// `block` (default) at the site's own indentation, with no less-indented line between (the same
/// block, not a sibling or nested branch).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MarkerConfig {
    pub pattern: String,
    pub within: usize,
    #[serde(default = "yes")]
    pub block: bool,
}

fn yes() -> bool {
    true
}

/// One site pattern: its capture group names the entry; without a group every match is forbidden.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SiteConfig {
    pub pattern: String,
    #[serde(default)]
    pub mask: Mask,
    #[serde(default)]
    pub marker: Option<MarkerConfig>,
    /// Printed with a forbidden match.
    #[serde(default)]
    pub message: Option<String>,
}

/// An entry that needs no site, with the reason; it must name an entry that has none.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AllowConfig {
    pub entry: String,
    pub why: String,
}

/// One `[[census]]` table.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CensusConfig {
    /// Unique; findings name the census by it.
    pub name: toml::Spanned<String>,
    #[serde(default)]
    pub why: String,
    #[serde(default)]
    pub registry: Option<RegistryConfig>,
    /// Workspace-relative globs of the sources searched for sites.
    pub paths: Vec<String>,
    #[serde(default)]
    pub exclude: Vec<String>,
    #[serde(default)]
    pub site: Vec<SiteConfig>,
    /// Anchors (regexes): sites count only inside the braces following each anchor's match, and
    /// every anchor must match somewhere.
    #[serde(default)]
    pub scope: Vec<String>,
    #[serde(default)]
    pub each: Each,
    #[serde(default)]
    pub allow: Vec<AllowConfig>,
}

impl CensusConfig {
    /// The workspace-relative paths it names (checked to stay inside the workspace).
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        self.registry.iter().map(|r| r.file.as_str())
    }
}
