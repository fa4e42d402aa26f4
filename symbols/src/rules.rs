//! Symbol rules (MobileGL's purity gate B and friends): per library, forbid or require
//! demangled defined / undefined / exported symbols matching a regex.

use std::collections::BTreeMap;
use std::path::Path;

use rayon::prelude::*;
use regex::Regex;
use serde::Serialize;

use crate::cfg::SymbolRulesConfig;
use crate::demangle::demangle;
use crate::model::{Library, Symbol, TableChoice};

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

/// A rule word that names nothing.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RuleError {
    #[error("unknown scope {scope:?} (expected defined, undefined or exported)")]
    UnknownScope { scope: String },
}

impl std::str::FromStr for Scope {
    type Err = RuleError;
    fn from_str(s: &str) -> Result<Self, RuleError> {
        match s {
            "defined" => Ok(Scope::Defined),
            "undefined" => Ok(Scope::Undefined),
            "exported" => Ok(Scope::Exported),
            o => Err(RuleError::UnknownScope {
                scope: o.to_string(),
            }),
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

/// A rule of the section compiled: its index in `[symbol_rules]`, the rule and its table.
#[derive(Debug, Clone)]
pub struct CompiledRule {
    pub index: usize,
    pub rule: Rule,
    pub table: TableChoice,
}

/// A rule that cannot be used (SYR004). `span_start` is the byte offset in `mgctl.toml` of the
/// rule's pattern (0 for the built-in profile), so the caller can name the line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleConfigError {
    pub span_start: usize,
    pub message: String,
}

/// Where a regex stops parsing and why, in one line (regex's own message takes four).
fn regex_problem(pattern: &str) -> String {
    match regex_syntax::ParserBuilder::new().build().parse(pattern) {
        Err(regex_syntax::Error::Parse(e)) => format!(
            "{} at character {} of the pattern",
            e.kind(),
            pattern[..e.span().start.offset.min(pattern.len())]
                .chars()
                .count()
                + 1
        ),
        Err(regex_syntax::Error::Translate(e)) => format!(
            "{} at character {} of the pattern",
            e.kind(),
            pattern[..e.span().start.offset.min(pattern.len())]
                .chars()
                .count()
                + 1
        ),
        _ => String::new(),
    }
}

/// Compile every rule of a section: exactly one of forbid/require, a known scope and table, a
/// valid regex. The first bad rule is the error.
pub fn compile(cfg: &SymbolRulesConfig) -> Result<Vec<CompiledRule>, RuleConfigError> {
    let mut out = Vec::new();
    for (index, r) in cfg.rules.iter().enumerate() {
        let at = r.pattern.span().start;
        let err = |message: String| RuleConfigError {
            span_start: at,
            message: format!("rule `{}`: {message}", r.name),
        };
        let (mode, scope) = match (&r.forbid, &r.require) {
            (Some(s), None) => (Mode::Forbid, s),
            (None, Some(s)) => (Mode::Require, s),
            _ => {
                return Err(err(
                    "give exactly one of forbid = SCOPE or require = SCOPE".into()
                ))
            }
        };
        let scope: Scope = scope.parse().map_err(|e: RuleError| err(e.to_string()))?;
        let pattern = Regex::new(r.pattern.get_ref()).map_err(|e| {
            let why = regex_problem(r.pattern.get_ref());
            err(if why.is_empty() {
                format!("bad pattern: {}", e.to_string().replace('\n', " "))
            } else {
                format!("bad pattern /{}/: {why}", r.pattern.get_ref())
            })
        })?;
        let table = r
            .table
            .as_deref()
            .unwrap_or("auto")
            .parse::<TableChoice>()
            .map_err(|e| err(e.to_string()))?;
        out.push(CompiledRule {
            index,
            rule: Rule {
                mode,
                scope,
                pattern,
                why: r.message.clone(),
            },
            table,
        });
    }
    Ok(out)
}

/// What one rule found.
#[derive(Debug, Clone)]
pub enum RuleOutcome {
    /// The rule's library could not be read (SYR003).
    Unreadable(String),
    /// Forbidden symbols that matched, or one entry for a required pattern that matched nothing.
    Checked(Vec<Violation>),
}

/// One rule's result, by its index in `[symbol_rules]`.
#[derive(Debug, Clone)]
pub struct RuleResult {
    pub index: usize,
    pub outcome: RuleOutcome,
}

impl RuleResult {
    /// True when the rule makes the gate red.
    pub fn failed(&self) -> bool {
        match &self.outcome {
            RuleOutcome::Unreadable(_) => true,
            RuleOutcome::Checked(v) => !v.is_empty(),
        }
    }
}

/// The libraries the rules read, each once per table (workspace-relative path, table).
pub type Loaded = BTreeMap<(String, TableChoice), crate::Result<Library>>;

/// A whole `[symbol_rules]` run.
#[derive(Debug)]
pub struct RulesRun {
    pub rules: Vec<RuleResult>,
    pub libraries: Loaded,
}

impl RulesRun {
    pub fn failed(&self) -> bool {
        self.rules.iter().any(RuleResult::failed)
    }
}

/// Check compiled rules against libraries already loaded: the path a real run and every
/// self-test control share.
pub fn check_loaded(
    cfg: &SymbolRulesConfig,
    compiled: &[CompiledRule],
    libs: &Loaded,
) -> Vec<RuleResult> {
    let mut out = Vec::new();
    for c in compiled {
        let Some(rc) = cfg.rules.get(c.index) else {
            continue;
        };
        let outcome = match libs.get(&(rc.library.clone(), c.table)) {
            Some(Ok(lib)) => RuleOutcome::Checked(check(lib, std::slice::from_ref(&c.rule))),
            Some(Err(e)) => RuleOutcome::Unreadable(e.to_string()),
            None => continue,
        };
        out.push(RuleResult {
            index: c.index,
            outcome,
        });
    }
    out
}

/// The entry point of the symbol rules: compile the section, read each library once (paths
/// relative to `root`) and check every rule.
pub fn run_rules(cfg: &SymbolRulesConfig, root: &Path) -> Result<RulesRun, RuleConfigError> {
    let compiled = compile(cfg)?;
    let mut libraries = Loaded::new();
    for c in &compiled {
        let Some(rc) = cfg.rules.get(c.index) else {
            continue;
        };
        libraries
            .entry((rc.library.clone(), c.table))
            .or_insert_with(|| crate::elf::read_library(&root.join(&rc.library), c.table));
    }
    let rules = check_loaded(cfg, &compiled, &libraries);
    Ok(RulesRun { rules, libraries })
}
