//! A directive-only pass over a file: the same directive tokens [`crate::lex_with`] produces,
//! without tokenising the lines between directives.
//!
//! Only the start of a logical line can open a directive, and only comments, literals (raw
//! strings included) and line splices decide where a logical line starts. The skimmer walks the
//! lines with `memchr`: a `//` line, a blank line or a code line costs a search for its newline
//! and for the few bytes that can open a comment or a literal (`/`, `"`, `'`). Every line that
//! opens a directive — and every line holding something the skimmer does not model exactly (a
//! line splice, a `%` or `\` first on the line) — is handed to the real lexer from its start
//! ([`crate::lexer::lex_line_with`]), so directive tokens are the lexer's by construction.
//! What the skimmer decides itself is where lines start; `tests/skim_diff.rs` checks that
//! against the full lexer on the g++ corpus, the driver tree and generated inputs.

use memchr::{memchr, memchr2, memchr3, memrchr};

use crate::lexer::{is_ident_continue, lex_line_with, Kind, Sink, Token};

/// What a directive-only scan reports, in source order.
pub trait DirectiveSink {
    /// One token of a preprocessor directive (its `#` first), exactly as [`crate::lex_with`]
    /// pushes it.
    fn directive_token(&mut self, src: &[u8], tok: &Token);
    /// At least one token outside directives lies between the previous call and the next.
    /// It may be reported more than once for the same stretch of code.
    fn code(&mut self, src: &[u8]);
}

/// Forwards the real lexer's tokens of one line to a [`DirectiveSink`].
struct Forward<'a, D: DirectiveSink>(&'a mut D);

impl<D: DirectiveSink> Sink for Forward<'_, D> {
    fn token(&mut self, src: &[u8], tok: &Token) -> bool {
        if tok.directive {
            self.0.directive_token(src, tok);
        } else {
            self.0.code(src);
        }
        true
    }
}

/// Skims `src`, reporting directive tokens and code stretches to `sink`. Returns the line
/// number at the end of the text (1 + its newlines), as the lexer counts it.
pub fn skim<D: DirectiveSink>(src: &[u8], sink: &mut D) -> u32 {
    // Offsets and lines are u32 (the lexer's bound, kept the same).
    let s = &src[..src.len().min(crate::lexer::MAX_LEXED)];
    let n = s.len();
    let mut pos = 0usize;
    let mut line = 1u32;
    let mut special = Hit::new();
    let mut marks = Marks::new();
    // Ends at the `pos >= n` below, reached on an empty text too.
    loop {
        // Lines before the one holding the next mark are plain: skipped in one step.
        let mark = marks.from(s, pos);
        let start = memrchr(b'\n', &s[pos..mark]).map_or(pos, |o| pos + o + 1);
        let plain_end = if mark >= n { n } else { start };
        if s[pos..plain_end]
            .iter()
            .any(|&b| b != b'\n' && !is_hspace(b))
        {
            sink.code(s);
        }
        line += newlines(&s[pos..plain_end]);
        pos = plain_end;
        if pos >= n {
            break;
        }
        let (next, next_line) = match line_kind(s, pos, line, &mut special, sink) {
            Some(end) => end,
            None => lex_line_with(s, pos, line, &mut Forward(sink)),
        };
        pos = next;
        line = next_line;
    }
    line
}

/// The next byte that can make a line more than plain code or blank: `/` (a comment), `"` (a
/// string), `\\` (a splice, or a line the lexer reads), `#` and `%` (a directive). A line without
/// any of them needs nothing but its newline: a `'` on it opens at most a character literal that
/// ends on the line (nothing on it to hide), and its end is no splice. Two cached searches, so
/// one search answers for every plain line up to its hit.
struct Marks {
    /// `/`, `"`, `\\`.
    a: Hit,
    /// `#`, `%`.
    b: Hit,
}

impl Marks {
    fn new() -> Marks {
        Marks {
            a: Hit::new(),
            b: Hit::new(),
        }
    }

    /// The first mark at or after `p` (`s.len()` when there is none).
    fn from(&mut self, s: &[u8], p: usize) -> usize {
        let a = self.a.from(s, p, |h| memchr3(b'/', b'"', b'\\', h));
        let b = self.b.from(s, p, |h| memchr2(b'#', b'%', h));
        a.min(b)
    }
}

/// The lexer's horizontal whitespace (space, tab, CR, VT, FF).
fn is_hspace(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | 0x0b | 0x0c)
}

