//! `[tokens]` of mgctl.toml and the MobileGL profile's rules.

use serde::Deserialize;

use super::{Mask, RuleSpec};

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TokensConfig {
    #[serde(default, rename = "rule")]
    pub rules: Vec<TokenRuleConfig>,
}

impl crate::diag::Section for TokensConfig {
    const NAME: &'static str = "[tokens]";
    fn nothing_to_check(&self) -> Option<String> {
        (self.rules.is_empty()).then(|| "[tokens] has no rules".to_string())
    }
}

/// One `[[tokens.rule]]` table.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TokenRuleConfig {
    pub name: toml::Spanned<String>,
    /// A regular expression (Rust `regex` syntax).
    pub pattern: Option<String>,
    /// An identifier, matched on word boundaries (`pGLContext` does not match `pGLContextual`).
    pub ident: Option<String>,
    /// Globs relative to the workspace root.
    pub paths: Vec<String>,
    #[serde(default)]
    pub exclude: Vec<String>,
    /// `none` (like grep), `comments`, or `code` (comments and string literals blanked; default).
    #[serde(default)]
    pub mask: Mask,
    /// `path` or `path:line` entries where the token is allowed.
    #[serde(default)]
    pub allow: Vec<String>,
    /// Why the token is forbidden; printed with every hit.
    pub message: Option<String>,
}

impl TokenRuleConfig {
    pub fn spec(&self) -> RuleSpec {
        RuleSpec {
            name: self.name.get_ref().clone(),
            pattern: self.pattern.clone(),
            ident: self.ident.clone(),
            paths: self.paths.clone(),
            exclude: self.exclude.clone(),
            mask: self.mask,
            allow: self.allow.clone(),
            message: self.message.clone(),
        }
    }
}

fn rule(
    name: &str,
    ident: Option<&str>,
    pattern: Option<&str>,
    paths: &[&str],
    mask: Mask,
    message: &str,
) -> TokenRuleConfig {
    TokenRuleConfig {
        name: toml::Spanned::new(0..0, name.to_string()),
        pattern: pattern.map(str::to_string),
        ident: ident.map(str::to_string),
        paths: paths.iter().map(|s| s.to_string()).collect(),
        exclude: Vec::new(),
        mask,
        allow: Vec::new(),
        message: Some(message.to_string()),
    }
}

const STDIO_PATTERN: &str = r"\b(printf|fprintf|puts|fputs)\s*\(|std::(cout|cerr|clog)\b";

/// MobileGL's purity gate C (raw grep: comments count) and its stdio gate (code only).
pub fn mobilegl_profile() -> TokensConfig {
    TokensConfig {
        rules: vec![
            rule(
                "purity-c",
                Some("pGLContext"),
                None,
                &["MobileGL/MG_Backend/**"],
                Mask::None,
                "the backend must not reach the frontend context (interface-purity gate C)",
            ),
            rule(
                "no-stdio",
                None,
                Some(STDIO_PATTERN),
                &["MobileGL/MG_Backend/**", "MobileGL/MG_State/**"],
                Mask::Code,
                "no stdio instrumentation in the backend or the state layer; log through MG_Util",
            ),
        ],
    }
}
