//! The macro-aware walk: replays one translation unit's directives in include order with a macro
//! table (the compiler's predefined macros plus `-D`), evaluating `#if` expressions, include guards,
//! `#pragma once` and computed includes — what the real preprocessor decides, without running it.
//! Macro expansion and `#if` evaluation are `cpp_lex::macros` (one implementation).
//!
//! Limits (stated, not hidden): headers outside the workspace are leaves, so macros they define are
//! unknown (read as 0, as the preprocessor reads an undefined identifier); `__has_builtin` and the
//! other feature-test operators read as 0, except `__has_include`, which is resolved.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

pub use cpp_lex::macros::{apply_flags, parse_define, parse_predefs, Macro, Macros, Tok};
use cpp_lex::macros::{eval, expand, first_ident, header_name_of, tokenize};

use crate::graph::{Graph, NodeId};
use crate::lex::{Directive, IncludeKind};
use crate::search::candidates;

/// The result of walking one translation unit.
#[derive(Debug, Clone, Default)]
pub struct Walk {
    /// Files entered (the start included), in first-entry order.
    pub entered: Vec<NodeId>,
    /// Includes taken that resolved nowhere (file, spelling).
    pub unresolved: Vec<(NodeId, String)>,
}

struct Walker<'g> {
    g: &'g Graph,
    macros: Macros,
    once: HashSet<NodeId>,
    seen: HashSet<NodeId>,
    out: Walk,
}

/// Walks the translation unit that starts at `start` with `macros` predefined.
pub fn walk(g: &Graph, start: NodeId, macros: Macros) -> Walk {
    let mut w = Walker {
        g,
        macros,
        once: HashSet::new(),
        seen: HashSet::new(),
        out: Walk::default(),
    };
    w.file(start, 0);
    w.out
}

struct Cond {
    /// Lines of this group are being read.
    active: bool,
    /// A branch of this group was taken (or the group's parent is inactive).
    done: bool,
}