/// Whether there is a newline at `nl` and the physical line it ends ends in a line splice.
fn spliced_at(s: &[u8], nl: usize) -> bool {
    s.get(nl) == Some(&b'\n')
        && ((nl >= 1 && s[nl - 1] == b'\\')
            || (nl >= 2 && s[nl - 1] == b'\r' && s[nl - 2] == b'\\'))
}

/// The first hit of one search, found once for many lines: no hit lies between the position it
/// was searched from and `at`, so it answers for any later position up to `at` without searching
/// again.
struct Hit {
    /// Searched from here…
    from: usize,
    /// …to the first hit.
    at: usize,
}

impl Hit {
    /// Not searched yet.
    fn new() -> Hit {
        Hit { from: 1, at: 0 }
    }

    /// The first hit of `search` at or after `p` (`s.len()` when there is none).
    fn from(&mut self, s: &[u8], p: usize, search: impl Fn(&[u8]) -> Option<usize>) -> usize {
        if p < self.from || p > self.at {
            self.from = p;
            self.at = search(&s[p..]).map_or(s.len(), |o| p + o);
        }
        self.at
    }

    /// The first `/`, `"` or `'` at or after `p`: what can open a comment or a literal.
    fn special(&mut self, s: &[u8], p: usize) -> usize {
        self.from(s, p, |h| memchr3(b'"', b'\'', b'/', h))
    }
}

fn newlines(s: &[u8]) -> u32 {
    memchr::memchr_iter(b'\n', s).count() as u32
}

/// Skims the logical line starting at `ls` (on line `line`). Returns where the next line starts
/// and its number, or `None` when the real lexer must read this line (a directive, or something
/// the skimmer leaves to it). Whatever it reported before returning `None` was code only, which
/// the lexer reports again.
fn line_kind<D: DirectiveSink>(
    s: &[u8],
    ls: usize,
    line: u32,
    special: &mut Hit,
    sink: &mut D,
) -> Option<(usize, u32)> {
    let n = s.len();
    let mut p = ls;
    let mut line = line;
    // Start of the line: whitespace and block comments keep it a line start.
    loop {
        while p < n && is_hspace(s[p]) {
            p += 1;
        }
        if p >= n {
            return Some((n, line));
        }
        match s[p] {
            b'\n' => return Some((p + 1, line + 1)),
            b'#' | b'%' | b'\\' => return None,
            b'/' => match s.get(p + 1) {
                Some(b'/') => return line_comment(s, p, line),
                Some(b'*') => {
                    let end = block_comment_end(s, p);
                    line += newlines(&s[p..end]);
                    p = end;
                }
                Some(b'\\') => return None,
                _ => break,
            },
            _ => break,
        }
    }
    // A token starts at `p`: the rest of the logical line is code.
    sink.code(s);
    code_line(s, p, line, special)
}

/// A `//` comment at `p` runs to the first newline that is not part of a splice. A line right
/// after it that is indentation and `//` again is skipped in the same loop: [`line_kind`] would
/// read it as just that, and most lines of a documented header are such runs (`///` blocks),
/// which would otherwise cost two more searches each from the top of [`skim`].
fn line_comment(s: &[u8], p: usize, mut line: u32) -> Option<(usize, u32)> {
    let n = s.len();
    let mut k = p + 2;
    loop {
        match memchr(b'\n', &s[k..]) {
            None => return Some((n, line)),
            Some(off) => {
                let nl = k + off;
                line += 1;
                if !spliced_at(s, nl) {
                    let mut q = nl + 1;
                    while q < n && is_hspace(s[q]) {
                        q += 1;
                    }
                    if s.get(q) != Some(&b'/') || s.get(q + 1) != Some(&b'/') {
                        return Some((nl + 1, line));
                    }
                    k = q + 2;
                    continue;
                }
                k = nl + 1;
            }
        }
    }
}

/// End (exclusive) of the block comment opening at `p` (`/*`), or the end of the text. Its
/// closer may be split by splices (`*\⏎/`), as the lexer reads it.
fn block_comment_end(s: &[u8], p: usize) -> usize {
    let n = s.len();
    // The `*` of the closer sits at p + 2 or later, so its `/` at p + 3 or later.
    let mut k = p + 3;
    while let Some(off) = s.get(k..).and_then(|h| memchr(b'/', h)) {
        let slash = k + off;
        let mut q = slash;
        // Walk back over splices between `*` and `/`.
        loop {
            if q >= 2 && s[q - 1] == b'\n' && s[q - 2] == b'\\' {
                q -= 2;
            } else if q >= 3 && s[q - 1] == b'\n' && s[q - 2] == b'\r' && s[q - 3] == b'\\' {
                q -= 3;
            } else {
                break;
            }
        }
        if q >= p + 3 && s[q - 1] == b'*' {
            return slash + 1;
        }
        k = slash + 1;
    }
    n
}

