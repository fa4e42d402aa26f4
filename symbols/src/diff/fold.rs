//! Fold a side's rows by normalised name (spec §1.4 step 1): strip-scopes and rename-map
//! applied, copies of one mangled name kept apart, each entry keyed to be matched on the other
//! side (by the hash of its text, or by its number in a shared [`super::NameTable`]).

use std::borrow::Cow;
use std::sync::Arc;

use rayon::prelude::*;
use serde::Serialize;

use super::{hash_of, DiffOptions, Hashed, NameIds, Side, SymRow};
use crate::fast::FastMap;

/// The parent-scope replacement of a strip-scope prefix: drop its LAST named component.
fn strip_replacement(prefix: &str) -> String {
    let core = prefix.strip_suffix("::").unwrap_or(prefix);
    match core.rsplit_once("::") {
        Some((parent, _)) => format!("{parent}::"),
        None => String::new(),
    }
}

/// Apply strip-scopes then rename-map to a demangled name (spec §1.4 step 1).
pub fn normalise(name: &str, opts: &DiffOptions) -> String {
    Replacements::new(opts).apply(name).into_owned()
}

/// The substring replacements of [`normalise`], in order: every strip-scope, then every
/// rename-map entry. Empty patterns are skipped.
struct Replacements<'o> {
    pairs: Vec<(&'o str, Cow<'o, str>)>,
}

impl<'o> Replacements<'o> {
    fn new(opts: &'o DiffOptions) -> Self {
        let strips = opts
            .strip_scopes
            .iter()
            .filter(|p| !p.is_empty())
            .map(|p| (p.as_str(), Cow::Owned(strip_replacement(p))));
        let renames = opts
            .rename_map
            .iter()
            .filter(|(old, _)| !old.is_empty())
            .map(|(old, new)| (old.as_str(), Cow::Borrowed(new.as_str())));
        Replacements {
            pairs: strips.chain(renames).collect(),
        }
    }

    /// The normalised name; borrowed when no pattern occurs in it.
    fn apply<'n>(&self, name: &'n str) -> Cow<'n, str> {
        let mut s = Cow::Borrowed(name);
        for (old, new) in &self.pairs {
            if s.contains(old) {
                s = Cow::Owned(s.replace(old, new));
            }
        }
        s
    }
}

/// Several mangled symbols folded under one normalised name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Folded<'a> {
    pub name: Cow<'a, str>,
    /// The row's shared demangled text when `name` is exactly it (no normalisation, no copy
    /// suffix): a listed change then shares it instead of copying it.
    #[serde(skip)]
    shared: Option<&'a Arc<str>>,
    pub size: u64,
    pub count: usize,
    /// The mangled names, sorted: the first here, the others (most entries have none) in
    /// `more_mangled`, so a one-name entry allocates nothing.
    pub mangled: &'a Arc<str>,
    pub more_mangled: Vec<&'a Arc<str>>,
    /// Type letter of the first row in table order.
    pub kind: char,
}

impl<'a> Folded<'a> {
    /// An entry of one row so far.
    fn new(name: Cow<'a, str>, shared: Option<&'a Arc<str>>, r: &'a SymRow) -> Self {
        Folded {
            name,
            shared,
            size: r.size,
            count: 1,
            mangled: &r.mangled,
            more_mangled: Vec::new(),
            kind: r.kind,
        }
    }

    /// Fold one more row in.
    fn add(&mut self, r: &'a SymRow) {
        self.more_mangled.push(&r.mangled);
        self.size += r.size;
        self.count += 1;
    }

    /// The name as a change lists it: shared with the rows when it is their text.
    pub(super) fn shared_name(&self) -> Arc<str> {
        match self.shared {
            Some(text) => text.clone(),
            None => Arc::from(&*self.name),
        }
    }
}

/// Fold rows by normalised name, one entry per name, in the order each name first occurs. A
/// mangled name that occurs more than once (file-local statics of the same name in different
/// objects) keeps each copy apart: copy k >= 2 (in address order) is folded as
/// `<name> [copy k]`, so a removed copy is a removal, not a resize (upstream bug).
pub fn fold<'a>(rows: &'a [SymRow], opts: &DiffOptions) -> Vec<Folded<'a>> {
    fold_hashed(rows, opts).folded
}

/// Each folded entry lists its mangled names sorted.
fn sort_mangled(folded: &mut [Folded<'_>]) {
    for f in folded {
        if !f.more_mangled.is_empty() {
            f.more_mangled.push(f.mangled);
            f.more_mangled.sort_unstable();
            f.mangled = f.more_mangled.remove(0);
        }
    }
}

/// A fold, with a key per folded name to match it on the other side by (the hash of its text,
/// or its text's number in the name table), and the number of distinct mangled names
/// ("defined symbols", upstream's count).
pub(super) struct Folding<'a, K> {
    pub(super) folded: Vec<Folded<'a>>,
    pub(super) keys: Vec<K>,
    pub(super) distinct: usize,
}

