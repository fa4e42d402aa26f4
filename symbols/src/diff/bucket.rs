//! Bucket two folds (spec §1.4 step 2): match the entries by name, then sort each change into
//! removed, added, resized or renamed.

use std::sync::Arc;

use rayon::prelude::*;
use serde::Serialize;

use super::{hash_of, DiffError, Folded, Hashed};
use crate::fast::FastMap;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Bucket {
    Removed,
    Added,
    Resized,
    Renamed,
}

impl Bucket {
    pub fn as_str(self) -> &'static str {
        match self {
            Bucket::Removed => "removed",
            Bucket::Added => "added",
            Bucket::Resized => "resized",
            Bucket::Renamed => "renamed",
        }
    }
}

impl std::str::FromStr for Bucket {
    type Err = DiffError;
    fn from_str(s: &str) -> Result<Self, DiffError> {
        match s {
            "removed" | "remove" => Ok(Bucket::Removed),
            "added" | "add" => Ok(Bucket::Added),
            "resized" | "resize" => Ok(Bucket::Resized),
            "renamed" | "rename" => Ok(Bucket::Renamed),
            other => Err(DiffError::UnknownBucket {
                bucket: other.to_string(),
            }),
        }
    }
}

/// One listed change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Change {
    /// Shared with the rows when it is their demangled text (no copy per change).
    pub name: Arc<str>,
    pub delta: i64,
    pub before: u64,
    pub after: u64,
    /// First mangled name of each side (empty when the side lacks the symbol).
    pub before_mangled: Arc<str>,
    pub after_mangled: Arc<str>,
    pub kind_before: Option<char>,
    pub kind_after: Option<char>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Buckets {
    pub removed: Vec<Change>,
    pub added: Vec<Change>,
    pub resized: Vec<Change>,
    pub renamed: Vec<Change>,
    pub unchanged: usize,
}

impl Buckets {
    pub fn get(&self, b: Bucket) -> &[Change] {
        match b {
            Bucket::Removed => &self.removed,
            Bucket::Added => &self.added,
            Bucket::Resized => &self.resized,
            Bucket::Renamed => &self.renamed,
        }
    }
    pub fn counts(&self) -> [usize; 4] {
        [
            self.added.len(),
            self.removed.len(),
            self.resized.len(),
            self.renamed.len(),
        ]
    }
}

pub(super) fn delta(a: u64, b: u64) -> i64 {
    (i128::from(b) - i128::from(a)).clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64
}

