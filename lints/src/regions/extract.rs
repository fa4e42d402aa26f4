//! Finding a named function or namespace definition and its extent (spec §3.4).
//!
//! The extent is upstream's: from the start of the line holding the name to the closing brace,
//! inclusive, hashed over the original bytes. Recognition is upstream's plus the forms upstream
//! cannot parse (§3.11); [`Dialect::Upstream`] keeps upstream's exact rules for parity tests.

use sha2::{Digest, Sha256};

use crate::cpp::{self, MaskMode};

#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum RegionKind {
    Function,
    Namespace,
}

impl RegionKind {
    pub fn as_str(self) -> &'static str {
        match self {
            RegionKind::Function => "function",
            RegionKind::Namespace => "namespace",
        }
    }
}

/// Which masking and recognition rules to apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Dialect {
    /// C++ lexer masking and full definition recognition (default).
    #[default]
    Mgctl,
    /// Upstream's masker and its 95-character `const|noexcept|override|final` window.
    Upstream,
}

impl Dialect {
    /// [`Dialect::Upstream`] when `upstream_compat` (the `--upstream-compat` switch).
    pub fn new(upstream_compat: bool) -> Self {
        if upstream_compat {
            Dialect::Upstream
        } else {
            Dialect::Mgctl
        }
    }
}

/// One definition found in a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Definition {
    /// Byte range of the extent: start of the name's line .. one past the closing brace.
    pub start: usize,
    pub end: usize,
    /// 1-based first and last line of the extent.
    pub line: usize,
    pub end_line: usize,
}

impl Definition {
    pub fn lines(&self) -> usize {
        self.end_line + 1 - self.line
    }
}

/// Lowercase hex SHA-256.
pub fn sha256_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// Every definition of `name` of `kind` in `text`, in file order.
pub fn find_definitions(
    text: &[u8],
    kind: RegionKind,
    name: &str,
    dialect: Dialect,
) -> Vec<Definition> {
    definitions_in(text, &masked(text, dialect), kind, name, dialect)
}

/// `text` with comments and literals blanked as `dialect` reads it.
pub(crate) fn masked(text: &[u8], dialect: Dialect) -> Vec<u8> {
    let mode = match dialect {
        Dialect::Upstream => MaskMode::Upstream,
        Dialect::Mgctl => MaskMode::Exact,
    };
    cpp::mask(text, mode)
}

/// [`find_definitions`] over `masked`, [`masked`] of `text`: the regions of one file (the
/// eleven of `Managers.cpp` in `driver/`) share one masking instead of one each (issue 16).
pub(crate) fn definitions_in(
    text: &[u8],
    masked: &[u8],
    kind: RegionKind,
    name: &str,
    dialect: Dialect,
) -> Vec<Definition> {
    let name = name.as_bytes();
    let mut defs = Vec::new();
    match kind {
        RegionKind::Function => {
            for at in cpp::word_occurrences(masked, name) {
                let mut p = skip_ws(masked, at + name.len());
                if masked.get(p) != Some(&b'(') {
                    continue;
                }
                let Some(close) = matching(masked, p, b'(', b')') else {
                    continue;
                };
                p = close + 1;
                let body = match dialect {
                    Dialect::Upstream => upstream_body_open(masked, p),
                    Dialect::Mgctl => body_open(masked, p),
                };
                if let Some(open) = body {
                    defs.push(extent(text, masked, at, open, dialect == Dialect::Mgctl));
                }
            }
        }
        RegionKind::Namespace => {
            for at in cpp::word_occurrences(masked, b"namespace") {
                let Some(after_name) =
                    namespace_name_end(masked, at + b"namespace".len(), name, dialect)
                else {
                    continue;
                };
                let window_end = if dialect == Dialect::Upstream {
                    (after_name + 95).min(masked.len())
                } else {
                    masked.len()
                };
                let p = skip_ws(&masked[..window_end], after_name);
                if masked.get(p) == Some(&b'{') && p < window_end {
                    defs.push(extent(text, masked, at, p, false));
                }
            }
        }
    }
    defs
}

/// After `namespace`: whitespace then NAME (Mgctl also accepts `A::B::NAME` and attributes).
fn namespace_name_end(m: &[u8], from: usize, name: &[u8], dialect: Dialect) -> Option<usize> {
    let p = skip_ws(m, from);
    if p == from {
        return None;
    }
    if cpp::is_word_at(m, p, name) {
        return Some(p + name.len());
    }
    if dialect == Dialect::Upstream {
        return None;
    }
    // `namespace [[attr]] A::B::NAME`
    let mut q = p;
    if m[q..].starts_with(b"[[") {
        q = skip_ws(m, matching(m, q, b'[', b']')? + 1);
    }
    loop {
        if cpp::is_word_at(m, q, name) {
            return Some(q + name.len());
        }
        let w = word_end(m, q)?;
        q = skip_ws(m, w);
        if !m[q..].starts_with(b"::") {
            return None;
        }
        q = skip_ws(m, q + 2);
    }
}

