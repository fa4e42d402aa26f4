//! In-process demangling whose text matches GNU `c++filt` (libiberty, `DMGL_PARAMS | DMGL_ANSI |
//! DMGL_VERBOSE`): Itanium C++ through `cpp_demangle`, with its house spellings rewritten to
//! libiberty's (special names, empty template packs, integer literals), and Rust through
//! `rustc-demangle` (legacy hashes kept, as `c++filt` keeps them). Names that do not demangle
//! stay as they are, exactly as `c++filt` echoes them. `docs/symbols.md` lists the measured
//! agreement and the known exceptions.

use std::borrow::Cow;
use std::sync::Arc;

mod itanium;

/// Demangle one symbol name (without a `@VERSION` suffix).
pub fn demangle(name: &str) -> Cow<'_, str> {
    if is_itanium(name) {
        if let Some(text) = itanium::demangle(name) {
            return Cow::Owned(text);
        }
    }
    match slow_path(name) {
        Some(text) => Cow::Owned(text),
        None => Cow::Borrowed(name),
    }
}

/// [`demangle`] into a shared string, without a temporary one on the fast path (the diff
/// keeps every text once, shared by both sides' rows). A name that stays as it is (a C name,
/// one past the length cap) is shared, not copied.
pub fn demangle_shared(name: &Arc<str>) -> Arc<str> {
    if is_itanium(name) {
        if let Some(text) = itanium::demangle_with(name, |t: &str| Arc::from(t)) {
            return text;
        }
    }
    match slow_path(name) {
        Some(text) => Arc::from(text),
        None => name.clone(),
    }
}

/// A C++ name for the fast path (legacy Rust names also start with `_ZN`).
fn is_itanium(name: &str) -> bool {
    name.starts_with("_Z") && !is_rust_legacy(name)
}

/// Everything but the fast path's answers: Rust names, and the C++ names it declines
/// (`cpp_demangle` with its text rewritten to c++filt's). `None`: the name stays as it is.
fn slow_path(name: &str) -> Option<String> {
    if name.starts_with("_R") {
        // libiberty's v0 demangler drops a `.cold`/`.llvm.N` suffix and spells consts `8: usize`.
        let core = name.split('.').next().unwrap_or(name);
        if let Ok(d) = rustc_demangle::try_demangle(core) {
            return Some(fix_rust_consts(&d.to_string()));
        }
    } else if is_rust_legacy(name) {
        if let Ok(d) = rustc_demangle::try_demangle(name) {
            return Some(d.to_string());
        }
        // Not Rust after all: C++, which the fast path has not seen yet.
        if let Some(text) = itanium::demangle(name) {
            return Some(text);
        }
    }
    if !name.starts_with("_Z") {
        return None;
    }
    demangle_itanium(name)
}

/// The fast Itanium path alone: `Some` with c++filt's text, or `None` where it declines and
/// [`demangle`] falls back to the complete demangler (for agreement measurements).
pub fn fast_path(name: &str) -> Option<String> {
    itanium::demangle(name)
}

const RUST_INTS: [&str; 12] = [
    "usize", "isize", "u128", "i128", "u64", "i64", "u32", "i32", "u16", "i16", "u8", "i8",
];