/// The rest of a logical line from `p`, outside directives, where a token starts. `None` hands
/// the whole line to the lexer (a splice on it).
fn code_line(s: &[u8], mut p: usize, mut line: u32, special: &mut Hit) -> Option<(usize, u32)> {
    let n = s.len();
    // Literals and comments end before `floor`; a token starts at it.
    let mut floor = p;
    // The line's newline, searched again only when a comment or a raw string ran past it: a
    // literal ends on its line, so the first newline at or after `p` stays the same.
    let newline_from = |p: usize| memchr(b'\n', &s[p..]).map_or(n, |o| p + o);
    let mut nl = newline_from(p);
    loop {
        if p > nl {
            nl = newline_from(p);
        }
        if spliced_at(s, nl) {
            return None;
        }
        let q = special.special(s, p);
        if q >= nl {
            return Some(next_line(nl, n, line));
        }
        match s[q] {
            b'/' => match s.get(q + 1) {
                // `q < nl` and the byte after it is no newline: both stay on the line.
                Some(b'/') => return Some(next_line(nl, n, line)),
                Some(b'*') => {
                    let end = block_comment_end(s, q);
                    line += newlines(&s[q..end]);
                    p = end;
                    floor = end;
                }
                _ => p = q + 1,
            },
            quote => match before_quote(s, floor, q) {
                // The number runs on past the quote: resume after it, so a long run of
                // separators is re-tokenised once, not once per `'`.
                Before::Separator(end) => {
                    p = end;
                    floor = end;
                }
                Before::Raw if quote == b'"' => match raw_string_end(s, q) {
                    Some(end) => {
                        line += newlines(&s[q..end]);
                        p = end;
                        floor = end;
                    }
                    None => match quoted_end(s, q, nl) {
                        Some(end) => {
                            p = end;
                            floor = end;
                        }
                        None => return Some(next_line(nl, n, line)),
                    },
                },
                _ => match quoted_end(s, q, nl) {
                    Some(end) => {
                        p = end;
                        floor = end;
                    }
                    // Unterminated: the literal stops at the newline, which ends the line.
                    None => return Some(next_line(nl, n, line)),
                },
            },
        }
    }
}

fn next_line(nl: usize, n: usize, line: u32) -> (usize, u32) {
    if nl < n {
        (nl + 1, line + 1)
    } else {
        (n, line)
    }
}

/// End (exclusive) of the ordinary literal whose quote is at `q`, on the physical line ending at
/// `nl` (no splice on it); `None` when the newline comes first.
fn quoted_end(s: &[u8], q: usize, nl: usize) -> Option<usize> {
    let quote = s[q];
    let mut k = q + 1;
    while k < nl {
        let off = memchr2(quote, b'\\', &s[k..nl])?;
        let at = k + off;
        if s[at] == quote {
            return Some(at + 1);
        }
        // An escape takes the next byte (never the newline: that would be a splice).
        k = at + 2;
    }
    None
}

/// `R"delim( … )delim"` at `q` (the `"`): its end, or the text's end when unterminated; `None`
/// when the delimiter is malformed (then it is an ordinary string, as the lexer reads it).
fn raw_string_end(s: &[u8], q: usize) -> Option<usize> {
    let open = q + 1;
    // The delimiter is at most 16 bytes: the byte that ends it is among the first 17.
    let len = s[open..].iter().take(17).position(|&b| {
        matches!(
            b,
            b'(' | b' ' | b')' | b'\\' | b'\t' | 0x0b | 0x0c | b'\r' | b'\n' | b'"'
        )
    })?;
    let j = open + len;
    if s[j] != b'(' {
        return None;
    }
    let delim = &s[open..j];
    // From the `(`: it is no `)`, so the first closer found is the body's.
    let mut k = j;
    while let Some(off) = memchr(b')', &s[k..]) {
        let at = k + off;
        if s[at + 1..].starts_with(delim) && s.get(at + 1 + delim.len()) == Some(&b'"') {
            return Some(at + delim.len() + 2);
        }
        k = at + 1;
    }
    Some(s.len())
}

