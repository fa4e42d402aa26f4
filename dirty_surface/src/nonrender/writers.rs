//! The writer side: every body of the analysed files analysed once ([`super::writes`]), then
//! joined over the call graph (calls resolved by name) and the aggregate notes to what each
//! function name writes transitively.

use std::collections::BTreeSet;

use super::body::{body_of, File};
use super::upstream_macros::collect_macros;
use super::writes::analyse_body;
use super::{TokenSet, Unit};
use crate::fast::{FastMap, FastSet};
use crate::lex::{parse, Parsed};

/// The writer side: per function name, what it writes transitively.
#[derive(Debug, Default)]
pub struct Writers {
    pub own_taint: BTreeSet<String>,
    pub bodies: usize,
    /// Accessor bodies: per name, the token texts of each `return` expression.
    pub(super) returns: FastMap<String, Vec<Vec<String>>>,
    /// Every token a body writes, sorted; `sets` holds bits over it.
    universe: Vec<String>,
    /// u64 words per set.
    words: usize,
    /// Function name → its set (`sets[i * words..(i + 1) * words]`).
    names: FastMap<String, usize>,
    sets: Vec<u64>,
}

impl Writers {
    fn ids(&self, name: &str) -> Option<impl Iterator<Item = usize> + '_> {
        let i = *self.names.get(name)?;
        let set = self.sets.get(i * self.words..(i + 1) * self.words)?;
        Some(set.iter().enumerate().flat_map(|(k, &word)| {
            (0..64)
                .filter(move |b| word & (1u64 << b) != 0)
                .map(move |b| k * 64 + b)
        }))
    }

    /// What the function `name` writes, transitively (`None`: no body of that name).
    pub fn tokens(&self, name: &str) -> Option<TokenSet> {
        Some(
            self.ids(name)?
                .filter_map(|i| self.universe.get(i).cloned())
                .collect(),
        )
    }

    /// Whether `name`'s set holds a TAINT.
    pub(super) fn tainted(&self, name: &str) -> bool {
        self.ids(name).is_some_and(|mut it| {
            it.any(|i| {
                self.universe
                    .get(i)
                    .is_some_and(|t| t.starts_with("TAINT:"))
            })
        })
    }
}