/// `8usize` → `8: usize`, the way libiberty prints v0 const generic integers.
fn fix_rust_consts(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    let mut rest = s;
    let mut prev_ident = false;
    while let Some(c) = rest.chars().next() {
        if c.is_ascii_digit() && !prev_ident {
            let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
            out.push_str(&rest[..digits]);
            rest = &rest[digits..];
            for t in RUST_INTS {
                if let Some(after) = rest.strip_prefix(t) {
                    if after
                        .chars()
                        .next()
                        .is_none_or(|n| !(n.is_alphanumeric() || n == '_'))
                    {
                        out.push_str(": ");
                        out.push_str(t);
                        rest = after;
                        break;
                    }
                }
            }
            prev_ident = true;
            continue;
        }
        prev_ident = c.is_alphanumeric() || c == '_';
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    out
}

/// Legacy Rust mangling: `_ZN … 17h<16 hex>E`. `c++filt` demangles these with the Rust rules.
fn is_rust_legacy(name: &str) -> bool {
    let b = name.as_bytes();
    if !name.starts_with("_ZN") || b.len() < 24 {
        return false;
    }
    // `...17h0123456789abcdefE` possibly followed by a `.llvm.NNN` style suffix. Most names
    // end in `E` or a parameter code, so the suffix search runs only for names with a suffix.
    let core = match b.last() {
        Some(b'E') => name,
        _ => name.split('.').next().unwrap_or(name),
    };
    let cb = core.as_bytes();
    cb.len() >= 24
        && cb.ends_with(b"E")
        && &cb[cb.len() - 21..cb.len() - 18] == b"17h"
        && cb[cb.len() - 18..cb.len() - 1]
            .iter()
            .all(u8::is_ascii_hexdigit)
}

fn options() -> cpp_demangle::DemangleOptions {
    cpp_demangle::DemangleOptions::new()
}

/// A demangled text may be this long plus [`PER_MANGLED_BYTE`] bytes per byte of the mangled
/// name. Back-references let a few hundred mangled bytes stand for gigabytes of text (each
/// `A<S0_, S0_>` doubles it); c++filt prints them all, a careful demangler stops. The real
/// names of libLLVM stay far below (the longest is ~8 KB, ~9x its mangling).
pub const MAX_DEMANGLED_BASE: usize = 64 << 10;
pub const PER_MANGLED_BYTE: usize = 64;

/// The longest demangled text accepted for a mangled name of `mangled_len` bytes.
pub const fn demangled_limit(mangled_len: usize) -> usize {
    MAX_DEMANGLED_BASE.saturating_add(mangled_len.saturating_mul(PER_MANGLED_BYTE))
}

/// A `fmt::Write` that refuses to grow past a limit, so cpp_demangle stops printing there.
struct Capped {
    text: String,
    limit: usize,
    over: bool,
}

impl std::fmt::Write for Capped {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        if self.text.len() + s.len() > self.limit {
            self.over = true;
            return Err(std::fmt::Error);
        }
        self.text.push_str(s);
        Ok(())
    }
}

/// cpp_demangle's text, `Err(true)` when it would exceed [`demangled_limit`].
fn cpp_capped(mangled: &str) -> Result<String, bool> {
    let sym = cpp_demangle::Symbol::new(mangled.as_bytes()).map_err(|_| false)?;
    let mut out = Capped {
        text: String::new(),
        limit: demangled_limit(mangled.len()),
        over: false,
    };
    match sym.structured_demangle(&mut out, &options()) {
        Ok(()) => Ok(out.text),
        Err(_) => Err(out.over),
    }
}

/// True when `name` is kept mangled only because its demangled text would exceed the cap
/// (reports say so, since c++filt would print it).
pub fn over_limit(name: &str) -> bool {
    is_itanium(name) && matches!(cpp_capped(name), Err(true))
}

fn cpp(mangled: &str) -> Option<String> {
    cpp_capped(mangled).ok()
}

/// `_ZTh`/`_ZTv`/`_ZTc` thunks: libiberty says "non-virtual thunk to", "virtual thunk to",
/// "covariant return thunk to"; cpp_demangle says "{virtual override thunk(…)}".
fn thunk(name: &str) -> Option<String> {
    let rest = name.strip_prefix("_ZT")?;
    let (label, after) = match rest.as_bytes().first()? {
        b'h' => ("non-virtual thunk to ", skip_call_offset(rest)?),
        b'v' => ("virtual thunk to ", skip_call_offset(rest)?),
        b'c' => {
            let first = skip_call_offset(&rest[1..])?;
            ("covariant return thunk to ", skip_call_offset(first)?)
        }
        _ => return None,
    };
    let inner = cpp(&format!("_Z{after}"))?;
    Some(format!("{label}{}", fix_text(inner)))
}

