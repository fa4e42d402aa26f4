//! Layering rules modelled on Chromium's checkdeps: per directory, `+path` allows, `-path` forbids,
//! `!path` allows for now (every use warns; a use not listed as known fails). The most specific
//! rule wins (longest matching path prefix, then the deepest directory). Groups apply to direct
//! includes, or with `transitive` to everything a file reaches.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use serde::Serialize;

use crate::graph::{Graph, NodeId};
use crate::query::{chain, reach, Hop};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RuleKind {
    Allow,
    Forbid,
    Temporary,
}

/// Where a rule was written (config file and 1-based line).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Origin {
    pub file: String,
    pub line: usize,
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.file, self.line)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Rule {
    pub kind: RuleKind,
    /// Root-relative path prefix (string prefix: `Foo/Shader` matches `Foo/ShaderStage.h`).
    pub target: String,
    /// The rule as written, e.g. `-MobileGL/MG_State/GLState`.
    pub text: String,
    pub origin: Origin,
}

/// Why a layering rule as written is not one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RuleError {
    #[error("rule `{rule}` must start with +, - or !")]
    NoKind { rule: String },
    #[error("rule `{rule}` names no path")]
    NoPath { rule: String },
}

impl Rule {
    /// Parses `+path`, `-path` or `!path`.
    pub fn parse(text: &str, origin: Origin) -> Result<Rule, RuleError> {
        let t = text.trim();
        let (kind, rest) = match t.chars().next() {
            Some('+') => (RuleKind::Allow, &t[1..]),
            Some('-') => (RuleKind::Forbid, &t[1..]),
            Some('!') => (RuleKind::Temporary, &t[1..]),
            _ => {
                return Err(RuleError::NoKind {
                    rule: t.to_string(),
                })
            }
        };
        let target = rest.trim().trim_start_matches("./").to_string();
        if target.is_empty() {
            return Err(RuleError::NoPath {
                rule: t.to_string(),
            });
        }
        Ok(Rule {
            kind,
            target,
            text: t.to_string(),
            origin,
        })
    }
}

/// The rules of one directory.
#[derive(Debug, Clone, Serialize)]
pub struct RuleGroup {
    /// Root-relative directory the rules govern ("" = the whole workspace).
    pub dir: String,
    /// Check everything each file reaches, not only its own includes.
    pub transitive: bool,
    pub rules: Vec<Rule>,
    /// Known uses of this group's `!` rules, as `from -> header`; a use not listed is new.
    pub known_uses: Vec<String>,
    pub origin: Origin,
}

