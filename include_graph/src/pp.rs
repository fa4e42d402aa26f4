//! The macro-aware walk: replays one translation unit's directives in include order with a macro
//! table (the compiler's predefined macros plus `-D`), evaluating `#if` expressions, include guards,
//! `#pragma once` and computed includes — what the real preprocessor decides, without running it.
//!
//! Limits (stated, not hidden): headers outside the workspace are leaves, so macros they define are
//! unknown (read as 0, as the preprocessor reads an undefined identifier); `__has_builtin` and the
//! other feature-test operators read as 0, except `__has_include`, which is resolved.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use crate::graph::{Graph, NodeId};
use crate::lex::{Directive, IncludeKind};
use crate::search::candidates;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Macro {
    /// Parameter names of a function-like macro (`None`: object-like).
    pub params: Option<Vec<String>>,
    pub variadic: bool,
    pub body: Vec<Tok>,
}

/// A preprocessing token, coarse: identifiers, numbers, punctuators, literals.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tok {
    Ident(String),
    Num(String),
    Punct(String),
    Str(String),
}

pub type Macros = HashMap<String, Macro>;

fn tokenize(s: &str) -> Vec<Tok> {
    let b = s.as_bytes();
    let mut v = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if c.is_ascii_alphabetic() || c == b'_' {
            let st = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            v.push(Tok::Ident(s[st..i].to_string()));
        } else if c.is_ascii_digit() || (c == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit))
        {
            let st = i;
            while i < b.len()
                && (b[i].is_ascii_alphanumeric() || b[i] == b'.' || b[i] == b'_' || b[i] == b'\'')
            {
                i += 1;
            }
            v.push(Tok::Num(s[st..i].replace('\'', "")));
        } else if c == b'"' || c == b'\'' {
            let st = i;
            i += 1;
            while i < b.len() && b[i] != c {
                if b[i] == b'\\' {
                    i += 1;
                }
                i += 1;
            }
            i = (i + 1).min(b.len());
            v.push(Tok::Str(s[st..i].to_string()));
        } else {
            let three = s.get(i..i + 3);
            let two = s.get(i..i + 2);
            let p = if three == Some("...") {
                "..."
            } else if let Some(t) =
                two.filter(|t| ["&&", "||", "==", "!=", "<=", ">=", "<<", ">>", "##"].contains(t))
            {
                t
            } else {
                &s[i..i + s[i..].chars().next().map_or(1, char::len_utf8)]
            };
            i += p.len();
            v.push(Tok::Punct(p.to_string()));
        }
    }
    v
}

/// Parses the text after `#define` into (name, macro).
pub fn parse_define(rest: &str) -> Option<(String, Macro)> {
    let b = rest.as_bytes();
    let end = b
        .iter()
        .position(|c| !(c.is_ascii_alphanumeric() || *c == b'_'))
        .unwrap_or(b.len());
    if end == 0 {
        return None;
    }
    let name = rest[..end].to_string();
    if b.get(end) == Some(&b'(') {
        let close = rest[end..].find(')')? + end;
        let mut params: Vec<String> = rest[end + 1..close]
            .split(',')
            .map(|p| p.trim().to_string())
            .filter(|p| !p.is_empty())
            .collect();
        let variadic = params.last().is_some_and(|p| p.ends_with("..."));
        if variadic {
            if let Some(last) = params.last_mut() {
                let named = last.trim_end_matches("...").trim().to_string();
                *last = if named.is_empty() {
                    "__VA_ARGS__".to_string()
                } else {
                    named
                };
            }
        }
        return Some((
            name,
            Macro {
                params: Some(params),
                variadic,
                body: tokenize(&rest[close + 1..]),
            },
        ));
    }
    Some((
        name,
        Macro {
            params: None,
            variadic: false,
            body: tokenize(&rest[end..]),
        },
    ))
}

/// Reads `#define NAME BODY` lines (e.g. `g++ -dM -E` output) into a macro table.
pub fn parse_predefs(text: &str) -> Macros {
    text.lines()
        .filter_map(|l| l.trim().strip_prefix("#define "))
        .filter_map(parse_define)
        .collect()
}

