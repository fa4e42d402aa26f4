//! C++ comment/literal masking shared by the region extractor and the preprocessor rules.
//!
//! Both maskers return a copy of the input of the same byte length in which comments and
//! literals are replaced by spaces; newline bytes are never replaced, so byte offsets and line
//! numbers of the masked text are those of the original.
//!
//! [`mask_upstream`] reproduces the heuristics of MobileGL's G5 extractor byte for byte (spec
//! `upstream-symbols-include.md` §3.4): hashes pinned upstream were computed over extents found
//! with it. [`mask_exact`] is a real C++ lexer (encoding prefixes, raw strings, pp-numbers with
//! digit separators, `#error` lines) that agrees with the upstream masker on every input the
//! latter handles correctly and fixes the cases it does not (§3.11: `u8'a'`, apostrophes in
//! `#error`, an unterminated block comment).

/// Which masker to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MaskMode {
    /// The C++ lexer (default).
    #[default]
    Exact,
    /// Upstream's heuristic masker, for parity checks.
    Upstream,
}

pub fn mask(text: &[u8], mode: MaskMode) -> Vec<u8> {
    match mode {
        MaskMode::Exact => mask_exact(text),
        MaskMode::Upstream => mask_upstream(text),
    }
}

fn blank(out: &mut [u8], from: usize, to: usize) {
    let to = to.min(out.len());
    for b in out.iter_mut().take(to).skip(from) {
        if *b != b'\n' {
            *b = b' ';
        }
    }
}

fn find(hay: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    if from > hay.len() || needle.is_empty() {
        return None;
    }
    hay[from..]
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| p + from)
}

fn is_hex_letter(b: u8) -> bool {
    matches!(b, b'a'..=b'f' | b'A'..=b'F')
}

/// Upstream's masker (§3.4 step 1), reproduced exactly.
pub fn mask_upstream(s: &[u8]) -> Vec<u8> {
    let n = s.len();
    let mut out = s.to_vec();
    let mut i = 0;
    while i < n {
        let c = s[i];
        if s[i..].starts_with(b"//") {
            let j = find(s, i, b"\n").unwrap_or(n);
            blank(&mut out, i, j);
            i = j;
        } else if s[i..].starts_with(b"/*") {
            // Upstream blanks up to `*/` inclusive; unterminated, it stops one short of the end.
            let j = match find(s, i + 2, b"*/") {
                Some(j) => j + 2,
                None => n.saturating_sub(1).max(i + 1),
            };
            blank(&mut out, i, j);
            i = j.max(i + 1);
        } else if c == b'R' && s.get(i + 1) == Some(&b'"') {
            let open = find(s, i + 2, b"(").unwrap_or(n);
            let delim = &s[(i + 2).min(open)..open];
            let mut close = Vec::with_capacity(delim.len() + 2);
            close.push(b')');
            close.extend_from_slice(delim);
            close.push(b'"');
            let j = match find(s, open.min(n), &close) {
                Some(j) => j + close.len(),
                None => n,
            };
            blank(&mut out, i, j);
            i = j.max(i + 1);
        } else if c == b'\'' && i > 0 && is_digit_separator_upstream(s, i) {
            i += 1;
        } else if c == b'"' || c == b'\'' {
            let mut j = i + 1;
            while j < n && s[j] != c {
                if s[j] == b'\\' {
                    j += 1;
                }
                j += 1;
            }
            let end = (j + 1).min(n);
            blank(&mut out, i, end);
            i = end;
        } else {
            i += 1;
        }
    }
    out
}

fn is_digit_separator_upstream(s: &[u8], i: usize) -> bool {
    let p = s[i - 1];
    if p.is_ascii_digit() {
        return true;
    }
    if is_hex_letter(p) && i >= 2 {
        let pp = s[i - 2];
        return pp.is_ascii_digit() || is_hex_letter(pp) || pp == b'x' || pp == b'X';
    }
    false
}

fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_' || b >= 0x80
}

fn is_ident_continue(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80
}

/// The C++ lexer masker.
pub fn mask_exact(s: &[u8]) -> Vec<u8> {
    lex_mask(s, true)
}

/// The C++ lexer, blanking comments only (string and character literals kept).
pub fn mask_comments(s: &[u8]) -> Vec<u8> {
    lex_mask(s, false)
}

