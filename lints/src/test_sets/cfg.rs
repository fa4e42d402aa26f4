//! `[test_sets]` of mgctl.toml: the lanes whose test lists are read (each normalised by its own
//! rules), the groups of lanes that must list the same names, and the subset rules with their
//! exemption tables.

use serde::Deserialize;

/// Upstream's reason classes (`split_coverage.py`).
pub const DEFAULT_REASONS: [&str; 5] = [
    "mechanism",
    "single-backend",
    "no-records",
    "inproc-peek",
    "pending-fix",
];

/// What counts as an owner in an exemption's reason: an `owner=WHO` token, a package id such as
/// `P8-B` (upstream's rule), or a `DEBTS.md` row.
pub const DEFAULT_OWNER: &str = r"\bowner=\S+|\bP\d+[a-z]?-[0-9A-Z]+\b|DEBTS\.md";

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TestSetsConfig {
    /// `[[test_sets.lane]]`: one test list per lane.
    #[serde(default, rename = "lane")]
    pub lanes: Vec<LaneConfig>,
    /// `[[test_sets.equal]]`: lanes whose normalised sets must be equal.
    #[serde(default, rename = "equal")]
    pub equal: Vec<EqualConfig>,
    /// `[[test_sets.subset]]`: `of` ⊆ ∪ `within` ∪ exempt.
    #[serde(default, rename = "subset")]
    pub subset: Vec<SubsetConfig>,
}

impl crate::diag::Section for TestSetsConfig {
    const NAME: &'static str = "[test_sets]";
    fn nothing_to_check(&self) -> Option<String> {
        (self.equal.is_empty() && self.subset.is_empty())
            .then(|| "[test_sets] has no [[test_sets.equal]] and no [[test_sets.subset]]".into())
    }
}

/// One `[[test_sets.lane]]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LaneConfig {
    pub name: toml::Spanned<String>,
    /// Workspace-relative: a `ctest -N` transcript, `--show-only=json-v1`, a plain list, or a
    /// JUnit file (detected by content).
    pub listing: String,
    /// Applied in order to every name (`regex::Regex::replace`, `$1` groups allowed).
    #[serde(default)]
    pub normalize: Vec<NormalizeConfig>,
}

/// One `{ regex, replace }` rule.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NormalizeConfig {
    pub regex: toml::Spanned<String>,
    #[serde(default)]
    pub replace: String,
}

/// One `[[test_sets.equal]]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EqualConfig {
    pub lanes: toml::Spanned<Vec<String>>,
}

/// One `[[test_sets.subset]]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SubsetConfig {
    /// The lane every name of which must be covered.
    pub of: toml::Spanned<String>,
    /// The lanes whose union covers it.
    pub within: toml::Spanned<Vec<String>>,
    /// Workspace-relative exemption table: `PATTERN  REASON-CLASS  REASON…` per row.
    pub exemptions: Option<String>,
    /// The reason classes a row may name (default: upstream's five).
    pub reasons: Option<Vec<String>>,
    /// The regex a row's reason must match to name its owner (default [`DEFAULT_OWNER`]).
    pub owner: Option<toml::Spanned<String>>,
}