pub(super) fn fold_hashed<'a>(rows: &'a [SymRow], opts: &DiffOptions) -> Folding<'a, u64> {
    // Every text is hashed once, in parallel; the maps below only compare equal hashes.
    let mangled: Vec<Hashed<'a>> = rows
        .par_iter()
        .with_min_len(512)
        .map(|r| Hashed::new(&r.mangled))
        .collect();
    let mut counts: FastMap<Hashed<'a>, u32> =
        FastMap::with_capacity_and_hasher(rows.len(), Default::default());
    for &m in &mangled {
        *counts.entry(m).or_insert(0) += 1;
    }
    let distinct = counts.len();
    let mut copy_of = vec![1usize; rows.len()];
    if distinct < rows.len() {
        let mut dups: Vec<usize> = (0..rows.len())
            .filter(|&i| counts.get(&mangled[i]).is_some_and(|&c| c > 1))
            .collect();
        dups.sort_by(|&x, &y| {
            rows[x]
                .mangled
                .cmp(&rows[y].mangled)
                .then(rows[x].address.cmp(&rows[y].address))
                .then(x.cmp(&y))
        });
        for w in 1..dups.len() {
            if rows[dups[w]].mangled == rows[dups[w - 1]].mangled {
                copy_of[dups[w]] = copy_of[dups[w - 1]] + 1;
            }
        }
    }
    drop(counts);
    let rules = Replacements::new(opts);
    let (mut keys, key_hashes): (Vec<Cow<'a, str>>, Vec<u64>) = rows
        .par_iter()
        .zip(copy_of.par_iter())
        .with_min_len(512)
        .map(|(r, &copy)| {
            let key = rules.apply(&r.demangled);
            let key = if copy > 1 {
                Cow::Owned(format!("{key} [copy {copy}]"))
            } else {
                key
            };
            let hash = hash_of(&key);
            (key, hash)
        })
        .unzip();
    // Group: each row's folded entry, and the first row of each entry.
    let mut group = Vec::with_capacity(rows.len());
    let mut first_rows = Vec::new();
    let mut slot: FastMap<Hashed<'_>, usize> =
        FastMap::with_capacity_and_hasher(rows.len(), Default::default());
    for (i, (key, &hash)) in keys.iter().zip(&key_hashes).enumerate() {
        let next = first_rows.len();
        let g = *slot.entry(Hashed { hash, text: key }).or_insert(next);
        if g == next {
            first_rows.push(i);
        }
        group.push(g);
    }
    drop(slot);
    let mut folded: Vec<Folded<'a>> = first_rows
        .iter()
        .map(|&i| {
            let key = std::mem::take(&mut keys[i]);
            // Borrowed: the text itself (nothing replaced, no copy suffix).
            let shared = matches!(key, Cow::Borrowed(_)).then_some(&rows[i].demangled);
            Folded::new(key, shared, &rows[i])
        })
        .collect();
    for (i, (r, &g)) in rows.iter().zip(&group).enumerate() {
        if first_rows[g] != i {
            folded[g].add(r);
        }
    }
    sort_mangled(&mut folded);
    Folding {
        folded,
        keys: first_rows.iter().map(|&i| key_hashes[i]).collect(),
        distinct,
    }
}

/// [`fold`] and [`join`] by the numbers of a shared [`NameTable`]: no text is hashed or
/// compared. Only for what that can express exactly: both sides from one table, no
/// strip-scope or rename-map, and no mangled name twice on a side (copy k handling).
/// Produces what the hashed path produces, entry for entry.
pub(super) fn fold_by_number<'a>(
    before: &'a Side,
    after: &'a Side,
    opts: &DiffOptions,
) -> Option<Numbered<'a>> {
    let (x, y) = (before.name_ids.as_ref()?, after.name_ids.as_ref()?);
    let plain = opts.strip_scopes.is_empty() && opts.rename_map.is_empty();
    if !plain || x.space != y.space {
        return None;
    }
    let (b, a) = rayon::join(
        || fold_numbered(&before.rows, x),
        || fold_numbered(&after.rows, y),
    );
    let (b, a) = (b?, a?);
    let mut position = vec![u32::MAX; y.texts];
    for (j, &t) in a.keys.iter().enumerate() {
        *position.get_mut(t as usize)? = j as u32;
    }
    let pairs = b
        .keys
        .iter()
        .map(|&t| match position.get(t as usize) {
            Some(&j) if j != u32::MAX => Some(j as usize),
            _ => None,
        })
        .collect();
    Some(Numbered {
        before: b,
        after: a,
        pairs,
    })
}

/// Both sides' folds by numbers, and for each entry before, its entry after.
pub(super) struct Numbered<'a> {
    pub(super) before: Folding<'a, u32>,
    pub(super) after: Folding<'a, u32>,
    pub(super) pairs: Vec<Option<usize>>,
}

/// One side's fold by numbers, keyed by each entry's text number; `None` when a mangled name
/// occurs twice (or the numbers do not fit the rows).
fn fold_numbered<'a>(rows: &'a [SymRow], ids: &NameIds) -> Option<Folding<'a, u32>> {
    if ids.rows.len() != rows.len() {
        return None;
    }
    let mut seen = vec![false; ids.names];
    for &(m, _) in &ids.rows {
        let s = seen.get_mut(m as usize)?;
        if *s {
            return None;
        }
        *s = true;
    }
    let mut slot = vec![u32::MAX; ids.texts];
    // Most texts are one row's: size for that rather than growing through every power of two.
    let mut folded: Vec<Folded<'a>> = Vec::with_capacity(rows.len());
    let mut texts = Vec::with_capacity(rows.len());
    for (r, &(_, t)) in rows.iter().zip(&ids.rows) {
        let s = slot.get_mut(t as usize)?;
        if *s == u32::MAX {
            *s = folded.len() as u32;
            folded.push(Folded::new(
                Cow::Borrowed(&r.demangled),
                Some(&r.demangled),
                r,
            ));
            texts.push(t);
        } else {
            folded[*s as usize].add(r);
        }
    }
    sort_mangled(&mut folded);
    Some(Folding {
        folded,
        keys: texts,
        distinct: rows.len(),
    })
}
