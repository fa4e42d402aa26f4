//! Lvalue chains in a body: `[*]* [this->] root (.f | ->f | [..])*`, read back from a write
//! (`x = …`, `x++`) or forward from where one starts (`++x`, a bulk call's argument).

use super::body::Body;

/// An lvalue chain: its root token, the member names below it (subscripts dropped), and
/// whether it goes through a pointer (`*p`, `p->x`).
pub(super) struct Lvalue<'b> {
    pub(super) root: usize,
    pub(super) path: Vec<&'b str>,
    pub(super) through: bool,
}

/// `lvalue.method(...)`: the lvalue and the method called on it.
pub(super) struct MethodCall<'b> {
    pub(super) lvalue: Lvalue<'b>,
    pub(super) method: &'b str,
}

/// The lvalue chain ending just before `end`.
pub(super) fn lvalue_before<'b>(b: &'b Body<'_>, end: usize) -> Option<Lvalue<'b>> {
    let mut j = end;
    let mut path_rev: Vec<&'b str> = Vec::new();
    let mut through = false;
    loop {
        if j <= b.lo {
            return None;
        }
        let k = j - 1;
        match b.t(k) {
            "]" => {
                let m = open_back(b, k, "[", "]")?;
                path_rev.push("");
                j = m;
            }
            _ if b.is_ident(k) => {
                if k > b.lo && matches!(b.t(k - 1), "." | "->") {
                    if b.t(k - 1) == "->" {
                        through = true;
                    }
                    path_rev.push(b.t(k));
                    j = k - 1;
                } else {
                    let mut start = k;
                    let mut root = k;
                    // `this->m_x`: the member is the root.
                    if b.t(k) == "this" && path_rev.pop().is_some() {
                        root = k + 2;
                        through = false;
                    }
                    while start > b.lo
                        && b.t(start - 1) == "*"
                        && !(start >= b.lo + 2 && (b.is_ident(start - 2) || b.t(start - 2) == ")"))
                    {
                        through = true;
                        start -= 1;
                    }
                    path_rev.reverse();
                    let path: Vec<&str> = path_rev.into_iter().filter(|s| !s.is_empty()).collect();
                    return Some(Lvalue {
                        root,
                        path,
                        through,
                    });
                }
            }
            ")" => {
                // `(*p).x` / `(*p) =`
                let m = open_back(b, k, "(", ")")?;
                if m + 3 == k && b.t(m + 1) == "*" && b.is_ident(m + 2) {
                    path_rev.reverse();
                    return Some(Lvalue {
                        root: m + 2,
                        path: path_rev.into_iter().filter(|s| !s.is_empty()).collect(),
                        through: true,
                    });
                }
                return None;
            }
            _ => return None,
        }
    }
}

/// The `open` matching the `close` token at `from`, searching back to the body start.
fn open_back(b: &Body<'_>, from: usize, open: &str, close: &str) -> Option<usize> {
    let mut depth = 0;
    let mut m = from;
    loop {
        let w = b.t(m);
        if w == close {
            depth += 1;
        } else if w == open {
            depth -= 1;
            if depth == 0 {
                return Some(m);
            }
        }
        if m <= b.lo {
            return None;
        }
        m -= 1;
    }
}

/// The `]` matching the `[` at `from` (or `hi`).
pub(super) fn close_fwd<'a>(t: impl Fn(usize) -> &'a str, from: usize, hi: usize) -> usize {
    let mut depth = 0;
    let mut i = from;
    while i < hi {
        match t(i) {
            "[" => depth += 1,
            "]" => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            _ => {}
        }
        i += 1;
    }
    i
}

/// `lvalue.method(...)` ending at the `)` at `close`.
pub(super) fn call_result_lvalue<'b>(b: &'b Body<'_>, close: usize) -> Option<MethodCall<'b>> {
    let m = open_back(b, close, "(", ")")?;
    if m < 2 || !b.is_ident(m - 1) || !matches!(b.t(m - 2), "." | "->") {
        return None;
    }
    Some(MethodCall {
        lvalue: lvalue_before(b, m - 2)?,
        method: b.t(m - 1),
    })
}

/// An lvalue chain starting at `start` (for pre-increment and bulk-call arguments); where it
/// ends is [`lvalue_after_end`].
pub(super) fn lvalue_after<'b>(b: &'b Body<'_>, start: usize, hi: usize) -> Option<Lvalue<'b>> {
    let mut i = start;
    let mut through = false;
    while i < hi && matches!(b.t(i), "*" | "&" | "(") {
        if b.t(i) == "*" {
            through = true;
        }
        i += 1;
    }
    if !b.is_ident(i) {
        return None;
    }
    let mut root = i;
    let mut path = Vec::new();
    i += 1;
    if b.t(root) == "this" && b.t(i) == "->" && b.is_ident(i + 1) {
        root = i + 1;
        i += 2;
    }
    while i < hi {
        match b.t(i) {
            "." | "->" if b.is_ident(i + 1) && b.t(i + 2) != "(" => {
                if b.t(i) == "->" {
                    through = true;
                }
                path.push(b.t(i + 1));
                i += 2;
            }
            "[" => {
                i = close_fwd(|x| b.t(x), i, hi);
                i += 1;
            }
            _ => break,
        }
    }
    Some(Lvalue {
        root,
        path,
        through,
    })
}

/// Where the lvalue starting at `lo` ends (to check an initialiser is nothing but an lvalue).
pub(super) fn lvalue_after_end(b: &Body<'_>, lo: usize, hi: usize) -> usize {
    let mut i = lo;
    while i < hi && matches!(b.t(i), "*" | "&" | "(") {
        i += 1;
    }
    i += 1;
    while i < hi {
        match b.t(i) {
            "." | "->" if b.is_ident(i + 1) => i += 2,
            "[" => {
                i = close_fwd(|x| b.t(x), i, hi);
                i += 1;
            }
            ")" => i += 1,
            _ => break,
        }
    }
    i
}
