//! The macro table, macro expansion and `#if` evaluation, once: what the real preprocessor
//! decides about a conditional, over the lexer's tokens ([`crate::lex`]).
//!
//! Limits (stated, not hidden): `__has_builtin` and the other feature-test operators read as 0,
//! except `__has_include`, which the caller resolves.

use std::collections::HashMap;

use crate::directives::IncludeKind;
use crate::lexer::{lex, Kind};

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

/// Tokenizes macro bodies and `#if` expressions with the one lexer.
pub fn tokenize(s: &str) -> Vec<Tok> {
    let lx = lex(s.as_bytes());
    lx.tokens
        .iter()
        .map(|t| {
            let text = lx.text(s, t).to_string();
            match t.kind {
                Kind::Ident => Tok::Ident(text),
                Kind::Number => Tok::Num(text),
                Kind::Str | Kind::Char | Kind::HeaderName => Tok::Str(text),
                Kind::Punct | Kind::Hash => Tok::Punct(text),
            }
        })
        .collect()
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

/// Macro-expands a token list (`defined` operands are protected by the caller).
pub fn expand(macros: &Macros, toks: Vec<Tok>, active: &mut Vec<String>) -> Vec<Tok> {
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
        let Some(m) = macros.get(name).filter(|_| !active.contains(name)) else {
            out.push(t.clone());
            i += 1;
            continue;
        };
        match &m.params {
            None => {
                active.push(name.clone());
                out.extend(expand(macros, m.body.clone(), active));
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
                            body.extend(expand(macros, arg, active));
                        }
                        other => body.push(other.clone()),
                    }
                }
                active.push(name.clone());
                out.extend(expand(macros, body, active));
                active.pop();
            }
        }
    }
    out
}

