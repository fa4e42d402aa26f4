//! Directive parsing over the lexer's tokens: the `#include` lines of one file the way a
//! compiler's phases 1–4 see them, `#if 0` / `#if 1` groups (dead branches are skipped), other
//! conditionals (includes inside them are marked conditional, except the file's own include
//! guard), computed includes and `#include_next` (kept, flagged unresolvable), plus every live
//! directive a macro-aware walk replays ([`crate::macros`]).
//!
//! The scan is a [`Sink`]: it keeps only the tokens of the directive being read, so a file costs
//! one reused buffer, not a token vector. [`skim`] gives the same [`Scan`] without lexing the
//! lines between directives ([`crate::skim`]); the include graph uses it.

use serde::Serialize;

use crate::lexer::{lex_with, spelling, Kind, Sink, Token};
use crate::skim::DirectiveSink;

/// How an include names its header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum IncludeKind {
    /// `#include "x.h"`: the including file's directory first, then the search path.
    Quoted,
    /// `#include <x.h>`: the search path only.
    Angle,
    /// `#include MACRO`: the header is named by a macro; never resolved statically.
    Computed,
    /// `#include_next`: depends on where the includer was found; never resolved statically.
    Next,
}

/// One include directive as written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Include {
    /// 1-based physical line of the `#`.
    pub line: u32,
    pub kind: IncludeKind,
    /// The header name between the delimiters, or the raw macro text for a computed include.
    pub spelling: String,
    /// Inside a conditional group other than the include guard (`#ifdef X`, `#if FOO > 2`, …).
    pub conditional: bool,
}

/// What the directive scan found in one file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Scan {
    pub includes: Vec<Include>,
    /// Includes inside dead groups (`#if 0`, the `#else` of `#if 1`): (line, spelling).
    pub skipped: Vec<(u32, String)>,
    /// `#if` without `#endif`, `#endif` without `#if`: (line, message). The scan still completes.
    pub problems: Vec<(u32, String)>,
    /// Where the first byte of invalid UTF-8 sits: (line, column). Scanning works on bytes anyway.
    pub invalid_utf8: Option<(u32, u32)>,
    /// Every live directive a macro-aware walk needs, in file order.
    pub directives: Vec<Directive>,
}

/// A directive outside dead groups, as the macro-aware walk replays it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum Directive {
    If(String),
    Ifdef(String),
    Ifndef(String),
    Elif(String),
    Elifdef(String),
    Elifndef(String),
    Else,
    Endif,
    /// The text after `#define`.
    Define(String),
    Undef(String),
    PragmaOnce,
    /// Index into [`Scan::includes`].
    Include(usize),
}

/// The value of an `#if`/`#elif` expression when it is a plain literal.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Truth {
    False,
    True,
    Unknown,
}

struct Frame {
    /// The enclosing group is dead: everything in this frame is dead too.
    parent_dead: bool,
    /// The branch being read now is dead.
    dead: bool,
    /// A branch of this group has certainly been taken (so later branches are dead).
    taken: bool,
    /// Every earlier branch was certainly not taken (so `#else` is unconditionally live).
    all_false: bool,
    /// The branch being read now is live only under some unknown condition.
    conditional: bool,
    /// This frame is the include-guard candidate.
    guard: bool,
}

fn first_invalid_utf8(src: &[u8]) -> Option<(u32, u32)> {
    // Nearly every header is ASCII, which the standard library checks in half the instructions
    // of a UTF-8 validation; ASCII is valid UTF-8.
    if src.is_ascii() {
        return None;
    }
    utf8_error_at(src)
}

/// Where `from_utf8` stops: (line, column) of the first invalid byte.
fn utf8_error_at(src: &[u8]) -> Option<(u32, u32)> {
    let err = std::str::from_utf8(src).err()?;
    let at = err.valid_up_to();
    let before = &src[..at];
    let line = before.iter().filter(|&&b| b == b'\n').count() as u32 + 1;
    let col_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |p| p + 1);
    Some((line, (at - col_start) as u32 + 1))
}

fn literal_truth(expr: &str) -> Truth {
    let e = expr.trim();
    let e = e
        .strip_prefix('(')
        .and_then(|x| x.strip_suffix(')'))
        .map_or(e, str::trim);
    match e {
        "0" | "false" | "0L" | "0U" => Truth::False,
        "1" | "true" | "1L" | "1U" => Truth::True,
        _ => Truth::Unknown,
    }
}

