//! Comments (and literals) blanked in place by the lexer: the result has the input's byte length
//! and keeps every newline byte, so offsets, lines and columns are those of the original.
//! `#error`/`#warning` text is prose (an apostrophe in it is no literal) and is blanked to the
//! end of its logical line.

use crate::lexer::{lex, spelling, Hidden, Kind};

fn blank(out: &mut [u8], from: usize, to: usize) {
    let to = to.min(out.len());
    for b in out.iter_mut().take(to).skip(from.min(to)) {
        if *b != b'\n' {
            *b = b' ';
        }
    }
}

/// Comments, string/character literals and `#error` text blanked.
pub fn code(s: &[u8]) -> Vec<u8> {
    masked(s, true)
}

/// Comments only blanked (literals kept).
pub fn comments(s: &[u8]) -> Vec<u8> {
    masked(s, false)
}

fn masked(s: &[u8], literals: bool) -> Vec<u8> {
    let lx = lex(s);
    let mut out = s.to_vec();
    for &(from, to, what) in &lx.hidden {
        if literals || what == Hidden::Comment {
            blank(&mut out, from as usize, to as usize);
        }
    }
    if literals {
        let t = &lx.tokens;
        for k in 1..t.len() {
            if t[k - 1].kind == Kind::Hash
                && t[k].directive
                && matches!(&*spelling(s, &t[k]), b"error" | b"warning")
            {
                let from = t[k].end as usize;
                blank(&mut out, from, logical_line_end(s, from));
            }
        }
    }
    out
}

/// The end (index of the terminating newline, or the end of input) of the logical line
/// containing `from`, following line splices.
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

#[cfg(test)]
mod tests {
    use super::*;

    fn m(s: &str) -> String {
        String::from_utf8_lossy(&code(s.as_bytes())).into_owned()
    }

    #[test]
    fn comments_and_literals_are_blanked_keeping_newlines() {
        assert_eq!(m("a // {x}\nb"), "a       \nb");
        assert_eq!(m("a /* {\n} */ b"), "a     \n     b");
        assert_eq!(m("f(\"{\\\"}\") {"), "f(      ) {");
        assert_eq!(m("x = 1'000'000; '{'"), "x = 1'000'000;    ");
        assert_eq!(m("R\"x({)x\" {"), "         {");
        assert_eq!(m("c = u8'a'; { } x = 'q';"), "c =      ; { } x =    ;");
        assert_eq!(
            m("#error don't\nint f() { }\n"),
            "#error      \nint f() { }\n"
        );
        assert_eq!(m("a /* b"), "a     ");
        assert_eq!(m("0xFF'FF { 'a'"), "0xFF'FF {    ");
        assert_eq!(m("#include <a.h> \"b\""), "#include <a.h>    ");
        assert_eq!(
            String::from_utf8_lossy(&comments(b"a(\"X\") // X\n")),
            "a(\"X\")     \n"
        );
    }

    /// The `#error`/`#warning` text is blanked to the end of its logical line: through LF and
    /// CRLF splices, not past an unspliced newline, and the same when the keyword itself is
    /// spliced (`#err\⏎or`); `#errors` and `error` outside a directive are code.
    #[test]
    fn error_text_is_blanked_to_the_end_of_its_logical_line() {
        assert_eq!(
            m("#error a'b \\\nc'd\nint x;\n"),
            "#error      \n   \nint x;\n"
        );
        assert_eq!(m("#error a \\\r\nb\nx"), "#error     \n \nx");
        assert_eq!(m("#warning it's\ny"), "#warning     \ny");
        assert_eq!(m("#err\\\nor a'b\nz"), "#err\\\nor    \nz");
        assert_eq!(m("  #  error 'q\n"), "  #  error   \n");
        assert_eq!(m("error 'q'\n"), "error    \n");
        assert_eq!(m("#errors 'q'\n"), "#errors    \n");
        assert_eq!(m("#error"), "#error");
        assert_eq!(logical_line_end(b"ab\\\ncd\nef", 0), 6);
        assert_eq!(logical_line_end(b"ab\\\r\ncd", 0), 7);
        assert_eq!(logical_line_end(b"\nx", 0), 0);
        assert_eq!(logical_line_end(b"x\\", 0), 2);
        // Comments-only masking leaves the #error text (it is not a comment).
        assert_eq!(comments(b"#error a'b\n"), b"#error a'b\n".to_vec());
    }
}
