//! The `layout` gate (G10, the `ResidualValueBlock` tripwire): every data member of a configured
//! struct has a `static_assert(offsetof(S, m) …)`, and each configured size macro is a ratchet (at
//! most its `max`, never above its value at a base git ref).
//!
//! This module is the parse half: bytes in, a typed model out, over the one C++ lexer
//! ([`cpp_lex::lex`]: comments, literals and directives are never mistaken for code) and its
//! `#define` parser ([`cpp_lex::macros::parse_define`]). [`check`] is the one entry point.
//!
//! Limits (stated, not hidden): preprocessor conditionals are not evaluated, so a struct, an
//! assertion or a `#define` inside `#if 0` counts like live code; members inherited from a base
//! class are not members of the struct; a macro's value must be an integer literal (parentheses
//! and suffixes allowed), not an expression.

pub mod cfg;
pub mod check;
pub mod controls;
pub mod live;

pub use check::{check, check_source, Code};

use cpp_lex::{Kind, Token};

/// One code token of a file (directive tokens are left out): its spelling and where it starts.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Tk {
    kind: Kind,
    text: String,
    line: u32,
    column: u32,
    /// Byte offset in the file.
    start: u32,
}

impl Tk {
    fn is(&self, s: &str) -> bool {
        self.text == s && matches!(self.kind, Kind::Punct | Kind::Ident)
    }
    fn ident(&self) -> bool {
        self.kind == Kind::Ident
    }
}

/// A data member of a struct, at its name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    pub name: String,
    pub line: u32,
    pub column: u32,
}

/// One definition (`struct NAME … { … }`) of a struct.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StructDef {
    pub name: String,
    /// The line of its `struct`/`class`/`union` keyword.
    pub line: u32,
    /// The byte offset just past its opening brace.
    pub body_start: usize,
    pub members: Vec<Member>,
}

/// One `offsetof(TYPE, MEMBER…)` inside a `static_assert(…)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OffsetAssert {
    /// The last identifier of the type argument (`MG_Pipe::ResidualValueBlock` → `ResidualValueBlock`).
    pub strukt: String,
    /// The first identifier of the member designator (`a.b[2]` → `a`).
    pub member: String,
    pub line: u32,
    pub column: u32,
}

/// One `#define NAME …` of a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Define {
    pub name: String,
    pub line: u32,
    /// The replacement text as written (trimmed).
    pub body: String,
    /// Its value when the body is an integer literal (parentheses and suffixes allowed).
    pub value: Option<u64>,
}

/// A lexed file: its code tokens and its `#define`s.
#[derive(Debug, Clone, Default)]
pub struct Lexed {
    toks: Vec<Tk>,
    pub defines: Vec<Define>,
}

/// Lexes one file once for every question this gate asks of it.
pub fn lex(src: &[u8]) -> Lexed {
    let lx = cpp_lex::lex(src);
    let text = String::from_utf8_lossy(src);
    let mut out = Lexed::default();
    let toks = &lx.tokens;
    let mut i = 0;
    while i < toks.len() {
        let t = &toks[i];
        if t.kind == Kind::Hash {
            let end = (i + 1..toks.len())
                .find(|&k| !toks[k].directive || toks[k].kind == Kind::Hash)
                .unwrap_or(toks.len());
            define(src, &lx, &text, &toks[i + 1..end], &mut out.defines);
            i = end;
            continue;
        }
        if !t.directive {
            out.toks.push(Tk {
                kind: t.kind,
                text: lx.text(&text, t).to_string(),
                line: t.line,
                column: t.column,
                start: t.start,
            });
        }
        i += 1;
    }
    out
}

fn define(src: &[u8], lx: &cpp_lex::Lexed, text: &str, dir: &[Token], out: &mut Vec<Define>) {
    let (Some(kw), Some(name)) = (dir.first(), dir.get(1)) else {
        return;
    };
    if kw.kind != Kind::Ident || lx.text(text, kw) != "define" || name.kind != Kind::Ident {
        return;
    }
    let rest = cpp_lex::directives::directive_text(src, &dir[1..]);
    let Some((n, m)) = cpp_lex::macros::parse_define(&rest) else {
        return;
    };
    let body = rest[n.len()..].trim().to_string();
    let value = if m.params.is_none() {
        int_value(&m.body)
    } else {
        None
    };
    out.push(Define {
        name: n,
        line: name.line,
        body,
        value,
    });
}