/// Evaluates an `#if` expression: `__has_include` through `has_include`, the other feature
/// tests as 0, macros expanded, then C rules (unknown identifiers are 0).
pub fn eval(macros: &Macros, expr: &str, has_include: &dyn Fn(IncludeKind, &str) -> bool) -> bool {
    let toks = tokenize(expr);
    // Resolve `__has_include(...)` and feature tests before expansion.
    let mut pre = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        match &toks[i] {
            Tok::Ident(n) if n == "__has_include" || n == "__has_include_next" => {
                let (args, next) = if matches!(toks.get(i + 1), Some(Tok::Punct(p)) if p == "(") {
                    collect_args(&toks, i + 2)
                } else {
                    (Vec::new(), i + 1)
                };
                let arg: Vec<Tok> = args.into_iter().flatten().collect();
                let v = n == "__has_include"
                    && header_name_of(&arg).is_some_and(|(kind, name)| has_include(kind, &name));
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
    let toks = expand(macros, pre, &mut Vec::new());
    let mut p = Parser {
        t: &toks,
        i: 0,
        macros,
    };
    p.ternary() != 0
}

/// Reads `"name"` or `<name>` back from tokens.
pub fn header_name_of(toks: &[Tok]) -> Option<(IncludeKind, String)> {
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

pub fn first_ident(s: &str) -> &str {
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
pub(crate) struct Parser<'a> {
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
    // Digit separators carry no value.
    let n = n.replace('\'', "");
    let s = n.trim_end_matches(['u', 'U', 'l', 'L']);
    let r = if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        i64::from_str_radix(h, 16)
    } else if let Some(b) = s.strip_prefix("0b").or_else(|| s.strip_prefix("0B")) {
        i64::from_str_radix(b, 2)
    } else if let Some(o) = s.strip_prefix('0') {
        // `0` alone is octal with no digits: no value, read as 0 like any unparsable number.
        i64::from_str_radix(o, 8)
    } else {
        s.parse::<i64>()
    };
    r.unwrap_or(0)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// The value of an `#if` expression after expansion.
    fn value(m: &Macros, e: &str) -> i64 {
        let toks = expand(m, tokenize(e), &mut Vec::new());
        Parser {
            t: &toks,
            i: 0,
            macros: m,
        }
        .ternary()
    }

    #[test]
    fn expressions() {
        let m = parse_predefs("#define X 3\n#define Y (X << 2)\n#define CAT(a, b) a##b\n");
        let ev = |e: &str| value(&m, e);
        assert_eq!(ev("Y == 12 && !defined(Z)"), 1);
        assert_eq!(ev("0x10 + 010 + 1'0"), 34);
        assert_eq!(ev("X > 2 ? 7 : 9"), 7);
        assert_eq!(ev("UNKNOWN"), 0);
        assert_eq!(ev("-1 < 0"), 1);
        let no = |_: IncludeKind, _: &str| false;
        assert!(eval(&m, "X \\\n == 3", &no));
        assert!(eval(&m, "!__has_include(<x.h>) && !__has_feature(y)", &no));
        assert!(eval(&m, "__has_include(\"x.h\")", &|k, n| k
            == IncludeKind::Quoted
            && n == "x.h"));
    }

    /// Every operator at every precedence level, as C evaluates `#if` (each pair of adjacent
    /// levels is one case that reads differently if the two levels swapped or merged), and
    /// each kind of macro the expansion handles.
    #[test]
    fn if_expressions_follow_c_rules() {
        let m = parse_predefs(
            "#define X 3\n#define Y (X << 2)\n#define ADD(a, b) ((a) + (b))\n\
             #define SUB(a,b) a - b\n#define FIRST(a, ...) a\n#define REST(a, ...) __VA_ARGS__\n\
             #define NAMED(args...) args\n#define SELF SELF + 1\n#define EMPTY\n#define F(x) x\n\
             #define ISDEF defined(X)\n#define G(a) a + X\n#define V(x, ...) ADD(__VA_ARGS__)\n",
        );
        let ev = |e: &str| value(&m, e);
        for (expr, want) in [
            ("ADD(1, 2)", 3),
            ("ADD(ADD(1, 2), 4)", 7),
            ("SUB(10, 3)", 7),
            ("FIRST(5, 6, 7)", 5),
            ("REST(1, 2 + 3)", 5),
            ("NAMED(4)", 4),
            ("SELF", 1),
            ("EMPTY 5", 5),
            ("F", 0),
            ("F (9)", 9),
            ("ISDEF", 1),
            ("defined(X) + 1", 2),
            ("G(1)", 4),
            ("FIRST(5, 6) * 2", 10),
            ("V(0, 1, 2)", 3),
            ("3 | 1", 3),
            ("2 | 1", 3),
            ("4 != 2", 1),
            ("6 > 4", 1),
            ("2 < 2", 0),
            ("defined X && defined(Y) && !defined Z", 1),
            ("1 || 0 && 0", 1),
            ("0 && 0 | 1", 0),
            ("1 | 3 ^ 3", 1),
            ("6 ^ 3 & 1", 7),
            ("2 & 2 == 2", 0),
            ("0 == 1 < 0", 1),
            ("1 < 1 << 1", 1),
            ("1 << 1 + 1", 4),
            ("1 + 2 * 3", 7),
            ("(1 + 2) * 3", 9),
            ("10 - 4 - 3", 3),
            ("100 / 10 / 5", 2),
            ("17 % 5", 2),
            ("7 / 0", 0),
            ("7 % 0", 0),
            ("1 << 4 >> 2", 4),
            ("5 ^ 1", 4),
            ("3 >= 3", 1),
            ("3 <= 2", 0),
            ("3 > 2 > 1", 0),
            ("1 != 2", 1),
            ("2 != 2", 0),
            ("0 || 2", 1),
            ("0 || 0", 0),
            ("2 && 0", 0),
            ("~0", -1),
            ("-(-3)", 3),
            ("+4", 4),
            ("!0 + !5", 1),
            ("1 ? 2 : 3", 2),
            ("0 ? 2 : 0 ? 4 : 5", 5),
            ("1 ? 0 ? 6 : 7 : 8", 7),
            ("0 || 1 ? 2 : 3", 2),
            ("'A'", 65),
            ("true", 1),
            ("false", 0),
            ("0x1F", 31),
            ("0X10", 16),
            ("0b101", 5),
            ("0B11", 3),
            ("017", 15),
            ("10UL", 10),
            ("1'000'000", 1_000_000),
            ("0", 0),
        ] {
            assert_eq!(ev(expr), want, "#if {expr}");
        }
    }

    #[test]
    fn eval_reads_feature_tests_and_can_be_false() {
        let m = parse_predefs("#define X 3\n#define F(x) x\n");
        let no = |_: IncludeKind, _: &str| false;
        let yes = |_: IncludeKind, _: &str| true;
        assert!(!eval(&m, "X == 4", &no));
        assert!(!eval(&m, "defined", &no));
        assert!(eval(&m, "F(9) == 9", &no));
        assert!(eval(&m, "__has_feature(y) + 1 == 1", &no));
        assert!(eval(&m, "2 * __has_cpp_attribute(nodiscard) + 1 == 1", &no));
        assert!(eval(&m, "__has_include + 1 == 1", &no));
        assert!(eval(&m, "1 + __has_include(<x.h>) == 1", &no));
        assert!(eval(&m, "1 + __has_include(<x.h>) == 2", &yes));
        // `__has_include_next` cannot be answered here: it reads 0 whatever the caller says.
        assert!(eval(&m, "__has_include_next(<x.h>) == 0", &yes));
    }

    #[test]
    fn defines_parse_into_name_params_and_body() {
        let (n, g) = parse_define("G(a, b) a + b").unwrap();
        assert_eq!(n, "G");
        assert_eq!(g.params, Some(vec!["a".to_string(), "b".to_string()]));
        assert!(!g.variadic);
        let (a, plus, b) = (
            Tok::Ident("a".into()),
            Tok::Punct("+".into()),
            Tok::Ident("b".into()),
        );
        assert_eq!(g.body, vec![a, plus, b]);
        let (_, h) = parse_define("H(...) __VA_ARGS__").unwrap();
        assert_eq!(h.params, Some(vec!["__VA_ARGS__".to_string()]));
        assert!(h.variadic);
        let (_, z) = parse_define("Z  4").unwrap();
        assert_eq!((z.params, z.body), (None, vec![Tok::Num("4".into())]));
        assert_eq!(parse_define("(x) 1"), None);
        assert_eq!(parse_define("F(x 1"), None);
        let mut m = Macros::new();
        apply_flags(
            &mut m,
            &[
                "-DF(x)=x+1".into(),
                "-Ifoo".into(),
                "-DK".into(),
                "-U".into(),
                "K".into(),
            ],
        );
        assert_eq!(m.len(), 1);
        assert_eq!(m["F"].params, Some(vec!["x".to_string()]));
    }

    #[test]
    fn header_names_and_first_identifiers_read_back() {
        assert_eq!(
            header_name_of(&tokenize("<x/y.h>")),
            Some((IncludeKind::Angle, "x/y.h".to_string()))
        );
        assert_eq!(
            header_name_of(&tokenize("\"a.h\"")),
            Some((IncludeKind::Quoted, "a.h".to_string()))
        );
        assert_eq!(header_name_of(&tokenize("a.h")), None);
        assert_eq!(first_ident("  abc(d)"), "abc");
        assert_eq!(first_ident(""), "");
    }

    #[test]
    fn flags_define_and_undefine() {
        let mut m = Macros::new();
        apply_flags(
            &mut m,
            &["-DA=2".into(), "-D".into(), "B".into(), "-UA".into()],
        );
        assert!(!m.contains_key("A"));
        assert_eq!(m["B"].body, vec![Tok::Num("1".into())]);
        let (name, f) = parse_define("F(x, ...) x").unwrap();
        assert_eq!((name.as_str(), f.variadic), ("F", true));
    }
}
