//! Blanks C/C++ comments and literals so token rules see only code.
//!
//! Every masked byte becomes a space except newlines, so offsets, lines and columns of the masked
//! text are those of the original. Handles `//` and `/* */` comments, string and character
//! literals with escapes and encoding prefixes, raw strings `R"d(...)d"`, digit separators
//! (`1'000` is not a character literal) and line continuations inside `//` comments.

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mask {
    /// Match the raw text (like `grep`).
    None,
    /// Blank comments only.
    Comments,
    /// Blank comments and string/character literals.
    #[default]
    Code,
}

pub fn mask(text: &str, mode: Mask) -> String {
    if mode == Mask::None {
        return text.to_string();
    }
    let strings = mode == Mask::Code;
    let b = text.as_bytes();
    let mut out = b.to_vec();
    let blank = |out: &mut Vec<u8>, from: usize, to: usize| {
        for c in out.iter_mut().take(to).skip(from) {
            if *c != b'\n' {
                *c = b' ';
            }
        }
    };
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                let mut j = i + 2;
                while j < b.len() && !(b[j] == b'\n' && b[j - 1] != b'\\') {
                    j += 1;
                }
                blank(&mut out, i, j);
                i = j;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let end = text
                    .get(i + 2..)
                    .and_then(|t| t.find("*/"))
                    .map_or(b.len(), |p| i + 2 + p + 2);
                blank(&mut out, i, end);
                i = end;
            }
            b'"' => {
                let raw = raw_delimiter(b, i);
                let end = match raw {
                    Some(delim) => {
                        let close = format!("){delim}\"");
                        let open_len = delim.len() + 2; // `"` delim `(`
                        text.get(i + open_len..)
                            .and_then(|t| t.find(&close))
                            .map_or(b.len(), |p| i + open_len + p + close.len())
                    }
                    None => quoted_end(b, i, b'"'),
                };
                if strings {
                    blank(&mut out, i + 1, end.saturating_sub(1).max(i + 1));
                }
                i = end;
            }
            b'\'' if !is_digit_separator(b, i) => {
                let end = quoted_end(b, i, b'\'');
                if strings {
                    blank(&mut out, i + 1, end.saturating_sub(1).max(i + 1));
                }
                i = end;
            }
            _ => i += 1,
        }
    }
    // Only ASCII bytes were replaced, by ASCII spaces, so the text stays valid UTF-8 unless a
    // multi-byte character sat inside a masked span; those are blanked wholesale above.
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// `R"delim(` opening at `quote` (the `"`), with an optional `u8`/`u`/`U`/`L` before the `R`.
fn raw_delimiter(b: &[u8], quote: usize) -> Option<String> {
    if quote == 0 || b[quote - 1] != b'R' {
        return None;
    }
    // The R must start the literal token: preceded by nothing, a prefix, or a non-identifier byte.
    let before_r = quote - 1;
    let prefix_ok = before_r == 0 || {
        let p = &b[..before_r];
        let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
        let stripped = [&b"u8"[..], b"u", b"U", b"L"]
            .iter()
            .find(|pre| p.ends_with(pre))
            .map_or(p.len(), |pre| p.len() - pre.len());
        stripped == 0 || !ident(p[stripped - 1])
    };
    if !prefix_ok {
        return None;
    }
    let mut j = quote + 1;
    while j < b.len() && j - quote <= 17 && b[j] != b'(' {
        if matches!(b[j], b' ' | b')' | b'\\' | b'\n' | b'"') {
            return None;
        }
        j += 1;
    }
    (j < b.len() && b[j] == b'(').then(|| String::from_utf8_lossy(&b[quote + 1..j]).into_owned())
}

/// End (exclusive) of a quoted literal starting at `start`; stops at an unescaped newline.
fn quoted_end(b: &[u8], start: usize, quote: u8) -> usize {
    let mut j = start + 1;
    while j < b.len() {
        match b[j] {
            b'\\' => j += 2,
            b'\n' => return j,
            c if c == quote => return j + 1,
            _ => j += 1,
        }
    }
    b.len()
}

/// `'` inside a number (`1'000`, `0x1'F`): the token before it starts with a digit.
fn is_digit_separator(b: &[u8], i: usize) -> bool {
    let mut s = i;
    while s > 0
        && (b[s - 1].is_ascii_alphanumeric()
            || b[s - 1] == b'_'
            || b[s - 1] == b'\''
            || b[s - 1] == b'.')
    {
        s -= 1;
    }
    s < i && b[s].is_ascii_digit() && b.get(i + 1).is_some_and(|c| c.is_ascii_alphanumeric())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_positions() {
        let t = "a /* b\nc */ d // e\n\"f\\\"g\" 'h' x";
        let m = mask(t, Mask::Code);
        assert_eq!(m.len(), t.len());
        assert_eq!(m.lines().count(), t.lines().count());
        assert!(!m.contains('b') && !m.contains('e') && !m.contains('g') && !m.contains('h'));
        assert!(m.contains('a') && m.contains('d') && m.contains('x'));
    }

    #[test]
    fn raw_strings_and_prefixes() {
        let t = "x = R\"d(printf(\"y\"))d\"; u8R\"(puts)\"; z";
        let m = mask(t, Mask::Code);
        assert!(!m.contains("printf") && !m.contains("puts"), "{m}");
        assert!(m.ends_with("; z"));
    }

    #[test]
    fn digit_separators_are_not_chars() {
        let t = "int n = 1'000'000; printf(x); char c = u8'a';";
        let m = mask(t, Mask::Code);
        assert!(m.contains("printf"), "{m}");
        assert!(!m.contains("'a'"));
    }

    #[test]
    fn comments_mode_keeps_strings() {
        let m = mask("\"printf\" // printf", Mask::Comments);
        assert_eq!(m.matches("printf").count(), 1);
    }
}