/// The value of a macro body that is an integer literal, possibly parenthesised, with digit
/// separators and `u`/`l`/`z` suffixes.
fn int_value(body: &[cpp_lex::macros::Tok]) -> Option<u64> {
    use cpp_lex::macros::Tok;
    let mut b = body;
    while let [Tok::Punct(o), inner @ .., Tok::Punct(c)] = b {
        if o != "(" || c != ")" {
            break;
        }
        b = inner;
    }
    let [Tok::Num(n)] = b else {
        return None;
    };
    let s: String = n.chars().filter(|c| *c != '\'').collect::<String>();
    let s = s.to_ascii_lowercase();
    let s = s.trim_end_matches(['u', 'l', 'z']);
    let (digits, radix) = if let Some(h) = s.strip_prefix("0x") {
        (h, 16)
    } else if let Some(b) = s.strip_prefix("0b") {
        (b, 2)
    } else if s.len() > 1 && s.starts_with('0') {
        (&s[1..], 8)
    } else {
        (s, 10)
    };
    u64::from_str_radix(digits, radix).ok()
}

/// Index of the token closing the bracket at `open` (`(`, `[`, `{`), or the end.
fn matching(toks: &[Tk], open: usize) -> usize {
    let (o, c) = match toks[open].text.as_str() {
        "(" => ("(", ")"),
        "[" => ("[", "]"),
        _ => ("{", "}"),
    };
    let mut depth = 0usize;
    for (k, t) in toks.iter().enumerate().skip(open) {
        if t.kind != Kind::Punct {
            continue;
        }
        if t.text == o {
            depth += 1;
        } else if t.text == c {
            depth -= 1;
            if depth == 0 {
                return k;
            }
        }
    }
    toks.len()
}

/// Skips attribute-like groups at `i` (`alignas(…)`, `__attribute__((…))`, `__declspec(…)`,
/// `[[…]]`), returning the first index past them.
fn skip_attributes(toks: &[Tk], mut i: usize) -> usize {
    loop {
        match toks.get(i) {
            Some(t)
                if (t.is("alignas") || t.is("__attribute__") || t.is("__declspec"))
                    && toks.get(i + 1).is_some_and(|n| n.is("(")) =>
            {
                i = matching(toks, i + 1) + 1;
            }
            Some(t) if t.is("[") && toks.get(i + 1).is_some_and(|n| n.is("[")) => {
                i = matching(toks, i) + 1;
            }
            _ => return i,
        }
    }
}

const CLASS_KEYS: [&str; 3] = ["struct", "class", "union"];

/// Every definition of struct (class, union) `name` in the file.
pub fn structs(lx: &Lexed, name: &str) -> Vec<StructDef> {
    let toks = &lx.toks;
    let mut out = Vec::new();
    for i in 0..toks.len() {
        let t = &toks[i];
        if !(t.ident() && CLASS_KEYS.contains(&t.text.as_str())) {
            continue;
        }
        if i > 0 && toks[i - 1].is("enum") {
            continue;
        }
        let mut j = skip_attributes(toks, i + 1);
        if !toks.get(j).is_some_and(|n| n.ident() && n.text == name) {
            continue;
        }
        j += 1;
        if toks.get(j).is_some_and(|n| n.is("final")) {
            j += 1;
        }
        if toks.get(j).is_some_and(|n| n.is(":")) {
            // the base clause: up to the body (or a `;` that makes this no definition)
            while toks.get(j).is_some_and(|n| !n.is("{") && !n.is(";")) {
                j += 1;
            }
        }
        if !toks.get(j).is_some_and(|n| n.is("{")) {
            continue;
        }
        let close = matching(toks, j);
        let mut members = Vec::new();
        body_members(&toks[j + 1..close.min(toks.len())], &mut members);
        out.push(StructDef {
            name: name.to_string(),
            line: t.line,
            body_start: toks[j].start as usize + 1,
            members,
        });
    }
    out
}

const ACCESS: [&str; 3] = ["public", "private", "protected"];
/// Declarations that declare no non-static data member.
const NOT_DATA: [&str; 7] = [
    "static",
    "using",
    "typedef",
    "friend",
    "static_assert",
    "template",
    "constexpr",
];
const TYPE_WORDS: [&str; 12] = [
    "int", "char", "short", "long", "unsigned", "signed", "bool", "float", "double", "void",
    "wchar_t", "auto",
];
const QUALIFIERS: [&str; 4] = ["const", "volatile", "mutable", "inline"];

