//! C++ comment/literal masking shared by the region extractor and the preprocessor rules.
//!
//! Both maskers return a copy of the input of the same byte length in which comments and
//! literals are replaced by spaces; newline bytes are never replaced, so byte offsets and line
//! numbers of the masked text are those of the original.
//!
//! [`mask_exact`] is `cpp_lex`, the workspace's one C++ lexer. [`mask_upstream`] is not a lexer
//! but the named upstream-compatible mode of the region analysis: it reproduces the heuristics of
//! MobileGL's G5 extractor byte for byte (spec `upstream-symbols-include.md` §3.4), because hashes
//! pinned upstream were computed over extents found with it. The exact mode agrees with it on
//! every input it handles correctly and fixes the cases it does not (§3.11: `u8'a'`, apostrophes
//! in `#error`, an unterminated block comment).

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
    // memchr's substring search: a window compare at every offset was most of a preproc scan.
    memchr::memmem::find(&hay[from..], needle).map(|p| p + from)
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

fn is_ident_continue(b: u8) -> bool {
    cpp_lex::is_ident_continue(b)
}

/// Comments and literals blanked by the workspace's one C++ lexer (`cpp_lex`).
pub fn mask_exact(s: &[u8]) -> Vec<u8> {
    cpp_lex::mask::code(s)
}

/// Comments blanked (string and character literals kept), by the same lexer.
pub fn mask_comments(s: &[u8]) -> Vec<u8> {
    cpp_lex::mask::comments(s)
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