/// The `-D`/`-U` flags of a command line applied to a table.
pub fn apply_flags(m: &mut Macros, flags: &[String]) {
    let mut it = flags.iter();
    while let Some(f) = it.next() {
        let (kind, val) = if f == "-D" || f == "-U" {
            (f.as_str(), it.next().cloned().unwrap_or_default())
        } else if let Some(v) = f.strip_prefix("-D") {
            ("-D", v.to_string())
        } else if let Some(v) = f.strip_prefix("-U") {
            ("-U", v.to_string())
        } else {
            continue;
        };
        if kind == "-U" {
            m.remove(val.trim());
        } else {
            let text = match val.split_once('=') {
                Some((n, b)) => format!("{n} {b}"),
                None => format!("{val} 1"),
            };
            if let Some((n, mac)) = parse_define(&text) {
                m.insert(n, mac);
            }
        }
    }
}

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
            .find(|c| self.g.index.contains_key(c) || c.is_file())?;
        let node = self.g.index.get(&hit).copied();
        Some((hit, node))
    }

    /// `#include MACRO`: expand, then resolve the resulting `"…"` or `<…>` name.
    fn computed(&self, from: NodeId, text: &str) -> Option<NodeId> {
        let toks = self.expand(tokenize(text), &mut Vec::new());
        let (kind, name) = header_name_of(&toks)?;
        self.lookup(from, kind, &name).and_then(|(_, node)| node)
    }

    fn has_include(&self, from: NodeId, toks: &[Tok]) -> bool {
        header_name_of(toks).is_some_and(|(kind, name)| self.lookup(from, kind, &name).is_some())
    }

    /// Macro-expands a token list (`defined` operands are protected by the caller).
    fn expand(&self, toks: Vec<Tok>, active: &mut Vec<String>) -> Vec<Tok> {
        let mut out = Vec::new();
        let mut i = 0;
        while i < toks.len() {
            let t = &toks[i];
            let Tok::Ident(name) = t else {
                out.push(t.clone());
                i += 1;
                continue;
            };
            if name == "defined" {
                // keep `defined X` / `defined(X)` unexpanded
                out.push(t.clone());
                i += 1;
                while i < toks.len() {
                    let done = matches!(&toks[i], Tok::Ident(_));
                    out.push(toks[i].clone());
                    i += 1;
                    if done {
                        if matches!(toks.get(i), Some(Tok::Punct(p)) if p == ")") {
                            out.push(toks[i].clone());
                            i += 1;
                        }
                        break;
                    }
                }
                continue;
            }
            let Some(m) = self.macros.get(name).filter(|_| !active.contains(name)) else {
                out.push(t.clone());
                i += 1;
                continue;
            };
            match &m.params {
                None => {
                    active.push(name.clone());
                    out.extend(self.expand(m.body.clone(), active));
                    active.pop();
                    i += 1;
                }
                Some(params) => {
                    if !matches!(toks.get(i + 1), Some(Tok::Punct(p)) if p == "(") {
                        out.push(t.clone());
                        i += 1;
                        continue;
                    }
                    let (args, next) = collect_args(&toks, i + 2);
                    i = next;
                    let mut body = Vec::new();
                    for bt in &m.body {
                        match bt {
                            Tok::Ident(p) if params.contains(p) => {
                                let k = params.iter().position(|x| x == p).unwrap_or(0);
                                let arg = if m.variadic && k + 1 == params.len() {
                                    args[k.min(args.len())..].join(&Tok::Punct(",".into()))
                                } else {
                                    args.get(k).cloned().unwrap_or_default()
                                };
                                body.extend(self.expand(arg, active));
                            }
                            other => body.push(other.clone()),
                        }
                    }
                    active.push(name.clone());
                    out.extend(self.expand(body, active));
                    active.pop();
                }
            }
        }
        out
    }

    fn eval(&self, expr: &str, from: NodeId) -> bool {
        let toks = tokenize(expr);
        // Resolve `__has_include(...)` and feature tests before expansion.
        let mut pre = Vec::new();
        let mut i = 0;
        while i < toks.len() {
            match &toks[i] {
                Tok::Ident(n) if n == "__has_include" || n == "__has_include_next" => {
                    let (args, next) = if matches!(toks.get(i + 1), Some(Tok::Punct(p)) if p == "(")
                    {
                        collect_args(&toks, i + 2)
                    } else {
                        (Vec::new(), i + 1)
                    };
                    let arg: Vec<Tok> = args.into_iter().flatten().collect();
                    let v = n == "__has_include" && self.has_include(from, &arg);
                    pre.push(Tok::Num(if v { "1" } else { "0" }.into()));
                    i = next;
                }
                Tok::Ident(n)
                    if n.starts_with("__has_")
                        && matches!(toks.get(i + 1), Some(Tok::Punct(p)) if p == "(") =>
                {
                    let (_, next) = collect_args(&toks, i + 2);
                    pre.push(Tok::Num("0".into()));
                    i = next;
                }
                t => {
                    pre.push(t.clone());
                    i += 1;
                }
            }
        }
        let toks = self.expand(pre, &mut Vec::new());
        let mut p = Parser {
            t: &toks,
            i: 0,
            macros: &self.macros,
        };
        p.ternary() != 0
    }
}