/// What the bytes just before a quote make of it.
#[derive(PartialEq, Eq)]
enum Before {
    /// A `'` inside a pp-number (`1'000`) that ends at the given offset.
    Separator(usize),
    /// An identifier `R`, `LR`, `uR`, `UR` or `u8R` ends at the quote.
    Raw,
    /// Anything else: the quote opens an ordinary literal.
    Plain,
}

/// Re-tokenises the identifier/number run that ends at the quote `q` the way the lexer does, from
/// the last point known to start a token: `floor`, or the byte after one that no identifier,
/// number or run-internal punctuator (`.`, `+`, `-`) contains.
fn before_quote(s: &[u8], floor: usize, q: usize) -> Before {
    let in_run = |b: u8| is_ident_continue(b) || matches!(b, b'.' | b'\'' | b'+' | b'-');
    let mut k = q;
    while k > floor && in_run(s[k - 1]) {
        k -= 1;
    }
    let mut last = (Kind::Punct, q, q);
    while k < q {
        let b = s[k];
        let start = k;
        if b.is_ascii_alphabetic() || b == b'_' || b >= 0x80 {
            while s.get(k).is_some_and(|&c| is_ident_continue(c)) {
                k += 1;
            }
            last = (Kind::Ident, start, k);
        } else if b.is_ascii_digit() {
            // A `.` before the digit (`.5'0`) is read as a punctuator: the number then starts at
            // the digit and ends where the lexer's `.5'0` does, which is all that is asked here.
            k = number_end(s, k);
            last = (Kind::Number, start, k);
        } else {
            k += 1;
            last = (Kind::Punct, start, k);
        }
    }
    if k > q {
        // Only a pp-number can run through a quote: through a `'` separator.
        return Before::Separator(k);
    }
    match last {
        (Kind::Ident, a, b)
            if b == q && matches!(&s[a..b], b"R" | b"LR" | b"uR" | b"UR" | b"u8R") =>
        {
            Before::Raw
        }
        _ => Before::Plain,
    }
}

/// End of the pp-number starting at the digit at `k`, as the lexer reads it
/// (no splices: the skimmer hands spliced lines to the lexer).
fn number_end(s: &[u8], mut k: usize) -> usize {
    let n = s.len();
    // The first digit is read by the loop like the rest.
    while k < n {
        let b = s[k];
        if is_ident_continue(b) || b == b'.' {
            let exp = matches!(b, b'e' | b'E' | b'p' | b'P');
            k += 1;
            if exp && k < n && matches!(s[k], b'+' | b'-') {
                k += 1;
            }
        } else if b == b'\'' && s.get(k + 1).is_some_and(|&c| is_ident_continue(c)) {
            k += 2;
        } else {
            break;
        }
    }
    k
}

