//! A preprocessor-directive lexer: finds `#include` lines the way a compiler's phases 1–4 would.
//!
//! Handles line splices (`\` newline), `//` and `/* */` comments, string, character and raw string
//! literals (so a `#include` inside any of them is not one), pp-numbers with digit separators,
//! `#if 0` / `#if 1` groups (dead branches are skipped), other conditionals (includes inside them
//! are marked conditional, except the file's own include guard), computed includes and
//! `#include_next` (kept, flagged unresolvable).

use serde::Serialize;

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

/// What the lexer found in one file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Scan {
    pub includes: Vec<Include>,
    /// Includes inside dead groups (`#if 0`, the `#else` of `#if 1`): (line, spelling).
    pub skipped: Vec<(u32, String)>,
    /// `#if` without `#endif`, `#endif` without `#if`: (line, message). The scan still completes.
    pub problems: Vec<(u32, String)>,
    /// Where the first byte of invalid UTF-8 sits: (line, column). Scanning works on bytes anyway.
    pub invalid_utf8: Option<(u32, u32)>,
    /// Every live directive a macro-aware walk needs, in file order (see [`crate::pp`]).
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

/// Removes line splices; returns the spliced bytes and the spliced offsets where a splice was
/// removed (each one is a physical newline that the line counter must still count).
fn splice(src: &[u8]) -> (std::borrow::Cow<'_, [u8]>, Vec<usize>) {
    let has_splice = src.windows(2).any(|w| w == b"\\\n") || src.windows(3).any(|w| w == b"\\\r\n");
    if !has_splice {
        return (std::borrow::Cow::Borrowed(src), Vec::new());
    }
    let mut out = Vec::with_capacity(src.len());
    let mut marks = Vec::new();
    let mut i = 0;
    while i < src.len() {
        if src[i] == b'\\' {
            if src.get(i + 1) == Some(&b'\n') {
                marks.push(out.len());
                i += 2;
                continue;
            }
            if src.get(i + 1) == Some(&b'\r') && src.get(i + 2) == Some(&b'\n') {
                marks.push(out.len());
                i += 3;
                continue;
            }
        }
        out.push(src[i]);
        i += 1;
    }
    (std::borrow::Cow::Owned(out), marks)
}

fn first_invalid_utf8(src: &[u8]) -> Option<(u32, u32)> {
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

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80
}

struct Lexer<'a> {
    b: &'a [u8],
    i: usize,
    /// Physical line of position `i`.
    line: u32,
    marks: &'a [usize],
    next_mark: usize,
}