/// Reads `"name"` or `<name>` back from tokens.
fn header_name_of(toks: &[Tok]) -> Option<(IncludeKind, String)> {
    let text: String = toks
        .iter()
        .map(|t| match t {
            Tok::Ident(s) | Tok::Num(s) | Tok::Punct(s) | Tok::Str(s) => s.as_str(),
        })
        .collect();
    if let Some(q) = text.strip_prefix('"').and_then(|x| x.strip_suffix('"')) {
        Some((IncludeKind::Quoted, q.to_string()))
    } else {
        let a = text.strip_prefix('<').and_then(|x| x.strip_suffix('>'))?;
        Some((IncludeKind::Angle, a.to_string()))
    }
}

fn first_ident(s: &str) -> &str {
    let s = s.trim();
    let end = s
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    &s[..end]
}

/// Splits macro arguments starting after `(`; returns them and the index after `)`.
fn collect_args(toks: &[Tok], mut i: usize) -> (Vec<Vec<Tok>>, usize) {
    let mut args = vec![Vec::new()];
    let mut depth = 0;
    while i < toks.len() {
        match &toks[i] {
            Tok::Punct(p) if p == "(" => {
                depth += 1;
                if let Some(a) = args.last_mut() {
                    a.push(toks[i].clone());
                }
            }
            Tok::Punct(p) if p == ")" => {
                if depth == 0 {
                    return (args, i + 1);
                }
                depth -= 1;
                if let Some(a) = args.last_mut() {
                    a.push(toks[i].clone());
                }
            }
            Tok::Punct(p) if p == "," && depth == 0 => args.push(Vec::new()),
            t => {
                if let Some(a) = args.last_mut() {
                    a.push(t.clone());
                }
            }
        }
        i += 1;
    }
    (args, i)
}