fn extent(
    text: &[u8],
    masked: &[u8],
    name_at: usize,
    open: usize,
    with_handlers: bool,
) -> Definition {
    let start = masked[..name_at]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |p| p + 1);
    let mut close = matching(masked, open, b'{', b'}').unwrap_or(masked.len().saturating_sub(1));
    if with_handlers {
        // A function-try-block: the handlers belong to the body.
        loop {
            let p = skip_ws(masked, close + 1);
            if !cpp::is_word_at(masked, p, b"catch") {
                break;
            }
            let q = skip_ws(masked, p + 5);
            let Some(pc) = (masked.get(q) == Some(&b'('))
                .then(|| matching(masked, q, b'(', b')'))
                .flatten()
            else {
                break;
            };
            let b = skip_ws(masked, pc + 1);
            match (masked.get(b) == Some(&b'{'))
                .then(|| matching(masked, b, b'{', b'}'))
                .flatten()
            {
                Some(c) => close = c,
                None => break,
            }
        }
    }
    let end = (close + 1).min(text.len());
    Definition {
        start,
        end,
        line: cpp::line_of(text, start),
        end_line: cpp::line_of(text, close),
    }
}

fn skip_ws(m: &[u8], mut p: usize) -> usize {
    while p < m.len() && m[p].is_ascii_whitespace() {
        p += 1;
    }
    p
}

fn word_end(m: &[u8], p: usize) -> Option<usize> {
    let mut q = p;
    while q < m.len() && cpp::ident_continue(m[q]) {
        q += 1;
    }
    (q > p).then_some(q)
}

/// Index of the bracket closing the one at `open` (nesting counted on masked text).
fn matching(m: &[u8], open: usize, o: u8, c: u8) -> Option<usize> {
    let mut depth = 0usize;
    for (i, &b) in m.iter().enumerate().skip(open) {
        if b == o {
            depth += 1;
        } else if b == c {
            depth = depth.checked_sub(1)?;
            if depth == 0 {
                return Some(i);
            }
        }
    }
    None
}

/// Upstream: within the 95 characters after `)`, only whitespace and the words `const`,
/// `noexcept`, `override`, `final` may precede `{`.
fn upstream_body_open(m: &[u8], from: usize) -> Option<usize> {
    let limit = (from + 95).min(m.len());
    let w = &m[..limit];
    let mut p = from;
    loop {
        p = skip_ws(w, p);
        let rest = &w[p..];
        if let Some(k) = [&b"const"[..], b"noexcept", b"override", b"final"]
            .iter()
            .find(|k| rest.starts_with(k))
        {
            p += k.len();
            continue;
        }
        return (w.get(p) == Some(&b'{')).then_some(p);
    }
}

/// Everything C++ allows between a parameter list and a function body: cv- and
/// ref-qualifiers, `noexcept(expr)`, `throw(...)`, attributes, a trailing return type,
/// `override`/`final`, a `requires` clause, then `{`, `try {` or a constructor initialiser list.
fn body_open(m: &[u8], from: usize) -> Option<usize> {
    let mut p = from;
    loop {
        p = skip_ws(m, p);
        let rest = &m[p..];
        match rest.first()? {
            b'{' => return Some(p),
            b'&' => p += if rest.starts_with(b"&&") { 2 } else { 1 },
            b'[' if rest.starts_with(b"[[") => p = matching(m, p, b'[', b']')? + 1,
            b'-' if rest.starts_with(b"->") => return after_trailing(m, p + 2),
            b':' if !rest.starts_with(b"::") => return init_list(m, p + 1),
            _ => {
                let w = word_end(m, p)?;
                match &m[p..w] {
                    b"const" | b"volatile" | b"override" | b"final" | b"mutable" => p = w,
                    b"noexcept" | b"throw" | b"__attribute__" | b"__declspec" | b"alignas" => {
                        let q = skip_ws(m, w);
                        p = if m.get(q) == Some(&b'(') {
                            matching(m, q, b'(', b')')? + 1
                        } else {
                            w
                        };
                    }
                    b"requires" => return after_trailing(m, w),
                    b"try" => {
                        let q = skip_ws(m, w);
                        return (m.get(q) == Some(&b'{')).then_some(q);
                    }
                    _ => return None,
                }
            }
        }
    }
}

