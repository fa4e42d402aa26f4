//! Live controls (issue 18 item 7): per rule, a forbidden token inserted as the first line of a file of the
//! audited workspace the rule applies to, in an in-memory overlay, must make the real entry
//! point ([`super::check::check_source`]) report it. A rule whose globs match no file of the
//! workspace cannot go red there, so its control fails with that reason.

use std::collections::BTreeMap;

use regex_syntax::hir::{Class, Hir, HirKind};

use super::cfg::TokensConfig;
use super::check::{check_source, compile, Code};
use super::Rule;
use crate::diag::Control;
use crate::source::{Overlay, Source};

/// A short text the rule's pattern matches, built from its syntax tree (first branch of each
/// alternation, minimum repetitions, a printable member of each class).
fn sample(rule: &Rule) -> Option<String> {
    fn walk(h: &Hir, out: &mut String) -> bool {
        match h.kind() {
            HirKind::Empty | HirKind::Look(_) => true,
            HirKind::Literal(l) => match std::str::from_utf8(&l.0) {
                Ok(s) => {
                    out.push_str(s);
                    true
                }
                Err(_) => false,
            },
            HirKind::Class(c) => {
                const PREFERRED: &str = "a_A0(){};:";
                let ch = match c {
                    Class::Unicode(u) => PREFERRED
                        .chars()
                        .find(|ch| {
                            u.ranges()
                                .iter()
                                .any(|r| r.start() <= *ch && *ch <= r.end())
                        })
                        .or_else(|| u.ranges().first().map(|r| r.start())),
                    Class::Bytes(b) => PREFERRED
                        .bytes()
                        .find(|ch| {
                            b.ranges()
                                .iter()
                                .any(|r| r.start() <= *ch && *ch <= r.end())
                        })
                        .or_else(|| b.ranges().first().map(|r| r.start()))
                        .filter(u8::is_ascii)
                        .map(char::from),
                };
                match ch {
                    Some(ch) => {
                        out.push(ch);
                        true
                    }
                    None => false,
                }
            }
            HirKind::Repetition(r) => (0..r.min.min(64)).all(|_| walk(&r.sub, out)),
            HirKind::Capture(c) => walk(&c.sub, out),
            HirKind::Concat(v) => v.iter().all(|h| walk(h, out)),
            HirKind::Alternation(v) => v.iter().any(|h| {
                let mut s = String::new();
                let ok = walk(h, &mut s) && !s.is_empty();
                if ok {
                    out.push_str(&s);
                }
                ok
            }),
        }
    }
    let hir = regex_syntax::parse(rule.regex.as_str()).ok()?;
    let mut s = String::new();
    (walk(&hir, &mut s) && !s.is_empty() && !s.contains('\n') && rule.regex.is_match(&s))
        .then_some(s)
}

/// One live control per rule (`live-<rule>`), run over `src` (the workspace on disk).
/// `neutered(name)` runs that control on the unmutated workspace, so it cannot trip.
pub fn live_controls(
    src: &dyn Source,
    cfg: &TokensConfig,
    neutered: &dyn Fn(&str) -> bool,
) -> Vec<Control> {
    let fail = |name: String, detail: String| Control {
        name,
        expect_trip: true,
        tripped: false,
        detail,
    };
    let rules = match compile(cfg) {
        Ok(r) => r,
        Err(d) => return vec![fail("live".into(), d.message)],
    };
    let report = match super::run_source(src, &rules) {
        Ok(r) => r,
        Err(e) => return vec![fail("live".into(), e.to_string())],
    };
    let mut out = Vec::new();
    for rule in &rules {
        let name = format!("live-{}", rule.name);
        // a file the rule applies to and that no whole-file allow entry covers
        let target = report.files.iter().find(|f| {
            rule.applies_to(f) && !rule.allow.iter().any(|a| a.path == **f && a.line.is_none())
        });
        let Some(target) = target else {
            out.push(fail(
                name,
                format!(
                    "rule `{}`: its paths globs ({}) match no file of this workspace, so it cannot go red here (misspelt?)",
                    rule.name,
                    rule.globs.join(", ")
                ),
            ));
            continue;
        };
        let Some(token) = sample(rule) else {
            out.push(fail(
                name,
                format!(
                    "rule `{}`: cannot build a text its pattern matches",
                    rule.name
                ),
            ));
            continue;
        };
        let mut files = BTreeMap::new();
        if !neutered(&name) {
            let mut bytes = match src.read(target) {
                Ok(b) => b,
                Err(e) => {
                    out.push(fail(name, format!("{target}: cannot read: {e}")));
                    continue;
                }
            };
            // first line: the start of a file is code, never inside a comment or a literal
            let mut line = format!("{token}\n").into_bytes();
            line.append(&mut bytes);
            files.insert(target.clone(), line);
        }
        let overlay = Overlay { base: src, files };
        let outcome = check_source(&overlay, cfg);
        let hit = outcome.diags.iter().find(|d| {
            d.code == Code::Tok001
                && d.location.as_ref().map(|l| l.path.as_str()) == Some(target.as_str())
                && d.detail
                    .as_ref()
                    .and_then(|v| v.get("rule"))
                    .and_then(|v| v.as_str())
                    == Some(rule.name.as_str())
        });
        out.push(Control {
            name,
            expect_trip: true,
            tripped: hit.is_some(),
            detail: match hit {
                Some(d) => format!("`{token}` inserted at the top of {target}: {}", d.message),
                None => format!("`{token}` inserted at the top of {target} was not reported"),
            },
        });
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::source::Disk;

    fn cfg(paths: &str) -> TokensConfig {
        toml::from_str(&format!(
            "[[rule]]\nname = \"r\"\npattern = '\\b(printf|puts)\\s*\\(|std::cout\\b'\npaths = [\"{paths}\"]\nmask = \"code\"\n"
        ))
        .unwrap()
    }

    #[test]
    fn a_rule_goes_red_live_and_a_misspelt_glob_fails() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/a.cpp"), "int x; /* open").unwrap();
        let src = Disk {
            root: dir.path().to_path_buf(),
        };
        let ok = live_controls(&src, &cfg("src/**"), &|_| false);
        assert!(ok[0].tripped, "{ok:?}");
        let n = live_controls(&src, &cfg("src/**"), &|c| c == "live-r");
        assert!(!n[0].tripped);
        let bad = live_controls(&src, &cfg("srcc/**"), &|_| false);
        assert!(!bad[0].tripped && bad[0].detail.contains("match no file"));
        assert_eq!(
            std::fs::read(dir.path().join("src/a.cpp")).unwrap(),
            b"int x; /* open"
        );
    }
}