/// `#if` expression evaluation over expanded tokens (C rules: unknown identifiers are 0).
struct Parser<'a> {
    t: &'a [Tok],
    i: usize,
    macros: &'a Macros,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&str> {
        match self.t.get(self.i) {
            Some(Tok::Punct(p)) => Some(p.as_str()),
            _ => None,
        }
    }
    fn eat(&mut self, p: &str) -> bool {
        if self.peek() == Some(p) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    fn ternary(&mut self) -> i64 {
        let c = self.binary(0);
        if self.eat("?") {
            let a = self.ternary();
            self.eat(":");
            let b = self.ternary();
            return if c != 0 { a } else { b };
        }
        c
    }
    fn binary(&mut self, min_prec: u8) -> i64 {
        let mut lhs = self.unary();
        while let Some(op) = self.peek().map(str::to_string) {
            let prec = match op.as_str() {
                "||" => 1,
                "&&" => 2,
                "|" => 3,
                "^" => 4,
                "&" => 5,
                "==" | "!=" => 6,
                "<" | ">" | "<=" | ">=" => 7,
                "<<" | ">>" => 8,
                "+" | "-" => 9,
                "*" | "/" | "%" => 10,
                _ => break,
            };
            if prec < min_prec.max(1) {
                break;
            }
            self.i += 1;
            let rhs = self.binary(prec + 1);
            lhs = match op.as_str() {
                "||" => i64::from(lhs != 0 || rhs != 0),
                "&&" => i64::from(lhs != 0 && rhs != 0),
                "|" => lhs | rhs,
                "^" => lhs ^ rhs,
                "&" => lhs & rhs,
                "==" => i64::from(lhs == rhs),
                "!=" => i64::from(lhs != rhs),
                "<" => i64::from(lhs < rhs),
                ">" => i64::from(lhs > rhs),
                "<=" => i64::from(lhs <= rhs),
                ">=" => i64::from(lhs >= rhs),
                "<<" => lhs.wrapping_shl(rhs as u32),
                ">>" => lhs.wrapping_shr(rhs as u32),
                "+" => lhs.wrapping_add(rhs),
                "-" => lhs.wrapping_sub(rhs),
                "*" => lhs.wrapping_mul(rhs),
                "/" => lhs.checked_div(rhs).unwrap_or(0),
                _ => lhs.checked_rem(rhs).unwrap_or(0),
            };
        }
        lhs
    }
    fn unary(&mut self) -> i64 {
        if self.eat("!") {
            return i64::from(self.unary() == 0);
        }
        if self.eat("-") {
            return self.unary().wrapping_neg();
        }
        if self.eat("+") {
            return self.unary();
        }
        if self.eat("~") {
            return !self.unary();
        }
        if self.eat("(") {
            let v = self.ternary();
            self.eat(")");
            return v;
        }
        let Some(t) = self.t.get(self.i) else {
            return 0;
        };
        self.i += 1;
        match t {
            Tok::Num(n) => parse_int(n),
            Tok::Str(s) => s.chars().nth(1).map_or(0, |c| c as i64),
            Tok::Ident(id) if id == "defined" => {
                let paren = self.eat("(");
                let name = match self.t.get(self.i) {
                    Some(Tok::Ident(n)) => n.clone(),
                    _ => String::new(),
                };
                self.i += 1;
                if paren {
                    self.eat(")");
                }
                i64::from(self.macros.contains_key(&name))
            }
            Tok::Ident(id) if id == "true" => 1,
            _ => 0,
        }
    }
}

fn parse_int(n: &str) -> i64 {
    let s = n.trim_end_matches(['u', 'U', 'l', 'L']);
    let r = if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        i64::from_str_radix(h, 16)
    } else if let Some(b) = s.strip_prefix("0b").or_else(|| s.strip_prefix("0B")) {
        i64::from_str_radix(b, 2)
    } else if s.len() > 1 && s.starts_with('0') {
        i64::from_str_radix(&s[1..], 8)
    } else {
        s.parse::<i64>()
    };
    r.unwrap_or(0)
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

    #[test]
    fn expressions() {
        let m = parse_predefs("#define X 3\n#define Y (X << 2)\n");
        let g = Graph::default();
        let w = Walker {
            g: &g,
            macros: m,
            once: HashSet::new(),
            seen: HashSet::new(),
            out: Walk::default(),
        };
        let ev = |e: &str| {
            let toks = w.expand(tokenize(e), &mut Vec::new());
            Parser {
                t: &toks,
                i: 0,
                macros: &w.macros,
            }
            .ternary()
        };
        assert_eq!(ev("Y == 12 && !defined(Z)"), 1);
        assert_eq!(ev("0x10 + 010 + 1'0"), 34);
        assert_eq!(ev("X > 2 ? 7 : 9"), 7);
        assert_eq!(ev("UNKNOWN"), 0);
        assert_eq!(ev("-1 < 0"), 1);
    }
}
