//! Function bodies from tokens. Only outermost function bodies are "functions"; lambdas, local
//! classes and their methods are nested scopes of the function that contains them, so every
//! token belongs to at most one function and nothing is counted twice. Constructor initialiser
//! lists (including brace-initialised members), trailing return types and `#if`/`#else` arms
//! that open or close braces differently are handled.

use crate::lex::{text, Kind, Lexed, Token};

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum NestedKind {
    Lambda,
    LocalClass,
    LocalFunction,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Nested {
    pub kind: NestedKind,
    pub line: u32,
    /// Token indices of its `{` and `}`.
    pub open: usize,
    pub close: usize,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Function {
    /// As written, qualifiers kept: `GLContext::SetX`, `~Foo`, `operator==`.
    pub name: String,
    /// Token index of the body's `{` and of its matching `}` (or the last token when unclosed).
    pub open: usize,
    pub close: usize,
    /// Line of the opening brace (upstream reports this line).
    pub line: u32,
    /// Line of the name.
    pub name_line: u32,
    /// Token range of the parameter list, parentheses excluded.
    pub params: (usize, usize),
    pub nested: Vec<Nested>,
}

impl Function {
    /// The unqualified name (`SetX` for `GLContext::SetX`).
    pub fn short(&self) -> &str {
        self.name.rsplit("::").next().unwrap_or(&self.name)
    }
}

/// A structural problem; the scan carries on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScopeIssue {
    pub token: usize,
    pub message: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Frame {
    Namespace,
    /// Index into the class-name list, for qualifying inline member definitions.
    Class(usize),
    /// A braced initialiser or anything else whose contents hold no functions.
    Opaque,
    /// A `m{…}` member initialiser inside a constructor head.
    InitBrace,
    Function(usize),
    Block,
    Lambda(usize),
    LocalClass(usize),
    LocalFunction(usize),
}

struct Cond {
    at_if: (Vec<Frame>, usize),
    first_arm: Option<(Vec<Frame>, usize)>,
}

/// Find every function body of a lexed file.
pub fn functions(src: &str, lx: &Lexed) -> (Vec<Function>, Vec<ScopeIssue>) {
    let toks = &lx.tokens;
    let mut funcs: Vec<Function> = Vec::new();
    let mut issues = Vec::new();
    let mut stack: Vec<Frame> = Vec::new();
    let mut head_start = 0usize;
    let mut conds: Vec<Cond> = Vec::new();
    let mut class_names: Vec<String> = Vec::new();
    let t = |i: usize| text(src, &toks[i]);

    let mut i = 0;
    while i < toks.len() {
        let tok = toks[i];
        if tok.directive {
            if tok.kind == Kind::Hash && i + 1 < toks.len() && toks[i + 1].directive {
                match t(i + 1) {
                    "if" | "ifdef" | "ifndef" => conds.push(Cond {
                        at_if: (stack.clone(), head_start),
                        first_arm: None,
                    }),
                    "elif" | "else" | "elifdef" | "elifndef" => {
                        if let Some(c) = conds.last_mut() {
                            if c.first_arm.is_none() {
                                c.first_arm = Some((stack.clone(), head_start));
                            }
                            stack = c.at_if.0.clone();
                            head_start = c.at_if.1;
                        }
                    }
                    "endif" => {
                        if let Some(c) = conds.pop() {
                            if let Some((first, hs)) = c.first_arm {
                                // Bodies the other arms opened and left open end at the #endif.
                                for f in &stack {
                                    if let Frame::Function(k) = f {
                                        if !first.contains(f) {
                                            funcs[*k].close = i;
                                        }
                                    }
                                }
                                stack = first;
                                head_start = hs;
                            }
                        }
                    }
                    _ => {}
                }
            }
            i += 1;
            continue;
        }
        if tok.kind != Kind::Punct {
            i += 1;
            continue;
        }
        match t(i) {
            ";" => head_start = i + 1,
            "{" => {
                let top = enclosing_function(&stack);
                let frame = match top {
                    None => {
                        let prefix: Vec<&str> = stack
                            .iter()
                            .filter_map(|f| {
                                if let Frame::Class(c) = f {
                                    Some(class_names[*c].as_str())
                                } else {
                                    None
                                }
                            })
                            .collect();
                        classify_head(
                            src,
                            toks,
                            head_start,
                            i,
                            &prefix.join("::"),
                            &mut funcs,
                            &mut class_names,
                        )
                    }
                    Some(f) => {
                        let in_local_class = matches!(stack.last(), Some(Frame::LocalClass(_)));
                        classify_inner(src, toks, head_start, i, f, in_local_class, &mut funcs)
                    }
                };
                stack.push(frame);
                if frame != Frame::InitBrace {
                    head_start = i + 1;
                }
            }
            "}" => match stack.pop() {
                None => issues.push(ScopeIssue {
                    token: i,
                    message: "unmatched `}`".to_string(),
                }),
                Some(frame) => {
                    close_frame(frame, i, &mut funcs);
                    if frame != Frame::InitBrace {
                        head_start = i + 1;
                    }
                }
            },
            _ => {}
        }
        i += 1;
    }
    let last = toks.len().saturating_sub(1);
    if let Some(outer) = stack.iter().position(|f| !matches!(f, Frame::Namespace)) {
        let open_line = match stack[outer] {
            Frame::Function(k) => funcs[k].line,
            _ => 0,
        };
        let msg = if open_line > 0 {
            format!(
                "unbalanced braces: the body of `{}` opened at line {open_line} is never closed",
                funcs_name(&stack[outer], &funcs)
            )
        } else {
            "unbalanced braces: a `{` is never closed".to_string()
        };
        issues.push(ScopeIssue {
            token: last,
            message: msg,
        });
    } else if !stack.is_empty() {
        issues.push(ScopeIssue {
            token: last,
            message: "unbalanced braces: a namespace `{` is never closed".to_string(),
        });
    }
    while let Some(frame) = stack.pop() {
        close_frame(frame, last, &mut funcs);
    }
    funcs.sort_by_key(|f| f.open);
    (funcs, issues)
}

fn funcs_name(frame: &Frame, funcs: &[Function]) -> String {
    match frame {
        Frame::Function(k) => funcs[*k].name.clone(),
        _ => String::new(),
    }
}

fn close_frame(frame: Frame, i: usize, funcs: &mut [Function]) {
    match frame {
        Frame::Function(k) => funcs[k].close = i,
        Frame::Lambda(k) | Frame::LocalClass(k) | Frame::LocalFunction(k) => {
            if let Some(n) = funcs[k]
                .nested
                .iter_mut()
                .rev()
                .find(|n| n.close == usize::MAX)
            {
                n.close = i;
            }
        }
        _ => {}
    }
}

fn enclosing_function(stack: &[Frame]) -> Option<usize> {
    stack.iter().find_map(|f| {
        if let Frame::Function(k) = f {
            Some(*k)
        } else {
            None
        }
    })
}

/// Index of the `(` matching the `)` at `close`, searching back no further than `floor`.
fn match_back(src: &str, toks: &[Token], floor: usize, close: usize) -> Option<usize> {
    let mut depth = 0i32;
    let mut j = close;
    loop {
        if toks[j].kind == Kind::Punct {
            match text(src, &toks[j]) {
                ")" | "]" => depth += 1,
                "(" | "[" => {
                    depth -= 1;
                    if depth == 0 {
                        return Some(j);
                    }
                }
                _ => {}
            }
        }
        if j == floor {
            return None;
        }
        j -= 1;
    }
}

/// Decide what a `{` at namespace or class scope opens.
fn classify_head(
    src: &str,
    toks: &[Token],
    head_start: usize,
    brace: usize,
    prefix: &str,
    funcs: &mut Vec<Function>,
    class_names: &mut Vec<String>,
) -> Frame {
    let head: Vec<usize> = (head_start..brace)
        .filter(|&k| !toks[k].directive)
        .collect();
    let w = |k: usize| text(src, &toks[head[k]]);
    let mut s = 0;
    // Access specifiers and template heads do not belong to the declaration.
    loop {
        if s + 1 < head.len()
            && matches!(w(s), "public" | "private" | "protected")
            && w(s + 1) == ":"
        {
            s += 2;
        } else if s < head.len() && w(s) == "template" {
            let mut depth = 0;
            s += 1;
            while s < head.len() {
                match w(s) {
                    "<" => depth += 1,
                    ">" => depth -= 1,
                    ">>" => depth -= 2,
                    _ => {}
                }
                s += 1;
                if depth <= 0 {
                    break;
                }
            }
        } else {
            break;
        }
    }
    if s >= head.len() {
        return Frame::Opaque;
    }
    if matches!(w(s), "namespace" | "inline")
        || (w(s) == "extern" && s + 1 < head.len() && toks[head[s + 1]].kind == Kind::Str)
    {
        return Frame::Namespace;
    }
    // Walk the head at paren depth 0: find the cut (`:` of an init list or `->` of a trailing
    // return), a top-level `=`, and type keywords.
    let mut depth = 0i32;
    let mut cut = head.len();
    let mut saw_paren = false;
    for k in s..head.len() {
        match w(k) {
            "(" | "[" => {
                depth += 1;
                saw_paren = true;
            }
            ")" | "]" => depth -= 1,
            "=" if depth == 0 && cut == head.len() && !(k > 0 && w(k - 1) == "operator") => {
                return Frame::Opaque
            }
            "class" | "struct" | "union" | "enum" if depth == 0 && !saw_paren => {
                let end = (k..head.len()).find(|&j| w(j) == ":").unwrap_or(head.len());
                let name = (k + 1..end)
                    .rev()
                    .find(|&j| {
                        toks[head[j]].kind == Kind::Ident
                            && !matches!(w(j), "final" | "class" | "struct")
                    })
                    .map(|j| w(j).to_string())
                    .unwrap_or_default();
                class_names.push(name);
                return Frame::Class(class_names.len() - 1);
            }
            ":" | "->" if depth == 0 && saw_paren && cut == head.len() => cut = k,
            _ => {}
        }
    }
    // `X() : m_a{0}, m_b{1} {`: a brace that ends with `: name` or `, name` after the cut is a
    // member initialiser, not the body.
    if cut < head.len() && head.len() >= 2 && w(cut) == ":" {
        let last = head.len() - 1;
        if toks[head[last]].kind == Kind::Ident && matches!(w(last - 1), ":" | ",") && last > cut {
            return Frame::InitBrace;
        }
        // `: m_a(0), m_b{1}` — a member initialiser template argument also ends with `>`.
    }
    // The declarator: the last depth-0 `( … )` before the cut that follows a name.
    let mut depth = 0i32;
    let mut close = None;
    let mut k = cut;
    while k > s {
        k -= 1;
        match w(k) {
            ")" => {
                if depth == 0 {
                    close = Some(k);
                }
                depth += 1;
            }
            "(" => {
                depth -= 1;
                if depth == 0 {
                    if let Some(c) = close {
                        if k > s {
                            if let Some((name, name_tok)) =
                                declarator_name(src, toks, &head, s, k - 1)
                            {
                                let name = if prefix.is_empty() {
                                    name
                                } else {
                                    format!("{prefix}::{name}")
                                };
                                funcs.push(Function {
                                    name,
                                    open: brace,
                                    close: usize::MAX,
                                    line: toks[brace].line,
                                    name_line: toks[head[name_tok]].line,
                                    params: (head[k] + 1, head[c]),
                                    nested: Vec::new(),
                                });
                                return Frame::Function(funcs.len() - 1);
                            }
                        }
                        close = None;
                    }
                }
            }
            _ => {}
        }
    }
    Frame::Namespace
}

/// The (possibly qualified) name ending at head index `end`, with the head index of its first token.
fn declarator_name(
    src: &str,
    toks: &[Token],
    head: &[usize],
    floor: usize,
    end: usize,
) -> Option<(String, usize)> {
    let w = |k: usize| text(src, &toks[head[k]]);
    let tk = |k: usize| toks[head[k]];
    let mut first;
    let mut parts: Vec<&str> = Vec::new();
    // `operator==`, `operator()`, `operator new`.
    let op = (floor..=end).rev().take(4).find(|&k| w(k) == "operator");
    if let Some(o) = op {
        parts.push(w(o));
        for k in o + 1..=end {
            parts.push(w(k));
        }
        first = o;
    } else {
        if tk(end).kind != Kind::Ident || cpp_lex::keywords::is_not_call(w(end)) {
            return None;
        }
        parts.push(w(end));
        first = end;
        if first > floor && w(first - 1) == "~" {
            first -= 1;
            parts.insert(0, "~");
        }
    }
    let mut name = parts.concat();
    // Qualifiers: `A::B<int>::`.
    while first >= floor + 2 && w(first - 1) == "::" && tk(first - 2).kind == Kind::Ident {
        name = format!("{}::{}", w(first - 2), name);
        first -= 2;
    }
    Some((name, first))
}

/// Decide what a `{` inside a function body opens.
fn classify_inner(
    src: &str,
    toks: &[Token],
    head_start: usize,
    brace: usize,
    f: usize,
    in_local_class: bool,
    funcs: &mut [Function],
) -> Frame {
    let line = toks[brace].line;
    let mut push = |kind: NestedKind| {
        funcs[f].nested.push(Nested {
            kind,
            line,
            open: brace,
            close: usize::MAX,
        });
    };
    if in_local_class {
        let (mut scratch, mut names) = (Vec::new(), Vec::new());
        if let Frame::Function(_) =
            classify_head(src, toks, head_start, brace, "", &mut scratch, &mut names)
        {
            push(NestedKind::LocalFunction);
            return Frame::LocalFunction(f);
        }
    }
    let first = (head_start..brace).find(|&k| !toks[k].directive);
    if let Some(k) = first {
        if matches!(text(src, &toks[k]), "struct" | "class" | "union") {
            let has_eq = (k..brace).any(|j| text(src, &toks[j]) == "=");
            if !has_eq {
                push(NestedKind::LocalClass);
                return Frame::LocalClass(f);
            }
        }
    }
    if is_lambda(src, toks, head_start, brace) {
        push(NestedKind::Lambda);
        return Frame::Lambda(f);
    }
    Frame::Block
}

/// `[captures](params) specifiers -> ret {` or `[captures] {`.
fn is_lambda(src: &str, toks: &[Token], floor: usize, brace: usize) -> bool {
    let mut j = brace;
    let mut steps = 0;
    while j > floor && steps < 64 {
        j -= 1;
        steps += 1;
        let s = text(src, &toks[j]);
        match s {
            "]" => {
                let Some(open) = match_back(src, toks, floor, j) else {
                    return false;
                };
                if open == 0 {
                    return true;
                }
                let before = toks[open - 1];
                let b = text(src, &before);
                // A subscript follows a name, `)` or `]`; a capture list does not.
                return (before.kind != Kind::Ident
                    || matches!(b, "return" | "co_return" | "co_yield"))
                    && !matches!(b, ")" | "]");
            }
            ")" => {
                let Some(open) = match_back(src, toks, floor, j) else {
                    return false;
                };
                j = open;
            }
            ";" | "{" | "}" => return false,
            _ => {}
        }
    }
    false
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::lex::lex;

    fn names(src: &str) -> Vec<(String, u32)> {
        let lx = lex(src);
        let (f, issues) = functions(src, &lx);
        assert!(issues.is_empty(), "{issues:?}");
        f.iter().map(|f| (f.name.clone(), f.line)).collect()
    }

    #[test]
    fn qualified_names_ctor_init_lists_and_trailing_returns() {
        let src = "namespace mg {\nvoid GLContext::SetX(int a) const noexcept {\n}\nFoo::Foo(int a) : m_a{a}, m_b(2)\n{\n}\nauto RenderState::Get() -> int { return 1; }\nstruct S { void f() override { } int g(); };\n}\n";
        assert_eq!(
            names(src),
            vec![
                ("GLContext::SetX".into(), 2),
                ("Foo::Foo".into(), 5),
                ("RenderState::Get".into(), 7),
                ("S::f".into(), 8)
            ]
        );
    }

    #[test]
    fn lambdas_and_local_classes_are_nested_not_functions() {
        let src = "void F() {\n auto l = [&](int x) { if (x) { g(); } };\n struct L { void m() { } };\n int a[2] = {1, 2};\n}\nint table[] = { 1, 2 };\n";
        let lx = lex(src);
        let (f, issues) = functions(src, &lx);
        assert!(issues.is_empty());
        assert_eq!(f.len(), 1);
        let kinds: Vec<NestedKind> = f[0].nested.iter().map(|n| n.kind).collect();
        assert_eq!(
            kinds,
            vec![
                NestedKind::Lambda,
                NestedKind::LocalClass,
                NestedKind::LocalFunction
            ]
        );
    }

    #[test]
    fn else_if_and_macros_inside_bodies_are_not_functions() {
        let src = "void F()\n{\n    if (a) {\n    }\n    else if (b) {\n    }\n    MG_MACRO Name(args) {\n    }\n}\n";
        assert_eq!(names(src), vec![("F".into(), 2)]);
    }

    #[test]
    fn if_else_arms_with_different_braces() {
        let src = "#if A\nvoid F(int a) {\n#else\nvoid F() {\n#endif\n  x();\n}\nvoid G() { }\n";
        let n = names(src);
        assert_eq!(n.len(), 3);
        assert_eq!(n[2].0, "G");
    }

    #[test]
    fn unbalanced_braces_are_reported() {
        let src = "void F() {\n  {\n}\nvoid G() { }\n";
        let lx = lex(src);
        let (_, issues) = functions(src, &lx);
        assert_eq!(issues.len(), 1);
        assert!(issues[0].message.contains("`F` opened at line 1"));
        let src = "}\nvoid G() { }\n";
        let lx = lex(src);
        let (f, issues) = functions(src, &lx);
        assert_eq!(issues[0].message, "unmatched `}`");
        assert_eq!(f.len(), 1);
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod shapes {
    use super::*;
    use crate::lex::lex;

    fn names(src: &str) -> Vec<String> {
        let lx = lex(src);
        let (f, issues) = functions(src, &lx);
        assert!(issues.is_empty(), "{issues:?}");
        f.iter().map(|f| f.name.clone()).collect()
    }

    #[test]
    fn templates_operators_attributes_and_linkage() {
        let src = "extern \"C\" {\nMG_EXPORT void glFlush(void) { x(); }\n}\ntemplate <typename T, int N>\n[[nodiscard]] T Pick(const std::array<T, N>& a) { return a[0]; }\nbool Key::operator==(const Key& o) const { return a == o.a; }\nnamespace a::b { inline namespace v1 { void G() try { f(); } catch (...) { } } }\nFoo::~Foo() { }\n#define BODY(x) { x; }\nvoid H() { }\n";
        assert_eq!(
            names(src),
            vec!["glFlush", "Pick", "Key::operator==", "G", "Foo::~Foo", "H"]
        );
    }

    #[test]
    fn brace_initialisers_and_enums_hold_no_functions() {
        let src = "static const Entry kTable[] = { {1, 2}, {3, 4} };\nenum class E : int { A, B };\nstruct S { int a{0}; void M() { } };\nauto L = [](int x) { return x; };\nvoid F() { }\n";
        assert_eq!(names(src), vec!["S::M", "F"]);
    }
}