fn lex_mask(s: &[u8], literals: bool) -> Vec<u8> {
    let n = s.len();
    let mut out = s.to_vec();
    let mut i = 0;
    // True while only whitespace has been seen on the current logical line.
    let mut line_start = true;
    while i < n {
        let c = s[i];
        if c == b'\n' {
            line_start = true;
            i += 1;
            continue;
        }
        if c == b' ' || c == b'\t' || c == b'\r' || c == b'\x0c' || c == b'\x0b' {
            i += 1;
            continue;
        }
        if c == b'\\' && s.get(i + 1) == Some(&b'\n') {
            i += 2;
            continue;
        }
        let was_line_start = line_start;
        line_start = false;
        if s[i..].starts_with(b"//") {
            // A line comment runs to an unescaped newline.
            let mut j = i + 2;
            while j < n && s[j] != b'\n' {
                if s[j] == b'\\' && s.get(j + 1) == Some(&b'\n') {
                    j += 1;
                } else if s[j] == b'\\'
                    && s.get(j + 1) == Some(&b'\r')
                    && s.get(j + 2) == Some(&b'\n')
                {
                    j += 2;
                }
                j += 1;
            }
            blank(&mut out, i, j);
            i = j;
        } else if s[i..].starts_with(b"/*") {
            let j = find(s, i + 2, b"*/").map(|j| j + 2).unwrap_or(n);
            blank(&mut out, i, j);
            i = j;
        } else if c == b'#' && was_line_start {
            let (from, end) = directive(s, i);
            if literals {
                blank(&mut out, from, end);
            }
            i = end;
        } else if is_ident_start(c) {
            let mut j = i + 1;
            while j < n && is_ident_continue(s[j]) {
                j += 1;
            }
            let word = &s[i..j];
            let next = s.get(j).copied();
            match (word, next) {
                (b"R" | b"u8R" | b"uR" | b"UR" | b"LR", Some(b'"')) => {
                    let end = raw_string(s, j);
                    if literals {
                        blank(&mut out, i, end);
                    }
                    i = end;
                }
                (b"u8" | b"u" | b"U" | b"L", Some(b'"' | b'\'')) => {
                    let end = quoted(s, j);
                    if literals {
                        blank(&mut out, i, end);
                    }
                    i = end;
                }
                _ => i = j,
            }
        } else if c.is_ascii_digit() || (c == b'.' && s.get(i + 1).is_some_and(u8::is_ascii_digit))
        {
            i = pp_number(s, i);
        } else if c == b'"' || c == b'\'' {
            let end = quoted(s, i);
            if literals {
                blank(&mut out, i, end);
            }
            i = end;
        } else {
            i += 1;
        }
    }
    out
}

/// A pp-number: digits, letters, `_`, `.`, digit separators and signed exponents.
fn pp_number(s: &[u8], start: usize) -> usize {
    let n = s.len();
    let mut j = start + 1;
    while j < n {
        let b = s[j];
        if matches!(b, b'+' | b'-') && matches!(s[j - 1], b'e' | b'E' | b'p' | b'P') {
            j += 1;
        } else if b == b'\'' && s.get(j + 1).is_some_and(|&d| is_ident_continue(d)) {
            j += 2;
        } else if is_ident_continue(b) || b == b'.' {
            j += 1;
        } else {
            break;
        }
    }
    j
}

/// The end of a string or character literal whose quote is at `quote`: after the matching
/// quote or (ill-formed) at the end of the line.
fn quoted(s: &[u8], quote: usize) -> usize {
    let n = s.len();
    let q = s[quote];
    let mut j = quote + 1;
    while j < n && s[j] != q && s[j] != b'\n' {
        if s[j] == b'\\' {
            j += 1;
        }
        j += 1;
    }
    if j < n && s[j] == q {
        j + 1
    } else {
        j.min(n)
    }
}

/// The end of a raw string `R"delim( ... )delim"`; `quote` is the index of the opening `"`.
fn raw_string(s: &[u8], quote: usize) -> usize {
    let n = s.len();
    let open = match s[quote + 1..].iter().take(17).position(|&b| b == b'(') {
        Some(p) => quote + 1 + p,
        // Not a valid raw string delimiter: lex as an ordinary string.
        None => return quoted(s, quote),
    };
    let mut close = Vec::with_capacity(open - quote + 1);
    close.push(b')');
    close.extend_from_slice(&s[quote + 1..open]);
    close.push(b'"');
    find(s, open + 1, &close)
        .map(|j| j + close.len())
        .unwrap_or(n)
}