/// A trailing return type or requires clause: tokens up to the `{` at bracket depth 0; a
/// `;`, `=` or `}` there means a declaration.
fn after_trailing(m: &[u8], from: usize) -> Option<usize> {
    let mut p = from;
    while p < m.len() {
        match m[p] {
            b'(' => p = matching(m, p, b'(', b')')?,
            b'[' => p = matching(m, p, b'[', b']')?,
            b'{' => return Some(p),
            b';' | b'}' => return None,
            b'=' if m.get(p + 1) != Some(&b'=')
                && p > 0
                && !matches!(m[p - 1], b'<' | b'>' | b'!' | b'=') =>
            {
                return None
            }
            b':' if m.get(p + 1) != Some(&b':') && (p == 0 || m[p - 1] != b':') => {
                return init_list(m, p + 1)
            }
            b't' if cpp::is_word_at(m, p, b"try") => {
                let q = skip_ws(m, p + 3);
                return (m.get(q) == Some(&b'{')).then_some(q);
            }
            _ => {}
        }
        p += 1;
    }
    None
}

/// `: a_(x), b_{y}, Base<T>(z)... {` — returns the body's `{`.
fn init_list(m: &[u8], from: usize) -> Option<usize> {
    let mut p = from;
    loop {
        p = skip_ws(m, p);
        // mem-initializer-id: identifiers, `::`, template arguments.
        let id_start = p;
        loop {
            if m[p..].starts_with(b"::") {
                p += 2;
            } else if let Some(w) = word_end(m, p) {
                p = w;
            } else if m.get(p) == Some(&b'<') {
                p = matching(m, p, b'<', b'>')? + 1;
            } else {
                break;
            }
            p = skip_ws(m, p);
        }
        if p == id_start {
            return None;
        }
        p = match m.get(p)? {
            b'(' => matching(m, p, b'(', b')')? + 1,
            b'{' => matching(m, p, b'{', b'}')? + 1,
            _ => return None,
        };
        p = skip_ws(m, p);
        if m[p..].starts_with(b"...") {
            p = skip_ws(m, p + 3);
        }
        match m.get(p)? {
            b',' => p += 1,
            b'{' => return Some(p),
            _ => return None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(src: &str, name: &str) -> String {
        let d = find_definitions(src.as_bytes(), RegionKind::Function, name, Dialect::Mgctl);
        assert_eq!(d.len(), 1, "{name} in {src:?}: {d:?}");
        src[d[0].start..d[0].end].to_string()
    }

    #[test]
    fn upstream_forms() {
        let src = "int x;\nstatic void Foo(int a) const noexcept {\n  if (a) { g(); }\n}\nvoid Bar() { Foo(1); }\n";
        for dialect in [Dialect::Mgctl, Dialect::Upstream] {
            let d = find_definitions(src.as_bytes(), RegionKind::Function, "Foo", dialect);
            assert_eq!(d.len(), 1);
            assert_eq!(
                &src[d[0].start..d[0].end],
                "static void Foo(int a) const noexcept {\n  if (a) { g(); }\n}"
            );
            assert_eq!((d[0].line, d[0].end_line), (2, 4));
        }
    }

    #[test]
    fn declarations_and_calls_are_not_definitions() {
        let src = "void Foo(int);\nvoid g() { Foo(2); if (Foo(3)) { } }\nvirtual void Foo(int) = 0;\nauto Foo(int) -> int;\n";
        assert!(
            find_definitions(src.as_bytes(), RegionKind::Function, "Foo", Dialect::Mgctl)
                .is_empty()
        );
    }

    #[test]
    fn forms_upstream_misses() {
        assert_eq!(
            one(
                "auto Foo(int a) -> std::vector<int> {\n return {};\n}",
                "Foo"
            ),
            "auto Foo(int a) -> std::vector<int> {\n return {};\n}"
        );
        assert_eq!(
            one("S::S(int a)\n  : a_(a), b_{a}, Base<int>(a) {\n}", "S"),
            "S::S(int a)\n  : a_(a), b_{a}, Base<int>(a) {\n}"
        );
        assert_eq!(
            one("void Foo() noexcept(sizeof(int) > 2) { }", "Foo"),
            "void Foo() noexcept(sizeof(int) > 2) { }"
        );
        assert_eq!(
            one("void T::Foo() const & { }", "Foo"),
            "void T::Foo() const & { }"
        );
        assert_eq!(one("void T::Foo() && { }", "Foo"), "void T::Foo() && { }");
        assert_eq!(
            one("void Foo() __attribute__((cold)) { }", "Foo"),
            "void Foo() __attribute__((cold)) { }"
        );
        assert_eq!(
            one("void Foo() [[gnu::cold]] { }", "Foo"),
            "void Foo() [[gnu::cold]] { }"
        );
        assert_eq!(
            one(
                "template <class T> void Foo(T) requires (sizeof(T) > 1) { }",
                "Foo"
            ),
            "template <class T> void Foo(T) requires (sizeof(T) > 1) { }"
        );
        assert_eq!(
            one("void Foo() try { f(); } catch (...) { g(); }", "Foo"),
            "void Foo() try { f(); } catch (...) { g(); }"
        );
        let wide = format!("void Foo(){}{{ }}", " ".repeat(200));
        assert_eq!(one(&wide, "Foo"), wide);
        for src in [
            "auto Foo(int a) -> int { }",
            "S::S(int a) : a_(a) { }",
            "void Foo() noexcept(true) { }",
            "void Foo() & { }",
            "void Foo() __attribute__((cold)) { }",
        ] {
            assert!(
                find_definitions(
                    src.as_bytes(),
                    RegionKind::Function,
                    if src.starts_with("S::") { "S" } else { "Foo" },
                    Dialect::Upstream
                )
                .is_empty(),
                "{src}"
            );
        }
    }

    #[test]
    fn u8_literal_does_not_blank_the_next_function() {
        let src = "char A() { return u8'a'; }\nvoid Foo() { x(); }\nchar B() { return 'b'; }\n";
        assert_eq!(one(src, "Foo"), "void Foo() { x(); }");
        assert!(find_definitions(
            src.as_bytes(),
            RegionKind::Function,
            "Foo",
            Dialect::Upstream
        )
        .is_empty());
    }

    #[test]
    fn namespaces() {
        let src = "namespace A {\nnamespace DS {\n int f() { return 1; }\n}\n}\nint g() { return DS::f(); }\nnamespace X::DS { }\n";
        let d = find_definitions(
            src.as_bytes(),
            RegionKind::Namespace,
            "DS",
            Dialect::Upstream,
        );
        assert_eq!(d.len(), 1);
        assert_eq!(
            &src[d[0].start..d[0].end],
            "namespace DS {\n int f() { return 1; }\n}"
        );
        assert_eq!(
            find_definitions(src.as_bytes(), RegionKind::Namespace, "DS", Dialect::Mgctl).len(),
            2
        );
    }

    #[test]
    fn duplicates_are_all_reported() {
        let src = "#if A\nvoid Foo() { a(); }\n#else\nvoid Foo() { b(); }\n#endif\n";
        let d = find_definitions(src.as_bytes(), RegionKind::Function, "Foo", Dialect::Mgctl);
        assert_eq!(d.iter().map(|d| d.line).collect::<Vec<_>>(), vec![2, 4]);
    }

    /// On well-formed code upstream parses, both dialects find the same extents byte for byte
    /// (the pinned hashes depend on it).
    #[test]
    fn dialects_agree_on_code_upstream_parses() {
        let src = concat!(
            "// header { not a brace\n",
            "static const char* kRaw = R\"x(}{)x\";\n",
            "namespace NS {\n",
            "int Flush(int a) const noexcept {\n",
            "    /* } */ int n = 1'000'000 + 0xFF'FF; char c = '{';\n",
            "    const char* s = \"}\\\"{\";\n",
            "    if (a) { return n; }\n",
            "    return c;\n",
            "}\n",
            "}\n",
            "template <class T>\n",
            "T Pick(T a,\n",
            "       T b) {\n",
            "    return a < b ? a : b;\n",
            "}\n",
        );
        for (kind, name) in [
            (RegionKind::Function, "Flush"),
            (RegionKind::Function, "Pick"),
            (RegionKind::Namespace, "NS"),
        ] {
            let a = find_definitions(src.as_bytes(), kind, name, Dialect::Upstream);
            let b = find_definitions(src.as_bytes(), kind, name, Dialect::Mgctl);
            assert_eq!(a.len(), 1, "{name}");
            assert_eq!(a, b, "{name}");
        }
        let d = &find_definitions(src.as_bytes(), RegionKind::Function, "Pick", Dialect::Mgctl)[0];
        // The extent starts at the name's line: the template header and line 11 are outside.
        assert!(src[d.start..d.end].starts_with("T Pick(T a,\n"));
    }

    #[test]
    fn sha() {
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