/// Skip `h <number> _` or `v <number> _ <number> _` (numbers may start with `n`).
fn skip_call_offset(s: &str) -> Option<&str> {
    let (kind, mut rest) = (s.as_bytes().first()?, &s[1..]);
    let count = match kind {
        b'h' => 1,
        b'v' => 2,
        _ => return None,
    };
    for _ in 0..count {
        rest = rest.strip_prefix('n').unwrap_or(rest);
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return None;
        }
        rest = rest[digits..].strip_prefix('_')?;
    }
    Some(rest)
}

fn demangle_itanium(name: &str) -> Option<String> {
    if name.starts_with("_ZTh") || name.starts_with("_ZTv") || name.starts_with("_ZTc") {
        return thunk(name);
    }
    let text = cpp(name)?;
    let text = if let Some(inner) = text
        .strip_prefix("{vtable(")
        .and_then(|t| t.strip_suffix(")}"))
    {
        format!("vtable for {inner}")
    } else if let Some(inner) = text
        .strip_prefix("{vtt(")
        .and_then(|t| t.strip_suffix(")}"))
    {
        format!("VTT for {inner}")
    } else {
        text
    };
    let text = fix_text(text);
    let text = if text.contains("decltype (") || text.contains("!(") {
        fix_expression_parens(&text)
    } else {
        text
    };
    let text = if text.contains("&::") || text.contains("*::") || text.contains(" const::") {
        fix_misplaced_qualifiers(&text)
    } else {
        text
    };
    let text = if name.contains('F')
        && (text.contains(")>") || text.contains("), ") || text.contains(") >"))
    {
        fix_function_types(&text)
    } else {
        text
    };
    Some(fix_trailing_pack(name, text))
}