/// The data members declared directly in a class body (anonymous struct/union members included,
/// as `offsetof` reaches them through the enclosing struct).
fn body_members(body: &[Tk], out: &mut Vec<Member>) {
    let mut decl: Vec<&Tk> = Vec::new();
    let mut i = 0;
    while i < body.len() {
        let t = &body[i];
        if t.is(";") {
            declaration(&decl, out);
            decl.clear();
            i += 1;
        } else if t.is("{") {
            let close = matching(body, i).min(body.len());
            let head = strip(&decl);
            let key = head.first().map(|h| h.text.as_str()).unwrap_or("");
            if is_function(&head) {
                decl.clear();
                i = close + 1;
                if body.get(i).is_some_and(|n| n.is(";")) {
                    i += 1;
                }
            } else if CLASS_KEYS.contains(&key) || key == "enum" {
                // a nested type: its declarators (if any) are members; an anonymous
                // struct/union's own members are members of the enclosing struct
                let mut end = (close + 1).min(body.len());
                while end < body.len() && !body[end].is(";") {
                    end += 1;
                }
                let trailing: Vec<&Tk> = body[(close + 1).min(end)..end].iter().collect();
                if !trailing.is_empty() {
                    declarators(&trailing, true, out);
                } else if key != "enum" && head.iter().skip(1).all(|h| !h.ident()) {
                    body_members(&body[i + 1..close], out);
                }
                decl.clear();
                i = end + 1;
            } else {
                // a brace initializer: the declarator ends before it (kept as `{}`)
                decl.push(t);
                if let Some(c) = body.get(close) {
                    decl.push(c);
                }
                i = close + 1;
            }
        } else if t.is(":") && decl.len() == 1 && ACCESS.contains(&decl[0].text.as_str()) {
            decl.clear();
            i += 1;
        } else {
            decl.push(t);
            i += 1;
        }
    }
    declaration(&decl, out);
}

/// A declaration without its attribute groups.
fn strip<'a>(decl: &[&'a Tk]) -> Vec<&'a Tk> {
    let owned: Vec<Tk> = decl.iter().map(|t| (*t).clone()).collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < decl.len() {
        let j = skip_attributes(&owned, i);
        if j > i {
            i = j;
            continue;
        }
        out.push(decl[i]);
        i += 1;
    }
    out
}

/// A declaration whose first parenthesis (before any `=`) is a parameter list, not a
/// parenthesised declarator (`void (*fn)(int)`) or a `decltype(…)`.
fn is_function(head: &[&Tk]) -> bool {
    for (k, t) in head.iter().enumerate() {
        if t.is("=") {
            return false;
        }
        if t.is("operator") {
            return true;
        }
        if t.is("(") {
            let prev = k.checked_sub(1).map(|p| head[p].text.as_str());
            if matches!(prev, Some("decltype" | "sizeof" | "alignof" | "noexcept")) {
                return false;
            }
            let next = head.get(k + 1).map(|n| n.text.as_str());
            let pointer = matches!(next, Some("*" | "&" | "&&" | "^"));
            let member_pointer = head.get(k + 1).is_some_and(|n| n.ident())
                && head.get(k + 2).is_some_and(|n| n.is("::"));
            return !(pointer || member_pointer);
        }
    }
    false
}

/// The members one declaration (no trailing `;`) declares.
fn declaration(decl: &[&Tk], out: &mut Vec<Member>) {
    let head = strip(decl);
    let Some(first) = head.first() else {
        return;
    };
    if NOT_DATA.contains(&first.text.as_str()) || is_function(&head) {
        return;
    }
    let mut head = head.as_slice();
    // an elaborated type (`struct Foo* p`): the key goes, the type stays; a forward declaration
    // (`struct Foo`, `enum class E : int`) is then a lone type name, which declares nothing
    if CLASS_KEYS.contains(&first.text.as_str()) || first.is("enum") {
        head = &head[1..];
        if head
            .first()
            .is_some_and(|t| t.is("class") || t.is("struct"))
        {
            head = &head[1..];
        }
    }
    declarators(head, false, out);
}

