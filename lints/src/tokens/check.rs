//! The `tokens` analysis as one entry point: config in, [`Outcome`] out, used by the gate and
//! its self-test alike.

use std::path::Path;

use super::cfg::TokensConfig;
use super::{Report, Rule};
use crate::diag::{Diag, Outcome};

diag::codes! {
    /// Finding codes of the `tokens` gate (docs/codes.md).
    pub enum Code: "TOK" {
        Tok001 = "TOK001": "a forbidden token",
        Tok002 = "TOK002": "an allow entry that matches nothing (stale)",
        Tok003 = "TOK003": "a rule that does not compile",
        Tok004 = "TOK004": "a file a rule applies to was not scanned (not UTF-8, a link leading out of the workspace)",
        Tok005 = "TOK005": "the tree could not be walked or a file could not be read",
        Tok006 = "TOK006": "a rule's paths globs match no file (the rule would pass vacuously)",
        Tok007 = "TOK007": "one paths glob of a rule matches no file (the others do)",
        Tok008 = "TOK008": "a file a rule applies to is larger than the size limit ([check] max_file_size): not read",
    }
}

/// Compiles the configured rules; a bad rule is a TOK003 at its name in mgctl.toml.
pub fn compile(cfg: &TokensConfig) -> Result<Vec<Rule>, Box<Diag<Code>>> {
    cfg.rules
        .iter()
        .map(|r| {
            Rule::compile(&r.spec()).map_err(|e| {
                Box::new(
                    Diag::error(Code::Tok003, format!("invalid rule: {e}"))
                        .in_config(r.name.span().start),
                )
            })
        })
        .collect()
}

fn rule_span(cfg: &TokensConfig, rule: &str) -> Option<usize> {
    cfg.rules
        .iter()
        .find(|r| r.name.get_ref() == rule)
        .map(|r| r.name.span().start)
}

/// How many globs matching nothing one rule lists by name before they are counted instead.
const VACUOUS_LISTED: usize = 10;

/// Diagnostics of a finished report: TOK001 forbidden token, TOK002 stale allow entry, TOK004
/// file skipped (never silent), TOK006 a paths glob matching no file.
pub fn diags(report: &Report, rules: &[Rule], cfg: &TokensConfig) -> Vec<Diag<Code>> {
    let mut out = Vec::new();
    for hit in report.hits.iter().filter(|h| !h.allowed) {
        let why = rules
            .iter()
            .find(|r| r.name == hit.rule)
            .and_then(|r| r.message.clone())
            .unwrap_or_default();
        let sep = if why.is_empty() { "" } else { ": " };
        out.push(
            Diag::error(
                Code::Tok001,
                format!(
                    "`{}` forbidden by rule `{}`{sep}{why}",
                    hit.matched, hit.rule
                ),
            )
            .at(hit.path.clone(), hit.line, Some(hit.column))
            .in_unit(hit.path.clone())
            .with_detail(serde_json::json!({ "rule": hit.rule, "line_text": hit.line_text })),
        );
    }
    for (rule, entry) in &report.stale_allows {
        let mut d = Diag::error(
            Code::Tok002,
            format!("rule `{rule}`: allow entry `{entry}` matches nothing (stale: remove it)"),
        );
        d.config = rule_span(cfg, rule).map(diag::ConfigAt::Byte);
        out.push(d);
    }
    // Per rule, its globs that match nothing; past VACUOUS_LISTED of them one finding names
    // the first ones and counts the rest (issue 29: 20,000 globs were 20,000 findings, megabytes).
    let mut by_rule: Vec<(&String, Vec<&String>)> = Vec::new();
    for (rule, glob) in &report.vacuous {
        match by_rule.iter_mut().find(|(r, _)| *r == rule) {
            Some((_, globs)) => globs.push(glob),
            None => by_rule.push((rule, vec![glob])),
        }
    }
    for (rule, globs) in by_rule {
        // a rule none of whose globs matches anything checks nothing: that is a vacuous pass
        let whole = !report.vacuous_rule_has_files(rule);
        let (code, tail) = if whole {
            (Code::Tok006, ", so the rule checks nothing (misspelt?)")
        } else {
            (Code::Tok007, " (misspelt?)")
        };
        let messages: Vec<String> = if globs.len() <= VACUOUS_LISTED {
            globs
                .iter()
                .map(|g| format!("rule `{rule}`: paths glob `{g}` matches no file{tail}"))
                .collect()
        } else {
            let first: Vec<String> = globs
                .iter()
                .take(VACUOUS_LISTED)
                .map(|g| format!("`{}`", diag::escape::shorten(g, diag::escape::QUOTE_CHARS)))
                .collect();
            vec![format!(
                "rule `{rule}`: {} paths globs match no file{tail}; the first {VACUOUS_LISTED}: {}, …",
                globs.len(),
                first.join(", ")
            )]
        };
        for m in messages {
            let mut d = if whole {
                Diag::error(code, m)
            } else {
                Diag::warning(code, m)
            }
            .in_unit(rule.clone());
            d.config = rule_span(cfg, rule).map(diag::ConfigAt::Byte);
            out.push(d);
        }
    }
    for (path, why) in &report.skipped {
        out.push(
            Diag::warning(Code::Tok004, format!("not scanned: {why}"))
                .file(path.clone())
                .in_unit(path.clone()),
        );
    }
    for (path, why) in &report.too_large {
        out.push(
            Diag::error(Code::Tok008, format!("not scanned: {why}"))
                .file(path.clone())
                .in_unit(path.clone()),
        );
    }
    out
}

/// Runs every configured rule over the workspace at `root`.
pub fn check(root: &Path, cfg: &TokensConfig) -> Outcome<Code> {
    check_source(
        &crate::source::Disk {
            root: root.to_path_buf(),
        },
        cfg,
    )
}

/// [`check`] over any source (the disk, or the live controls' in-memory overlay).
pub fn check_source(src: &dyn crate::source::Source, cfg: &TokensConfig) -> Outcome<Code> {
    let root = src.root();
    let rules = match compile(cfg) {
        Ok(r) => r,
        Err(d) => return Outcome::could_not_run(vec![*d]),
    };
    let report = match super::run_source(src, &rules) {
        Ok(r) => r,
        Err(e) => return Outcome::could_not_run(vec![Diag::error(Code::Tok005, e.to_string())]),
    };
    let hits = report.hits.iter().filter(|h| !h.allowed).count();
    let allowed = report.hits.len() - hits;
    let mut o = Outcome {
        diags: diags(&report, &rules, cfg),
        headline: format!(
            "{} rules / {} files / {hits} forbidden, {allowed} allowed",
            rules.len(),
            report.files.len()
        ),
        units: report.files.clone(),
        inputs: vec![root.display().to_string()],
        ..Outcome::default()
    }
    .figure("rules", rules.len())
    .figure("files", report.files.len())
    .figure("forbidden", hits)
    .figure("allowed", allowed);
    if !report.vacuous.is_empty() {
        o = o.figure("vacuous_globs", report.vacuous.len());
    }
    o
}