/// Function types inside template arguments: libiberty prints `R (Args)`, cpp_demangle `R(Args)`.
/// A parenthesised group at template depth > 0 that closes right before `>` or `,` and follows a
/// type (not `decltype`, not an operator) is a function type; a function-local name continues
/// with `::` after its parameter list and is left alone.
fn fix_function_types(s: &str) -> String {
    let b = s.as_bytes();
    let mut inserts = Vec::new();
    let mut angle = 0i32;
    for i in 0..b.len() {
        match b[i] {
            b'<' => angle += 1,
            b'>' => angle -= 1,
            b'(' if angle > 0 && i > 0 => {
                let prev = b[i - 1];
                if !(prev.is_ascii_alphanumeric()
                    || prev == b'_'
                    || prev == b'>'
                    || prev == b'*'
                    || prev == b'&')
                {
                    continue;
                }
                let head = &s[..i];
                if head.ends_with("decltype")
                    || head.ends_with("operator")
                    || head.ends_with("sizeof")
                    || head.ends_with("alignof")
                {
                    continue;
                }
                // find the matching ')'
                let mut depth = 0i32;
                let mut close = None;
                for (j, &c) in b.iter().enumerate().skip(i) {
                    match c {
                        b'(' => depth += 1,
                        b')' => {
                            depth -= 1;
                            if depth == 0 {
                                close = Some(j);
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                let Some(close) = close else { continue };
                let after = &s[close + 1..];
                if after.starts_with('>') || after.starts_with(", ") || after.starts_with(" >") {
                    inserts.push(i);
                }
            }
            _ => {}
        }
    }
    if inserts.is_empty() {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len() + inserts.len());
    let mut last = 0;
    for i in inserts {
        out.push_str(&s[last..i]);
        out.push(' ');
        last = i;
    }
    out.push_str(&s[last..]);
    out
}

/// cpp_demangle sometimes prints a parameter's qualifier on the scope of a nested name
/// (`llvm::CompileUnit&::DIEInfo`, `Graph const::Node*`); libiberty prints it after the name
/// (`llvm::CompileUnit::DIEInfo&`, `Graph::Node const*`). No valid spelling contains `&::`,
/// `*::` or ` const::`, so the move is unambiguous.
fn fix_misplaced_qualifiers(s: &str) -> String {
    let mut out = s.to_string();
    for _ in 0..16 {
        let Some((q_start, colons)) = find_misplaced(&out) else {
            break;
        };
        let name_start = colons + 2;
        let b = out.as_bytes();
        let (mut i, mut depth) = (name_start, 0i32);
        while i < b.len() {
            match b[i] {
                b'<' | b'(' => depth += 1,
                b'>' | b')' if depth > 0 => depth -= 1,
                b':' if depth == 0 && b.get(i + 1) == Some(&b':') => i += 1,
                c if depth == 0 && !(c.is_ascii_alphanumeric() || c == b'_' || c == b'~') => break,
                _ => {}
            }
            i += 1;
        }
        let qual = out[q_start..colons].to_string();
        let name = out[name_start..i].to_string();
        out = format!("{}::{name}{qual}{}", &out[..q_start], &out[i..]);
    }
    out
}

/// Where a qualifier run (`&`, `&&`, `*`, ` const`, …) sits right before `::`.
fn find_misplaced(s: &str) -> Option<(usize, usize)> {
    let b = s.as_bytes();
    let mut from = 0;
    while let Some(rel) = s[from..].find("::") {
        let colons = from + rel;
        let mut q = colons;
        loop {
            if q > 0 && matches!(b[q - 1], b'&' | b'*') {
                q -= 1;
            } else if s[..q].ends_with(" const") {
                q -= " const".len();
            } else {
                break;
            }
        }
        if q < colons
            && q > 0
            && (b[q - 1].is_ascii_alphanumeric() || b[q - 1] == b'>' || b[q - 1] == b'_')
        {
            return Some((q, colons));
        }
        from = colons + 2;
    }
    None
}

/// A trailing function-parameter pack (`DpOT_`, `DpRT0_`, `DpRKT_`): cpp_demangle misplaces the
/// reference on the expanded elements; libiberty applies it to each element, collapsing
/// references. Rebuilt from the template argument list when the pack is the last template
/// parameter and the last parameters; otherwise the text is left alone.
fn fix_trailing_pack(mangled: &str, text: String) -> String {
    let Some(dp) = mangled.rfind("Dp") else {
        return text;
    };
    let tail = &mangled[dp + 2..];
    let (qual, rest) = if let Some(r) = tail.strip_prefix("RK") {
        ("const&", r)
    } else if let Some(r) = tail.strip_prefix('R') {
        ("&", r)
    } else if let Some(r) = tail.strip_prefix('O') {
        ("&&", r)
    } else {
        return text;
    };
    let Some(rest) = rest.strip_prefix('T') else {
        return text;
    };
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    if rest[digits..] != *"_" {
        return text;
    }
    let index = if digits == 0 {
        0
    } else {
        rest[..digits]
            .parse::<usize>()
            .map_or(usize::MAX, |n| n + 1)
    };
    rebuild_pack(&text, index, qual).unwrap_or(text)
}

/// Split `s` at top-level `, ` (outside `<>`, `()`, `[]`).
fn split_top(s: &str) -> Vec<&str> {
    let (mut depth, mut last, mut out) = (0i32, 0usize, Vec::new());
    let b = s.as_bytes();
    for i in 0..b.len() {
        match b[i] {
            b'<' | b'(' | b'[' => depth += 1,
            b'>' | b')' | b']' => depth -= 1,
            b',' if depth == 0 && b.get(i + 1) == Some(&b' ') => {
                out.push(&s[last..i]);
                last = i + 2;
            }
            _ => {}
        }
    }
    out.push(&s[last..]);
    out
}

/// Index of the bracket opening the group that closes at `close` (scanning backwards).
fn matching_open(b: &[u8], close: usize, open_ch: u8, close_ch: u8) -> Option<usize> {
    let mut depth = 0i32;
    for i in (0..=close).rev() {
        if b[i] == close_ch {
            depth += 1;
        } else if b[i] == open_ch {
            depth -= 1;
            if depth == 0 {
                return Some(i);
            }
        }
    }
    None
}

fn rebuild_pack(text: &str, index: usize, qual: &str) -> Option<String> {
    let b = text.as_bytes();
    // The parameter list: the last top-level `)` (allowing a trailing ` const`, `&`, `&&`).
    let close = text.rfind(')')?;
    let open = matching_open(b, close, b'(', b')')?;
    if open == 0 || b[open - 1] != b'>' {
        return None;
    }
    let t_open = matching_open(b, open - 1, b'<', b'>')?;
    let targs_text = &text[t_open + 1..open - 1];
    let targs = if targs_text.trim().is_empty() {
        Vec::new()
    } else {
        split_top(targs_text)
    };
    if index > targs.len() {
        return None;
    }
    let elems = &targs[index..];
    let params_text = &text[open + 1..close];
    let mut params = if params_text.is_empty() {
        Vec::new()
    } else {
        split_top(params_text)
    };
    // An empty pack: cpp_demangle prints the bare qualifier as a parameter; libiberty prints none.
    if elems.is_empty()
        && params
            .last()
            .is_some_and(|p| p.trim() == qual.trim_start_matches("const"))
    {
        params.pop();
    }
    if params.len() < elems.len() {
        return None;
    }
    let fixed = &params[..params.len() - elems.len()];
    let mut new_params: Vec<String> = fixed.iter().map(|s| s.to_string()).collect();
    for e in elems {
        // libiberty writes `X<Y> >`: the space belongs to the closing bracket, not the element.
        let e = e.trim_end();
        let is_ref = e.ends_with('&') || e.contains("(&)") || e.contains("(&&)");
        let lvalue = e.ends_with('&') && !e.ends_with("&&") || e.contains("(&)");
        // array and function types would need `(&&)` inside the declarator: left alone
        let declarator = e.ends_with(']') || (e.ends_with(')') && !e.starts_with("decltype("));
        let out = match (qual, is_ref) {
            ("&&", true) => e.to_string(),
            ("&&", false) if declarator => return None,
            ("&&", false) => format!("{e}&&"),
            (_, true) if lvalue => e.to_string(),
            (_, true) if e.ends_with("&&") => format!("{}&", &e[..e.len() - 2]),
            (_, true) => return None,
            (_, false) if declarator => return None,
            ("&", false) => format!("{e}&"),
            (_, false) => format!("{e} const&"),
        };
        new_params.push(out);
    }
    Some(format!(
        "{}({}){}",
        &text[..open],
        new_params.join(", "),
        &text[close + 1..]
    ))
}

/// Inside expressions libiberty puts no parentheses around a name operand: a callee that is a
/// plain (qualified) name, `std::begin(x)`, and the operand of `!` that is a qualified name,
/// `!has_rbegin<T>::value`; cpp_demangle writes `(std::begin)(x)` and `!(has_rbegin<T>::value)`.
/// A template-id keeps them in both (`(std::declval<T>)()`, `!(std::is_same_v<A, B>)`).
fn fix_expression_parens(s: &str) -> String {
    let b = s.as_bytes();
    let mut drop = vec![false; b.len()];
    for open in 0..b.len() {
        if b[open] != b'(' || open == 0 {
            continue;
        }
        let Some(close) = matching_close(b, open) else {
            continue;
        };
        let inner = &s[open + 1..close];
        let callee =
            b[open - 1] == b'(' && b.get(close + 1) == Some(&b'(') && is_plain_name(inner, false);
        // `!(a<T>::v)` loses its parentheses; `!(v<T>)`, a template-id, keeps them.
        let negated = b[open - 1] == b'!' && is_plain_name(inner, true) && !inner.ends_with('>');
        if callee || negated {
            drop[open] = true;
            drop[close] = true;
        }
    }
    s.char_indices()
        .filter(|&(i, _)| !drop[i])
        .map(|(_, c)| c)
        .collect()
}

/// The index of the `)` closing the `(` at `open`.
fn matching_close(b: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (i, &c) in b.iter().enumerate().skip(open) {
        match c {
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// `a::b::c`, and with `templates` also `a<…>::b` (anything inside balanced angle brackets).
fn is_plain_name(s: &str, templates: bool) -> bool {
    let mut angle = 0i32;
    let mut first = true;
    for c in s.chars() {
        if angle > 0 {
            match c {
                '<' => angle += 1,
                '>' => angle -= 1,
                _ => {}
            }
            continue;
        }
        match c {
            '<' if templates && !first => angle += 1,
            c if c.is_alphanumeric() || c == '_' || c == ':' => {}
            _ => return false,
        }
        first = false;
    }
    !s.is_empty() && angle == 0 && !s.starts_with(':')
}

/// Rewrite cpp_demangle's spellings that libiberty prints differently.
fn fix_text(mut s: String) -> String {
    if s.contains(", >") {
        s = s.replace(", >", ">");
    }
    // libiberty spells the `Dn` builtin `decltype(nullptr)`; no source type mangles to `std::nullptr_t`.
    // libiberty expands the standard abbreviations in verbose mode (c++filt's default).
    for (short, long) in [
        (
            "std::string",
            "std::basic_string<char, std::char_traits<char>, std::allocator<char> >",
        ),
        (
            "std::iostream",
            "std::basic_iostream<char, std::char_traits<char> >",
        ),
        (
            "std::istream",
            "std::basic_istream<char, std::char_traits<char> >",
        ),
        (
            "std::ostream",
            "std::basic_ostream<char, std::char_traits<char> >",
        ),
    ] {
        if s.contains(short) {
            s = replace_token(&s, short, long);
        }
    }
    if s.contains("std::nullptr_t") {
        s = s.replace("std::nullptr_t", "decltype(nullptr)");
    }
    if s.contains("(int)")
        || s.contains("(unsigned ")
        || s.contains("(long")
        || s.contains("(bool)")
    {
        s = fix_literals(&s);
    }
    s
}

/// Replace `short` where it is a whole name (not followed by an identifier character).
fn replace_token(s: &str, short: &str, long: &str) -> String {
    let mut out = String::with_capacity(s.len() + long.len());
    let mut rest = s;
    while let Some(pos) = rest.find(short) {
        let end = pos + short.len();
        let whole = rest[end..]
            .chars()
            .next()
            .is_none_or(|c| !(c.is_alphanumeric() || c == '_'));
        out.push_str(&rest[..pos]);
        out.push_str(if whole { long } else { short });
        rest = &rest[end..];
        // libiberty never prints `>>`: it separates a closing bracket from the one before.
        if whole && rest.starts_with('>') {
            out.push(' ');
        }
    }
    out.push_str(rest);
    out
}

/// `(unsigned int)8` → `8u`, `(long)8` → `8l`, `(bool)1` → `true`, as libiberty's
/// `d_print_comp` prints literals of builtin integer types.
fn fix_literals(s: &str) -> String {
    const SUFFIXES: [(&str, &str); 6] = [
        ("(int)", ""),
        ("(unsigned int)", "u"),
        ("(long)", "l"),
        ("(unsigned long)", "ul"),
        ("(long long)", "ll"),
        ("(unsigned long long)", "ull"),
    ];
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    'outer: while let Some(pos) = rest.find('(') {
        let tail = &rest[pos..];
        for (cast, suffix) in SUFFIXES {
            if let Some(after) = tail.strip_prefix(cast) {
                let neg = after.starts_with('-');
                let digits = after[usize::from(neg)..]
                    .bytes()
                    .take_while(u8::is_ascii_digit)
                    .count();
                if digits > 0 {
                    let end = usize::from(neg) + digits;
                    out.push_str(&rest[..pos]);
                    out.push_str(&after[..end]);
                    out.push_str(suffix);
                    rest = &after[end..];
                    continue 'outer;
                }
            }
        }
        for (lit, text) in [("(bool)0", "false"), ("(bool)1", "true")] {
            if let Some(after) = tail.strip_prefix(lit) {
                out.push_str(&rest[..pos]);
                out.push_str(text);
                rest = after;
                continue 'outer;
            }
        }
        out.push_str(&rest[..=pos]);
        rest = &rest[pos + 1..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn special_names_use_libiberty_words() {
        assert_eq!(
            demangle("_ZTVN4llvm17GCMetadataPrinterE"),
            "vtable for llvm::GCMetadataPrinter"
        );
        assert_eq!(demangle("_ZTIN4llvm4PassE"), "typeinfo for llvm::Pass");
        assert_eq!(demangle("_ZTSN4llvm4PassE"), "typeinfo name for llvm::Pass");
        assert_eq!(
            demangle("_ZThn8_N4llvm1A1fEv"),
            "non-virtual thunk to llvm::A::f()"
        );
        assert_eq!(
            demangle("_ZTv0_n24_N4llvm1A1fEv"),
            "virtual thunk to llvm::A::f()"
        );
        assert_eq!(demangle("_ZGVZN1A1fEvE1x"), "guard variable for A::f()::x");
    }

    #[test]
    fn literals_and_packs() {
        assert_eq!(
            fix_literals("foo<(unsigned int)8, (bool)1, (long)-3>"),
            "foo<8u, true, -3l>"
        );
        assert_eq!(fix_text("A<llvm::Module, >".into()), "A<llvm::Module>");
    }

    #[test]
    fn trailing_parameter_packs_take_the_reference_per_element() {
        assert_eq!(
            demangle("_ZN4llvm12TBAAVerifier11CheckFailedIJRA51_KcPNS_11InstructionEEEEvDpOT_"),
            "void llvm::TBAAVerifier::CheckFailed<char const (&) [51], llvm::Instruction*>(char const (&) [51], llvm::Instruction*&&)"
        );
        assert_eq!(
            demangle("_ZN4llvm12hash_combineIJNS_11Instruction9BinaryOpsEPNS_5ValueES4_EEENS_9hash_codeEDpRKT_"),
            "llvm::hash_code llvm::hash_combine<llvm::Instruction::BinaryOps, llvm::Value*, llvm::Value*>(llvm::Instruction::BinaryOps const&, llvm::Value* const&, llvm::Value* const&)"
        );
        assert_eq!(
            demangle("_ZNSt5dequeIN4llvm11SmallStringILj32EEESaIS2_EE16_M_push_back_auxIJEEEvDpOT_"),
            "void std::deque<llvm::SmallString<32u>, std::allocator<llvm::SmallString<32u> > >::_M_push_back_aux<>()"
        );
    }

    #[test]
    fn function_types_and_misplaced_qualifiers() {
        assert_eq!(
            demangle("_ZN4llvm11InlinerPass13printPipelineERNS_11raw_ostreamENS_12function_refIFNS_9StringRefES4_EEE"),
            "llvm::InlinerPass::printPipeline(llvm::raw_ostream&, llvm::function_ref<llvm::StringRef (llvm::StringRef)>)"
        );
        assert_eq!(
            demangle("_ZN4llvm21RAIIDelegateInstallerC1ERNS_15MachineFunctionEPNS1_8DelegateE"),
            "llvm::RAIIDelegateInstaller::RAIIDelegateInstaller(llvm::MachineFunction&, llvm::MachineFunction::Delegate*)"
        );
    }

    #[test]
    fn expression_operands_take_libiberty_parentheses() {
        // c++filt's text: a plain callee and a qualified `!` operand lose their parentheses,
        // template-ids keep them.
        for (mangled, text) in [
            (
                "_ZN4llvm17make_filter_rangeIRNS_10BasicBlockESt8functionIFbRNS_11InstructionEEEEENS_14iterator_rangeINS_20filter_iterator_implIDTclsr3stdE5beginclsr3stdE7declvalIRT_EEEET0_NS_6detail15fwd_or_bidi_tagISC_E4typeEEEEEOSA_SD_",
                "llvm::iterator_range<llvm::filter_iterator_impl<decltype (std::begin((std::declval<llvm::BasicBlock&>)())), std::function<bool (llvm::Instruction&)>, llvm::detail::fwd_or_bidi_tag<decltype (std::begin((std::declval<llvm::BasicBlock&>)()))>::type> > llvm::make_filter_range<llvm::BasicBlock&, std::function<bool (llvm::Instruction&)> >(llvm::BasicBlock&, std::function<bool (llvm::Instruction&)>)",
            ),
            (
                "_ZN4llvm11PassManagerINS_6ModuleENS_15AnalysisManagerIS1_JEEEJEE7addPassINS_12VerifierPassEEENSt9enable_ifIXntsr3stdE9is_same_vIT_S4_EEvE4typeEOS8_",
                "std::enable_if<!(std::is_same_v<llvm::VerifierPass, llvm::PassManager<llvm::Module, llvm::AnalysisManager<llvm::Module>> >), void>::type llvm::PassManager<llvm::Module, llvm::AnalysisManager<llvm::Module>>::addPass<llvm::VerifierPass>(llvm::VerifierPass&&)",
            ),
            (
                "_ZN4llvm7reverseINS_14iterator_rangeINS_20filter_iterator_implINS_14ilist_iteratorINS_12ilist_detail12node_optionsINS_11InstructionELb0ELb0EvEELb0ELb0EEESt8functionIFbRS6_EESt26bidirectional_iterator_tagEEEEEEDaOT_PNSt9enable_ifIXntsr10has_rbeginISG_EE5valueEvE4typeE",
                "auto llvm::reverse<llvm::iterator_range<llvm::filter_iterator_impl<llvm::ilist_iterator<llvm::ilist_detail::node_options<llvm::Instruction, false, false, void>, false, false>, std::function<bool (llvm::Instruction&)>, std::bidirectional_iterator_tag> > >(llvm::iterator_range<llvm::filter_iterator_impl<llvm::ilist_iterator<llvm::ilist_detail::node_options<llvm::Instruction, false, false, void>, false, false>, std::function<bool (llvm::Instruction&)>, std::bidirectional_iterator_tag> >&&, std::enable_if<!has_rbegin<llvm::iterator_range<llvm::filter_iterator_impl<llvm::ilist_iterator<llvm::ilist_detail::node_options<llvm::Instruction, false, false, void>, false, false>, std::function<bool (llvm::Instruction&)>, std::bidirectional_iterator_tag> > >::value, void>::type*)",
            ),
        ] {
            assert_eq!(demangle(mangled), text, "{mangled}");
        }
    }

    #[test]
    fn rust_and_plain_names() {
        assert_eq!(demangle("main"), "main");
        assert_eq!(
            demangle("_ZN4core3fmt5write17h0123456789abcdefE"),
            "core::fmt::write::h0123456789abcdef"
        );
        assert_eq!(demangle("_Z"), "_Z");
    }
}

#[cfg(test)]
mod cap_tests {
    use super::*;

    /// `f(A<A, A>, A<S0_, S0_>, …)`: each parameter doubles the one before it.
    pub(crate) fn exponential(levels: usize) -> String {
        let mut name = String::from("_Z1f1AIS_S_E");
        for k in 0..levels {
            let sub = base36(k);
            name.push_str(&format!("S_IS{sub}_S{sub}_E"));
        }
        name
    }

    /// A substitution's sequence id (`S<id>_`), base 36 with upper-case digits.
    pub(crate) fn base36(mut n: usize) -> String {
        const D: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
        let mut v = Vec::new();
        loop {
            v.push(D[n % 36]);
            n /= 36;
            if n == 0 {
                break;
            }
        }
        v.reverse();
        String::from_utf8(v).unwrap_or_default()
    }

    #[test]
    fn a_small_expansion_demangles_and_a_huge_one_stays_mangled() {
        let small = exponential(2);
        let text = demangle(&small);
        assert!(
            text.starts_with("f(A<A, A>, A<A<A, A>, A<A, A> >"),
            "{text}"
        );
        assert!(!over_limit(&small));
        let huge = exponential(40);
        assert_eq!(demangle(&huge), huge.as_str());
        assert_eq!(&*demangle_shared(&Arc::from(huge.as_str())), huge.as_str());
        assert!(over_limit(&huge));
    }
}