/// Splits declarators at top-level commas; each names its last identifier before `=`, `:`
/// (a bit-field width), `[` or a brace initializer. `trailing` is the declarator list after a
/// nested type's body (no type words in front of the first name).
fn declarators(head: &[&Tk], trailing: bool, out: &mut Vec<Member>) {
    let mut depth = 0i32;
    let mut angle = 0i32;
    let mut parts: Vec<Vec<&Tk>> = vec![Vec::new()];
    let mut in_init = false;
    for t in head {
        match t.text.as_str() {
            "(" | "[" | "{" if t.kind == Kind::Punct => depth += 1,
            ")" | "]" | "}" if t.kind == Kind::Punct => depth -= 1,
            "<" if !in_init => angle += 1,
            ">" if !in_init && angle > 0 => angle -= 1,
            ">>" if !in_init && angle > 0 => angle = (angle - 2).max(0),
            "=" if depth == 0 && angle == 0 => in_init = true,
            "," if depth == 0 && angle == 0 => {
                parts.push(Vec::new());
                in_init = false;
                continue;
            }
            _ => {}
        }
        if let Some(p) = parts.last_mut() {
            p.push(t);
        }
    }
    for (n, part) in parts.iter().enumerate() {
        // a function pointer or a member pointer: the name sits inside the first parentheses
        if let Some(open) = part.iter().position(|t| t.is("(")) {
            let eq = part.iter().position(|t| t.is("="));
            if eq.is_none_or(|e| open < e) {
                if let Some(name) = part[open + 1..]
                    .iter()
                    .take_while(|t| !t.is(")"))
                    .filter(|t| t.ident())
                    .last()
                {
                    out.push(member(name));
                }
                continue;
            }
        }
        let end = part
            .iter()
            .position(|t| t.is("=") || t.is(":") || t.is("[") || t.is("{"))
            .unwrap_or(part.len());
        let idents: Vec<&&Tk> = part[..end]
            .iter()
            .filter(|t| t.ident() && !QUALIFIERS.contains(&t.text.as_str()))
            .collect();
        let Some(name) = idents.last() else {
            continue;
        };
        // the first declarator of a declaration carries its type: one identifier alone is an
        // unnamed bit-field (`Uint32 : 3`)
        let needs_type = n == 0 && !trailing;
        if (needs_type && idents.len() < 2) || TYPE_WORDS.contains(&name.text.as_str()) {
            continue;
        }
        out.push(member(name));
    }
}

fn member(t: &Tk) -> Member {
    Member {
        name: t.text.clone(),
        line: t.line,
        column: t.column,
    }
}

/// Every `offsetof(…)` (or `__builtin_offsetof(…)`) inside a `static_assert(…)` of the file.
pub fn offset_asserts(lx: &Lexed) -> Vec<OffsetAssert> {
    let toks = &lx.toks;
    let mut out = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        if !(toks[i].is("static_assert") && toks.get(i + 1).is_some_and(|t| t.is("("))) {
            i += 1;
            continue;
        }
        let close = matching(toks, i + 1).min(toks.len());
        let mut k = i + 2;
        while k < close {
            let t = &toks[k];
            if (t.is("offsetof") || t.is("__builtin_offsetof"))
                && toks.get(k + 1).is_some_and(|n| n.is("("))
            {
                let end = matching(toks, k + 1).min(close);
                if let Some(a) = offsetof_args(&toks[k + 2..end], t) {
                    out.push(a);
                }
                k = end;
            }
            k += 1;
        }
        i = close + 1;
    }
    out
}

