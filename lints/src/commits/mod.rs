//! MobileGL's commit style: a single-line message `[Type] (Scope): description` with a known
//! Type and no attribution trailer (`Co-Authored-By:` and the like).
//!
//! parse: commits come from [`crate::gitread::GitWorkspace::commits`]; analysis:
//! [`check_message`] (pure, over one message); report: [`Violation`]'s `Display`.

pub mod gate;
pub mod report;

use serde::{Deserialize, Serialize};

/// The style rules (the `[commits]` section of `mgctl.toml`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StyleRules {
    /// Known Types, matched exactly (case-sensitive).
    #[serde(default = "default_types")]
    pub types: Vec<String>,
    /// Trailer keys that attribute authorship (matched case-insensitively, before `:`).
    #[serde(default = "default_trailers")]
    pub forbidden_trailers: Vec<String>,
}

impl Default for StyleRules {
    fn default() -> Self {
        StyleRules {
            types: default_types(),
            forbidden_trailers: default_trailers(),
        }
    }
}

pub fn default_types() -> Vec<String> {
    ["Feat", "Fix", "Refactor", "Test", "Docs", "Perf", "CI"]
        .iter()
        .map(|s| s.to_string())
        .collect()
}

pub fn default_trailers() -> Vec<String> {
    [
        "Co-Authored-By",
        "Signed-off-by",
        "Assisted-by",
        "Generated-by",
        "Helped-by",
        "Suggested-by",
        "Originally-by",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "rule", rename_all = "kebab-case")]
pub enum Violation {
    /// More than one non-empty line.
    MultiLine { lines: usize },
    /// The subject is not `[Type] (Scope): description`.
    Shape { subject: String },
    /// `[Type]` is not a known Type.
    UnknownType { found: String },
    /// An attribution trailer such as `Co-Authored-By:`.
    Trailer { key: String, line: usize },
}

impl Violation {
    /// Stable rule name for findings.
    pub fn rule(&self) -> &'static str {
        match self {
            Violation::MultiLine { .. } => "single-line",
            Violation::Shape { .. } => "subject-shape",
            Violation::UnknownType { .. } => "known-type",
            Violation::Trailer { .. } => "no-attribution",
        }
    }
}

impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Violation::MultiLine { lines } => {
                write!(f, "message has {lines} lines; it must be one line")
            }
            Violation::Shape { subject } => write!(
                f,
                "subject '{subject}' is not '[Type] (Scope): description'"
            ),
            Violation::UnknownType { found } => write!(f, "unknown Type '[{found}]'"),
            Violation::Trailer { key, line } => {
                write!(f, "attribution trailer '{key}:' on message line {line}")
            }
        }
    }
}

/// Every violation of one message.
pub fn check_message(message: &str, rules: &StyleRules) -> Vec<Violation> {
    let mut v = Vec::new();
    let trimmed = message.trim_end_matches(['\n', '\r', ' ']);
    let lines: Vec<&str> = trimmed.lines().collect();
    let subject = lines.first().copied().unwrap_or("");
    let non_empty = lines.iter().filter(|l| !l.trim().is_empty()).count();
    if non_empty > 1 {
        v.push(Violation::MultiLine { lines: non_empty });
    }
    match parse_subject(subject) {
        None => v.push(Violation::Shape {
            subject: diag::escape::shorten(subject, diag::escape::QUOTE_CHARS).into_owned(),
        }),
        Some(ty) if !rules.types.iter().any(|t| t == ty) => v.push(Violation::UnknownType {
            found: diag::escape::shorten(ty, diag::escape::QUOTE_CHARS).into_owned(),
        }),
        Some(_) => {}
    }
    for (i, line) in lines.iter().enumerate() {
        if let Some((key, _)) = line.trim_start().split_once(':') {
            if let Some(k) = rules
                .forbidden_trailers
                .iter()
                .find(|t| t.eq_ignore_ascii_case(key.trim()))
            {
                v.push(Violation::Trailer {
                    key: diag::escape::shorten(k, diag::escape::QUOTE_CHARS).into_owned(),
                    line: i + 1,
                });
            }
        }
    }
    v
}

/// The Type of a well-formed subject `[Type] (Scope): description`.
fn parse_subject(s: &str) -> Option<&str> {
    let rest = s.strip_prefix('[')?;
    let (ty, rest) = rest.split_once(']')?;
    if ty.is_empty() || !ty.chars().all(|c| c.is_ascii_alphanumeric()) {
        return None;
    }
    let rest = rest.strip_prefix(" (")?;
    let (scope, rest) = rest.split_once(')')?;
    if scope.trim().is_empty() || scope.contains('(') || scope != scope.trim() {
        return None;
    }
    let desc = rest.strip_prefix(": ")?;
    (!desc.trim().is_empty() && desc == desc.trim_start()).then_some(ty)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(m: &str) -> Vec<&'static str> {
        check_message(m, &StyleRules::default())
            .iter()
            .map(Violation::rule)
            .collect()
    }

    #[test]
    fn good_messages() {
        assert!(rules("[Feat] (lints): untouched regions\n").is_empty());
        assert!(rules("[CI] (ci): cache the target dir").is_empty());
        assert!(rules("[Fix] (MG_Pipe/DirectGLES): flush (again)").is_empty());
    }

    #[test]
    fn bad_messages() {
        assert_eq!(rules("Feat: lints"), ["subject-shape"]);
        assert_eq!(rules("[Feat](lints): x"), ["subject-shape"]);
        assert_eq!(rules("[Feat] (lints):x"), ["subject-shape"]);
        assert_eq!(rules("[Feat] (): x"), ["subject-shape"]);
        assert_eq!(rules("[Feature] (lints): x"), ["known-type"]);
        assert_eq!(rules("[Feat] (lints): x\n\nmore words"), ["single-line"]);
        assert_eq!(
            rules("[Feat] (lints): x\n\nCo-authored-by: A <a@b>"),
            ["single-line", "no-attribution"]
        );
        assert_eq!(
            rules("[Feat] (lints): x\nSigned-off-by: A"),
            ["single-line", "no-attribution"]
        );
    }
}
