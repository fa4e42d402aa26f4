//! Translation phases 1–3 over the original bytes. The cursor always rests on a byte that is not
//! part of a line splice, so every construct (an identifier, a directive keyword, a `//` comment,
//! a `->`) reads through splices the way g++ does, while spans stay in the original text.

use std::borrow::Cow;

/// What a token is. Literals keep their kind so scanners can tell "inside a string" apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Ident,
    /// A pp-number (`1'000`, `0x1p-3`, `1e+5`).
    Number,
    Str,
    Char,
    Punct,
    /// The `#` (or `%:`) that opens a preprocessor directive.
    Hash,
    /// `<…>` or `"…"` right after `#include`, `#include_next` or `#import`.
    HeaderName,
}

/// One preprocessing token. `start..end` are byte offsets into the original text (a token with a
/// splice inside spans it); `line`/`column` are 1-based, of `start`, in the original text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Token {
    pub kind: Kind,
    pub start: u32,
    pub end: u32,
    pub line: u32,
    /// 1-based byte column.
    pub column: u32,
    /// True for every token of a preprocessor directive (including its `#`).
    pub directive: bool,
    /// A line splice sits inside the token: its spelling is not its source slice.
    pub spliced: bool,
    /// Whitespace or a comment precedes it on its logical line (or it starts the line).
    pub space_before: bool,
}

/// A span that is not code, for explaining why a text match is not a token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hidden {
    Comment,
    Literal,
    RawString,
}

/// Something the lexer could not lex; it recovers and keeps going.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub offset: u32,
    pub line: u32,
    pub column: u32,
    pub message: &'static str,
}

/// Receives what the lexer finds, in source order (ripgrep's `Sink`): scans that only need a
/// few tokens implement it and never build a token vector.
pub trait Sink {
    /// One token; return `false` to stop lexing.
    fn token(&mut self, src: &[u8], tok: &Token) -> bool;
    /// A comment or literal span.
    fn hidden(&mut self, _start: u32, _end: u32, _what: Hidden) {}
    fn diagnostic(&mut self, _d: Diagnostic) {}
}

/// The token stream of one file plus what it had to recover from.
#[derive(Debug, Default)]
pub struct Lexed {
    pub tokens: Vec<Token>,
    pub diagnostics: Vec<Diagnostic>,
    /// Byte spans of comments and literals, in order.
    pub hidden: Vec<(u32, u32, Hidden)>,
    /// The spelling of every spliced token, keyed by its start.
    spelled: Vec<(u32, String)>,
}

impl Lexed {
    /// What hides the byte at `offset`, if a comment or literal does.
    pub fn hidden_at(&self, offset: u32) -> Option<Hidden> {
        let i = self.hidden.partition_point(|h| h.1 <= offset);
        self.hidden.get(i).filter(|h| h.0 <= offset).map(|h| h.2)
    }

    /// A token's spelling after phases 1–2 (splices removed), digraphs read as what they mean.
    pub fn text<'a>(&'a self, src: &'a str, t: &Token) -> &'a str {
        if t.spliced {
            if let Ok(k) = self.spelled.binary_search_by_key(&t.start, |e| e.0) {
                return canonical(t.kind, &self.spelled[k].1);
            }
        }
        canonical(
            t.kind,
            src.get(t.start as usize..t.end as usize).unwrap_or(""),
        )
    }
}

impl Sink for Lexed {
    fn token(&mut self, src: &[u8], tok: &Token) -> bool {
        if tok.spliced {
            let s = spelling(src, tok);
            self.spelled
                .push((tok.start, String::from_utf8_lossy(&s).into_owned()));
        }
        self.tokens.push(*tok);
        true
    }
    fn hidden(&mut self, start: u32, end: u32, what: Hidden) {
        self.hidden.push((start, end, what));
    }
    fn diagnostic(&mut self, d: Diagnostic) {
        self.diagnostics.push(d);
    }
}

/// Digraphs as the punctuator they stand for.
fn canonical(kind: Kind, s: &str) -> &str {
    if !matches!(kind, Kind::Punct | Kind::Hash) {
        return s;
    }
    match s {
        "<:" => "[",
        ":>" => "]",
        "<%" => "{",
        "%>" => "}",
        "%:" => "#",
        "%:%:" => "##",
        _ => s,
    }
}