impl Walker<'_> {
    fn file(&mut self, n: NodeId, depth: usize) {
        if self.seen.insert(n) {
            self.out.entered.push(n);
        }
        if depth > 200 || self.once.contains(&n) || !self.g.nodes[n].scanned {
            return;
        }
        let g = self.g;
        let pp = &g.files[n];
        let mut stack: Vec<Cond> = Vec::new();
        let live = |st: &Vec<Cond>| st.last().is_none_or(|c| c.active);
        for d in &pp.directives {
            match d {
                Directive::If(e) | Directive::Ifdef(e) | Directive::Ifndef(e) => {
                    if live(&stack) {
                        let v = match d {
                            Directive::If(_) => self.eval(e, n),
                            Directive::Ifdef(_) => self.macros.contains_key(first_ident(e)),
                            _ => !self.macros.contains_key(first_ident(e)),
                        };
                        stack.push(Cond { active: v, done: v });
                    } else {
                        stack.push(Cond {
                            active: false,
                            done: true,
                        });
                    }
                }
                Directive::Elif(e) | Directive::Elifdef(e) | Directive::Elifndef(e) => {
                    let parent_live = stack.len() < 2 || stack[stack.len() - 2].active;
                    let done = stack.last().is_none_or(|c| c.done);
                    let v = parent_live
                        && !done
                        && match d {
                            Directive::Elif(_) => self.eval(e, n),
                            Directive::Elifdef(_) => self.macros.contains_key(first_ident(e)),
                            _ => !self.macros.contains_key(first_ident(e)),
                        };
                    if let Some(c) = stack.last_mut() {
                        c.active = v;
                        c.done |= v || !parent_live;
                    }
                }
                Directive::Else => {
                    let parent_live = stack.len() < 2 || stack[stack.len() - 2].active;
                    if let Some(c) = stack.last_mut() {
                        c.active = parent_live && !c.done;
                        c.done = true;
                    }
                }
                Directive::Endif => {
                    stack.pop();
                }
                _ if !live(&stack) => {}
                Directive::Define(rest) => {
                    if let Some((name, m)) = parse_define(rest) {
                        self.macros.insert(name, m);
                    }
                }
                Directive::Undef(rest) => {
                    self.macros.remove(first_ident(rest));
                }
                Directive::PragmaOnce => {
                    self.once.insert(n);
                }
                Directive::Include(i) => {
                    let Some((kind, spelling, target)) = pp.includes.get(*i) else {
                        continue;
                    };
                    let target = match kind {
                        IncludeKind::Computed => self.computed(n, spelling),
                        _ => *target,
                    };
                    match target {
                        Some(t) => self.file(t, depth + 1),
                        None => self.out.unresolved.push((n, spelling.clone())),
                    }
                }
            }
        }
    }

    /// The first existing candidate for a header name, and its node when the graph has one.
    fn lookup(
        &self,
        from: NodeId,
        kind: IncludeKind,
        name: &str,
    ) -> Option<(PathBuf, Option<NodeId>)> {
        let dir = self.g.nodes[from].path.parent().unwrap_or(Path::new("/"));
        let hit = candidates(dir, kind, name, &self.g.search)
            .into_iter()
            .find(|c| self.g.node(c).is_some() || c.is_file())?;
        let node = self.g.node(&hit);
        Some((hit, node))
    }

    /// `#include MACRO`: expand, then resolve the resulting `"…"` or `<…>` name.
    fn computed(&self, from: NodeId, text: &str) -> Option<NodeId> {
        let toks = expand(&self.macros, tokenize(text), &mut Vec::new());
        let (kind, name) = header_name_of(&toks)?;
        self.lookup(from, kind, &name).and_then(|(_, node)| node)
    }

    fn eval(&self, expr: &str, from: NodeId) -> bool {
        eval(&self.macros, expr, &|kind, name| {
            self.lookup(from, kind, name).is_some()
        })
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::graph::tests::tree;
    use crate::graph::GraphOptions;

    fn names(g: &Graph, w: &Walk) -> Vec<String> {
        w.entered.iter().map(|&n| g.rel(n).to_string()).collect()
    }

    #[test]
    fn macros_decide_includes_across_files() {
        let d = tree(&[
            ("cfg.h", "#pragma once\n#define ON_UNIX 1\n#define VER(a, b) ((a) * 100 + (b))\n"),
            (
                "t.h",
                "#include \"cfg.h\"\n#if defined(ON_UNIX) && VER(1, 2) >= 102\n#include \"unix.h\"\n#else\n#include \"win.h\"\n#endif\n#ifdef __GNUC__\n#include \"gnu.h\"\n#endif\n#if __has_include(\"opt.h\")\n#include \"opt.h\"\n#endif\n#if __has_include(<nope.h>)\n#include \"nope2.h\"\n#endif\n#define HDR \"comp.h\"\n#include HDR\n#include \"cfg.h\"\n",
            ),
            ("unix.h", ""),
            ("win.h", ""),
            ("gnu.h", ""),
            ("opt.h", ""),
            ("nope2.h", ""),
            ("comp.h", ""),
        ]);
        let g = Graph::build(&GraphOptions::new(d.path())).unwrap();
        let t = g.find("t.h").unwrap();
        let w = walk(&g, t, parse_predefs("#define __GNUC__ 12\n"));
        assert_eq!(
            names(&g, &w),
            vec!["t.h", "cfg.h", "unix.h", "gnu.h", "opt.h", "comp.h"]
        );
        let w = walk(&g, t, Macros::new());
        assert!(!names(&g, &w).contains(&"gnu.h".to_string()));
    }

    #[test]
    fn include_guards_stop_cycles() {
        let d = tree(&[
            ("a.h", "#ifndef A\n#define A\n#include \"b.h\"\n#endif\n"),
            ("b.h", "#ifndef B\n#define B\n#include \"a.h\"\n#endif\n"),
        ]);
        let g = Graph::build(&GraphOptions::new(d.path())).unwrap();
        let w = walk(&g, g.find("a.h").unwrap(), Macros::new());
        assert_eq!(names(&g, &w), vec!["a.h", "b.h"]);
    }
}
