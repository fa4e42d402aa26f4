//! `[ctest]` of mgctl.toml: the lanes whose ctest JUnit is read, the `-N` listing each claims
//! to cover, the named expectations, the exact discovered set and the status baseline.

use serde::Deserialize;

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CtestConfig {
    /// One `[[ctest.lane]]` per CI lane (pull, push, verify, …).
    #[serde(default, rename = "lane")]
    pub lanes: Vec<LaneConfig>,
    /// `[[ctest.expect]]`: a name or glob and the outcome every test it matches must have.
    #[serde(default, rename = "expect")]
    pub expects: Vec<ExpectConfig>,
    /// The exact set of test names every lane discovers (its `-N` listing, or its JUnit when the
    /// lane has no listing); optional.
    pub discovered: Option<toml::Spanned<Vec<String>>>,
    /// The status baseline (workspace-relative JSON, `mgctl lint ctest --write-baseline`).
    pub baseline: Option<toml::Spanned<String>>,
    /// Compare file times: a lane's JUnit older than its listing is stale (default true; false
    /// for committed copies, whose times are checkout times).
    #[serde(default = "yes")]
    pub mtimes: bool,
}

impl crate::diag::Section for CtestConfig {
    const NAME: &'static str = "[ctest]";
    fn nothing_to_check(&self) -> Option<String> {
        self.lanes
            .is_empty()
            .then(|| "[ctest] has no [[ctest.lane]]".to_string())
    }
}

/// One `[[ctest.lane]]` table.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LaneConfig {
    /// The lane's key in the baseline (`pull`, `push`).
    pub name: toml::Spanned<String>,
    /// The workspace-relative `ctest --output-junit` file of the lane.
    pub junit: String,
    /// The workspace-relative `ctest -N` listing (or transcript, or json-v1) the JUnit must cover.
    pub list: Option<String>,
}

/// The outcome an expectation demands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Expected {
    /// The entry ran and passed (a skip is not a pass).
    Pass,
    /// The entry ran and failed (a control whose non-zero rc is the pass).
    Fail,
}

impl Expected {
    pub fn as_str(self) -> &'static str {
        match self {
            Expected::Pass => "pass",
            Expected::Fail => "fail",
        }
    }
}

/// One `[[ctest.expect]]` table.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectConfig {
    /// An exact test name, or a glob (`*`, `?`, `[…]`) when it has glob characters.
    pub name: toml::Spanned<String>,
    pub outcome: Expected,
    /// The lanes it applies to (default: every lane).
    #[serde(default)]
    pub lanes: Vec<String>,
    /// Why; printed with its findings.
    pub why: Option<String>,
}

fn yes() -> bool {
    true
}
