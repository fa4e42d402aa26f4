//! Gate `tokens`: forbidden-token rules (MobileGL's purity gate C and stdio gate).

use serde::Deserialize;

use lints::tokens::{self, Mask, Rule, RuleSpec};

use crate::gate::{CheckCtx, Control, Finding, Gate, GateReport, Location, Neutered, SelfTest};

const GATE: &str = "tokens";

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TokensConfig {
    #[serde(default, rename = "rule")]
    pub rules: Vec<TokenRuleConfig>,
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
    fn spec(&self) -> RuleSpec {
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

pub struct TokensGate;

/// Compiles the configured rules; a bad rule is an error finding at its line in mgctl.toml.
fn compile(ctx: Option<&CheckCtx>, cfg: &TokensConfig) -> Result<Vec<Rule>, Box<Finding>> {
    cfg.rules
        .iter()
        .map(|r| {
            Rule::compile(&r.spec()).map_err(|e| {
                let f = Finding::error(GATE, "TOK003", format!("invalid rule: {e}"));
                Box::new(match ctx {
                    Some(ctx) => f.at(ctx.config_location(r.name.span().start)),
                    None => f,
                })
            })
        })
        .collect()
}

/// Maps the library report to findings: TOK001 forbidden token, TOK002 stale allow entry,
/// TOK004 file skipped (not UTF-8; never silent).
fn findings(
    report: &tokens::Report,
    rules: &[Rule],
    ctx: Option<&CheckCtx>,
    cfg: &TokensConfig,
) -> Vec<Finding> {
    let mut out = Vec::new();
    for hit in report.hits.iter().filter(|h| !h.allowed) {
        let why = rules
            .iter()
            .find(|r| r.name == hit.rule)
            .and_then(|r| r.message.clone())
            .unwrap_or_default();
        let sep = if why.is_empty() { "" } else { ": " };
        out.push(
            Finding::error(
                GATE,
                "TOK001",
                format!(
                    "`{}` forbidden by rule `{}`{sep}{why}",
                    hit.matched, hit.rule
                ),
            )
            .at(Location::at(hit.path.clone(), hit.line, Some(hit.column)))
            .in_unit(hit.path.clone())
            .with_detail(serde_json::json!({ "rule": hit.rule, "line_text": hit.line_text })),
        );
    }
    for (rule, entry) in &report.stale_allows {
        let mut f = Finding::error(
            GATE,
            "TOK002",
            format!("rule `{rule}`: allow entry `{entry}` matches nothing (stale: remove it)"),
        );
        if let (Some(ctx), Some(r)) = (ctx, cfg.rules.iter().find(|r| r.name.get_ref() == rule)) {
            f = f.at(ctx.config_location(r.name.span().start));
        }
        out.push(f);
    }
    for (path, why) in &report.skipped {
        out.push(
            Finding::warning(GATE, "TOK004", format!("not scanned: {why}"))
                .at(Location::file(path.clone()))
                .in_unit(path.clone()),
        );
    }
    out
}

impl Gate for TokensGate {
    fn name(&self) -> &'static str {
        GATE
    }

    fn description(&self) -> &'static str {
        "forbidden identifiers and patterns per path glob (purity gate C, stdio instrumentation)"
    }

    fn skip_reason(&self, ctx: &CheckCtx) -> Option<String> {
        match &ctx.config.tokens {
            None => Some("no [tokens] section in mgctl.toml".into()),
            Some(c) if c.rules.is_empty() => Some("[tokens] has no rules".into()),
            Some(_) => None,
        }
    }

    fn run(&self, ctx: &CheckCtx) -> GateReport {
        let Some(cfg) = &ctx.config.tokens else {
            return GateReport::skipped(GATE, "no [tokens] section in mgctl.toml");
        };
        let rules = match compile(Some(ctx), cfg) {
            Ok(r) => r,
            Err(f) => return GateReport::from_findings(GATE, vec![*f], "could not run"),
        };
        let report = match tokens::run(&ctx.root, &rules) {
            Ok(r) => r,
            Err(e) => return GateReport::could_not_run(GATE, "TOK005", e.to_string(), None),
        };
        let fs = findings(&report, &rules, Some(ctx), cfg);
        let hits = report.hits.iter().filter(|h| !h.allowed).count();
        let allowed = report.hits.len() - hits;
        let mut gr = GateReport::from_findings(
            GATE,
            fs,
            format!(
                "{} rules / {} files / {hits} forbidden, {allowed} allowed",
                rules.len(),
                report.files.len()
            ),
        )
        .figure("rules", rules.len())
        .figure("files", report.files.len())
        .figure("forbidden", hits)
        .figure("allowed", allowed);
        gr.units = report.files.clone();
        gr.inputs = vec![ctx.root.display().to_string()];
        gr
    }

    fn self_test(&self, neutered: &Neutered) -> SelfTest {
        let cfg = {
            let mut c = mobilegl_profile();
            c.rules[1].allow = vec!["MobileGL/MG_State/Debug.cpp:1".into()];
            c
        };
        let Ok(rules) = compile(None, &cfg) else {
            return SelfTest {
                controls: vec![Control {
                    name: "compile".into(),
                    expect_trip: false,
                    tripped: true,
                    detail: "profile rules do not compile".into(),
                }],
            };
        };
        // (name, must trip, files); a neutered negative control gets its clean twin.
        let backend_bad = "void Flush() { MG_State::pGLContext->Flush(); }\n";
        let backend_clean = "void Flush() { gBackend.Flush(); }\n";
        let state_bad = "void Dump() { printf(\"%d\\n\", n); }\n";
        let state_clean = "void Dump() { MG_LOG(\"%d\", n); }\n";
        // Negative controls must trip with their own code (TOK001 hit, TOK002 stale allow);
        // positive controls must raise no error at all.
        type Case<'a> = (
            &'a str,
            bool,
            Vec<(&'a str, &'a str)>,
            Vec<(&'a str, &'a str)>,
        );
        let cases: Vec<Case<'_>> = vec![
            (
                "pglcontext-in-backend",
                true,
                vec![("MobileGL/MG_Backend/DirectGLES/Flush.cpp", backend_bad)],
                vec![("MobileGL/MG_Backend/DirectGLES/Flush.cpp", backend_clean)],
            ),
            (
                "pglcontext-in-backend-comment",
                true,
                vec![("MobileGL/MG_Backend/Vk.h", "// reads pGLContext here\n")],
                vec![("MobileGL/MG_Backend/Vk.h", "// reads the context here\n")],
            ),
            (
                "printf-in-state",
                true,
                vec![("MobileGL/MG_State/Dump.cpp", state_bad)],
                vec![("MobileGL/MG_State/Dump.cpp", state_clean)],
            ),
            (
                "cout-in-backend",
                true,
                vec![(
                    "MobileGL/MG_Backend/A.cpp",
                    "void f() { std::cout << x; }\n",
                )],
                vec![("MobileGL/MG_Backend/A.cpp", "void f() { log(x); }\n")],
            ),
            (
                "stale-allow-entry",
                true,
                vec![("MobileGL/MG_State/Other.cpp", "int x;\n")],
                vec![("MobileGL/MG_State/Debug.cpp", "printf(\"x\");\n")],
            ),
            (
                "pglcontext-in-frontend",
                false,
                vec![
                    ("MobileGL/MG_Impl/GLImpl/GL_Blend.cpp", backend_bad),
                    ("MobileGL/MG_State/Debug.cpp", "printf(\"ok\");\n"),
                ],
                vec![],
            ),
            (
                "printf-in-string-or-comment",
                false,
                vec![
                    (
                        "MobileGL/MG_State/S.cpp",
                        "// printf(x)\nconst char* s = \"printf(y)\";\n",
                    ),
                    ("MobileGL/MG_State/Debug.cpp", "printf(\"ok\");\n"),
                ],
                vec![],
            ),
            (
                "pglcontextual-is-not-pglcontext",
                false,
                vec![
                    ("MobileGL/MG_Backend/B.cpp", "int pGLContextual;\n"),
                    ("MobileGL/MG_State/Debug.cpp", "printf(\"ok\");\n"),
                ],
                vec![],
            ),
        ];
        let controls: Vec<Control> = cases
            .into_iter()
            .map(|(name, expect_trip, bad, clean)| {
                let files = if expect_trip && neutered.contains(GATE, name) {
                    clean
                } else {
                    bad
                };
                let report = tokens::analyse(&rules, files.iter().copied());
                let fs = findings(&report, &rules, None, &cfg);
                let code = if name == "stale-allow-entry" {
                    "TOK002"
                } else {
                    "TOK001"
                };
                let first = fs.iter().find(|f| {
                    f.severity == crate::gate::Severity::Error && (!expect_trip || f.code == code)
                });
                Control {
                    name: name.to_string(),
                    expect_trip,
                    tripped: first.is_some(),
                    detail: first.map_or_else(|| "no finding".to_string(), |f| f.message.clone()),
                }
            })
            .collect();
        SelfTest::from_controls(controls)
    }
}