impl RuleGroup {
    fn governs(&self, rel: &str) -> bool {
        let d = self.dir.trim_end_matches('/');
        d.is_empty()
            || rel == d
            || (rel.starts_with(d) && rel.as_bytes().get(d.len()) == Some(&b'/'))
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Violation {
    pub from: String,
    pub header: String,
    pub rule: Rule,
    pub transitive: bool,
    /// Shortest include chain from `from` to `header`, each hop `path:line`.
    pub chain: Vec<Hop>,
    /// Further headers the same file reaches that the same rule forbids.
    pub also: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct TemporaryUse {
    pub from: String,
    pub header: String,
    pub rule: Rule,
    pub chain: Vec<Hop>,
    /// Listed in the group's `known_uses`.
    pub known: bool,
}

impl TemporaryUse {
    pub fn key(&self) -> String {
        format!("{} -> {}", self.from, self.header)
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Stale {
    pub what: String,
    pub reason: String,
    pub origin: Origin,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct LayeringReport {
    pub violations: Vec<Violation>,
    pub temporary: Vec<TemporaryUse>,
    /// Rules and groups that match nothing (all of them, in config order).
    pub stale: Vec<Stale>,
    /// `known_uses` entries that no longer occur (the ratchet turned; remove them).
    pub gone: Vec<Stale>,
    pub files_checked: usize,
}

/// The winning rule for `header` among `groups` (by index), if any.
fn decide<'a>(groups: &[&'a RuleGroup], header: &str) -> Option<(&'a Rule, usize)> {
    let mut best: Option<(&Rule, usize, (usize, usize))> = None;
    for (gi, g) in groups.iter().enumerate() {
        for r in &g.rules {
            if header.starts_with(&r.target) {
                let key = (r.target.len(), g.dir.len());
                if best.as_ref().is_none_or(|b| key >= b.2) {
                    best = Some((r, gi, key));
                }
            }
        }
    }
    best.map(|(r, gi, _)| (r, gi))
}

/// Checks every scanned file inside the root against the rule groups.
pub fn check(g: &Graph, groups: &[RuleGroup]) -> LayeringReport {
    let mut rep = LayeringReport::default();
    let mut used: HashSet<(usize, usize)> = HashSet::new(); // (group, rule index) that won a decision
    let mut governed_any = vec![false; groups.len()];
    let rule_id = |r: &Rule| -> (usize, usize) {
        for (gi, gr) in groups.iter().enumerate() {
            if let Some(ri) = gr.rules.iter().position(|x| std::ptr::eq(x, r)) {
                return (gi, ri);
            }
        }
        (usize::MAX, usize::MAX)
    };
    let mut temp_seen: BTreeSet<(usize, String)> = BTreeSet::new();
    for n in 0..g.nodes.len() {
        let node = &g.nodes[n];
        if node.external || !node.scanned {
            continue;
        }
        let mine: Vec<&RuleGroup> = groups.iter().filter(|gr| gr.governs(&node.rel)).collect();
        if mine.is_empty() {
            continue;
        }
        for (gi, gr) in groups.iter().enumerate() {
            if gr.governs(&node.rel) {
                governed_any[gi] = true;
            }
        }
        rep.files_checked += 1;
        let transitive: Vec<&RuleGroup> = mine.iter().copied().filter(|gr| gr.transitive).collect();
        let r = if transitive.is_empty() {
            reach(g, &[n], |_| false) // only depth 0; direct edges handled below
        } else {
            reach(g, &[n], |_| true)
        };
        // (rule id) -> first violation index, for the `also` count.
        let mut first_by_rule: BTreeMap<(usize, usize), usize> = BTreeMap::new();
        let mut visit = |h: NodeId,
                         via_direct: Option<(u32, bool)>,
                         pool: &[&RuleGroup],
                         rep: &mut LayeringReport| {
            let header = g.rel(h);
            // A header reached through a link is judged as the file the compiler reads (issue
            // 29: `MG_Backend/Common/Fill.h -> ../../MG_Impl/…` laundered a violation); it is
            // reported at the path the chain spells.
            let judged = g.nodes[h].resolved.as_deref().unwrap_or(header);
            let Some((rule, _)) = decide(pool, judged) else {
                return;
            };
            let id = rule_id(rule);
            used.insert(id);
            let hops = match via_direct {
                Some((line, cond)) => vec![
                    Hop {
                        path: node.rel.clone(),
                        line: Some(line),
                        conditional: cond,
                    },
                    Hop {
                        path: header.to_string(),
                        line: None,
                        conditional: false,
                    },
                ],
                None => chain(g, &r, h),
            };
            match rule.kind {
                RuleKind::Allow => {}
                RuleKind::Forbid => {
                    if let Some(&vi) = first_by_rule.get(&id) {
                        rep.violations[vi].also += 1;
                    } else {
                        first_by_rule.insert(id, rep.violations.len());
                        rep.violations.push(Violation {
                            from: node.rel.clone(),
                            header: header.to_string(),
                            rule: rule.clone(),
                            transitive: via_direct.is_none(),
                            chain: hops,
                            also: 0,
                        });
                    }
                }
                RuleKind::Temporary => {
                    let key = format!("{} -> {}", node.rel, header);
                    if temp_seen.insert((id.0, key.clone())) {
                        let known = groups
                            .get(id.0)
                            .is_some_and(|gr| gr.known_uses.iter().any(|k| norm_use(k) == key));
                        rep.temporary.push(TemporaryUse {
                            from: node.rel.clone(),
                            header: header.to_string(),
                            rule: rule.clone(),
                            chain: hops,
                            known,
                        });
                    }
                }
            }
        };
        for e in &g.out[n] {
            visit(e.to, Some((e.line, e.conditional)), &mine, &mut rep);
        }
        if !transitive.is_empty() {
            for &h in r.order.iter().filter(|&&h| r.depth[h] >= 2) {
                visit(h, None, &transitive, &mut rep);
            }
        }
    }
    // Staleness: every problem at once, in config order.
    for (gi, gr) in groups.iter().enumerate() {
        if !governed_any[gi] {
            rep.stale.push(Stale {
                what: format!("rules for `{}`", gr.dir),
                reason: "the directory holds no scanned file".into(),
                origin: gr.origin.clone(),
            });
        }
        for (ri, rule) in gr.rules.iter().enumerate() {
            let stale = match rule.kind {
                RuleKind::Forbid => !g.nodes.iter().any(|nd| nd.rel.starts_with(&rule.target)),
                RuleKind::Allow | RuleKind::Temporary => !used.contains(&(gi, ri)),
            };
            if stale {
                let reason = if rule.kind == RuleKind::Forbid {
                    "no file in the graph has this path prefix (typo or moved?)"
                } else {
                    "no include uses this allowance; remove it"
                };
                rep.stale.push(Stale {
                    what: format!("rule `{}`", rule.text),
                    reason: reason.into(),
                    origin: rule.origin.clone(),
                });
            }
        }
        for k in &gr.known_uses {
            let key = norm_use(k);
            if !temp_seen.contains(&(gi, key.clone())) {
                rep.gone.push(Stale {
                    what: format!("known use `{key}`"),
                    reason: "no longer occurs; remove it from known_uses".into(),
                    origin: gr.origin.clone(),
                });
            }
        }
    }
    rep.violations
        .sort_by(|a, b| (&a.from, &a.header).cmp(&(&b.from, &b.header)));
    rep.temporary.sort_by_key(TemporaryUse::key);
    rep
}

fn norm_use(s: &str) -> String {
    match s.split_once("->") {
        Some((a, b)) => format!("{} -> {}", a.trim(), b.trim()),
        None => s.trim().to_string(),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::graph::tests::tree;
    use crate::graph::GraphOptions;
    use crate::query::chain_text;

    fn o(line: usize) -> Origin {
        Origin {
            file: "mgctl.toml".into(),
            line,
        }
    }

    fn group(dir: &str, transitive: bool, rules: &[&str]) -> RuleGroup {
        RuleGroup {
            dir: dir.into(),
            transitive,
            rules: rules
                .iter()
                .enumerate()
                .map(|(i, r)| Rule::parse(r, o(10 + i)).unwrap())
                .collect(),
            known_uses: Vec::new(),
            origin: o(9),
        }
    }

    fn workspace() -> tempfile::TempDir {
        tree(&[
            (
                "Backend/Draw.cpp",
                "#include \"../Pipe/Handles.h\"\n#include \"../Impl/Glue.h\"\n",
            ),
            ("Pipe/Handles.h", "#include \"Values.h\"\n"),
            (
                "Pipe/Values.h",
                "\n#include \"../State/GLState/Render.h\"\n",
            ),
            ("State/GLState/Render.h", "#include \"Tex.h\"\n"),
            ("State/GLState/Tex.h", ""),
            ("State/GLState/Public.h", ""),
            ("Impl/Glue.h", ""),
        ])
    }

    #[test]
    fn transitive_violation_has_witness_chain() {
        let d = workspace();
        let g = Graph::build(&GraphOptions::new(d.path())).unwrap();
        let groups = vec![group(
            "Backend",
            true,
            &["-State/GLState", "+State/GLState/Public.h", "!Impl"],
        )];
        let rep = check(&g, &groups);
        assert_eq!(rep.violations.len(), 1);
        let v = &rep.violations[0];
        assert_eq!(v.header, "State/GLState/Render.h");
        assert_eq!(v.also, 1); // Tex.h too
        assert_eq!(
            chain_text(&v.chain),
            "Backend/Draw.cpp:1 -> Pipe/Handles.h:1 -> Pipe/Values.h:2 -> State/GLState/Render.h"
        );
        assert_eq!(v.rule.origin.line, 10);
        // `!Impl` used but not known → new use; `+Public.h` matched nothing → stale
        assert_eq!(rep.temporary.len(), 1);
        assert!(!rep.temporary[0].known);
        assert_eq!(rep.stale.len(), 1);
        assert!(rep.stale[0].what.contains("+State/GLState/Public.h"));
    }

    #[test]
    fn direct_only_and_most_specific_wins() {
        let d = workspace();
        let g = Graph::build(&GraphOptions::new(d.path())).unwrap();
        let mut gr = group(
            "Backend",
            false,
            &["-State", "-Pipe", "+Pipe/Handles.h", "!Impl"],
        );
        gr.known_uses.push("Backend/Draw.cpp -> Impl/Glue.h".into());
        gr.known_uses.push("Backend/Old.cpp -> Impl/Glue.h".into());
        let rep = check(&g, &[gr]);
        assert!(rep.violations.is_empty(), "{:?}", rep.violations);
        assert!(rep.temporary[0].known);
        assert_eq!(rep.gone.len(), 1);
        // a deeper directory's rule overrides at equal prefix length
        let rep = check(
            &g,
            &[
                group("", false, &["-Pipe/Handles.h"]),
                group("Backend", false, &["+Pipe/Handles.h"]),
            ],
        );
        assert!(rep.violations.is_empty());
        let rep = check(
            &g,
            &[
                group("", false, &["+Pipe/Handles.h"]),
                group("Backend", false, &["-Pipe/Handles.h"]),
            ],
        );
        assert_eq!(rep.violations.len(), 1);
        assert!(!rep.violations[0].transitive);
    }

    #[test]
    fn stale_groups_and_typos() {
        let d = workspace();
        let g = Graph::build(&GraphOptions::new(d.path())).unwrap();
        let rep = check(
            &g,
            &[
                group("Nowhere", false, &["-State"]),
                group("Backend", false, &["-Stat/Typo"]),
            ],
        );
        assert_eq!(rep.stale.len(), 2);
        assert!(Rule::parse("State", o(1)).is_err());
    }
}