/// Bucket two folded lists (spec §1.4 step 2; each list names an entry once, in any order).
/// `only` filters which names are listed; the unchanged counter is never filtered.
pub fn bucket(
    before: &[Folded<'_>],
    after: &[Folded<'_>],
    threshold: u64,
    only: &[String],
) -> Buckets {
    let hashes = |v: &[Folded<'_>]| v.iter().map(|f| hash_of(&f.name)).collect::<Vec<_>>();
    let pairs = join(before, &hashes(before), after, &hashes(after));
    bucket_joined(before, after, &pairs, threshold, only)
}

/// For each entry of `before`, the index of the entry of `after` with the same name (given
/// the hashes of the names).
pub(super) fn join(
    before: &[Folded<'_>],
    before_hashes: &[u64],
    after: &[Folded<'_>],
    after_hashes: &[u64],
) -> Vec<Option<usize>> {
    let index: FastMap<Hashed<'_>, usize> = after
        .iter()
        .zip(after_hashes)
        .enumerate()
        .map(|(j, (f, &hash))| {
            (
                Hashed {
                    hash,
                    text: &f.name,
                },
                j,
            )
        })
        .collect();
    before
        .iter()
        .zip(before_hashes)
        .map(|(f, &hash)| {
            index
                .get(&Hashed {
                    hash,
                    text: &f.name,
                })
                .copied()
        })
        .collect()
}

/// [`bucket`] over a [`join`] of the two lists, classified on both cores (a change shares its
/// texts with the rows, so building one allocates no string), then the four buckets sorted in
/// parallel.
pub(super) fn bucket_joined(
    before: &[Folded<'_>],
    after: &[Folded<'_>],
    pairs: &[Option<usize>],
    threshold: u64,
    only: &[String],
) -> Buckets {
    let listed = |name: &str| only.is_empty() || only.iter().any(|o| name.contains(o.as_str()));
    let mut matched = vec![false; after.len()];
    for &j in pairs.iter().flatten() {
        if let Some(m) = matched.get_mut(j) {
            *m = true;
        }
    }
    // Each chunk of `before` into its own buckets, with its own empty text (one reference
    // count per thread), in chunk order.
    let parts: Vec<Buckets> = before
        .par_iter()
        .zip(pairs.par_iter())
        .with_min_len(2048)
        .fold(
            || (Buckets::default(), Arc::<str>::from("")),
            |(mut b, empty), (fa, &pair)| {
                let Some(fb) = pair.and_then(|j| after.get(j)) else {
                    if listed(&fa.name) {
                        b.removed.push(Change {
                            name: fa.shared_name(),
                            delta: delta(fa.size, 0),
                            before: fa.size,
                            after: 0,
                            before_mangled: first_mangled(fa),
                            after_mangled: empty.clone(),
                            kind_before: Some(fa.kind),
                            kind_after: None,
                        });
                    }
                    return (b, empty);
                };
                let resized = fa.size != fb.size && fa.size.abs_diff(fb.size) > threshold;
                let renamed =
                    !resized && (fa.mangled != fb.mangled || fa.more_mangled != fb.more_mangled);
                if !resized && !renamed {
                    b.unchanged += 1;
                    return (b, empty);
                }
                if !listed(&fa.name) {
                    return (b, empty);
                }
                let c = Change {
                    name: fa.shared_name(),
                    delta: if resized { delta(fa.size, fb.size) } else { 0 },
                    before: fa.size,
                    after: fb.size,
                    before_mangled: first_mangled(fa),
                    after_mangled: first_mangled(fb),
                    kind_before: Some(fa.kind),
                    kind_after: Some(fb.kind),
                };
                if resized {
                    b.resized.push(c);
                } else {
                    b.renamed.push(c);
                }
                (b, empty)
            },
        )
        .map(|(b, _)| b)
        .collect();
    let added: Vec<Change> = after
        .par_iter()
        .zip(matched.par_iter())
        .with_min_len(2048)
        .filter(|(f, &m)| !m && listed(&f.name))
        .map_init(
            || Arc::<str>::from(""),
            |empty, (f, _)| Change {
                name: f.shared_name(),
                delta: delta(0, f.size),
                before: 0,
                after: f.size,
                before_mangled: empty.clone(),
                after_mangled: first_mangled(f),
                kind_before: None,
                kind_after: Some(f.kind),
            },
        )
        .collect();
    let mut b = Buckets {
        added,
        ..Buckets::default()
    };
    for p in parts {
        b.removed.extend(p.removed);
        b.resized.extend(p.resized);
        b.renamed.extend(p.renamed);
        b.unchanged += p.unchanged;
    }
    // Names are unique within a bucket, so these orders are total (the input order is lost).
    let by_abs = |x: &Change, y: &Change| {
        y.delta
            .unsigned_abs()
            .cmp(&x.delta.unsigned_abs())
            .then_with(|| x.name.cmp(&y.name))
    };
    let Buckets {
        removed,
        added,
        resized,
        renamed,
        ..
    } = &mut b;
    rayon::join(
        || {
            rayon::join(
                || removed.sort_unstable_by(by_abs),
                || added.sort_unstable_by(by_abs),
            )
        },
        || {
            rayon::join(
                || resized.sort_unstable_by(by_abs),
                || renamed.sort_unstable_by(|x, y| x.name.cmp(&y.name)),
            )
        },
    );
    b
}

pub(super) fn first_mangled(f: &Folded<'_>) -> Arc<str> {
    f.mangled.clone()
}