impl Lexer<'_> {
    fn peek(&self, k: usize) -> u8 {
        self.b.get(self.i + k).copied().unwrap_or(0)
    }

    /// Advances one byte, keeping the physical line count (newlines and removed splices).
    fn bump(&mut self) {
        if self.b.get(self.i) == Some(&b'\n') {
            self.line += 1;
        }
        self.i += 1;
        while self.next_mark < self.marks.len() && self.marks[self.next_mark] <= self.i {
            self.line += 1;
            self.next_mark += 1;
        }
    }

    fn at_end(&self) -> bool {
        self.i >= self.b.len()
    }

    /// Skips a `/* */` comment starting at `i` (which points at `/`).
    fn block_comment(&mut self) {
        self.bump();
        self.bump();
        while !self.at_end() {
            if self.peek(0) == b'*' && self.peek(1) == b'/' {
                self.bump();
                self.bump();
                return;
            }
            self.bump();
        }
    }

    fn line_comment(&mut self) {
        while !self.at_end() && self.peek(0) != b'\n' {
            self.bump();
        }
    }

    /// Skips a quoted literal starting at the quote; stops at an unescaped newline (an
    /// unterminated literal, common in `#if 0` prose) so one apostrophe cannot eat the file.
    fn quoted(&mut self, q: u8) {
        self.bump();
        while !self.at_end() {
            match self.peek(0) {
                b'\\' => {
                    self.bump();
                    if !self.at_end() && self.peek(0) != b'\n' {
                        self.bump();
                    }
                }
                b'\n' => return,
                c if c == q => {
                    self.bump();
                    return;
                }
                _ => self.bump(),
            }
        }
    }

    /// Skips a raw string literal; `i` points at the opening `"`.
    fn raw_string(&mut self) {
        self.bump();
        let start = self.i;
        while !self.at_end()
            && self.peek(0) != b'('
            && self.peek(0) != b'\n'
            && self.i - start <= 16
        {
            self.bump();
        }
        if self.peek(0) != b'(' {
            return; // not a valid raw string; continue lexing normally
        }
        let delim = self.b[start..self.i].to_vec();
        self.bump();
        while !self.at_end() {
            if self.peek(0) == b')'
                && self.b[self.i + 1..].starts_with(&delim)
                && self.b.get(self.i + 1 + delim.len()) == Some(&b'"')
            {
                for _ in 0..delim.len() + 2 {
                    self.bump();
                }
                return;
            }
            self.bump();
        }
    }

    fn skip_hspace_and_comments(&mut self) {
        loop {
            match self.peek(0) {
                b' ' | b'\t' | b'\r' | 0x0b | 0x0c if !self.at_end() => self.bump(),
                b'/' if self.peek(1) == b'*' => self.block_comment(),
                b'/' if self.peek(1) == b'/' => self.line_comment(),
                _ => return,
            }
        }
    }

    fn ident(&mut self) -> &[u8] {
        let s = self.i;
        while !self.at_end() && is_ident(self.peek(0)) {
            self.bump();
        }
        &self.b[s..self.i]
    }

    /// Reads the rest of a directive line (comments become one space, literals are kept).
    fn rest_of_line(&mut self) -> String {
        let mut out = Vec::new();
        while !self.at_end() && self.peek(0) != b'\n' {
            match self.peek(0) {
                b'/' if self.peek(1) == b'*' => {
                    self.block_comment();
                    out.push(b' ');
                }
                b'/' if self.peek(1) == b'/' => self.line_comment(),
                q @ (b'"' | b'\'') => {
                    let s = self.i;
                    self.quoted(q);
                    out.extend_from_slice(&self.b[s..self.i]);
                }
                c => {
                    out.push(c);
                    self.bump();
                }
            }
        }
        String::from_utf8_lossy(&out).trim().to_string()
    }
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

/// The macro an include guard tests: `#ifndef X` or `#if !defined(X)` / `#if !defined X`.
fn guard_macro(name: &[u8], rest: &str) -> Option<String> {
    let ident_ok = |s: &str| !s.is_empty() && s.bytes().all(is_ident);
    match name {
        b"ifndef" => ident_ok(rest).then(|| rest.to_string()),
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
            ident_ok(r).then(|| r.to_string())
        }
        _ => None,
    }
}

