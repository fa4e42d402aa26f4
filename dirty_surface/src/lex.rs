//! The one C++ lexer of the crate: comments, every literal form (prefixes, raw strings,
//! `u8'a'`), pp-numbers with digit separators, line continuations and preprocessor lines.
//! Comments vanish; everything else becomes a [`Token`] with its byte span and line.

/// What a token is. Literals keep their kind so scanners can tell "inside a string" apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Ident,
    Number,
    Str,
    Char,
    Punct,
    /// The `#` that opens a preprocessor line.
    Hash,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Token {
    pub kind: Kind,
    pub start: u32,
    pub end: u32,
    pub line: u32,
    /// True for every token of a preprocessor line (including its `#`).
    pub directive: bool,
}

/// A lexical problem; the lexer recovers and keeps going.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LexIssue {
    pub offset: u32,
    pub line: u32,
    pub message: &'static str,
}

/// The token stream of one file plus what it had to recover from.
#[derive(Debug, Default)]
pub struct Lexed {
    pub tokens: Vec<Token>,
    pub issues: Vec<LexIssue>,
    /// Byte spans of comments and literals (for explaining why a text match is not code).
    pub hidden: Vec<(u32, u32, Hidden)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hidden {
    Comment,
    Literal,
    RawString,
}

impl Lexed {
    /// What hides the byte at `offset`, if a comment or literal does.
    pub fn hidden_at(&self, offset: u32) -> Option<Hidden> {
        let i = self.hidden.partition_point(|h| h.1 <= offset);
        self.hidden.get(i).filter(|h| h.0 <= offset).map(|h| h.2)
    }
}

const PUNCT3: [&[u8]; 5] = [b"<<=", b">>=", b"->*", b"...", b"<=>"];
const PUNCT2: [&[u8]; 21] = [
    b"::", b"->", b"++", b"--", b"+=", b"-=", b"*=", b"/=", b"%=", b"&=", b"|=", b"^=", b"==",
    b"!=", b"<=", b">=", b"&&", b"||", b"##", b"<<", b">>",
];

fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_' || b >= 0x80
}

fn is_ident_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80
}

struct Lexer<'a> {
    s: &'a [u8],
    i: usize,
    line: u32,
    /// Only whitespace seen on this logical line so far (a `#` here opens a directive).
    line_start: bool,
    in_directive: bool,
    out: Lexed,
}

/// Lex C++ source. Never fails: unterminated literals and comments are reported as issues and
/// end at the line end (literals) or the end of the file (block comments).
pub fn lex(src: &str) -> Lexed {
    let mut lx = Lexer {
        s: src.as_bytes(),
        i: 0,
        line: 1,
        line_start: true,
        in_directive: false,
        out: Lexed::default(),
    };
    lx.out.tokens.reserve(src.len() / 4);
    lx.run();
    lx.out
}

