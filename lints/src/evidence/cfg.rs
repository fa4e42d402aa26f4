//! `[[evidence]]` of mgctl.toml: which ctest entries of a lane's JUnit are read, where each
//! entry's role logs are, and what those logs must and must not say.

use std::collections::BTreeMap;

use serde::Deserialize;

/// One `[[evidence]]` table: a set of rules over the role logs of the entries `tests` selects.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EvidenceConfig {
    /// Unique; reports name the set by it.
    pub name: toml::Spanned<String>,
    /// The workspace-relative `ctest --output-junit` file of the lane: its entries, and how long
    /// the run took.
    pub junit: toml::Spanned<String>,
    /// A regex over entry names; it must select at least one entry that ran.
    pub tests: toml::Spanned<String>,
    /// Role (`client`, `server`) → the workspace-relative path of that role's log; `{test}`
    /// stands for the entry's name (required when `tests` selects several entries).
    pub logs: toml::Spanned<BTreeMap<String, toml::Spanned<String>>>,
    /// Each selected entry's role log must hold a line matching the pattern.
    #[serde(default)]
    pub require: Vec<RuleConfig>,
    /// No line of a selected entry's role log may match the pattern.
    #[serde(default)]
    pub forbid: Vec<RuleConfig>,
    /// The number of matching lines in a selected entry's role log must lie in `min..=max`.
    #[serde(default)]
    pub count: Vec<CountConfig>,
    /// Compare file times: a log last written before the run began is stale (default true;
    /// false for committed copies, whose times are checkout times).
    #[serde(default = "yes")]
    pub mtimes: bool,
    /// Why the set exists; printed with its findings.
    pub why: Option<String>,
}

/// A `require` or `forbid` rule.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuleConfig {
    /// `client`, `server`, `both` (each role's log on its own) or `any` (the role logs together).
    pub role: toml::Spanned<String>,
    /// A regex matched against each line.
    pub pattern: toml::Spanned<String>,
}

/// A `count` rule: at least `min` and at most `max` matching lines (either may be left out).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CountConfig {
    pub role: toml::Spanned<String>,
    pub pattern: toml::Spanned<String>,
    pub min: Option<u64>,
    pub max: Option<u64>,
}

fn yes() -> bool {
    true
}

/// The workspace-relative paths a set names, as written (`{test}` unexpanded): its JUnit and
/// its log templates, keyed as docs/config.md names them.
pub fn paths(c: &EvidenceConfig) -> Vec<(&'static str, &str)> {
    let mut out = vec![("evidence.junit", c.junit.get_ref().as_str())];
    out.extend(
        c.logs
            .get_ref()
            .values()
            .map(|p| ("evidence.logs", p.get_ref().as_str())),
    );
    out
}
