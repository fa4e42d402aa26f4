//! What one body writes itself: the member tokens of every write (assignment, increment, a
//! non-const method call, a bulk call's argument), the taints where a write cannot be placed,
//! and the names it calls.

use super::body::{Body, CharBoundary};
use super::locals::{declared_locals, resolve_alias, Binding, Locals, NOT_TYPES};
use super::lvalue::{call_result_lvalue, lvalue_after, lvalue_after_end, lvalue_before};
use super::lvalue::{Lvalue, MethodCall};
use super::upstream_macros::Macros;
use super::TokenSet;
use crate::fast::FastSet;
use crate::scope::Function;

/// Methods that do not write their object.
const CONST_METHODS: [&str; 15] = [
    "size", "empty", "begin", "end", "cbegin", "cend", "rbegin", "rend", "capacity", "max_size",
    "length", "c_str", "count", "contains", "find",
];
const ASSIGN_OPS: [&str; 11] = [
    "=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=",
];

/// What one body writes itself.
pub(super) struct Own<'b> {
    pub(super) tokens: TokenSet,
    pub(super) taints: Vec<String>,
    /// Every call's name, repeats included.
    pub(super) callees: Vec<&'b str>,
}

fn member_tokens(out: &mut TokenSet, member: &str, path: &[&str]) {
    out.insert(format!("MEM:{member}"));
    out.insert(format!(
        "FIELD:{member}.{}",
        path.first().copied().unwrap_or("*")
    ));
}

/// Credit a write through `lv` at `site` (`what` it does, for a taint's message).
fn credit<'b>(
    b: &'b Body<'_>,
    l: &Locals<'b>,
    site: &str,
    what: &str,
    lv: &Lvalue<'_>,
    own: &mut Own<'_>,
) {
    let (path, through) = (&lv.path[..], lv.through);
    let r = b.t(lv.root);
    if r.starts_with("m_") {
        member_tokens(&mut own.tokens, r, path);
    } else if l.aliases.contains_key(r) {
        let ro = l
            .aliases
            .get(r)
            .is_some_and(|v| v.iter().all(|a| a.read_only));
        if ro && !through {
            return;
        }
        for bind in resolve_alias(b, l, r, &mut FastSet::default()) {
            match bind {
                Binding::Member(m, mut p) => {
                    p.extend(path.iter().copied());
                    member_tokens(&mut own.tokens, m, &p);
                }
                Binding::Local => {}
                Binding::Unresolvable => {
                    own.taints.push(format!("{site} {what} through '{r}', which is bound to something this script cannot resolve to a member"))
                }
            }
        }
    } else if l.ref_params.contains(r) {
        own.taints.push(format!(
            "{site} {what} through its reference parameter '{r}'"
        ));
    } else if l.values.contains(r) {
        // A value local written directly is the function's own business.
    } else if r != "this" {
        own.taints.push(format!(
            "{site} {what} '{r}', which it never declares - a member without the m_ prefix, a global, or a call result; none of which this script can place"
        ));
    }
}