/// A preprocessor directive at `hash`: the span to blank and where lexing resumes.
/// `#error`/`#warning` text is free-form (an apostrophe in it is not a literal), so it is
/// blanked to the end of the logical line; other directives are lexed like code.
fn directive(s: &[u8], hash: usize) -> (usize, usize) {
    let n = s.len();
    let mut j = hash + 1;
    while j < n && (s[j] == b' ' || s[j] == b'\t') {
        j += 1;
    }
    let k = j;
    while j < n && is_ident_continue(s[j]) {
        j += 1;
    }
    if matches!(&s[k..j], b"error" | b"warning") {
        return (j, logical_line_end(s, j));
    }
    (j, j)
}

/// The end (index of the terminating newline, or the end of input) of the logical line
/// containing `from`, following backslash continuations.
pub fn logical_line_end(s: &[u8], from: usize) -> usize {
    let mut j = from;
    while j < s.len() {
        if s[j] == b'\n' {
            let cont =
                (j >= 1 && s[j - 1] == b'\\') || (j >= 2 && s[j - 1] == b'\r' && s[j - 2] == b'\\');
            if !cont {
                return j;
            }
        }
        j += 1;
    }
    s.len()
}

/// Whether `name` occurs in `text` at `at` as a whole word.
pub fn is_word_at(text: &[u8], at: usize, name: &[u8]) -> bool {
    text[at..].starts_with(name)
        && (at == 0 || !is_ident_continue(text[at - 1]))
        && text
            .get(at + name.len())
            .is_none_or(|&b| !is_ident_continue(b))
}

/// Every offset where `name` occurs as a whole word.
pub fn word_occurrences(text: &[u8], name: &[u8]) -> Vec<usize> {
    let mut hits = Vec::new();
    if name.is_empty() {
        return hits;
    }
    let mut from = 0;
    while let Some(p) = find(text, from, name) {
        if is_word_at(text, p, name) {
            hits.push(p);
        }
        from = p + 1;
    }
    hits
}

/// 1-based line number of byte offset `at`.
pub fn line_of(text: &[u8], at: usize) -> usize {
    text[..at.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

pub fn ident_continue(b: u8) -> bool {
    is_ident_continue(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(s: &str, mode: MaskMode) -> String {
        String::from_utf8_lossy(&mask(s.as_bytes(), mode)).into_owned()
    }

    #[test]
    fn comments_and_strings_are_blanked_keeping_newlines() {
        for mode in [MaskMode::Exact, MaskMode::Upstream] {
            assert_eq!(m("a // {x}\nb", mode), "a       \nb");
            assert_eq!(m("a /* {\n} */ b", mode), "a     \n     b");
            assert_eq!(m("f(\"{\\\"}\") {", mode), "f(      ) {");
            assert_eq!(m("x = 1'000'000; '{'", mode), "x = 1'000'000;    ");
            assert_eq!(m("R\"x({)x\" {", mode), "         {");
        }
    }

    #[test]
    fn upstream_mistakes_u8_char_literals_for_separators() {
        let src = "c = u8'a'; { } x = 'q';";
        // Upstream: `8'` is a separator, then `'; { } x = '` is a bogus literal.
        assert_eq!(m(src, MaskMode::Upstream), "c = u8'a            q  ");
        assert_eq!(m(src, MaskMode::Exact), "c =      ; { } x =    ;");
    }

    #[test]
    fn error_directive_apostrophe_is_not_a_literal() {
        let src = "#error don't\nint f() { }\n";
        assert_eq!(m(src, MaskMode::Exact), "#error      \nint f() { }\n");
        assert!(!m(src, MaskMode::Upstream).contains('{'));
    }

    #[test]
    fn unterminated_block_comment() {
        assert_eq!(m("a /* b", MaskMode::Exact), "a     ");
        assert_eq!(m("a /* b", MaskMode::Upstream), "a    b");
    }

    #[test]
    fn hex_separators() {
        for mode in [MaskMode::Exact, MaskMode::Upstream] {
            assert_eq!(m("0xFF'FF { 'a'", mode), "0xFF'FF {    ");
        }
    }

    #[test]
    fn comments_only_keeps_literals() {
        assert_eq!(
            String::from_utf8_lossy(&mask_comments(b"a(\"X\") // X\n")),
            "a(\"X\")     \n"
        );
    }

    #[test]
    fn words() {
        assert_eq!(word_occurrences(b"ab a_b a ba a", b"a"), vec![7, 12]);
        assert_eq!(line_of(b"a\nb\nc", 4), 3);
    }
}