fn is_ident_text(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(crate::lexer::is_ident_continue)
}

/// The macro an include guard tests: `#ifndef X` or `#if !defined(X)` / `#if !defined X`.
fn guard_macro(name: &[u8], rest: &str) -> Option<String> {
    match name {
        b"ifndef" => is_ident_text(rest).then(|| rest.to_string()),
        b"if" => {
            let r = rest
                .strip_prefix('!')?
                .trim_start()
                .strip_prefix("defined")?
                .trim();
            let r = r
                .strip_prefix('(')
                .and_then(|x| x.strip_suffix(')'))
                .unwrap_or(r)
                .trim();
            is_ident_text(r).then(|| r.to_string())
        }
        _ => None,
    }
}

/// The source text of `toks` as the directive wrote it: splices removed, each comment one space,
/// whitespace between tokens kept.
pub fn directive_text(src: &[u8], toks: &[Token]) -> String {
    let (Some(first), Some(last)) = (toks.first(), toks.last()) else {
        return String::new();
    };
    let mut out = Vec::with_capacity((last.end - first.start) as usize);
    for (k, t) in toks.iter().enumerate() {
        if k > 0 {
            gap_text(&src[toks[k - 1].end as usize..t.start as usize], &mut out);
        }
        out.extend_from_slice(&spelling(src, t));
    }
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// `String::from_utf8_lossy(b).into_owned()` without its second pass and copy when `b` is valid
/// (every directive of a real tree is).
fn lossy(b: &[u8]) -> String {
    match std::str::from_utf8(b) {
        Ok(s) => s.to_owned(),
        Err(_) => String::from_utf8_lossy(b).into_owned(),
    }
}

/// Between two tokens there is only whitespace, splices and comments.
fn gap_text(gap: &[u8], out: &mut Vec<u8>) {
    let mut i = 0;
    while i < gap.len() {
        if gap[i..].starts_with(b"/*") {
            let end = gap[i + 2..]
                .windows(2)
                .position(|w| w == b"*/")
                .map_or(gap.len(), |p| i + 2 + p + 2);
            out.push(b' ');
            i = end;
        } else if gap[i] == b'\\' && matches!(gap.get(i + 1), Some(b'\n' | b'\r')) {
            i += if gap.get(i + 1) == Some(&b'\r') { 3 } else { 2 };
        } else {
            out.push(gap[i]);
            i += 1;
        }
    }
}

#[derive(Default)]
struct Scanner {
    out: Scan,
    /// Tokens of the directive being read.
    cur: Vec<Token>,
    stack: Vec<Frame>,
    seen_token: bool,
    directives_seen: usize,
    guard_name: Option<String>,
    guard_valid: bool,
    guard_closed: bool,
    /// Includes recorded under the guard frame only, whose `conditional` depends on the guard.
    guard_dependent: Vec<usize>,
}

impl Sink for Scanner {
    fn token(&mut self, src: &[u8], tok: &Token) -> bool {
        if tok.kind == Kind::Hash {
            self.flush(src);
            self.cur.push(*tok);
        } else if tok.directive && !self.cur.is_empty() {
            self.cur.push(*tok);
        } else {
            self.flush(src);
            self.seen_token = true;
            if self.guard_closed {
                self.guard_valid = false;
            }
        }
        true
    }
}

impl DirectiveSink for Scanner {
    fn directive_token(&mut self, src: &[u8], tok: &Token) {
        if tok.kind == Kind::Hash {
            self.flush(src);
        }
        self.cur.push(*tok);
    }

    fn code(&mut self, src: &[u8]) {
        self.flush(src);
        self.seen_token = true;
        if self.guard_closed {
            self.guard_valid = false;
        }
    }
}

/// Scans one file's bytes for include directives.
pub fn scan(src: &[u8]) -> Scan {
    let mut s = Scanner::default();
    s.out.invalid_utf8 = first_invalid_utf8(src);
    lex_with(src, &mut s);
    s.flush(src);
    let eof_line = src.iter().filter(|&&b| b == b'\n').count() as u32 + 1;
    s.finish(eof_line)
}

/// [`scan`]'s result, reading only the directive lines with the lexer: the lines between them
/// are skimmed for what can hide or continue a line (comments, literals, splices).
pub fn skim(src: &[u8]) -> Scan {
    let mut s = Scanner::default();
    s.out.invalid_utf8 = first_invalid_utf8(src);
    let last_line = crate::skim::skim(src, &mut s);
    s.flush(src);
    let eof_line = eof_line(src.len(), last_line, || {
        memchr::memchr_iter(b'\n', src).count()
    });
    s.finish(eof_line)
}

/// The line an unterminated group is reported at: the skim's own count, unless the input is so
/// long (near 4 GiB) that a u32 line counter may have wrapped, when the newlines are counted.
fn eof_line(len: usize, last_line: u32, newlines: impl FnOnce() -> usize) -> u32 {
    if len > u32::MAX as usize - 4 {
        u32::try_from(newlines())
            .unwrap_or(u32::MAX)
            .saturating_add(1)
    } else {
        last_line
    }
}

impl Scanner {
    fn flush(&mut self, src: &[u8]) {
        if self.cur.is_empty() {
            return;
        }
        let toks = std::mem::take(&mut self.cur);
        self.directive(src, &toks);
        self.cur = toks;
        self.cur.clear();
    }

    fn directive(&mut self, src: &[u8], toks: &[Token]) {
        let line = toks[0].line;
        let (name, rest_toks): (std::borrow::Cow<'_, [u8]>, &[Token]) = match toks.get(1) {
            // A name that is no identifier (a line marker's `# 12 "f.h"`) matches no arm below.
            Some(t) => (spelling(src, t), &toks[2..]),
            None => (std::borrow::Cow::Borrowed(&[]), &toks[1..]),
        };
        let rest = || directive_text(src, rest_toks);
        let dead = self.stack.last().is_some_and(|f| f.dead);
        self.directives_seen += 1;
        if self.guard_closed {
            self.guard_valid = false;
        }
        let out = &mut self.out;
        match &*name {
            b"include" | b"include_next" | b"import" if !dead => {
                let (kind, spelling) = header_name(src, rest_toks, &*name == b"include_next");
                let conditional = self.stack.iter().any(|f| f.conditional && !f.guard);
                let guard_cond = self.stack.iter().any(|f| f.guard && f.conditional);
                if guard_cond && !conditional {
                    self.guard_dependent.push(out.includes.len());
                }
                out.directives.push(Directive::Include(out.includes.len()));
                out.includes.push(Include {
                    line,
                    kind,
                    spelling,
                    conditional,
                });
            }
            b"include" | b"include_next" | b"import" => {
                let (_, spelling) = header_name(src, rest_toks, false);
                out.skipped.push((line, spelling));
            }
            b"if" | b"ifdef" | b"ifndef" => {
                let rest = rest();
                if !dead {
                    out.directives.push(match &*name {
                        b"if" => Directive::If(rest.clone()),
                        b"ifdef" => Directive::Ifdef(rest.clone()),
                        _ => Directive::Ifndef(rest.clone()),
                    });
                }
                if dead {
                    self.stack.push(Frame {
                        parent_dead: true,
                        dead: true,
                        taken: false,
                        all_false: false,
                        conditional: false,
                        guard: false,
                    });
                } else {
                    let is_guard =
                        self.stack.is_empty() && !self.seen_token && self.directives_seen == 1;
                    let gm = if is_guard {
                        guard_macro(&name, &rest)
                    } else {
                        None
                    };
                    let truth = if &*name == b"if" {
                        literal_truth(&rest)
                    } else {
                        Truth::Unknown
                    };
                    if gm.is_some() {
                        self.guard_name = gm;
                    }
                    self.stack.push(Frame {
                        parent_dead: false,
                        dead: truth == Truth::False,
                        taken: truth == Truth::True,
                        all_false: truth == Truth::False,
                        conditional: truth == Truth::Unknown,
                        guard: self.guard_name.is_some() && is_guard,
                    });
                }
            }
            b"elif" | b"elifdef" | b"elifndef" | b"else" => {
                let rest = rest();
                if self.stack.last().is_some_and(|f| !f.parent_dead) {
                    out.directives.push(match &*name {
                        b"elif" => Directive::Elif(rest.clone()),
                        b"elifdef" => Directive::Elifdef(rest.clone()),
                        b"elifndef" => Directive::Elifndef(rest.clone()),
                        _ => Directive::Else,
                    });
                }
                match self.stack.last_mut() {
                    None => out.problems.push((
                        line,
                        format!("#{} without #if", String::from_utf8_lossy(&name)),
                    )),
                    Some(f) => {
                        if f.guard {
                            self.guard_valid = false;
                        }
                        if f.parent_dead {
                            f.dead = true;
                        } else if f.taken {
                            f.dead = true;
                            f.conditional = false;
                        } else {
                            let truth = if &*name == b"else" {
                                Truth::True
                            } else if &*name == b"elif" {
                                literal_truth(&rest)
                            } else {
                                Truth::Unknown
                            };
                            match truth {
                                Truth::False => {
                                    f.dead = true;
                                    f.conditional = false;
                                }
                                Truth::True if f.all_false => {
                                    f.dead = false;
                                    f.conditional = false;
                                    f.taken = true;
                                }
                                _ => {
                                    f.dead = false;
                                    f.conditional = true;
                                    f.all_false = false;
                                }
                            }
                        }
                    }
                }
            }
            b"endif" => {
                if self.stack.last().is_some_and(|f| !f.parent_dead) {
                    out.directives.push(Directive::Endif);
                }
                match self.stack.pop() {
                    None => out.problems.push((line, "#endif without #if".to_string())),
                    Some(f) if f.guard => self.guard_closed = true,
                    Some(_) => {}
                }
            }
            b"define" if !dead => {
                let rest = rest();
                let defined = rest
                    .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .next()
                    .unwrap_or("");
                if self.directives_seen == 2 && self.guard_name.as_deref() == Some(defined) {
                    self.guard_valid = true;
                }
                out.directives.push(Directive::Define(rest));
            }
            b"undef" if !dead => out.directives.push(Directive::Undef(rest())),
            b"pragma"
                if !dead
                    && rest_toks.first().map(|t| spelling(src, t)).as_deref() == Some(b"once") =>
            {
                out.directives.push(Directive::PragmaOnce);
            }
            _ => {}
        }
        // The guard frame only counts when `#define X` followed `#ifndef X` directly.
        if self.directives_seen == 2 && !self.guard_valid {
            if let Some(f) = self.stack.first_mut() {
                f.guard = false;
            }
            self.guard_name = None;
        }
        self.seen_token = true;
    }

    fn finish(mut self, eof_line: u32) -> Scan {
        let mut out = self.out;
        if !self.stack.is_empty() {
            out.problems.push((
                eof_line,
                format!(
                    "{} unterminated #if group(s) at end of file",
                    self.stack.len()
                ),
            ));
            self.guard_valid = false;
        }
        // An include guard that is not a real guard (code after its #endif, an #else) makes the
        // includes under it conditional after all.
        if !self.guard_valid {
            for i in self.guard_dependent {
                if let Some(inc) = out.includes.get_mut(i) {
                    inc.conditional = true;
                }
            }
        }
        out
    }
}

fn header_name(src: &[u8], rest: &[Token], next: bool) -> (IncludeKind, String) {
    let (kind, spelled) = match rest.first() {
        Some(t) if t.kind == Kind::HeaderName => {
            let s = spelling(src, t);
            let (open, close) = if s.first() == Some(&b'<') {
                (IncludeKind::Angle, b'>')
            } else {
                (IncludeKind::Quoted, b'"')
            };
            let inner = &s[1..];
            let inner = inner.strip_suffix(&[close]).unwrap_or(inner);
            (open, lossy(inner))
        }
        _ => (IncludeKind::Computed, directive_text(src, rest)),
    };
    if next {
        (IncludeKind::Next, spelled)
    } else {
        (kind, spelled)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn names(src: &str) -> Vec<(u32, String, bool)> {
        scan(src.as_bytes())
            .includes
            .into_iter()
            .map(|i| (i.line, i.spelling, i.conditional))
            .collect()
    }

    #[test]
    fn plain_and_spaced_directives() {
        let s = "#include \"a.h\"\n  #  include <b/c.h>\n#include/*x*/\"d.h\" // tail\n";
        assert_eq!(
            names(s),
            vec![
                (1, "a.h".into(), false),
                (2, "b/c.h".into(), false),
                (3, "d.h".into(), false)
            ]
        );
    }

    #[test]
    fn comments_and_strings_hide_includes() {
        let s = "/*\n#include \"no1.h\"\n*/\n// #include \"no2.h\"\nconst char* s = \"#include \\\"no3.h\\\"\";\nauto r = R\"x(\n#include \"no4.h\"\n)x\";\n#include \"yes.h\"\n";
        assert_eq!(names(s), vec![(9, "yes.h".into(), false)]);
    }

    #[test]
    fn block_comment_before_hash_keeps_directive() {
        assert_eq!(
            names("/* c */ #include \"a.h\"\n"),
            vec![(1, "a.h".into(), false)]
        );
        // but code before `#` is not a directive
        assert_eq!(names("int x; #include \"a.h\"\n"), vec![]);
    }

    #[test]
    fn continuation_lines_and_digraphs() {
        let s = "#inc\\\nlude \"a.h\"\n#include \\\n  \"b.h\"\n#include \"c.h\"\n%:include <d.h>\n";
        assert_eq!(
            names(s),
            vec![
                (1, "a.h".into(), false),
                (3, "b.h".into(), false),
                (5, "c.h".into(), false),
                (6, "d.h".into(), false)
            ]
        );
        // a `//` comment continued onto the next line swallows it
        assert_eq!(
            names("// x \\\n#include \"no.h\"\n#include \"y.h\"\n"),
            vec![(3, "y.h".into(), false)]
        );
    }

    #[test]
    fn if0_skipped_and_conditionals_marked() {
        let s = "#if 0\n#include \"dead.h\"\n#else\n#include \"live.h\"\n#endif\n#ifdef X\n#include \"cond.h\"\n#elif 0\n#include \"dead2.h\"\n#else\n#include \"cond2.h\"\n#endif\n#if 1\n#include \"one.h\"\n#else\n#include \"dead3.h\"\n#endif\n";
        let sc = scan(s.as_bytes());
        let got: Vec<_> = sc
            .includes
            .iter()
            .map(|i| (i.spelling.as_str(), i.conditional))
            .collect();
        assert_eq!(
            got,
            vec![
                ("live.h", false),
                ("cond.h", true),
                ("cond2.h", true),
                ("one.h", false)
            ]
        );
        let dead: Vec<_> = sc.skipped.iter().map(|(_, s)| s.as_str()).collect();
        assert_eq!(dead, vec!["dead.h", "dead2.h", "dead3.h"]);
    }

    #[test]
    fn nested_if0_with_prose_apostrophes() {
        let s = "#if 0\ndon't #include this\n#ifdef Y\n#include \"x.h\"\n#endif\n#endif\n#include \"ok.h\"\n";
        assert_eq!(names(s), vec![(7, "ok.h".into(), false)]);
    }

    #[test]
    fn include_guard_is_not_a_condition() {
        let s = "// c\n#ifndef A_H\n#define A_H\n#include \"a.h\"\n#ifdef Q\n#include \"q.h\"\n#endif\n#endif // A_H\n";
        assert_eq!(
            names(s),
            vec![(4, "a.h".into(), false), (6, "q.h".into(), true)]
        );
        let s2 = "#if !defined(B_H)\n#define B_H\n#include \"b.h\"\n#endif\n";
        assert_eq!(names(s2), vec![(3, "b.h".into(), false)]);
        // not a guard: code after the #endif
        let s3 = "#ifndef A_H\n#define A_H\n#include \"a.h\"\n#endif\nint x;\n";
        assert_eq!(names(s3), vec![(3, "a.h".into(), true)]);
        // not a guard: no matching #define
        let s4 = "#ifndef FOO\n#include \"a.h\"\n#endif\n";
        assert_eq!(names(s4), vec![(2, "a.h".into(), true)]);
    }

    #[test]
    fn computed_and_next() {
        let sc = scan(b"#include MY_HEADER // why\n#include_next <stdlib.h>\n");
        assert_eq!(sc.includes[0].kind, IncludeKind::Computed);
        assert_eq!(sc.includes[0].spelling, "MY_HEADER");
        assert_eq!(sc.includes[1].kind, IncludeKind::Next);
        assert_eq!(sc.includes[1].spelling, "stdlib.h");
    }

    #[test]
    fn digit_separators_and_char_literals() {
        let s = "int x = 1'000'000; char c = '\"';\n#include \"a.h\"\n";
        assert_eq!(names(s), vec![(2, "a.h".into(), false)]);
    }

    #[test]
    fn ascii_shortcut_reports_what_validation_does() {
        let mut rng = crate::xorshift(0x6a09_e667_f3bc_c908);
        for round in 0..20_000 {
            let len = round % 200;
            let src: Vec<u8> = (0..len)
                .map(|_| {
                    let r = rng();
                    match r % 50 {
                        0 => 0x80 | (r >> 8) as u8,
                        1 => b'\n',
                        2 => 0x7f,
                        _ => (r >> 8) as u8 & 0x7f,
                    }
                })
                .collect();
            assert_eq!(first_invalid_utf8(&src), utf8_error_at(&src), "{src:?}");
        }
        assert_eq!(first_invalid_utf8("\u{e9}\n\u{7f}".as_bytes()), None);
        assert_eq!(first_invalid_utf8(b"a\nb\xc3"), Some((2, 2)));
    }

    #[test]
    fn invalid_utf8_and_problems() {
        let sc = scan(b"ok\n\xff\xfe\n#include \"a.h\"\n#endif\n");
        assert_eq!(sc.invalid_utf8, Some((2, 1)));
        assert_eq!(sc.includes.len(), 1);
        assert_eq!(sc.problems.len(), 1);
        let sc = scan(b"#ifdef X\n");
        assert_eq!(sc.problems.len(), 1);
    }

    #[test]
    fn crlf_lines_and_directive_text() {
        assert_eq!(
            names("#include \"a.h\"\r\n#include <b.h>\r\n"),
            vec![(1, "a.h".into(), false), (2, "b.h".into(), false)]
        );
        let sc = scan(b"#define F(a, b) \\\r\n  ((a)/*x*/+ b) // c\r\n");
        assert_eq!(
            sc.directives,
            vec![Directive::Define("F(a, b)   ((a) + b)".into())]
        );
    }

    /// `#define`/`#undef` in a dead group (`#if 0`, the `#else` of `#if 1`, a taken `#elif`'s
    /// siblings) never reach the macro-aware walk; in live and unknown groups they do, in order.
    #[test]
    fn defines_in_dead_groups_are_not_replayed() {
        let defs = |src: &str| -> Vec<Directive> {
            scan(src.as_bytes())
                .directives
                .into_iter()
                .filter(|d| matches!(d, Directive::Define(_) | Directive::Undef(_)))
                .collect()
        };
        let d = |t: &str| Directive::Define(t.to_string());
        assert_eq!(defs("#if 0\n#define A 1\n#undef B\n#endif\n"), vec![]);
        assert_eq!(
            defs("#if 1\n#define A 1\n#else\n#define B 2\n#endif\n"),
            vec![d("A 1")]
        );
        assert_eq!(
            defs("#if 0\n#define A\n#elif 1\n#define B\n#elif 1\n#define C\n#else\n#define D\n#endif\n"),
            vec![d("B")]
        );
        assert_eq!(
            defs("#ifdef X\n#define A\n#else\n#undef A\n#endif\n"),
            vec![d("A"), Directive::Undef("A".into())]
        );
        // Nested in a dead group, even a live-looking `#if 1` stays dead.
        assert_eq!(
            defs("#if 0\n#if 1\n#define A\n#endif\n#endif\n#define Z\n"),
            vec![d("Z")]
        );
        // Every live conditional arm is replayed as written, so the walk can evaluate it.
        let arms: Vec<Directive> = scan(b"#if X\n#elif Y\n#else\n#endif\n").directives;
        assert_eq!(
            arms,
            vec![
                Directive::If("X".into()),
                Directive::Elif("Y".into()),
                Directive::Else,
                Directive::Endif
            ]
        );
    }

    #[test]
    fn identifier_text_is_nonempty_identifier_characters() {
        assert!(is_ident_text("MG_X1"));
        assert!(!is_ident_text(""));
        assert!(!is_ident_text("A B"));
        assert!(!is_ident_text("A-B"));
        assert!(!is_ident_text("(X)"));
    }

    /// `#pragma once` is replayed only when live and only for `once`; `#ifdef`, `#elifdef` and
    /// `#elifndef` are replayed as what they are (the walk evaluates each differently).
    #[test]
    fn pragma_once_and_the_defined_forms_are_replayed_as_written() {
        let dirs = |src: &str| scan(src.as_bytes()).directives;
        assert_eq!(dirs("#pragma once\n"), vec![Directive::PragmaOnce]);
        assert_eq!(dirs("#pragma pack(1)\n#pragma\n"), vec![]);
        assert_eq!(
            dirs("#if 0\n#pragma once\n#endif\n"),
            vec![Directive::If("0".into()), Directive::Endif]
        );
        assert_eq!(
            dirs("#ifdef A\n#elifdef B\n#elifndef C\n#endif\n"),
            vec![
                Directive::Ifdef("A".into()),
                Directive::Elifdef("B".into()),
                Directive::Elifndef("C".into()),
                Directive::Endif
            ]
        );
    }

    /// What makes an include guard, each condition on its own: the `#ifndef` must be the first
    /// directive with no token before it and at top level, and the `#define` of its macro the
    /// second directive; an include under a real condition inside the guard stays conditional.
    #[test]
    fn each_condition_of_an_include_guard_is_needed() {
        let guarded = "#ifndef G\n#define G\n#include \"a.h\"\n#endif\n";
        assert_eq!(names(guarded), vec![(3, "a.h".into(), false)]);
        // A token before the #ifndef.
        let s = "int x;\n#ifndef G\n#define G\n#include \"a.h\"\n#endif\n";
        assert_eq!(names(s), vec![(4, "a.h".into(), true)]);
        // Another directive first.
        let s = "#define Z\n#ifndef G\n#define G\n#include \"a.h\"\n#endif\n";
        assert_eq!(names(s), vec![(4, "a.h".into(), true)]);
        // The #define of the macro is not the second directive.
        let s = "#ifndef G\n#define H\n#define G\n#include \"a.h\"\n#endif\n";
        assert_eq!(names(s), vec![(4, "a.h".into(), true)]);
        // The second directive defines another macro.
        let s = "#ifndef G\n#define H\n#include \"a.h\"\n#endif\n";
        assert_eq!(names(s), vec![(3, "a.h".into(), true)]);
        // Nested: an inner #ifndef/#define pair is a condition, not a guard.
        let s = "#ifdef Q\n#ifndef G\n#define G\n#include \"a.h\"\n#endif\n#endif\n";
        assert_eq!(names(s), vec![(4, "a.h".into(), true)]);
    }

    /// The end-of-file line: the skim's count, except past the u32 range, where the newlines are
    /// counted (the boundary is exact).
    #[test]
    fn eof_line_counts_newlines_only_near_the_u32_limit() {
        let edge = u32::MAX as usize - 4;
        assert_eq!(eof_line(10, 7, || 9), 7);
        assert_eq!(eof_line(edge, 7, || 9), 7);
        assert_eq!(eof_line(edge + 1, 7, || 9), 10);
        assert_eq!(eof_line(usize::MAX, 7, || usize::MAX), u32::MAX);
    }

    /// An unguarded top-level include stays unconditional even when the file ends inside an
    /// unterminated group (which invalidates any guard).
    #[test]
    fn an_unguarded_include_is_not_made_conditional_by_a_broken_guard() {
        let sc = scan(b"#include \"top.h\"\n#if A\n");
        assert!(!sc.includes[0].conditional);
        assert_eq!(sc.problems.len(), 1);
        let sk = skim(b"#include \"top.h\"\n#if A\n");
        assert!(!sk.includes[0].conditional);
        assert_eq!(sk.problems, sc.problems);
    }

    /// Between a directive's tokens only a splice is dropped: other whitespace, a lone CR
    /// included, stays as written.
    #[test]
    fn directive_text_drops_splices_only() {
        let src = b"#error a \r b \\\n c /* d */ e\n";
        let lx = crate::lexer::lex(src);
        assert_eq!(directive_text(src, &lx.tokens[2..]), "a \r b  c   e");
        // A name that is no identifier is no directive anything reads.
        let s = scan(b"# 12 \"f.h\"\n#include <a.h>\n");
        assert_eq!(s.includes.len(), 1);
    }
}
