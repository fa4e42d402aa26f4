//! The scanners read C++ through `cpp_lex`, the workspace's one lexer (splices, comments,
//! every literal form, pp-numbers, digraphs, directives). Comments vanish; everything else is a
//! [`Token`] with its byte span, line and column in the original text.

pub use cpp_lex::{Hidden, Kind, Lexed, Token};

/// Lex C++ source. Never fails: what cannot be lexed is in [`Lexed::diagnostics`].
pub fn lex(src: &str) -> Lexed {
    cpp_lex::lex(src.as_bytes())
}

/// One file lexed and scoped once per run: every pass that reads the file (the scan, the write
/// analysis, the render derivation, the shutters) shares it instead of lexing again.
#[derive(Debug)]
pub struct Parsed {
    pub lx: Lexed,
    pub funcs: Vec<crate::scope::Function>,
    pub scope_issues: Vec<crate::scope::ScopeIssue>,
}

/// Lex `src` and find its function bodies.
pub fn parse(src: &str) -> Parsed {
    let lx = lex(src);
    let (funcs, scope_issues) = crate::scope::functions(src, &lx);
    Parsed {
        lx,
        funcs,
        scope_issues,
    }
}

/// A token's source slice. A token with a line splice inside spans it; [`Lexed::text`] gives
/// its spelling (what scans that match names use).
pub fn text<'a>(src: &'a str, t: &Token) -> &'a str {
    src.get(t.start as usize..t.end as usize).unwrap_or("")
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn texts(src: &str) -> Vec<&str> {
        lex(src).tokens.iter().map(|t| text(src, t)).collect()
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
    fn prefixes_and_raw_strings() {
        let src = "u8'a' u8\"x\" L'b' R\"d(pGLContext->SetX(1); )\" )d\" U\"y\"";
        let lx = lex(src);
        let kinds: Vec<Kind> = lx.tokens.iter().map(|t| t.kind).collect();
        assert_eq!(
            kinds,
            vec![Kind::Char, Kind::Str, Kind::Char, Kind::Str, Kind::Str]
        );
        assert!(lx.diagnostics.is_empty());
    }

    #[test]
    fn digit_separators_are_one_number() {
        assert_eq!(
            texts("x = 1'000 + 2'0; y"),
            vec!["x", "=", "1'000", "+", "2'0", ";", "y"]
        );
        assert_eq!(texts("0x1p-3 1e+5"), vec!["0x1p-3", "1e+5"]);
    }

    #[test]
    fn continuations_and_directives() {
        let src = "#define A(x) \\\n  x\nint y; // c \\\n still comment\nz";
        let lx = lex(src);
        let d: Vec<(&str, bool)> = lx
            .tokens
            .iter()
            .map(|t| (text(src, t), t.directive))
            .collect();
        assert_eq!(
            d,
            vec![
                ("#", true),
                ("define", true),
                ("A", true),
                ("(", true),
                ("x", true),
                (")", true),
                ("x", true),
                ("int", false),
                ("y", false),
                (";", false),
                ("z", false)
            ]
        );
        assert_eq!(lx.tokens.last().unwrap().line, 5);
    }

    #[test]
    fn unterminated_literal_is_reported_and_recovers() {
        let src = "a = \"oops;\nb = 1;";
        let lx = lex(src);
        assert_eq!(lx.diagnostics.len(), 1);
        assert_eq!(lx.diagnostics[0].line, 1);
        assert!(texts(src).contains(&"b"));
    }

    #[test]
    fn apostrophes_in_directives_are_prose() {
        let lx = lex("#error don't build this\nint x;\n");
        assert!(lx.diagnostics.is_empty());
        assert_eq!(lx.tokens.last().map(|t| t.line), Some(2));
    }

    #[test]
    fn spliced_names_are_spelled_joined() {
        let src = "pGLContext->SetBlend\\\nFunc(a, a);";
        let lx = lex(src);
        assert_eq!(lx.text(src, &lx.tokens[2]), "SetBlendFunc");
    }
}
