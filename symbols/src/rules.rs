//! Symbol rules (MobileGL's purity gate B and friends): per library, forbid or require
//! demangled defined / undefined / exported symbols matching a regex.

use rayon::prelude::*;
use regex::Regex;
use serde::Serialize;

use crate::demangle::demangle;
use crate::model::{Library, Symbol};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    Defined,
    Undefined,
    Exported,
}

impl Scope {
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Defined => "defined",
            Scope::Undefined => "undefined",
            Scope::Exported => "exported",
        }
    }
}

impl std::str::FromStr for Scope {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "defined" => Ok(Scope::Defined),
            "undefined" => Ok(Scope::Undefined),
            "exported" => Ok(Scope::Exported),
            o => Err(format!(
                "unknown scope {o:?} (expected defined, undefined or exported)"
            )),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    Forbid,
    Require,
}

/// One rule: `forbid undefined /MG_State::GLState::|glslang/`.
#[derive(Debug, Clone)]
pub struct Rule {
    pub mode: Mode,
    pub scope: Scope,
    pub pattern: Regex,
    /// Why the rule exists, printed with every finding.
    pub why: Option<String>,
}

/// A rule outcome: forbidden symbols that matched, or a required pattern that matched nothing.
#[derive(Debug, Clone, Serialize)]
pub struct Violation {
    pub mode: Mode,
    pub scope: Scope,
    pub pattern: String,
    /// For `forbid`: the offending symbol (demangled, mangled). Empty for `require`.
    pub demangled: String,
    pub mangled: String,
}

fn symbols_of(lib: &Library, scope: Scope) -> Vec<&Symbol> {
    match scope {
        Scope::Defined => lib.defined.iter().collect(),
        Scope::Undefined => lib.undefined.iter().collect(),
        Scope::Exported => lib.exported(),
    }
}

/// Check every rule against a library; a pattern is matched against the demangled text and
/// the mangled name (so `glslang` catches both spellings).
pub fn check(lib: &Library, rules: &[Rule]) -> Vec<Violation> {
    let mut out = Vec::new();
    for rule in rules {
        let syms = symbols_of(lib, rule.scope);
        let hits: Vec<(String, String)> = syms
            .par_iter()
            .with_min_len(256)
            .filter_map(|s| {
                let d = demangle(&s.name);
                (rule.pattern.is_match(&d) || rule.pattern.is_match(&s.name))
                    .then(|| (d.into_owned(), s.versioned_name()))
            })
            .collect();
        match rule.mode {
            Mode::Forbid => out.extend(hits.into_iter().map(|(demangled, mangled)| Violation {
                mode: rule.mode,
                scope: rule.scope,
                pattern: rule.pattern.as_str().to_string(),
                demangled,
                mangled,
            })),
            Mode::Require if hits.is_empty() => out.push(Violation {
                mode: rule.mode,
                scope: rule.scope,
                pattern: rule.pattern.as_str().to_string(),
                demangled: String::new(),
                mangled: String::new(),
            }),
            Mode::Require => {}
        }
    }
    out
}
