//! The `[[evidence]]` sets compiled and validated: each rule's regex, role scope and kind, each
//! set's log paths and selection, every problem an EVD008 at the set in mgctl.toml.

use std::collections::BTreeSet;

use diag::Diag;
use regex::Regex;

use super::cfg::EvidenceConfig;
use super::check::Code;

/// Which role logs a rule reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scope {
    /// One role's log (an index into [`Set::roles`]).
    Role(usize),
    /// Every role's log, each on its own.
    Both,
    /// The role logs together (a `require` holds when any of them has the line).
    Any,
}

/// What a rule asks of the lines it matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Require,
    Forbid,
    Count { min: Option<u64>, max: Option<u64> },
}

impl Kind {
    pub(crate) fn word(self) -> &'static str {
        match self {
            Kind::Require => "require",
            Kind::Forbid => "forbid",
            Kind::Count { .. } => "count",
        }
    }
}

/// A validated rule.
#[derive(Debug, Clone)]
pub(crate) struct Rule {
    pub kind: Kind,
    pub scope: Scope,
    pub re: Regex,
}

impl Rule {
    pub(crate) fn applies(&self, role: usize) -> bool {
        match self.scope {
            Scope::Role(r) => r == role,
            Scope::Both | Scope::Any => true,
        }
    }
}

/// One role of a set: its name, its log's path template and where the template is configured.
#[derive(Debug, Clone)]
pub(crate) struct Role {
    pub name: String,
    pub template: String,
    pub at: usize,
}

impl Role {
    /// The log of entry `test`.
    pub(crate) fn path(&self, test: &str) -> String {
        self.template.replace("{test}", test)
    }
}

/// A validated `[[evidence]]`.
#[derive(Debug, Clone)]
pub(crate) struct Set {
    pub name: String,
    pub junit: String,
    pub junit_at: usize,
    pub tests: Regex,
    pub tests_at: usize,
    pub roles: Vec<Role>,
    pub rules: Vec<Rule>,
    pub mtimes: bool,
    pub why: Option<String>,
}

const ROLES: [&str; 2] = ["client", "server"];

/// A pattern of the config that is not a regex.
#[derive(Debug, thiserror::Error)]
enum RuleError {
    /// On one line: regex's own message takes several.
    #[error("{}", .0.to_string().replace('\n', " "))]
    Regex(regex::Error),
}

fn compile(pattern: &str) -> Result<Regex, RuleError> {
    Regex::new(pattern).map_err(RuleError::Regex)
}

/// Validates one `[[evidence]]`; Err is its EVD008 at the offending line.
pub(crate) fn validate_one(c: &EvidenceConfig) -> Result<Set, Box<Diag<Code>>> {
    let name = c.name.get_ref().clone();
    let bad = |at: usize, m: String| {
        Box::new(
            Diag::error(Code::Evd008, format!("[[evidence]] `{name}`: {m}"))
                .in_config(at)
                .in_unit(name.clone()),
        )
    };
    if name.trim().is_empty() {
        return Err(bad(c.name.span().start, "the name is empty".into()));
    }
    let tests = compile(c.tests.get_ref())
        .map_err(|e| bad(c.tests.span().start, format!("`tests` is not a regex: {e}")))?;
    if c.logs.get_ref().is_empty() {
        return Err(bad(c.logs.span().start, "`logs` names no role log".into()));
    }
    let mut roles = Vec::new();
    for (role, template) in c.logs.get_ref() {
        if !ROLES.contains(&role.as_str()) {
            return Err(bad(
                template.span().start,
                format!(
                    "`logs` names the unknown role `{role}` (roles: {})",
                    ROLES.join(", ")
                ),
            ));
        }
        if template.get_ref().trim().is_empty() {
            return Err(bad(
                template.span().start,
                format!("the {role} log path is empty"),
            ));
        }
        roles.push(Role {
            name: role.clone(),
            template: template.get_ref().clone(),
            at: template.span().start,
        });
    }
    let scope = |r: &toml::Spanned<String>| -> Result<Scope, Box<Diag<Code>>> {
        match r.get_ref().as_str() {
            "both" => Ok(Scope::Both),
            "any" => Ok(Scope::Any),
            word => match roles.iter().position(|x| x.name == word) {
                Some(i) => Ok(Scope::Role(i)),
                None => Err(bad(
                    r.span().start,
                    format!(
                        "a rule names the role `{word}`, which `logs` does not configure (roles: {}, both, any)",
                        roles.iter().map(|x| x.name.as_str()).collect::<Vec<_>>().join(", ")
                    ),
                )),
            },
        }
    };
    let mut rules = Vec::new();
    let listed = c
        .require
        .iter()
        .map(|r| (Kind::Require, &r.role, &r.pattern))
        .chain(c.forbid.iter().map(|r| (Kind::Forbid, &r.role, &r.pattern)))
        .chain(c.count.iter().map(|r| {
            (
                Kind::Count {
                    min: r.min,
                    max: r.max,
                },
                &r.role,
                &r.pattern,
            )
        }));
    for (kind, role, pattern) in listed {
        let at = pattern.span().start;
        let re = compile(pattern.get_ref()).map_err(|e| {
            bad(
                at,
                format!(
                    "{} pattern `{}` is not a regex: {e}",
                    kind.word(),
                    pattern.get_ref()
                ),
            )
        })?;
        if let Kind::Count { min, max } = kind {
            match (min, max) {
                (None, None) => {
                    return Err(bad(at, "a count rule needs `min`, `max` or both".into()))
                }
                (Some(a), Some(b)) if a > b => {
                    return Err(bad(
                        at,
                        format!("a count rule's min {a} is above its max {b}"),
                    ))
                }
                _ => {}
            }
        }
        rules.push(Rule {
            kind,
            scope: scope(role)?,
            re,
        });
    }
    if rules.is_empty() {
        return Err(bad(
            c.name.span().start,
            "no `require`, `forbid` or `count` rule: the set would check nothing".into(),
        ));
    }
    Ok(Set {
        name,
        junit: c.junit.get_ref().clone(),
        junit_at: c.junit.span().start,
        tests,
        tests_at: c.tests.span().start,
        roles,
        rules,
        mtimes: c.mtimes,
        why: c.why.clone(),
    })
}

/// Validates every `[[evidence]]`; a bad set is an EVD008 and the others stay usable.
pub(crate) fn validate(cfgs: &[EvidenceConfig]) -> (Vec<Set>, Vec<Diag<Code>>) {
    let mut out = Vec::new();
    let mut diags = Vec::new();
    let mut seen = BTreeSet::new();
    for c in cfgs {
        if !seen.insert(c.name.get_ref().as_str()) {
            diags.push(
                Diag::error(
                    Code::Evd008,
                    format!("[[evidence]] `{}` is configured twice", c.name.get_ref()),
                )
                .in_config(c.name.span().start),
            );
            continue;
        }
        match validate_one(c) {
            Ok(s) => out.push(s),
            Err(d) => diags.push(*d),
        }
    }
    (out, diags)
}