fn offsetof_args(args: &[Tk], at: &Tk) -> Option<OffsetAssert> {
    let mut depth = 0i32;
    let mut comma = None;
    for (k, t) in args.iter().enumerate() {
        match t.text.as_str() {
            "(" | "[" | "<" => depth += 1,
            ")" | "]" | ">" => depth -= 1,
            "," if depth == 0 => {
                comma = Some(k);
                break;
            }
            _ => {}
        }
    }
    let comma = comma?;
    let strukt = args[..comma].iter().rev().find(|t| t.ident())?.text.clone();
    let member = args[comma + 1..].iter().find(|t| t.ident())?.text.clone();
    Some(OffsetAssert {
        strukt,
        member,
        line: at.line,
        column: at.column,
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn names(src: &str, s: &str) -> Vec<String> {
        let lx = lex(src.as_bytes());
        structs(&lx, s)
            .iter()
            .flat_map(|d| d.members.iter().map(|m| m.name.clone()))
            .collect()
    }

    #[test]
    fn data_members_are_found_and_the_rest_is_not() {
        let src = r#"
// struct ResidualValueBlock { int InComment; };
struct Other { int NotMine; };
struct alignas(8) ResidualValueBlock final {
  public:
    Uint64 CapabilityBits = 0;   // a member
    Uint32 A{1}, *B, C[4];
    Uint32 Bits : 3, : 5;
    std::pair<int, int> Pair;
    void (*Hook)(int, int);
    static constexpr int kStatic = 3;
    static int sCount;
    using T = int;
    struct Nested { int Inner; };
    struct { int AnonX; float AnonY; };
    union { int U0; } Named;
    enum class Mode : int { A, B } Mode_;
    ResidualValueBlock() = default;
    int Get() const { return static_cast<int>(CapabilityBits); }
    void Set(int v);
    bool operator==(const ResidualValueBlock&) const;
    const char* Name = "struct X { int y; }";
  private:
    mutable int Cache;
};
"#;
        assert_eq!(
            names(src, "ResidualValueBlock"),
            [
                "CapabilityBits",
                "A",
                "B",
                "C",
                "Bits",
                "Pair",
                "Hook",
                "AnonX",
                "AnonY",
                "Named",
                "Mode_",
                "Name",
                "Cache"
            ]
        );
        assert!(names(src, "Missing").is_empty());
        assert!(structs(
            &lex(b"struct ResidualValueBlock;\nsizeof(struct ResidualValueBlock);"),
            "ResidualValueBlock"
        )
        .is_empty());
    }

    #[test]
    fn member_lines_are_their_names() {
        let lx = lex(b"struct S {\n  int a;\n\n  float\n    b;\n};\n");
        let d = &structs(&lx, "S")[0];
        assert_eq!(d.line, 1);
        let at: Vec<(u32, u32)> = d.members.iter().map(|m| (m.line, m.column)).collect();
        assert_eq!(at, [(2, 7), (5, 5)]);
    }

    #[test]
    fn offsetof_counts_only_inside_static_assert() {
        let src = "static_assert(offsetof(MG_Pipe::S, a) == 0, \"a\");\n\
                   static_assert(sizeof(S) == 8 && offsetof(S, b.c[1]) == 4);\n\
                   // static_assert(offsetof(S, inComment) == 0);\n\
                   const char* s = \"static_assert(offsetof(S, inString) == 0)\";\n\
                   size_t x = offsetof(S, runtime);\n";
        let got: Vec<(String, String, u32)> = offset_asserts(&lex(src.as_bytes()))
            .into_iter()
            .map(|a| (a.strukt, a.member, a.line))
            .collect();
        assert_eq!(
            got,
            [("S".into(), "a".into(), 1), ("S".into(), "b".into(), 2)]
        );
    }

    /// Unbalanced, truncated and shuffled fragments never panic.
    #[test]
    fn token_soup_never_panics() {
        const PARTS: [&str; 24] = [
            "struct",
            " S",
            " {",
            " }",
            ";",
            "(",
            ")",
            "[",
            "]",
            ",",
            " int",
            " a",
            ":",
            "=",
            "*",
            "union",
            "enum",
            "static_assert",
            "offsetof",
            "<",
            ">",
            "\n#define S ",
            "8",
            "{}",
        ];
        let mut next = crate::xorshift(0x1a2b_3c4d);
        for _ in 0..2000 {
            let n = (next() % 40) as usize;
            let src: String = (0..n).map(|_| PARTS[(next() % 24) as usize]).collect();
            let lx = lex(src.as_bytes());
            let _ = structs(&lx, "S");
            let _ = offset_asserts(&lx);
        }
    }

    #[test]
    fn defines_read_integer_literals() {
        let src = "#define MGL_RESIDUAL_BLOCK_SIZE 8\n\
                   # define HEX (0x10u) // sixteen\n\
                   #define SEP 1'024\n\
                   #define EXPR (4 * 2)\n\
                   #define FN(x) 8\n\
                   int y; // #define NOT_ME 1\n";
        let d = lex(src.as_bytes()).defines;
        let got: Vec<(&str, u32, Option<u64>)> = d
            .iter()
            .map(|d| (d.name.as_str(), d.line, d.value))
            .collect();
        assert_eq!(
            got,
            [
                ("MGL_RESIDUAL_BLOCK_SIZE", 1, Some(8)),
                ("HEX", 2, Some(16)),
                ("SEP", 3, Some(1024)),
                ("EXPR", 4, None),
                ("FN", 5, None)
            ]
        );
        assert_eq!(d[3].body, "(4 * 2)");
    }
}