/// Scans one file's bytes for include directives.
pub fn scan(src: &[u8]) -> Scan {
    let mut out = Scan {
        invalid_utf8: first_invalid_utf8(src),
        ..Scan::default()
    };
    let (buf, marks) = splice(src);
    let mut lx = Lexer {
        b: &buf,
        i: 0,
        line: 1,
        marks: &marks,
        next_mark: 0,
    };
    while lx.next_mark < marks.len() && marks[lx.next_mark] == 0 {
        lx.line += 1;
        lx.next_mark += 1;
    }
    let mut stack: Vec<Frame> = Vec::new();
    let mut at_bol = true;
    // Include-guard tracking: state of the file's first conditional.
    let mut seen_token = false;
    let mut directives_seen = 0usize;
    let mut guard_name: Option<String> = None;
    let mut guard_valid = false;
    let mut guard_closed = false;
    // Includes recorded while under the guard frame only, whose `conditional` depends on the guard.
    let mut guard_dependent: Vec<usize> = Vec::new();

    while !lx.at_end() {
        let c = lx.peek(0);
        match c {
            b'\n' => {
                lx.bump();
                at_bol = true;
            }
            b' ' | b'\t' | b'\r' | 0x0b | 0x0c => lx.bump(),
            b'/' if lx.peek(1) == b'/' => lx.line_comment(),
            b'/' if lx.peek(1) == b'*' => lx.block_comment(),
            b'#' if at_bol => {
                let line = lx.line;
                lx.bump();
                lx.skip_hspace_and_comments();
                let name = lx.ident().to_vec();
                lx.skip_hspace_and_comments();
                let dead = stack.last().is_some_and(|f| f.dead);
                directives_seen += 1;
                if guard_closed {
                    guard_valid = false;
                }
                match name.as_slice() {
                    b"include" | b"include_next" | b"import" if !dead => {
                        let (kind, spelling) = header_name(&mut lx, name == b"include_next");
                        let conditional = stack.iter().any(|f| f.conditional && !f.guard);
                        let guard_cond = stack.iter().any(|f| f.guard && f.conditional);
                        if guard_cond && !conditional {
                            guard_dependent.push(out.includes.len());
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
                        let (_, spelling) = header_name(&mut lx, false);
                        out.skipped.push((line, spelling));
                    }
                    b"if" | b"ifdef" | b"ifndef" => {
                        let rest = lx.rest_of_line();
                        if !dead {
                            out.directives.push(match name.as_slice() {
                                b"if" => Directive::If(rest.clone()),
                                b"ifdef" => Directive::Ifdef(rest.clone()),
                                _ => Directive::Ifndef(rest.clone()),
                            });
                        }
                        if dead {
                            stack.push(Frame {
                                parent_dead: true,
                                dead: true,
                                taken: false,
                                all_false: false,
                                conditional: false,
                                guard: false,
                            });
                        } else {
                            let is_guard = stack.is_empty() && !seen_token && directives_seen == 1;
                            let gm = if is_guard {
                                guard_macro(&name, &rest)
                            } else {
                                None
                            };
                            let truth = if name == b"if" {
                                literal_truth(&rest)
                            } else {
                                Truth::Unknown
                            };
                            if gm.is_some() {
                                guard_name = gm;
                            }
                            stack.push(Frame {
                                parent_dead: false,
                                dead: truth == Truth::False,
                                taken: truth == Truth::True,
                                all_false: truth == Truth::False,
                                conditional: truth == Truth::Unknown,
                                guard: guard_name.is_some() && is_guard,
                            });
                        }
                    }
                    b"elif" | b"elifdef" | b"elifndef" | b"else" => {
                        let rest = lx.rest_of_line();
                        if stack.last().is_some_and(|f| !f.parent_dead) {
                            out.directives.push(match name.as_slice() {
                                b"elif" => Directive::Elif(rest.clone()),
                                b"elifdef" => Directive::Elifdef(rest.clone()),
                                b"elifndef" => Directive::Elifndef(rest.clone()),
                                _ => Directive::Else,
                            });
                        }
                        match stack.last_mut() {
                            None => out.problems.push((
                                line,
                                format!("#{} without #if", String::from_utf8_lossy(&name)),
                            )),
                            Some(f) => {
                                if f.guard {
                                    guard_valid = false;
                                }
                                if f.parent_dead {
                                    f.dead = true;
                                } else if f.taken {
                                    f.dead = true;
                                    f.conditional = false;
                                } else {
                                    let truth = if name == b"else" {
                                        Truth::True
                                    } else if name == b"elif" {
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
                        let _ = lx.rest_of_line();
                        if stack.last().is_some_and(|f| !f.parent_dead) {
                            out.directives.push(Directive::Endif);
                        }
                        match stack.pop() {
                            None => out.problems.push((line, "#endif without #if".to_string())),
                            Some(f) if f.guard => guard_closed = true,
                            Some(_) => {}
                        }
                    }
                    b"define" if !dead => {
                        let rest = lx.rest_of_line();
                        let defined = rest
                            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                            .next()
                            .unwrap_or("");
                        if directives_seen == 2 && guard_name.as_deref() == Some(defined) {
                            guard_valid = true;
                        }
                        out.directives.push(Directive::Define(rest));
                    }
                    b"undef" if !dead => {
                        let rest = lx.rest_of_line();
                        out.directives.push(Directive::Undef(rest));
                    }
                    b"pragma" if !dead => {
                        let rest = lx.rest_of_line();
                        if rest.split_whitespace().next() == Some("once") {
                            out.directives.push(Directive::PragmaOnce);
                        }
                    }
                    _ => {
                        let _ = lx.rest_of_line();
                    }
                }
                // The guard frame only counts when `#define X` followed `#ifndef X` directly.
                if directives_seen == 2 && !guard_valid {
                    if let Some(f) = stack.first_mut() {
                        if f.guard {
                            f.guard = false;
                        }
                    }
                    guard_name = None;
                }
                seen_token = true;
                at_bol = false;
            }
            b'"' => {
                lx.quoted(b'"');
                seen_token = true;
                at_bol = false;
                if guard_closed {
                    guard_valid = false;
                }
            }
            b'\'' => {
                lx.quoted(b'\'');
                seen_token = true;
                at_bol = false;
                if guard_closed {
                    guard_valid = false;
                }
            }
            c if is_ident(c) => {
                let start = lx.i;
                if c.is_ascii_digit() {
                    // pp-number: digits, letters, `.`, digit separators and exponent signs.
                    while !lx.at_end() {
                        let d = lx.peek(0);
                        if is_ident(d) || d == b'.' {
                            let was_exp = matches!(d, b'e' | b'E' | b'p' | b'P');
                            lx.bump();
                            if was_exp && matches!(lx.peek(0), b'+' | b'-') {
                                lx.bump();
                            }
                        } else if d == b'\'' && is_ident(lx.peek(1)) {
                            lx.bump();
                        } else {
                            break;
                        }
                    }
                } else {
                    let _ = lx.ident();
                    let word = &lx.b[start..lx.i];
                    if lx.peek(0) == b'"' && matches!(word, b"R" | b"u8R" | b"uR" | b"UR" | b"LR") {
                        lx.raw_string();
                    }
                }
                seen_token = true;
                at_bol = false;
                if guard_closed {
                    guard_valid = false;
                }
            }
            _ => {
                lx.bump();
                seen_token = true;
                at_bol = false;
                if guard_closed {
                    guard_valid = false;
                }
            }
        }
    }
    if !stack.is_empty() {
        out.problems.push((
            lx.line,
            format!("{} unterminated #if group(s) at end of file", stack.len()),
        ));
        guard_valid = false;
    }
    // An include guard that is not a real guard (code after its #endif, an #else) makes the
    // includes under it conditional after all.
    if !guard_valid {
        for i in guard_dependent {
            if let Some(inc) = out.includes.get_mut(i) {
                inc.conditional = true;
            }
        }
    }
    out
}

fn header_name(lx: &mut Lexer<'_>, next: bool) -> (IncludeKind, String) {
    let (kind, spelling) = match lx.peek(0) {
        b'"' => {
            lx.bump();
            let s = lx.i;
            while !lx.at_end() && lx.peek(0) != b'"' && lx.peek(0) != b'\n' {
                lx.bump();
            }
            let name = String::from_utf8_lossy(&lx.b[s..lx.i]).into_owned();
            if lx.peek(0) == b'"' {
                lx.bump();
            }
            (IncludeKind::Quoted, name)
        }
        b'<' => {
            lx.bump();
            let s = lx.i;
            while !lx.at_end() && lx.peek(0) != b'>' && lx.peek(0) != b'\n' {
                lx.bump();
            }
            let name = String::from_utf8_lossy(&lx.b[s..lx.i]).into_owned();
            if lx.peek(0) == b'>' {
                lx.bump();
            }
            (IncludeKind::Angle, name)
        }
        _ => (IncludeKind::Computed, lx.rest_of_line()),
    };
    let _ = lx.rest_of_line();
    if next {
        (IncludeKind::Next, spelling)
    } else {
        (kind, spelling)
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
    fn continuation_lines() {
        let s = "#inc\\\nlude \"a.h\"\n#include \\\n  \"b.h\"\n#include \"c.h\"\n";
        assert_eq!(
            names(s),
            vec![
                (1, "a.h".into(), false),
                (3, "b.h".into(), false),
                (5, "c.h".into(), false)
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
        let sc = scan(b"#include MY_HEADER\n#include_next <stdlib.h>\n");
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
    fn invalid_utf8_and_problems() {
        let sc = scan(b"ok\n\xff\xfe\n#include \"a.h\"\n#endif\n");
        assert_eq!(sc.invalid_utf8, Some((2, 1)));
        assert_eq!(sc.includes.len(), 1);
        assert_eq!(sc.problems.len(), 1);
        let sc = scan(b"#ifdef X\n");
        assert_eq!(sc.problems.len(), 1);
    }

    #[test]
    fn crlf_lines() {
        assert_eq!(
            names("#include \"a.h\"\r\n#include <b.h>\r\n"),
            vec![(1, "a.h".into(), false), (2, "b.h".into(), false)]
        );
    }
}