pub(super) fn analyse_body<'b>(
    b: &'b Body<'_>,
    f: &Function,
    rel: &str,
    macros: &Macros<'_>,
) -> Own<'b> {
    let l = declared_locals(b);
    let site = format!("{}()", f.short());
    let mut own = Own {
        tokens: TokenSet::new(),
        taints: Vec::new(),
        callees: Vec::new(),
    };
    let mut claimed: FastSet<usize> = FastSet::default();
    let mut k = b.lo + 1;
    while k < b.hi {
        let w = b.t(k);
        if ASSIGN_OPS.contains(&w) {
            // A declaration initialiser (`int a = 1`, `auto& r = m_x`) is not a write.
            let is_decl = k >= 2
                && b.is_ident(k - 1)
                && (l.values.contains(b.t(k - 1)) || l.aliases.contains_key(b.t(k - 1)))
                && {
                    let pv = b.t(k - 2);
                    (b.is_ident(k - 2) && !NOT_TYPES.contains(&pv))
                        || matches!(pv, ">" | "&" | "&&" | "*")
                };
            // Designated initialisers `{.f = v`.
            let designated =
                k >= 2 && b.t(k - 2) == "." && matches!(b.t(k.saturating_sub(3)), "{" | ",");
            if is_decl || designated {
                claimed.insert(k);
            } else if let Some(lv) = lvalue_before(b, k) {
                claimed.insert(k);
                // A pointer alias rebinding (`p = &m_x;`) is a new binding, not a write.
                if !(lv.path.is_empty()
                    && !lv.through
                    && l.aliases.get(b.t(lv.root)).is_some_and(|v| !v.is_empty())
                    && w == "=")
                {
                    credit(b, &l, &site, "writes", &lv, &mut own);
                }
            } else if b.t(k - 1) == ")" {
                // `m_x.method(...) = v`: a write through what a method of the lvalue returns.
                if let Some(MethodCall { lvalue, method }) = call_result_lvalue(b, k - 1) {
                    claimed.insert(k);
                    let what = format!("writes through {method}()");
                    credit(b, &l, &site, &what, &lvalue, &mut own);
                }
            }
        } else if matches!(w, "++" | "--") {
            if let Some(lv) = lvalue_before(b, k).filter(|_| b.is_ident(k - 1) || b.t(k - 1) == "]")
            {
                credit(b, &l, &site, "writes", &lv, &mut own);
            } else if let Some(lv) = lvalue_after(b, k + 1, b.hi) {
                credit(b, &l, &site, "writes", &lv, &mut own);
            }
        } else if b.is_ident(k) && b.t(k + 1) == "(" {
            if matches!(w, "memcpy" | "memmove" | "memset" | "swap") {
                let args = split_args(b, k + 1);
                let which: Vec<&(usize, usize)> = if w == "swap" {
                    args.iter().take(2).collect()
                } else {
                    args.iter().take(1).collect()
                };
                for &&(lo, hi) in &which {
                    match lvalue_after(b, lo, hi) {
                        Some(lv) if lvalue_after_end(b, lo, hi) >= hi => {
                            let lv = Lvalue {
                                through: lv.through || b.t(lo) == "&",
                                ..lv
                            };
                            credit(b, &l, &site, &format!("passes to {w}()"), &lv, &mut own);
                        }
                        _ => {
                            let s: String = b.snippet(lo, hi).chars().take(40).collect();
                            own.taints.push(format!("{site} passes '{s}' to {w}(), which this script cannot resolve to an lvalue"));
                        }
                    }
                }
            } else if k > b.lo && matches!(b.t(k - 1), "." | "->") {
                if !CONST_METHODS.contains(&w) {
                    if let Some(lv) = lvalue_before(b, k - 1) {
                        let r = b.t(lv.root);
                        if r.starts_with("m_")
                            || l.aliases.contains_key(r)
                            || l.ref_params.contains(r)
                        {
                            credit(b, &l, &site, &format!("calls {w}()"), &lv, &mut own);
                        }
                    }
                }
                own.callees.push(w);
            } else if w == "MGP_NOTE_AGGREGATE" && b.is_ident(k + 2) {
                own.tokens.insert(format!("AGG:{}", b.t(k + 2)));
            } else if macros.refused_pasting.contains(w) {
                own.taints.push(format!(
                    "{rel}: {w}(), a token-pasting macro this script refused to expand"
                ));
            } else if !cpp_lex::keywords::is_not_call(w) {
                own.callees.push(w);
            }
        } else if w == "##" {
            own.taints.push(format!(
                "{rel}: a `##` token paste no visible macro definition expands"
            ));
        }
        k += 1;
    }
    // Coverage: an assignment no rule claimed taints the body once.
    if let Some(k) = (b.lo..b.hi)
        .filter(|&k| ASSIGN_OPS.contains(&b.t(k)))
        .find(|k| !claimed.contains(k))
    {
        let off = b.toks[k].start as usize;
        let lo = b.src.floor_char_boundary_compat(off.saturating_sub(24));
        let hi = b.src.floor_char_boundary_compat((off + 8).min(b.src.len()));
        let snippet = b.src[lo..hi].replace('\n', " ");
        own.taints.push(format!("{site} has an assignment at offset {off} this script could not attribute to any lvalue ({snippet})"));
    }
    own
}

/// Depth-0 argument token ranges of the call whose `(` is at `open`.
fn split_args(b: &Body<'_>, open: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut depth = 0;
    let mut start = open + 1;
    let mut k = open;
    while k < b.hi {
        match b.t(k) {
            "(" | "[" | "{" => depth += 1,
            ")" | "]" | "}" => {
                depth -= 1;
                if depth == 0 {
                    if k > start {
                        out.push((start, k));
                    }
                    break;
                }
            }
            "," if depth == 1 => {
                out.push((start, k));
                start = k + 1;
            }
            _ => {}
        }
        k += 1;
    }
    out
}