/// A token's bytes with line splices removed (raw string bodies keep theirs: phase 2 is
/// reverted inside them).
pub fn spelling<'a>(src: &'a [u8], t: &Token) -> Cow<'a, [u8]> {
    let raw = src.get(t.start as usize..t.end as usize).unwrap_or(&[]);
    if !t.spliced {
        return Cow::Borrowed(raw);
    }
    let mut out = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        let n = splice_len(raw, i);
        if n > 0 {
            i += n;
        } else {
            out.push(raw[i]);
            i += 1;
        }
    }
    Cow::Owned(out)
}

/// Length of a backslash-newline (LF or CRLF) at `i`, 0 when there is none.
fn splice_len(s: &[u8], i: usize) -> usize {
    if s.get(i) != Some(&b'\\') {
        return 0;
    }
    match (s.get(i + 1), s.get(i + 2)) {
        (Some(b'\n'), _) => 2,
        (Some(b'\r'), Some(b'\n')) => 3,
        _ => 0,
    }
}

fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_' || b >= 0x80
}

/// Whether `b` can continue an identifier (ASCII alphanumerics, `_`, any non-ASCII byte).
pub fn is_ident_continue(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80
}

/// Length of the longest punctuator at the start of `w` (digraphs included).
fn punct_len(w: [u8; 4]) -> usize {
    if &w == b"%:%:" {
        return 4;
    }
    if matches!(&w[..3], b"<<=" | b">>=" | b"->*" | b"..." | b"<=>") {
        return 3;
    }
    // `std::vector<::T>`: `<::` not followed by `:` or `>` is `<` then `::`.
    if &w[..3] == b"<::" && !matches!(w[3], b':' | b'>') {
        return 1;
    }
    let two = matches!(
        &w[..2],
        b"::"
            | b"->"
            | b"++"
            | b"--"
            | b"+="
            | b"-="
            | b"*="
            | b"/="
            | b"%="
            | b"&="
            | b"|="
            | b"^="
            | b"=="
            | b"!="
            | b"<="
            | b">="
            | b"&&"
            | b"||"
            | b"##"
            | b"<<"
            | b">>"
            | b".*"
            | b"<:"
            | b":>"
            | b"<%"
            | b"%>"
            | b"%:"
    );
    if two {
        2
    } else {
        1
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Dir {
    None,
    /// The directive's `#` was just read: the next identifier is its keyword.
    AfterHash,
    /// `#include`-like keyword read: a `<…>` or `"…"` next is a header name.
    AfterInclude,
}

struct Lx<'a, S: Sink> {
    s: &'a [u8],
    i: usize,
    /// End of the last byte consumed (before any splice the cursor skipped after it).
    end: usize,
    line: u32,
    line_start: usize,
    bol: bool,
    space: bool,
    in_directive: bool,
    dir: Dir,
    stop: bool,
    /// Stop after the first newline outside comments and literals (one logical line).
    one_line: bool,
    /// Splices skipped so far, when the last byte was consumed, and when the token began.
    splices: u32,
    splices_at_end: u32,
    splices_at_start: u32,
    sink: &'a mut S,
}

/// The longest input lexed: offsets and lines are u32.
pub(crate) const MAX_LEXED: usize = u32::MAX as usize - 4;

/// Lex C++ source into tokens, hidden spans and diagnostics. Never fails.
pub fn lex(src: &[u8]) -> Lexed {
    let mut out = Lexed::default();
    lex_with(src, &mut out);
    out
}

/// Lex C++ source, pushing everything into `sink`.
pub fn lex_with<S: Sink>(src: &[u8], sink: &mut S) {
    // Offsets and lines are u32; larger inputs are lexed up to that bound only.
    let src = &src[..src.len().min(MAX_LEXED)];
    Lx::at_line_start(src, 0, 1, false, sink).run();
}

/// Lexes the one logical line that starts at `start` (0, or just after a newline that is outside
/// every comment and literal; `line` is its 1-based line), pushing into `sink` exactly the tokens
/// [`lex_with`] pushes for that line. Returns where the line ends (after its newline, or the end
/// of `src`) and the line number there. At such a line start the lexer's whole state is known
/// (start of line, no directive, no open comment), which is what lets a skimmer resume it there.
pub(crate) fn lex_line_with<S: Sink>(
    src: &[u8],
    start: usize,
    line: u32,
    sink: &mut S,
) -> (usize, u32) {
    let mut lx = Lx::at_line_start(src, start, line, true, sink);
    lx.run();
    (lx.i, lx.line)
}

impl<'a, S: Sink> Lx<'a, S> {
    /// The lexer at a line start (`start` on line `line`), past any splices there.
    fn at_line_start(
        s: &'a [u8],
        start: usize,
        line: u32,
        one_line: bool,
        sink: &'a mut S,
    ) -> Self {
        let mut lx = Lx {
            s,
            i: start,
            end: start,
            line,
            line_start: start,
            bol: true,
            space: true,
            in_directive: false,
            dir: Dir::None,
            stop: false,
            one_line,
            splices: 0,
            splices_at_end: 0,
            splices_at_start: 0,
            sink,
        };
        lx.normalize();
        lx
    }
}

impl<S: Sink> Lx<'_, S> {
    /// Skips splices at the cursor, counting their newlines.
    fn normalize(&mut self) {
        loop {
            let n = splice_len(self.s, self.i);
            if n == 0 {
                return;
            }
            self.i += n;
            self.line += 1;
            self.line_start = self.i;
            self.splices += 1;
        }
    }

    fn skip_splices(&self, mut p: usize) -> usize {
        loop {
            let n = splice_len(self.s, p);
            if n == 0 {
                return p;
            }
            p += n;
        }
    }

    /// The `k`-th logical byte from the cursor (0 past the end).
    fn peek(&self, k: usize) -> u8 {
        let mut p = self.i;
        for _ in 0..k {
            if p >= self.s.len() {
                return 0;
            }
            p = self.skip_splices(p + 1);
        }
        self.s.get(p).copied().unwrap_or(0)
    }

    fn cur(&self) -> u8 {
        self.s.get(self.i).copied().unwrap_or(0)
    }

    fn at_end(&self) -> bool {
        self.i >= self.s.len()
    }

    fn bump(&mut self) {
        if self.at_end() {
            return;
        }
        if self.s[self.i] == b'\n' {
            self.line += 1;
            self.line_start = self.i + 1;
        }
        self.i += 1;
        self.end = self.i;
        self.splices_at_end = self.splices;
        if self.s.get(self.i) == Some(&b'\\') {
            self.normalize();
        }
    }

    /// Consumes `n` bytes known to hold no newline and no backslash.
    fn bump_plain(&mut self, n: usize) {
        self.i += n;
        self.end = self.i;
        self.splices_at_end = self.splices;
        if self.s.get(self.i) == Some(&b'\\') {
            self.normalize();
        }
    }

    fn column_of(&self, offset: usize) -> u32 {
        (offset - self.line_start.min(offset)) as u32 + 1
    }

    fn diag(&mut self, offset: usize, line: u32, column: u32, message: &'static str) {
        self.sink.diagnostic(Diagnostic {
            offset: offset as u32,
            line,
            column,
            message,
        });
    }

    fn hidden(&mut self, start: usize, what: Hidden) {
        self.sink.hidden(start as u32, self.end as u32, what);
        self.space = true;
    }

    fn emit(&mut self, kind: Kind, start: usize, line: u32, column: u32) {
        let spliced = self.splices_at_end != self.splices_at_start;
        self.emit_as(kind, start, line, column, spliced);
    }

    fn emit_as(&mut self, kind: Kind, start: usize, line: u32, column: u32, spliced: bool) {
        let tok = Token {
            kind,
            start: start as u32,
            end: self.end as u32,
            line,
            column,
            directive: self.in_directive,
            spliced,
            space_before: self.space,
        };
        self.dir = match (self.dir, kind) {
            (_, Kind::Hash) => Dir::AfterHash,
            (Dir::AfterHash, Kind::Ident) => {
                let word = spelling(self.s, &tok);
                if matches!(&*word, b"include" | b"include_next" | b"import") {
                    Dir::AfterInclude
                } else {
                    Dir::None
                }
            }
            _ => Dir::None,
        };
        self.bol = false;
        self.space = false;
        if !self.sink.token(self.s, &tok) {
            self.stop = true;
        }
    }

    fn run(&mut self) {
        while !self.at_end() && !self.stop {
            let b = self.cur();
            match b {
                b'\n' => {
                    self.bump();
                    self.bol = true;
                    self.space = true;
                    self.in_directive = false;
                    self.dir = Dir::None;
                    if self.one_line {
                        return;
                    }
                    continue;
                }
                b' ' | b'\t' | b'\r' | 0x0b | 0x0c => {
                    let run = self.s[self.i..]
                        .iter()
                        .position(|&b| !matches!(b, b' ' | b'\t' | b'\r' | 0x0b | 0x0c))
                        .unwrap_or(self.s.len() - self.i);
                    self.bump_plain(run);
                    self.space = true;
                    continue;
                }
                _ => {}
            }
            let (start, line) = (self.i, self.line);
            let column = self.column_of(start);
            self.splices_at_start = self.splices;
            match b {
                b'/' if self.peek(1) == b'/' => self.line_comment(),
                b'/' if self.peek(1) == b'*' => self.block_comment(),
                b'#' if self.bol && !self.in_directive => {
                    self.in_directive = true;
                    self.bump();
                    self.emit(Kind::Hash, start, line, column);
                }
                b'%' if self.bol
                    && !self.in_directive
                    && self.peek(1) == b':'
                    && !(self.peek(2) == b'%' && self.peek(3) == b':') =>
                {
                    self.in_directive = true;
                    self.bump();
                    self.bump();
                    self.emit(Kind::Hash, start, line, column);
                }
                b'<' | b'"' if self.dir == Dir::AfterInclude => self.header_name(b),
                b'"' | b'\'' => self.quoted(b, start, line, column),
                b'0'..=b'9' => self.number(),
                b'.' if self.peek(1).is_ascii_digit() => self.number(),
                _ if is_ident_start(b) => self.ident(),
                _ => self.punct(),
            }
        }
    }

    fn line_comment(&mut self) {
        let start = self.i;
        // The cursor reads through splices, so a `//` comment continued by one goes on.
        while !self.at_end() && self.cur() != b'\n' {
            let run = self.s[self.i..]
                .iter()
                .position(|&b| b == b'\n' || b == b'\\')
                .unwrap_or(self.s.len() - self.i);
            self.bump_plain(run);
            // A backslash that is not a splice (bump_plain read through those) is comment text.
            if self.cur() == b'\\' {
                self.bump();
            }
        }
        self.hidden(start, Hidden::Comment);
    }

    fn block_comment(&mut self) {
        let (start, line) = (self.i, self.line);
        let column = self.column_of(start);
        self.bump();
        self.bump();
        // Raw bytes: inside a comment only newlines and `*⏎/` (a splice in the closer) matter.
        let mut p = self.i;
        let mut closed = false;
        while p < self.s.len() {
            match self.s[p] {
                b'\n' => {
                    self.line += 1;
                    self.line_start = p + 1;
                }
                b'*' => {
                    let mut q = p + 1;
                    loop {
                        let n = splice_len(self.s, q);
                        if n == 0 {
                            break;
                        }
                        q += n;
                        self.line += 1;
                        self.line_start = q;
                    }
                    if self.s.get(q) == Some(&b'/') {
                        p = q + 1;
                        closed = true;
                        break;
                    }
                    p = q;
                    continue;
                }
                _ => {}
            }
            p += 1;
        }
        self.i = p;
        self.end = p;
        self.splices_at_end = self.splices;
        self.normalize();
        if !closed {
            self.diag(start, line, column, "unterminated /* comment");
        }
        self.hidden(start, Hidden::Comment);
    }

    /// An ordinary string or character literal whose opening quote is at the cursor; `start`
    /// includes any encoding prefix.
    fn quoted(&mut self, q: u8, start: usize, line: u32, column: u32) {
        self.bump();
        loop {
            if self.at_end() || self.cur() == b'\n' {
                // `#error don't …` is prose, not C++: an apostrophe there is not a problem.
                if !self.in_directive {
                    let what = if q == b'"' {
                        "unterminated string literal"
                    } else {
                        "unterminated character literal"
                    };
                    self.diag(start, line, column, what);
                }
                break;
            }
            match self.cur() {
                b'\\' => {
                    self.bump();
                    // The escaped byte (at the end, bump does nothing), never the newline.
                    if self.cur() != b'\n' {
                        self.bump();
                    }
                }
                x if x == q => {
                    self.bump();
                    break;
                }
                _ => {
                    let run = self.s[self.i..]
                        .iter()
                        .position(|&b| b == q || b == b'\\' || b == b'\n')
                        .unwrap_or(self.s.len() - self.i);
                    // At least the byte at the cursor: it is none of the three.
                    self.bump_plain(run);
                }
            }
        }
        self.sink
            .hidden(start as u32, self.end as u32, Hidden::Literal);
        self.emit(
            if q == b'"' { Kind::Str } else { Kind::Char },
            start,
            line,
            column,
        );
    }

    /// `R"delim( … )delim"`; the cursor is at the `"`. Splices inside are not splices (phase 2
    /// is reverted in a raw string), so the body is read from the raw bytes.
    fn raw_string(&mut self, start: usize, line: u32, column: u32) {
        let open = self.i + 1;
        let mut j = open;
        while j < self.s.len()
            && j - open <= 16
            && !matches!(
                self.s[j],
                b'(' | b' ' | b')' | b'\\' | b'\t' | 0x0b | 0x0c | b'\r' | b'\n' | b'"'
            )
        {
            j += 1;
        }
        if self.s.get(j) != Some(&b'(') || j - open > 16 {
            self.diag(start, line, column, "malformed raw string delimiter");
            return self.quoted(b'"', start, line, column);
        }
        let delim = &self.s[open..j];
        // From the `(`: it is no `)`, so the first closer found is the body's.
        let mut k = j;
        let close_at = loop {
            if k >= self.s.len() {
                break None;
            }
            if self.s[k] == b')'
                && self.s[k + 1..].starts_with(delim)
                && self.s.get(k + 1 + delim.len()) == Some(&b'"')
            {
                break Some(k + delim.len() + 2);
            }
            k += 1;
        };
        let stop = close_at.unwrap_or(self.s.len());
        for (p, &b) in self.s[self.i..stop].iter().enumerate() {
            if b == b'\n' {
                self.line += 1;
                self.line_start = self.i + p + 1;
            }
        }
        self.i = stop;
        self.end = stop;
        if close_at.is_none() {
            self.diag(start, line, column, "unterminated raw string literal");
        }
        self.sink
            .hidden(start as u32, self.end as u32, Hidden::RawString);
        // Only a splice inside the prefix is one; the body keeps its backslash-newlines.
        let prefix_spliced = (start..open).any(|k| splice_len(self.s, k) > 0);
        self.emit_as(Kind::Str, start, line, column, prefix_spliced);
        self.normalize();
    }

    fn header_name(&mut self, open: u8) {
        let (start, line) = (self.i, self.line);
        let column = self.column_of(start);
        let close = if open == b'<' { b'>' } else { b'"' };
        self.bump();
        while !self.at_end() && self.cur() != b'\n' && self.cur() != close {
            self.bump();
        }
        if self.cur() == close && !self.at_end() {
            self.bump();
        } else {
            self.diag(start, line, column, "unterminated header name");
        }
        if open == b'"' {
            self.sink
                .hidden(start as u32, self.end as u32, Hidden::Literal);
        }
        self.emit(Kind::HeaderName, start, line, column);
    }

    fn ident(&mut self) {
        let (start, line) = (self.i, self.line);
        let column = self.column_of(start);
        while !self.at_end() && is_ident_continue(self.cur()) {
            let run = self.s[self.i..]
                .iter()
                .position(|&b| !is_ident_continue(b))
                .unwrap_or(self.s.len() - self.i);
            self.bump_plain(run);
        }
        let spliced = self.splices_at_end != self.splices_at_start;
        let next = self.cur();
        if matches!(next, b'"' | b'\'') && !self.at_end() {
            let raw = &self.s[start..self.end];
            let word: Cow<'_, [u8]> = if spliced {
                let t = Token {
                    kind: Kind::Ident,
                    start: start as u32,
                    end: self.end as u32,
                    line,
                    column,
                    directive: false,
                    spliced: true,
                    space_before: false,
                };
                Cow::Owned(spelling(self.s, &t).into_owned())
            } else {
                Cow::Borrowed(raw)
            };
            if next == b'"' && matches!(&*word, b"R" | b"LR" | b"uR" | b"UR" | b"u8R") {
                return self.raw_string(start, line, column);
            }
            if matches!(&*word, b"L" | b"u" | b"U" | b"u8") {
                return self.quoted(next, start, line, column);
            }
        }
        self.emit(Kind::Ident, start, line, column);
    }

    /// A pp-number: digits, letters, `.`, `'` digit separators and signed exponents.
    fn number(&mut self) {
        let (start, line) = (self.i, self.line);
        let column = self.column_of(start);
        self.bump();
        while !self.at_end() {
            let b = self.cur();
            if is_ident_continue(b) || b == b'.' {
                let exp = matches!(b, b'e' | b'E' | b'p' | b'P');
                self.bump();
                if exp && matches!(self.cur(), b'+' | b'-') {
                    self.bump();
                }
            } else if b == b'\'' && is_ident_continue(self.peek(1)) {
                self.bump();
                self.bump();
            } else {
                break;
            }
        }
        self.emit(Kind::Number, start, line, column);
    }

    fn punct(&mut self) {
        let (start, line) = (self.i, self.line);
        let column = self.column_of(start);
        let w = match self.s.get(self.i..self.i + 4) {
            Some(raw) if !raw.contains(&b'\\') => [raw[0], raw[1], raw[2], raw[3]],
            _ => [self.peek(0), self.peek(1), self.peek(2), self.peek(3)],
        };
        if !matches!(
            w[0],
            b'<' | b'>'
                | b'-'
                | b'.'
                | b'%'
                | b':'
                | b'+'
                | b'*'
                | b'/'
                | b'&'
                | b'|'
                | b'^'
                | b'='
                | b'!'
                | b'#'
        ) {
            self.bump();
            return self.emit(Kind::Punct, start, line, column);
        }
        let len = punct_len(w);
        for _ in 0..len {
            self.bump();
        }
        self.emit(Kind::Punct, start, line, column);
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn texts(src: &str) -> Vec<String> {
        let lx = lex(src.as_bytes());
        lx.tokens
            .iter()
            .map(|t| lx.text(src, t).to_string())
            .collect()
    }

    #[test]
    fn comments_vanish_and_literals_stay_whole() {
        assert_eq!(texts("a /* x */ b // c\nd"), vec!["a", "b", "d"]);
        assert_eq!(
            texts(r#"f("a\"b", 'c')"#),
            vec!["f", "(", r#""a\"b""#, ",", "'c'", ")"]
        );
    }

    #[test]
    fn splices_join_identifiers_punctuators_and_keywords() {
        let src = "p->SetBlend\\\nFunc(a);\n#inc\\\r\nlude \"x.h\"\nq -\\\n> r";
        assert_eq!(
            texts(src),
            vec![
                "p",
                "->",
                "SetBlendFunc",
                "(",
                "a",
                ")",
                ";",
                "#",
                "include",
                "\"x.h\"",
                "q",
                "->",
                "r"
            ]
        );
        let lx = lex(src.as_bytes());
        let last = lx.tokens.last().unwrap();
        assert_eq!((last.line, last.column), (6, 3));
        assert_eq!(lx.tokens[9].kind, Kind::HeaderName);
        assert_eq!(lx.tokens[2].start, 3);
        assert!(lx.tokens[2].spliced);
    }

    #[test]
    fn continued_line_comment_swallows_the_next_line() {
        assert_eq!(texts("// x \\\nhidden\nshown"), vec!["shown"]);
        assert_eq!(texts("// x \\\r\nhidden\r\nshown"), vec!["shown"]);
    }

    #[test]
    fn prefixes_raw_strings_and_numbers() {
        let src = "u8'a' u8\"x\" L'b' R\"d(p->SetX(1); )\" )d\" U\"y\" 1'000 0x1p-3 1e+5";
        let lx = lex(src.as_bytes());
        let kinds: Vec<Kind> = lx.tokens.iter().map(|t| t.kind).collect();
        use Kind::*;
        assert_eq!(
            kinds,
            vec![Char, Str, Char, Str, Str, Number, Number, Number]
        );
        assert!(lx.diagnostics.is_empty());
        // A delimiter with a space, or longer than 16, is not a raw string.
        let lx = lex(b"R\"a b(x)a b\"");
        assert_eq!(lx.diagnostics[0].message, "malformed raw string delimiter");
        let lx = lex(b"R\"12345678901234567(x)12345678901234567\"");
        assert_eq!(lx.diagnostics[0].message, "malformed raw string delimiter");
        let lx = lex(b"R\"1234567890123456(x)1234567890123456\" y");
        assert!(lx.diagnostics.is_empty());
        // A splice inside a raw string is kept (phase 2 is reverted there).
        let src = "R\"(a\\\nb)\" z";
        let lx = lex(src.as_bytes());
        assert_eq!(lx.text(src, &lx.tokens[0]), "R\"(a\\\nb)\"");
        assert_eq!(lx.tokens[1].line, 2);
    }

    #[test]
    fn digraphs_and_directives() {
        let src = "%:include <a.h>\nx<:1:> <%%> %:%: <::y\n  %: define Q";
        let lx = lex(src.as_bytes());
        let t: Vec<(String, Kind, bool)> = lx
            .tokens
            .iter()
            .map(|t| (lx.text(src, t).to_string(), t.kind, t.directive))
            .collect();
        use Kind::*;
        let want: Vec<(&str, Kind, bool)> = vec![
            ("#", Hash, true),
            ("include", Ident, true),
            ("<a.h>", HeaderName, true),
            ("x", Ident, false),
            ("[", Punct, false),
            ("1", Number, false),
            ("]", Punct, false),
            ("{", Punct, false),
            ("}", Punct, false),
            ("##", Punct, false),
            ("<", Punct, false),
            ("::", Punct, false),
            ("y", Ident, false),
            ("#", Hash, true),
            ("define", Ident, true),
            ("Q", Ident, true),
        ];
        let got: Vec<(&str, Kind, bool)> = t.iter().map(|(a, b, c)| (a.as_str(), *b, *c)).collect();
        assert_eq!(got, want);
    }

    #[test]
    fn diagnostics_carry_positions() {
        let lx = lex(b"a = \"oops;\nb /* never\n");
        let d: Vec<(u32, u32, &str)> = lx
            .diagnostics
            .iter()
            .map(|d| (d.line, d.column, d.message))
            .collect();
        assert_eq!(
            d,
            vec![
                (1, 5, "unterminated string literal"),
                (2, 3, "unterminated /* comment")
            ]
        );
        assert!(lex(b"#error don't build\n").diagnostics.is_empty());
        assert_eq!(
            lex(b"R\"x(never").diagnostics[0].message,
            "unterminated raw string literal"
        );
        assert_eq!(
            lex(b"c = 'q\n").diagnostics[0].message,
            "unterminated character literal"
        );
    }

    #[test]
    fn hidden_at_finds_literals() {
        let src = "x(\"pGLContext->SetA(\"); // pGLContext->SetB(";
        let lx = lex(src.as_bytes());
        assert_eq!(lx.hidden_at(4), Some(Hidden::Literal));
        assert_eq!(lx.hidden_at(30), Some(Hidden::Comment));
        assert_eq!(lx.hidden_at(0), None);
    }

    fn dump(src: &str) -> Vec<(String, Kind, u32, u32, bool)> {
        let lx = lex(src.as_bytes());
        lx.tokens
            .iter()
            .map(|t| {
                (
                    lx.text(src, t).to_string(),
                    t.kind,
                    t.line,
                    t.column,
                    t.directive,
                )
            })
            .collect()
    }

    // The cases below are the ones `cargo mutants -p cpp_lex` showed no test held
    // (docs/testing.md); each says what g++ reads.

    #[test]
    fn a_digraph_pair_at_a_line_start_is_a_punctuator_not_a_directive() {
        use Kind::*;
        let got = dump("%:%: x\n%:%y\n");
        let want = [
            ("##", Punct, 1, 1, false),
            ("x", Ident, 1, 6, false),
            ("#", Hash, 2, 1, true),
            ("%", Punct, 2, 3, true),
            ("y", Ident, 2, 4, true),
        ];
        let want: Vec<_> = want
            .iter()
            .map(|&(t, k, l, c, d)| (t.to_string(), k, l, c, d))
            .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn a_number_may_start_with_a_dot() {
        let got = dump("x=.5e-3;a.b");
        let kinds: Vec<_> = got.iter().map(|t| (t.0.as_str(), t.1)).collect();
        use Kind::*;
        assert_eq!(
            kinds,
            [
                ("x", Ident),
                ("=", Punct),
                (".5e-3", Number),
                (";", Punct),
                ("a", Ident),
                (".", Punct),
                ("b", Ident)
            ]
        );
    }

    #[test]
    fn spans_and_columns_after_comments_and_raw_strings() {
        // A line comment that runs to the end of the input ends there.
        assert_eq!(lex(b"x // c").hidden, [(2, 6, Hidden::Comment)]);
        // Columns restart after a newline inside a block comment or a raw string.
        let last = |src: &str| dump(src).pop().map(|t| (t.0, t.2, t.3));
        assert_eq!(last("/* a\n b */ x"), Some(("x".into(), 2, 7)));
        assert_eq!(last("R\"(a\nbc)\" x"), Some(("x".into(), 2, 6)));
        // The one logical line [`lex_line_with`] lexes ends at the input's end, not past it.
        assert_eq!(lex_line_with(b"a  ", 0, 1, &mut Lexed::default()), (3, 1));
        assert_eq!(
            lex_line_with(b"a  \nb", 0, 1, &mut Lexed::default()),
            (4, 2)
        );
    }

    #[test]
    fn splices_inside_literal_prefixes_are_read_through() {
        // In the prefix of a raw string (phase 2 runs before it).
        let src = "u8\\\nR\"(x)\"";
        let lx = lex(src.as_bytes());
        assert_eq!(lx.tokens.len(), 1);
        assert!(lx.tokens[0].spliced);
        assert_eq!(lx.text(src, &lx.tokens[0]), "u8R\"(x)\"");
        // In an encoding prefix: `u\⏎8"x"` is one `u8` string.
        let src = "u\\\n8\"x\"";
        let lx = lex(src.as_bytes());
        assert_eq!(lx.tokens.len(), 1, "{:?}", lx.tokens);
        assert_eq!(lx.tokens[0].kind, Kind::Str);
        assert_eq!(lx.text(src, &lx.tokens[0]), "u8\"x\"");
    }

    #[test]
    fn an_unterminated_header_name_stops_at_its_line() {
        let lx = lex(b"#include <a.h\nx");
        let d: Vec<_> = lx
            .diagnostics
            .iter()
            .map(|d| (d.line, d.column, d.message))
            .collect();
        assert_eq!(d, [(1, 10, "unterminated header name")]);
        let src = "#include <a.h\nx";
        let got: Vec<_> = dump(src).into_iter().map(|t| (t.0, t.1, t.2)).collect();
        use Kind::*;
        assert_eq!(
            got,
            [
                ("#".to_string(), Hash, 1),
                ("include".to_string(), Ident, 1),
                ("<a.h".to_string(), HeaderName, 1),
                ("x".to_string(), Ident, 2)
            ]
        );
    }

    /// Random bytes (biased to the characters that matter) never panic, and spans stay ordered
    /// and inside the input.
    #[test]
    fn fuzz_never_panics() {
        let alphabet = b"\\\n\r\"'/*#%:<>R8uLx0(). \t\xc3\xa9e+-";
        let mut rng = crate::xorshift(0x9e37_79b9_7f4a_7c15);
        for round in 0..3000 {
            let len = (round % 97) + 1;
            let mut v = Vec::with_capacity(len);
            for _ in 0..len {
                let r = rng();
                let b = if r % 4 == 0 {
                    (r >> 8) as u8
                } else {
                    alphabet[(r >> 16) as usize % alphabet.len()]
                };
                v.push(b);
            }
            let lx = lex(&v);
            let mut last = 0;
            for t in &lx.tokens {
                assert!(t.start >= last && t.start < t.end && t.end as usize <= v.len());
                assert!(t.line >= 1 && t.column >= 1);
                last = t.end;
            }
            for t in &lx.tokens {
                assert!(spelling(&v, t).len() <= (t.end - t.start) as usize);
            }
        }
    }
}
