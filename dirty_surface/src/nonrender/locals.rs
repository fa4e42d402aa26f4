//! What each name a body writes through is bound to: a value local, a reference or pointer
//! parameter, or an alias (`auto& s = m_x[i];`) resolved back to the member it names.

use super::body::Body;
use super::lvalue::{lvalue_after, lvalue_after_end, Lvalue};
use crate::fast::{FastMap, FastSet};

/// Words that, before a name, do not make it a declaration's type.
pub(super) const NOT_TYPES: [&str; 12] = [
    "return",
    "case",
    "else",
    "delete",
    "new",
    "throw",
    "co_return",
    "goto",
    "do",
    "sizeof",
    "typename",
    "operator",
];

/// What an alias is bound to.
#[derive(Debug, Clone)]
pub(super) enum Binding<'b> {
    Member(&'b str, Vec<&'b str>),
    Local,
    Unresolvable,
}

/// One binding of a reference or pointer local.
pub(super) struct Alias {
    /// The initialiser's tokens (an `&` in front dropped).
    init: Vec<usize>,
    /// Bound through `const` (and not a pointer): writing through it is not possible.
    pub(super) read_only: bool,
}

/// The names a body declares.
pub(super) struct Locals<'b> {
    pub(super) values: FastSet<&'b str>,
    pub(super) ref_params: FastSet<&'b str>,
    /// Every binding of each reference or pointer local.
    pub(super) aliases: FastMap<&'b str, Vec<Alias>>,
}

pub(super) fn declared_locals<'b>(b: &'b Body<'_>) -> Locals<'b> {
    let params = b.params;
    let mut l = Locals {
        values: FastSet::default(),
        ref_params: FastSet::default(),
        aliases: FastMap::default(),
    };
    // Parameters: split at depth-0 commas; the last identifier is the name.
    let mut depth = 0;
    let mut seg: Vec<usize> = Vec::new();
    let flush = |seg: &mut Vec<usize>, l: &mut Locals<'b>| {
        let name = seg
            .iter()
            .rev()
            .find(|&&k| {
                b.is_ident(k) && !matches!(b.t(k), "const" | "int" | "float" | "bool" | "unsigned")
            })
            .copied();
        if let Some(n) = name {
            let is_ref = seg
                .iter()
                .any(|&k| matches!(b.t(k), "&" | "&&" | "*" | "["));
            if is_ref {
                l.ref_params.insert(b.t(n));
            } else {
                l.values.insert(b.t(n));
            }
        }
        seg.clear();
    };
    for k in params.0..params.1 {
        match b.t(k) {
            "(" | "<" | "[" => depth += 1,
            ")" | ">" | "]" => depth -= 1,
            "," if depth == 0 => {
                flush(&mut seg, &mut l);
                continue;
            }
            _ => {}
        }
        seg.push(k);
    }
    flush(&mut seg, &mut l);
    // Local declarations: `Type [mark] name (= | { | ; | ( | [ | :)`.
    for k in b.lo + 1..b.hi {
        if !b.is_ident(k) || !matches!(b.t(k + 1), "=" | "{" | ";" | "(" | "[" | ":") {
            continue;
        }
        let prev = b.t(k - 1);
        let mark = matches!(prev, "&" | "&&" | "*");
        let type_end = if mark { k - 1 } else { k };
        let tp = type_end - 1;
        let is_type = (b.is_ident(tp) && !NOT_TYPES.contains(&b.t(tp)))
            || b.t(tp) == ">"
            || (mark && b.t(tp) == "const");
        if !is_type
            || (b.is_ident(tp) && b.t(tp - 1) == ".")
            || (b.is_ident(tp) && b.t(tp - 1) == "->")
        {
            continue;
        }
        // `a * b;` at statement level is rare; `x & y (` is a call; accept the C++ reading.
        let name = b.t(k);
        let ro = (b.lo..k).rev().take(6).any(|j| b.t(j) == "const");
        let init: Vec<usize> = match b.t(k + 1) {
            "=" | ":" => initialiser(b, k + 2, &[";", ")", "{"]),
            "{" | "(" => initialiser(b, k + 2, &["}", ")", ";"]),
            _ => Vec::new(),
        };
        let addr = init.first().is_some_and(|&j| b.t(j) == "&");
        if mark || addr {
            let init = if addr { init[1..].to_vec() } else { init };
            l.aliases.entry(name).or_default().push(Alias {
                init,
                read_only: ro && prev != "*",
            });
        } else {
            l.values.insert(name);
        }
    }
    l
}

/// The tokens of an initialiser from `from` up to the first `stops` token outside brackets, so a
/// subscript by any expression (`m_a[Index(face)]`, as upstream's stencil setters bind their
/// alias) stays whole; a closing bracket at depth 0 ends it too.
fn initialiser(b: &Body<'_>, from: usize, stops: &[&str]) -> Vec<usize> {
    let mut depth = 0usize;
    let mut out = Vec::new();
    for j in from..b.hi {
        let t = b.t(j);
        if depth == 0 && (stops.contains(&t) || matches!(t, ")" | "]" | "}")) {
            break;
        }
        match t {
            "(" | "[" | "{" => depth += 1,
            ")" | "]" | "}" => depth -= 1,
            _ => {}
        }
        out.push(j);
    }
    out
}

pub(super) fn resolve_alias<'b>(
    b: &'b Body<'_>,
    l: &Locals<'b>,
    name: &'b str,
    seen: &mut FastSet<&'b str>,
) -> Vec<Binding<'b>> {
    if !seen.insert(name) {
        return vec![Binding::Unresolvable];
    }
    let mut out = Vec::new();
    for Alias { init, .. } in l.aliases.get(name).into_iter().flatten() {
        if init.is_empty() || init.len() == 1 && matches!(b.t(init[0]), "nullptr" | "NULL" | "0") {
            continue;
        }
        let lo = init[0];
        let hi = init[init.len() - 1] + 1;
        match lvalue_after(b, lo, hi) {
            Some(Lvalue { root, path, .. }) if lvalue_after_end(b, lo, hi) == hi => {
                let r = b.t(root);
                if r.starts_with("m_") {
                    out.push(Binding::Member(r, path));
                } else if l.aliases.contains_key(r) {
                    for inner in resolve_alias(b, l, r, seen) {
                        out.push(match inner {
                            Binding::Member(m, mut p) => {
                                p.extend(path.iter().cloned());
                                Binding::Member(m, p)
                            }
                            other => other,
                        });
                    }
                } else if l.values.contains(r) {
                    out.push(Binding::Local);
                } else {
                    out.push(Binding::Unresolvable);
                }
            }
            _ => out.push(Binding::Unresolvable),
        }
    }
    out
}
