//! The shutter side: what each dirty bit's shutter in `Tracker.h` (`Update`) reads from the
//! context, and the member tokens those reads resolve to through the accessors' `return`s.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::body::{is_ident_text, CharBoundary};
use super::lvalue::close_fwd;
use super::{TokenSet, Writers};
use crate::lex::Parsed;

/// One read of a shutter: a context accessor, or a field of what it returns.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Reader {
    Ctx(String),
    CtxField(String, String),
}

type Assigned = HashMap<String, Vec<Vec<String>>>;

fn readers(expr: &[String], assigned: &Assigned, depth: usize, out: &mut BTreeSet<Reader>) {
    if depth > 4 {
        return;
    }
    let t = |i: usize| expr.get(i).map_or("", String::as_str);
    for i in 0..expr.len() {
        let w = t(i);
        if !is_ident_text(w) {
            continue;
        }
        if matches!(t(i + 1), "." | "->")
            && is_ident_text(t(i + 2))
            && t(i + 3) == "("
            && (w == "ctx" || t(i + 1) == "->")
        {
            out.insert(Reader::Ctx(t(i + 2).to_string()));
        } else if w != "now" && w != "dirty" && (i == 0 || !matches!(t(i - 1), "." | "->")) {
            if let Some(defs) = assigned.get(w) {
                if matches!(t(i + 1), "." | "->") && is_ident_text(t(i + 2)) && t(i + 3) != "(" {
                    let field = t(i + 2).to_string();
                    let mut inner = BTreeSet::new();
                    for d in defs {
                        readers(d, assigned, depth + 1, &mut inner);
                    }
                    for r in inner {
                        out.insert(match r {
                            Reader::Ctx(x) => Reader::CtxField(x, field.clone()),
                            other => other,
                        });
                    }
                } else {
                    for d in defs {
                        readers(d, assigned, depth + 1, out);
                    }
                }
            }
        }
    }
}

/// The shutter of each enumerator (`Tracker.h` lexed and scoped): its readers, or None when
/// nothing could be read.
pub(super) fn shutters_parsed(
    tracker: &str,
    p: &Parsed,
) -> Option<BTreeMap<String, BTreeSet<Reader>>> {
    let toks = &p.lx.tokens;
    let f = p.funcs.iter().find(|f| {
        f.short() == "Update" && {
            let start = toks[f.open].start as usize;
            let lo = start.saturating_sub(200);
            let lo = tracker.floor_char_boundary_compat(lo);
            tracker[lo..start].contains("Uint32 Update(")
        }
    })?;
    let tx: Vec<String> = (f.open + 1..f.close.min(toks.len()))
        .map(|k| p.lx.text(tracker, &toks[k]).to_string())
        .collect();
    let t = |i: usize| tx.get(i).map_or("", String::as_str);
    let mut assigned: Assigned = HashMap::new();
    for i in 0..tx.len() {
        if is_ident_text(t(i)) && t(i + 1) == "=" && (i == 0 || !matches!(t(i - 1), "." | "->")) {
            let expr: Vec<String> = tx[i + 2..]
                .iter()
                .take_while(|s| *s != ";")
                .cloned()
                .collect();
            assigned.entry(t(i).to_string()).or_default().push(expr);
        }
    }
    let mut out: BTreeMap<String, BTreeSet<Reader>> = BTreeMap::new();
    let mut prev_or_end = 0usize;
    for i in 0..tx.len() {
        // now[Index(MGPipeDirty::E)] = expr;
        if t(i) == "now"
            && t(i + 1) == "["
            && t(i + 2) == "Index"
            && t(i + 4) == "MGPipeDirty"
            && t(i + 5) == "::"
            && t(i + 7) == ")"
            && t(i + 8) == "]"
            && t(i + 9) == "="
        {
            let expr: Vec<String> = tx[i + 10..]
                .iter()
                .take_while(|s| *s != ";")
                .cloned()
                .collect();
            readers(
                &expr,
                &assigned,
                0,
                out.entry(t(i + 6).to_string()).or_default(),
            );
        }
        if t(i) == "dirty" && t(i + 1) == "|=" {
            let is_bit =
                t(i + 2) == "MGPipeDirtyBit" && t(i + 4) == "MGPipeDirty" && t(i + 5) == "::";
            if is_bit {
                let last_brace = (0..i).rev().find(|&k| t(k) == "}").map_or(0, |k| k + 1);
                let lo = prev_or_end.max(last_brace);
                readers(
                    &tx[lo..i],
                    &assigned,
                    0,
                    out.entry(t(i + 6).to_string()).or_default(),
                );
            }
            prev_or_end = (i..tx.len())
                .find(|&k| t(k) == ";")
                .map_or(tx.len(), |k| k + 1);
        }
    }
    if out.is_empty() {
        None
    } else {
        Some(out)
    }
}