impl Lexer<'_> {
    fn peek(&self, k: usize) -> u8 {
        self.s.get(self.i + k).copied().unwrap_or(0)
    }

    /// Length of a backslash-newline continuation at `i` (0 when there is none).
    fn continuation_at(&self, i: usize) -> usize {
        if self.s.get(i) != Some(&b'\\') {
            return 0;
        }
        match (self.s.get(i + 1), self.s.get(i + 2)) {
            (Some(b'\n'), _) => 2,
            (Some(b'\r'), Some(b'\n')) => 3,
            _ => 0,
        }
    }

    fn issue(&mut self, offset: usize, line: u32, message: &'static str) {
        self.out.issues.push(LexIssue {
            offset: offset as u32,
            line,
            message,
        });
    }

    fn push(&mut self, kind: Kind, start: usize, line: u32) {
        self.out.tokens.push(Token {
            kind,
            start: start as u32,
            end: self.i as u32,
            line,
            directive: self.in_directive,
        });
        self.line_start = false;
    }

    fn run(&mut self) {
        while self.i < self.s.len() {
            let b = self.s[self.i];
            match b {
                b'\n' => {
                    self.i += 1;
                    self.line += 1;
                    self.line_start = true;
                    self.in_directive = false;
                }
                b' ' | b'\t' | b'\r' | 0x0b | 0x0c => self.i += 1,
                b'\\' if self.continuation_at(self.i) > 0 => {
                    self.i += self.continuation_at(self.i);
                    self.line += 1;
                }
                b'/' if self.peek(1) == b'/' => self.line_comment(),
                b'/' if self.peek(1) == b'*' => self.block_comment(),
                b'#' if self.line_start && !self.in_directive => {
                    let (start, line) = (self.i, self.line);
                    self.in_directive = true;
                    self.i += 1;
                    self.push(Kind::Hash, start, line);
                }
                b'"' => self.quoted(b'"', self.i),
                b'\'' => self.quoted(b'\'', self.i),
                b'0'..=b'9' => self.number(),
                b'.' if self.peek(1).is_ascii_digit() => self.number(),
                _ if is_ident_start(b) => self.ident(),
                _ => self.punct(),
            }
        }
    }

    fn line_comment(&mut self) {
        let start = self.i;
        while self.i < self.s.len() {
            let c = self.continuation_at(self.i);
            if c > 0 {
                // A continued `//` comment swallows the next line too.
                self.i += c;
                self.line += 1;
                continue;
            }
            if self.s[self.i] == b'\n' {
                break;
            }
            self.i += 1;
        }
        self.out
            .hidden
            .push((start as u32, self.i as u32, Hidden::Comment));
    }

    fn block_comment(&mut self) {
        let (start, line) = (self.i, self.line);
        self.i += 2;
        loop {
            if self.i >= self.s.len() {
                self.issue(start, line, "unterminated /* comment");
                break;
            }
            match self.s[self.i] {
                b'*' if self.peek(1) == b'/' => {
                    self.i += 2;
                    break;
                }
                b'\n' => self.line += 1,
                _ => {}
            }
            self.i += 1;
        }
        self.out
            .hidden
            .push((start as u32, self.i as u32, Hidden::Comment));
    }

    /// An ordinary string or character literal whose opening quote is at `self.i`; `start`
    /// includes any encoding prefix.
    fn quoted(&mut self, q: u8, start: usize) {
        let line = self.line;
        self.i += 1;
        loop {
            if self.i >= self.s.len() || self.s[self.i] == b'\n' {
                // `#error don't …` is prose, not C++: an apostrophe there is not a problem.
                if !self.in_directive {
                    let what = if q == b'"' {
                        "unterminated string literal"
                    } else {
                        "unterminated character literal"
                    };
                    self.issue(start, line, what);
                }
                break;
            }
            let c = self.continuation_at(self.i);
            if c > 0 {
                self.i += c;
                self.line += 1;
                continue;
            }
            match self.s[self.i] {
                b'\\' => self.i += 2,
                x if x == q => {
                    self.i += 1;
                    break;
                }
                _ => self.i += 1,
            }
        }
        self.i = self.i.min(self.s.len());
        self.out
            .hidden
            .push((start as u32, self.i as u32, Hidden::Literal));
        self.push(if q == b'"' { Kind::Str } else { Kind::Char }, start, line);
    }

    /// `R"delim( … )delim"`; `self.i` is at the `"`.
    fn raw_string(&mut self, start: usize) {
        let line = self.line;
        let open = self.i + 1;
        let mut j = open;
        while j < self.s.len()
            && j - open <= 16
            && !matches!(self.s[j], b'(' | b' ' | b')' | b'\\' | b'\n' | b'"')
        {
            j += 1;
        }
        if self.s.get(j) != Some(&b'(') {
            self.issue(start, line, "malformed raw string delimiter");
            self.quoted(b'"', start);
            return;
        }
        let mut close = Vec::with_capacity(j - open + 2);
        close.push(b')');
        close.extend_from_slice(&self.s[open..j]);
        close.push(b'"');
        self.i = j + 1;
        loop {
            if self.i >= self.s.len() {
                self.issue(start, line, "unterminated raw string literal");
                break;
            }
            if self.s[self.i..].starts_with(&close) {
                self.i += close.len();
                break;
            }
            if self.s[self.i] == b'\n' {
                self.line += 1;
            }
            self.i += 1;
        }
        self.out
            .hidden
            .push((start as u32, self.i as u32, Hidden::RawString));
        self.push(Kind::Str, start, line);
    }

    fn ident(&mut self) {
        let (start, line) = (self.i, self.line);
        while self.i < self.s.len() && is_ident_char(self.s[self.i]) {
            self.i += 1;
        }
        let word = &self.s[start..self.i];
        let next = self.peek(0);
        if next == b'"' && matches!(word, b"R" | b"LR" | b"uR" | b"UR" | b"u8R") {
            return self.raw_string(start);
        }
        if (next == b'"' || next == b'\'') && matches!(word, b"L" | b"u" | b"U" | b"u8") {
            return self.quoted(next, start);
        }
        self.push(Kind::Ident, start, line);
    }

    /// A pp-number: digits, letters, `.`, exponent signs and `'` digit separators.
    fn number(&mut self) {
        let (start, line) = (self.i, self.line);
        self.i += 1;
        while self.i < self.s.len() {
            let b = self.s[self.i];
            if is_ident_char(b) || b == b'.' {
                self.i += 1;
            } else if b == b'\'' && is_ident_char(self.peek(1)) {
                self.i += 2;
            } else if (b == b'+' || b == b'-')
                && matches!(self.s[self.i - 1], b'e' | b'E' | b'p' | b'P')
            {
                self.i += 1;
            } else {
                break;
            }
        }
        self.push(Kind::Number, start, line);
    }

    fn punct(&mut self) {
        let (start, line) = (self.i, self.line);
        let rest = &self.s[self.i..];
        let len = if PUNCT3.iter().any(|p| rest.starts_with(p)) {
            3
        } else if PUNCT2.iter().any(|p| rest.starts_with(p)) {
            2
        } else {
            // One byte, or a whole UTF-8 sequence for stray non-ASCII punctuation.
            1
        };
        self.i += len;
        self.push(Kind::Punct, start, line);
    }
}

/// Token text helper.
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
        assert!(lx.issues.is_empty());
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
        let lx = lex("#define A(x) \\\n  x\nint y; // c \\\n still comment\nz");
        let src = "#define A(x) \\\n  x\nint y; // c \\\n still comment\nz";
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
        assert_eq!(lx.issues.len(), 1);
        assert_eq!(lx.issues[0].line, 1);
        assert!(texts(src).contains(&"b"));
    }

    #[test]
    fn apostrophes_in_directives_are_prose() {
        let lx = lex("#error don't build this\nint x;\n");
        assert!(lx.issues.is_empty());
        assert_eq!(lx.tokens.last().map(|t| t.line), Some(2));
    }

    #[test]
    fn hidden_at_finds_literals() {
        let src = "x(\"pGLContext->SetA(\"); // pGLContext->SetB(";
        let lx = lex(src);
        assert_eq!(lx.hidden_at(4), Some(Hidden::Literal));
        assert_eq!(lx.hidden_at(30), Some(Hidden::Comment));
        assert_eq!(lx.hidden_at(0), None);
    }
}