/// Analyse the write-analysis files: own tokens, taints, call graph fixed point, aggregates.
pub fn writers(units: &[Unit<'_>]) -> Writers {
    let parsed: Vec<Parsed> = {
        use rayon::prelude::*;
        units.par_iter().map(|u| parse(u.text)).collect()
    };
    let refs: Vec<&Parsed> = parsed.iter().collect();
    writers_parsed(units, &refs)
}

/// [`writers`] over files already lexed and scoped (`parsed[i]` is `units[i]`'s).
pub(crate) fn writers_parsed(units: &[Unit<'_>], parsed: &[&Parsed]) -> Writers {
    let files: Vec<File<'_>> = units
        .iter()
        .zip(parsed)
        .map(|(u, p)| File { src: u.text, p })
        .collect();
    let macros = collect_macros(&files);
    let mut w = Writers::default();
    let mut own: FastMap<&str, TokenSet> = FastMap::default();
    let mut order: Vec<&str> = Vec::new();
    let mut calls: FastMap<&str, FastSet<String>> = FastMap::default();
    let mut agg_calls: FastMap<String, FastSet<String>> = FastMap::default();
    for (p, u) in files.iter().zip(units) {
        for f in &p.p.funcs {
            w.bodies += 1;
            let name = f.short();
            let b = body_of(p, f, &macros);
            let o = analyse_body(&b, f, u.rel, &macros);
            let e = own.entry(name).or_insert_with(|| {
                order.push(name);
                TokenSet::new()
            });
            e.extend(o.tokens);
            if !o.taints.is_empty() {
                w.own_taint.insert(name.to_string());
            }
            e.extend(o.taints.into_iter().map(|t| format!("TAINT:{t}")));
            let cs = calls.entry(name).or_default();
            for c in o.callees {
                if !cs.contains(c) {
                    cs.insert(c.to_string());
                }
            }
            // Accessor returns.
            let mut k = b.lo;
            while k < b.hi {
                if b.t(k) == "return" {
                    let expr: Vec<String> = (k + 1..b.hi)
                        .take_while(|&j| b.t(j) != ";")
                        .map(|j| b.t(j).to_string())
                        .collect();
                    w.returns.entry(name.to_string()).or_default().push(expr);
                }
                k += 1;
            }
            if name == "MGPipeNoteAggregate" {
                for k in b.lo..b.hi {
                    if b.t(k) == "case"
                        && b.t(k + 1) == "MGPipeAggregate"
                        && b.t(k + 2) == "::"
                        && b.t(k + 4) == ":"
                    {
                        let agg = b.t(k + 3).to_string();
                        let set = agg_calls.entry(agg).or_default();
                        for j in k + 5..b.hi {
                            if b.t(j) == ";" {
                                break;
                            }
                            if b.is_ident(j) && b.t(j + 1) == "(" {
                                set.insert(b.t(j).to_string());
                            }
                        }
                    }
                }
            }
        }
    }
    fixed_point(&mut w, &order, &own, &calls, &agg_calls);
    w
}

/// The call-graph fixed point (calls resolved by name to every body of that name): a name
/// writes what it writes itself, what every callee writes, and, for each aggregate it notes,
/// what the aggregate's note calls write (their own aggregate notes excepted). Sets are bit
/// sets over the sorted universe of tokens, so a union is a few word ORs instead of string
/// copies, and a set read back in index order is in string order.
fn fixed_point(
    w: &mut Writers,
    order: &[&str],
    own: &FastMap<&str, TokenSet>,
    calls: &FastMap<&str, FastSet<String>>,
    agg_calls: &FastMap<String, FastSet<String>>,
) {
    let universe: BTreeSet<&str> = own.values().flatten().map(String::as_str).collect();
    let id: FastMap<&str, usize> = universe.iter().enumerate().map(|(i, t)| (*t, i)).collect();
    let index: FastMap<&str, usize> = order.iter().enumerate().map(|(i, n)| (*n, i)).collect();
    let words = universe.len().div_ceil(64).max(1);
    let mut sets = vec![0u64; order.len() * words];
    for (n, name) in order.iter().enumerate() {
        for t in own.get(name).into_iter().flatten() {
            if let Some(&i) = id.get(t.as_str()) {
                sets[n * words + i / 64] |= 1 << (i % 64);
            }
        }
    }
    let callees: Vec<Vec<usize>> = order
        .iter()
        .map(|n| {
            let mut v: Vec<usize> = calls
                .get(n)
                .into_iter()
                .flatten()
                .filter(|c| c.as_str() != *n)
                .filter_map(|c| index.get(c.as_str()).copied())
                .collect();
            v.sort_unstable();
            v
        })
        .collect();
    // Per token id: the names an `AGG:x` token pulls in (empty for every other token).
    let mut not_agg = vec![u64::MAX; words];
    let mut agg_targets: Vec<(usize, Vec<usize>)> = Vec::new();
    for (i, t) in universe.iter().enumerate() {
        if let Some(a) = t.strip_prefix("AGG:") {
            not_agg[i / 64] &= !(1 << (i % 64));
            let mut v: Vec<usize> = agg_calls
                .get(a)
                .into_iter()
                .flatten()
                .filter_map(|c| index.get(c.as_str()).copied())
                .collect();
            v.sort_unstable();
            agg_targets.push((i, v));
        }
    }
    let mut add = vec![0u64; words];
    for _ in 0..16 {
        let mut changed = false;
        for n in 0..order.len() {
            add.iter_mut().for_each(|x| *x = 0);
            for &c in &callees[n] {
                for (a, s) in add.iter_mut().zip(&sets[c * words..(c + 1) * words]) {
                    *a |= s;
                }
            }
            for (i, targets) in &agg_targets {
                if sets[n * words + i / 64] & (1 << (i % 64)) == 0 {
                    continue;
                }
                for &c in targets {
                    for ((a, s), m) in add
                        .iter_mut()
                        .zip(&sets[c * words..(c + 1) * words])
                        .zip(&not_agg)
                    {
                        *a |= s & m;
                    }
                }
            }
            for (s, a) in sets[n * words..(n + 1) * words].iter_mut().zip(&add) {
                changed |= *a & !*s != 0;
                *s |= a;
            }
        }
        if !changed {
            break;
        }
    }
    w.universe = universe.into_iter().map(String::from).collect();
    w.words = words;
    w.names = index.into_iter().map(|(n, i)| (n.to_string(), i)).collect();
    w.sets = sets;
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    /// The string-set fixed point the bit-set one replaced (the original loop, kept as the
    /// reference): Gauss-Seidel over the names, at most 16 rounds.
    fn fixed_point_reference(
        own: &FastMap<&str, TokenSet>,
        calls: &FastMap<&str, FastSet<String>>,
        agg_calls: &FastMap<String, FastSet<String>>,
    ) -> HashMap<String, TokenSet> {
        let mut tokens: HashMap<String, TokenSet> = own
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect();
        for _ in 0..16 {
            let mut changed = false;
            let names: Vec<String> = tokens.keys().cloned().collect();
            for n in &names {
                let mut add = TokenSet::new();
                for c in calls.get(n.as_str()).into_iter().flatten() {
                    if c != n {
                        if let Some(t) = tokens.get(c) {
                            add.extend(t.iter().cloned());
                        }
                    }
                }
                let aggs: Vec<String> = tokens[n]
                    .iter()
                    .filter_map(|t| t.strip_prefix("AGG:").map(String::from))
                    .collect();
                for a in aggs {
                    for c in agg_calls.get(&a).into_iter().flatten() {
                        if let Some(t) = tokens.get(c) {
                            add.extend(t.iter().filter(|t| !t.starts_with("AGG:")).cloned());
                        }
                    }
                }
                if let Some(e) = tokens.get_mut(n) {
                    let before = e.len();
                    e.extend(add);
                    changed |= e.len() != before;
                }
            }
            if !changed {
                break;
            }
        }
        tokens
    }

    /// The bit-set fixed point equals the string-set one on generated call graphs: cycles,
    /// self-calls, callees without a body, aggregate notes (also calling names without a body
    /// and through callees), more than 64 tokens (several words), and names with no tokens.
    #[test]
    fn bit_set_fixed_point_equals_the_string_one() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n.max(1)
        };
        let names: Vec<String> = (0..40).map(|i| format!("F{i}")).collect();
        for round in 0..300 {
            let n = 2 + next(39) as usize;
            let vocab = 1 + next(150);
            let mut own: FastMap<&str, TokenSet> = FastMap::default();
            let mut calls: FastMap<&str, FastSet<String>> = FastMap::default();
            let mut agg_calls: FastMap<String, FastSet<String>> = FastMap::default();
            let mut order = Vec::new();
            for name in &names[..n] {
                order.push(name.as_str());
                let mut set = TokenSet::new();
                for _ in 0..next(5) {
                    set.insert(match next(6) {
                        0 => format!("AGG:A{}", next(4)),
                        1 => format!("TAINT:t{}", next(vocab)),
                        2 => format!("FIELD:m_{}.x", next(vocab)),
                        _ => format!("MEM:m_{}", next(vocab)),
                    });
                }
                own.insert(name, set);
                let cs = calls.entry(name).or_default();
                for _ in 0..next(4) {
                    cs.insert(format!("F{}", next(45)));
                }
            }
            for a in 0..4 {
                for _ in 0..next(3) {
                    agg_calls
                        .entry(format!("A{a}"))
                        .or_default()
                        .insert(format!("F{}", next(45)));
                }
            }
            let want = fixed_point_reference(&own, &calls, &agg_calls);
            let mut w = Writers::default();
            fixed_point(&mut w, &order, &own, &calls, &agg_calls);
            for name in &order {
                assert_eq!(
                    w.tokens(name).as_ref(),
                    want.get(*name),
                    "round {round}: {name}"
                );
                let tainted = want[*name].iter().any(|t| t.starts_with("TAINT:"));
                assert_eq!(w.tainted(name), tainted, "round {round}: {name}");
            }
            assert_eq!(w.tokens("NoSuchName"), None);
        }
    }
}