/// The skimmer's own decisions, one function at a time: where a line ends, which lines it reads
/// itself and which it hands to the lexer. `tests/skim_diff.rs` checks that the results equal
/// the lexer's; these check that the fast paths are taken (a path that only fell back to the
/// lexer would give the same result, slower).
#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Default)]
    struct Count {
        code: usize,
    }

    impl DirectiveSink for Count {
        fn directive_token(&mut self, _: &[u8], _: &Token) {}
        fn code(&mut self, _: &[u8]) {
            self.code += 1;
        }
    }

    #[test]
    fn block_comments_end_after_their_closer_splices_included() {
        for (src, end) in [
            (&b"/* a */ x"[..], 7),
            (b"/*/ x */", 8),
            (b"/**/", 4),
            (b"/* a *\\\n/ x", 9),
            (b"/* a *\\\r\n/ x", 10),
            (b"/* a \\\n/ x */", 13),
            (b"/*\\\n/", 5),
            (b"/* a", 4),
        ] {
            assert_eq!(
                block_comment_end(src, 0),
                end,
                "{:?}",
                String::from_utf8_lossy(src)
            );
        }
    }

    #[test]
    fn line_comments_run_to_an_unspliced_newline_and_join_comment_runs() {
        assert_eq!(line_comment(b"// a\n// b\n x", 0, 1), Some((10, 3)));
        assert_eq!(line_comment(b"// a\n  // b\nx", 0, 1), Some((12, 3)));
        assert_eq!(line_comment(b"// a\\\nb\nc", 0, 1), Some((8, 3)));
        assert_eq!(line_comment(b"// a\n/ b", 0, 1), Some((5, 2)));
        assert_eq!(line_comment(b"// a", 0, 1), Some((4, 1)));
    }

    #[test]
    fn lines_the_skimmer_reads_itself_and_those_it_hands_on() {
        let kind = |src: &[u8]| {
            let mut sink = Count::default();
            let r = line_kind(src, 0, 1, &mut Hit::new(), &mut sink);
            (r, sink.code)
        };
        assert_eq!(kind(b"  // c\nx"), (Some((7, 2)), 0));
        assert_eq!(kind(b"/* a\n b */ x\ny"), (Some((13, 3)), 1));
        assert_eq!(kind(b"\n"), (Some((1, 2)), 0));
        assert_eq!(kind(b"   "), (Some((3, 1)), 0));
        assert_eq!(kind(b"a = b / c; // d\ne"), (Some((16, 2)), 1));
        assert_eq!(kind(b"s = \"/*\"; t\nu"), (Some((12, 2)), 1));
        for handed_on in [&b"#define X"[..], b"%:x", b"\\\nx", b"/\\\n/ c", b"a \\\nb"] {
            assert_eq!(
                kind(handed_on).0,
                None,
                "{:?}",
                String::from_utf8_lossy(handed_on)
            );
        }
    }

    #[test]
    fn a_hit_is_searched_once_for_every_position_up_to_it() {
        let searches = std::cell::Cell::new(0);
        let find = |h: &[u8]| {
            searches.set(searches.get() + 1);
            memchr(b'/', h)
        };
        let s = b"abc/def/";
        let mut h = Hit::new();
        assert_eq!(h.from(s, 0, find), 3);
        assert_eq!(h.from(s, 0, find), 3);
        assert_eq!(h.from(s, 2, find), 3);
        assert_eq!(h.from(s, 3, find), 3);
        assert_eq!(searches.get(), 1);
        assert_eq!(h.from(s, 4, find), 7);
        assert_eq!(searches.get(), 2);
    }

    #[test]
    fn raw_strings_end_at_their_own_closer() {
        for (src, end) in [
            (&b"\"(a)\" x"[..], Some(5)),
            (b"\"ab(x)ab\" y", Some(9)),
            (b"\"ab(x)a\" )ab\"", Some(13)),
            (b"\"(abc", Some(5)),
            (b"\"a b(x)a b\"", None),
            (b"\"0123456789abcdef(x)0123456789abcdef\"", Some(37)),
            (b"\"0123456789abcdefg(x)0123456789abcdefg\"", None),
        ] {
            assert_eq!(
                raw_string_end(src, 0),
                end,
                "{:?}",
                String::from_utf8_lossy(src)
            );
        }
    }

    #[test]
    fn code_lines_end_at_their_newline_past_comments_and_literals() {
        let line = |src: &[u8]| code_line(src, 0, 1, &mut Hit::new());
        assert_eq!(line(b"a // b\nc"), Some((7, 2)));
        assert_eq!(line(b"a /* b\n */ c\nd"), Some((13, 3)));
        assert_eq!(line(b"a / b\nc"), Some((6, 2)));
        assert_eq!(line(b"s = R\"(x\ny)\"; t\nu"), Some((16, 3)));
        // `R'` opens a character literal, never a raw string.
        assert_eq!(line(b"c = R'(';\nx = \")\";\ny"), Some((10, 2)));
        assert_eq!(line(b"n = 1'000; m\nk"), Some((13, 2)));
        assert_eq!(line(b"a \\\nb"), None);
    }

    #[test]
    fn what_stands_before_a_quote() {
        let before = |src: &[u8]| {
            let q = src
                .iter()
                .rposition(|&b| b == b'\'' || b == b'"')
                .unwrap_or(0);
            match before_quote(src, 0, q) {
                Before::Separator(end) => format!("separator to {end}"),
                Before::Raw => "raw".into(),
                Before::Plain => "plain".into(),
            }
        };
        assert_eq!(before(b"x = 1'000"), "separator to 9");
        assert_eq!(before(b"a.5'0"), "separator to 5");
        assert_eq!(before(b"0x1p+3'f"), "separator to 8");
        assert_eq!(before(b"R\""), "raw");
        assert_eq!(before(b"f(u8R\""), "raw");
        assert_eq!(before(b"xR\""), "plain");
        assert_eq!(before(b"a + '"), "plain");
        assert_eq!(before(b"1.e5 '"), "plain");
    }
}