fn split_arms(expr: &[String]) -> Vec<&[String]> {
    let mut depth = 0i32;
    let mut cuts = Vec::new();
    let mut has_q = false;
    for (i, s) in expr.iter().enumerate() {
        match s.as_str() {
            "(" | "[" | "{" => depth += 1,
            ")" | "]" | "}" => depth -= 1,
            "?" if depth == 0 => {
                has_q = true;
                cuts.push(i);
            }
            ":" if depth == 0 && has_q => cuts.push(i),
            _ => {}
        }
    }
    if cuts.is_empty() {
        return vec![expr];
    }
    let mut arms = Vec::new();
    for (k, &c) in cuts.iter().enumerate() {
        let end = cuts.get(k + 1).copied().unwrap_or(expr.len());
        arms.push(&expr[c + 1..end]);
    }
    arms
}

/// `[*|&] [this->] m_x (.f | ->f | [..])*` and nothing else.
fn plain_member_lvalue(arm: &[String]) -> Option<(String, Option<String>)> {
    let mut i = 0;
    while i < arm.len() && matches!(arm[i].as_str(), "*" | "&" | "(") {
        i += 1;
    }
    let mut end = arm.len();
    while end > i && arm[end - 1] == ")" {
        end -= 1;
    }
    if i + 1 < end && arm[i] == "this" && arm[i + 1] == "->" {
        i += 2;
    }
    let root = arm.get(i)?;
    if !root.starts_with("m_") {
        return None;
    }
    let mut first = None;
    let mut k = i + 1;
    while k < end {
        match arm[k].as_str() {
            "." | "->" if k + 1 < end && is_ident_text(&arm[k + 1]) => {
                if first.is_none() {
                    first = Some(arm[k + 1].clone());
                }
                k += 2;
            }
            "[" => {
                k = close_fwd(|x| arm[x].as_str(), k, end);
                k += 1;
            }
            _ => return None,
        }
    }
    Some((root.clone(), first))
}

fn resolve_accessor(
    w: &Writers,
    name: &str,
    depth: usize,
    seen: &mut BTreeSet<String>,
) -> TokenSet {
    let mut out = TokenSet::new();
    if depth > 4 || !seen.insert(name.to_string()) {
        return out;
    }
    for expr in w.returns.get(name).into_iter().flatten() {
        for arm in split_arms(expr) {
            if let Some((m, f)) = plain_member_lvalue(arm) {
                out.insert(format!("MEM:{m}"));
                out.insert(format!("FIELD:{m}.{}", f.as_deref().unwrap_or("*")));
                continue;
            }
            for i in 0..arm.len() {
                if arm[i].starts_with("m_") {
                    if arm.get(i + 1).is_some_and(|s| s == ".")
                        && arm.get(i + 3).is_some_and(|s| s == "(")
                    {
                        let inner = resolve_accessor(w, &arm[i + 2], depth + 1, seen);
                        out.extend(inner);
                    } else {
                        out.insert(format!("MEM:{}", arm[i]));
                    }
                }
            }
        }
    }
    out
}

/// The member tokens a shutter's reads resolve to (`None`: one read resolves to nothing).
pub(super) fn resolve_shutter(w: &Writers, readers: &BTreeSet<Reader>) -> Option<TokenSet> {
    let mut all = TokenSet::new();
    for r in readers {
        let got = match r {
            Reader::Ctx(x) => resolve_accessor(w, x, 0, &mut BTreeSet::new()),
            Reader::CtxField(x, f) => resolve_accessor(w, x, 0, &mut BTreeSet::new())
                .into_iter()
                .map(|t| {
                    if t.starts_with("FIELD:") && t.ends_with(".*") {
                        format!("{}.{f}", &t[..t.len() - 2])
                    } else {
                        t
                    }
                })
                .collect(),
        };
        if got.is_empty() {
            return None;
        }
        all.extend(got);
    }
    (!all.is_empty()).then_some(all)
}
