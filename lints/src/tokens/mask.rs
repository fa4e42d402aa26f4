//! What a token rule sees: the raw text, or the text with comments (and literals) blanked by the
//! workspace's one C++ lexer (`cpp_lex`, via `crate::cpp`). Masking keeps byte offsets and newlines, so lines and
//! columns of the masked text are those of the original.

use std::borrow::Cow;

use crate::cpp;

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

pub fn mask(text: &str, mode: Mask) -> Cow<'_, str> {
    let masked = match mode {
        Mask::None => return Cow::Borrowed(text),
        Mask::Comments => cpp::mask_comments(text.as_bytes()),
        Mask::Code => cpp::mask_exact(text.as_bytes()),
    };
    // Masked spans are blanked byte by byte, multi-byte characters included, so the result is
    // UTF-8 whenever the input was; the lossy path only guards the invariant.
    match String::from_utf8(masked) {
        Ok(s) => Cow::Owned(s),
        Err(e) => Cow::Owned(String::from_utf8_lossy(e.as_bytes()).into_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_positions_and_blanks_comments_and_literals() {
        let t = "a /* b\nc */ d // e\n\"f\\\"g\" 'h' x";
        let m = mask(t, Mask::Code);
        assert_eq!(m.len(), t.len());
        assert_eq!(m.lines().count(), t.lines().count());
        assert!(!m.contains('b') && !m.contains('e') && !m.contains('g') && !m.contains('h'));
        assert!(m.contains('a') && m.contains('d') && m.contains('x'));
    }

    #[test]
    fn raw_strings_digit_separators_and_prefixes() {
        let t = "x = R\"d(printf(\"y\"))d\"; int n = 1'000; puts(s); char c = u8'a'; /* é */";
        let m = mask(t, Mask::Code);
        assert!(!m.contains("printf") && m.contains("puts(s)"), "{m}");
        assert_eq!(m.len(), t.len());
    }

    #[test]
    fn comments_mode_keeps_strings() {
        let m = mask("\"printf\" // printf", Mask::Comments);
        assert_eq!(m.matches("printf").count(), 1);
        assert_eq!(
            mask("printf // printf", Mask::None)
                .matches("printf")
                .count(),
            2
        );
    }
}
