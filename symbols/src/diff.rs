//! Analyse: normalise, fold and bucket two sides' symbols (spec §1.4), then apply the gates.
//! Pure functions over the model; no I/O.

use std::borrow::Cow;

use rayon::prelude::*;
use serde::Serialize;

use crate::demangle::demangle;
use crate::fasthash::FxHashMap;
use crate::model::{Identity, Library, SectionSize, Table};

/// One defined symbol as the diff sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SymRow {
    /// Mangled name (with `@@VER` only under `--keep-versions`).
    pub mangled: String,
    /// Demangled text (with the version appended under `--keep-versions`).
    pub demangled: String,
    pub kind: char,
    pub size: u64,
    pub address: u64,
    pub version: Option<String>,
}

/// One side of a diff: the rows in table order plus the section sizes.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Side {
    pub identity: Option<Identity>,
    pub table: Option<Table>,
    pub rows: Vec<SymRow>,
    pub sections: Vec<SectionSize>,
}

impl Side {
    /// Build a side from a library, demangling all names in parallel.
    pub fn from_library(lib: &Library, keep_versions: bool) -> Side {
        let (names, index) = distinct_names(&[lib]);
        let texts = demangle_distinct(&names);
        side(lib, keep_versions, &index, &texts)
    }

    /// Size of a section; a missing section counts as 0 (upstream rule).
    pub fn section(&self, name: &str) -> u64 {
        if name == "Total" {
            return self.sections.iter().map(|s| s.size).sum();
        }
        self.sections
            .iter()
            .find(|s| s.name == name)
            .map_or(0, |s| s.size)
    }

    pub fn has_section(&self, name: &str) -> bool {
        name == "Total" || self.sections.iter().any(|s| s.name == name)
    }
}

/// Both sides of a diff; every distinct name is demangled once (most names are shared).
pub fn sides_from_libraries(
    before: &Library,
    after: &Library,
    keep_versions: bool,
) -> (Side, Side) {
    let (names, index) = distinct_names(&[before, after]);
    let texts = demangle_distinct(&names);
    rayon::join(
        || side(before, keep_versions, &index, &texts),
        || side(after, keep_versions, &index, &texts),
    )
}

/// Every distinct defined name of the libraries, and its index.
fn distinct_names<'a>(libs: &[&'a Library]) -> (Vec<&'a str>, FxHashMap<&'a str, usize>) {
    let total: usize = libs.iter().map(|l| l.defined.len()).sum();
    let mut index: FxHashMap<&str, usize> =
        FxHashMap::with_capacity_and_hasher(total, Default::default());
    let mut names = Vec::with_capacity(total);
    for s in libs.iter().flat_map(|l| l.defined.iter()) {
        index.entry(s.name.as_str()).or_insert_with(|| {
            names.push(s.name.as_str());
            names.len() - 1
        });
    }
    (names, index)
}

fn demangle_distinct(names: &[&str]) -> Vec<String> {
    names
        .par_iter()
        .with_min_len(256)
        .map(|n| demangle(n).into_owned())
        .collect()
}

fn side(
    lib: &Library,
    keep_versions: bool,
    index: &FxHashMap<&str, usize>,
    texts: &[String],
) -> Side {
    // The version-definition symbols (`A LLVM_15`) are the versions themselves: when names are
    // matched without versions they are not symbols to compare (LLVM_14 -> LLVM_15 is no change).
    let nodes: std::collections::BTreeSet<&str> = if keep_versions {
        Default::default()
    } else {
        lib.defined
            .iter()
            .filter_map(|s| s.version.as_deref())
            .collect()
    };
    let rows = lib
        .defined
        .par_iter()
        .with_min_len(512)
        .filter(|s| {
            !(s.kind.eq_ignore_ascii_case(&'a') && s.size == 0 && nodes.contains(s.name.as_str()))
        })
        .map(|s| {
            let demangled = match index.get(s.name.as_str()) {
                Some(&i) => texts[i].clone(),
                None => demangle(&s.name).into_owned(),
            };
            let (mangled, demangled) = if keep_versions && s.version.is_some() {
                let v = s.versioned_name();
                let suffix = v[s.name.len()..].to_string();
                (v, format!("{demangled}{suffix}"))
            } else {
                (s.name.clone(), demangled)
            };
            SymRow {
                mangled,
                demangled,
                kind: s.kind,
                size: s.size,
                address: s.address,
                version: s.version.clone(),
            }
        })
        .collect();
    Side {
        identity: Some(lib.identity.clone()),
        table: Some(lib.table),
        rows,
        sections: lib.sections.clone(),
    }
}

/// How names are normalised and which rows are listed.
#[derive(Debug, Clone, Default)]
pub struct DiffOptions {
    /// `--strip-scope PREFIX`: every occurrence of `A::B::C::` becomes `A::B::`.
    pub strip_scopes: Vec<String>,
    /// `--rename-map OLD=NEW`: substring replacements, after all strip-scopes, in order.
    pub rename_map: Vec<(String, String)>,
    /// `--only-names`: narrows the LISTING only, never the gates.
    pub only_names: Vec<String>,
    /// `--threshold N`: size deltas of at most N bytes are not "resized" (listing only).
    pub threshold: u64,
}

/// Parse `OLD=NEW` (split at the first `=`).
pub fn parse_rename(entry: &str) -> Option<(String, String)> {
    entry
        .split_once('=')
        .map(|(a, b)| (a.to_string(), b.to_string()))
}

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
    let mut s = name.to_string();
    for p in &opts.strip_scopes {
        if !p.is_empty() && s.contains(p.as_str()) {
            s = s.replace(p.as_str(), &strip_replacement(p));
        }
    }
    for (old, new) in &opts.rename_map {
        if !old.is_empty() && s.contains(old.as_str()) {
            s = s.replace(old.as_str(), new);
        }
    }
    s
}

/// Several mangled symbols folded under one normalised name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Folded<'a> {
    pub name: Cow<'a, str>,
    pub size: u64,
    pub count: usize,
    /// Sorted mangled names.
    pub mangled: Vec<&'a str>,
    /// Type letter of the first row in table order.
    pub kind: char,
}

/// Fold rows by normalised name, sorted by name. A mangled name that occurs more than once
/// (file-local statics of the same name in different objects) keeps each copy apart: copy
/// k >= 2 (in address order) is folded as `<name> [copy k]`, so a removed copy is a removal,
/// not a resize (upstream bug).
pub fn fold<'a>(rows: &'a [SymRow], opts: &DiffOptions) -> Vec<Folded<'a>> {
    let mut counts: FxHashMap<&str, u32> =
        FxHashMap::with_capacity_and_hasher(rows.len(), Default::default());
    for r in rows {
        *counts.entry(r.mangled.as_str()).or_insert(0) += 1;
    }
    let mut copy_of = vec![1usize; rows.len()];
    let mut dups: Vec<usize> = (0..rows.len())
        .filter(|&i| counts.get(rows[i].mangled.as_str()).is_some_and(|&c| c > 1))
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
    let plain = opts.strip_scopes.is_empty() && opts.rename_map.is_empty();
    let mut keyed: Vec<(Cow<'a, str>, usize)> = rows
        .par_iter()
        .enumerate()
        .with_min_len(512)
        .map(|(i, r)| {
            let key: Cow<'a, str> = if plain {
                Cow::Borrowed(r.demangled.as_str())
            } else {
                Cow::Owned(normalise(&r.demangled, opts))
            };
            let key = if copy_of[i] > 1 {
                Cow::Owned(format!("{key} [copy {}]", copy_of[i]))
            } else {
                key
            };
            (key, i)
        })
        .collect();
    keyed.par_sort_unstable();
    let mut out: Vec<Folded<'a>> = Vec::with_capacity(keyed.len());
    for (key, i) in keyed {
        let r = &rows[i];
        match out.last_mut() {
            Some(f) if f.name == key => {
                f.size += r.size;
                f.count += 1;
                f.mangled.push(r.mangled.as_str());
            }
            _ => out.push(Folded {
                name: key,
                size: r.size,
                count: 1,
                mangled: vec![r.mangled.as_str()],
                kind: r.kind,
            }),
        }
    }
    out.par_iter_mut().with_min_len(512).for_each(|f| {
        if f.mangled.len() > 1 {
            f.mangled.sort_unstable();
        }
    });
    out
}

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
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "removed" | "remove" => Ok(Bucket::Removed),
            "added" | "add" => Ok(Bucket::Added),
            "resized" | "resize" => Ok(Bucket::Resized),
            "renamed" | "rename" => Ok(Bucket::Renamed),
            other => Err(format!(
                "unknown bucket {other:?} (expected added, removed, resized or renamed)"
            )),
        }
    }
}

/// One listed change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Change {
    pub name: String,
    pub delta: i64,
    pub before: u64,
    pub after: u64,
    /// First mangled name of each side (empty when the side lacks the symbol).
    pub before_mangled: String,
    pub after_mangled: String,
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
    pub fn is_clean(&self) -> bool {
        self.counts() == [0; 4]
    }
}

fn delta(a: u64, b: u64) -> i64 {
    (i128::from(b) - i128::from(a)).clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64
}

/// Bucket two folded, name-sorted lists (spec §1.4 step 2). `only` filters which names are
/// listed; the unchanged counter is never filtered.
pub fn bucket(
    before: &[Folded<'_>],
    after: &[Folded<'_>],
    threshold: u64,
    only: &[String],
) -> Buckets {
    let listed = |name: &str| only.is_empty() || only.iter().any(|o| name.contains(o.as_str()));
    let mut b = Buckets::default();
    let first = |f: &Folded<'_>| f.mangled.first().map(|s| s.to_string()).unwrap_or_default();
    let (mut i, mut j) = (0, 0);
    while i < before.len() || j < after.len() {
        let order = match (before.get(i), after.get(j)) {
            (Some(x), Some(y)) => x.name.cmp(&y.name),
            (Some(_), None) => std::cmp::Ordering::Less,
            _ => std::cmp::Ordering::Greater,
        };
        match order {
            std::cmp::Ordering::Less => {
                let f = &before[i];
                i += 1;
                if listed(&f.name) {
                    b.removed.push(Change {
                        name: f.name.to_string(),
                        delta: delta(f.size, 0),
                        before: f.size,
                        after: 0,
                        before_mangled: first(f),
                        after_mangled: String::new(),
                        kind_before: Some(f.kind),
                        kind_after: None,
                    });
                }
            }
            std::cmp::Ordering::Greater => {
                let f = &after[j];
                j += 1;
                if listed(&f.name) {
                    b.added.push(Change {
                        name: f.name.to_string(),
                        delta: delta(0, f.size),
                        before: 0,
                        after: f.size,
                        before_mangled: String::new(),
                        after_mangled: first(f),
                        kind_before: None,
                        kind_after: Some(f.kind),
                    });
                }
            }
            std::cmp::Ordering::Equal => {
                let (fa, fb) = (&before[i], &after[j]);
                i += 1;
                j += 1;
                let resized = fa.size != fb.size && fa.size.abs_diff(fb.size) > threshold;
                let renamed = !resized && fa.mangled != fb.mangled;
                if !resized && !renamed {
                    b.unchanged += 1;
                    continue;
                }
                if !listed(&fa.name) {
                    continue;
                }
                let c = Change {
                    name: fa.name.to_string(),
                    delta: if resized { delta(fa.size, fb.size) } else { 0 },
                    before: fa.size,
                    after: fb.size,
                    before_mangled: first(fa),
                    after_mangled: first(fb),
                    kind_before: Some(fa.kind),
                    kind_after: Some(fb.kind),
                };
                if resized {
                    b.resized.push(c);
                } else {
                    b.renamed.push(c);
                }
            }
        }
    }
    let by_abs = |x: &Change, y: &Change| {
        y.delta
            .unsigned_abs()
            .cmp(&x.delta.unsigned_abs())
            .then_with(|| x.name.cmp(&y.name))
    };
    b.removed.sort_by(by_abs);
    b.added.sort_by(by_abs);
    b.resized.sort_by(by_abs);
    b.renamed.sort_by(|x, y| x.name.cmp(&y.name));
    b
}

/// A section's before/after sizes (a missing side counts as 0).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SectionDelta {
    pub name: String,
    pub before: u64,
    pub after: u64,
    pub delta: i64,
}

/// The complete comparison of two sides.
#[derive(Debug, Clone, Serialize)]
pub struct Diff {
    /// The listing (threshold and `--only-names` applied).
    pub listing: Buckets,
    /// What the gates see: threshold 0, no `--only-names` filter.
    pub gate_view: Buckets,
    pub defined_before: usize,
    pub defined_after: usize,
    pub names_before: usize,
    pub names_after: usize,
    /// `.text`, `.data`, `.bss`, `.rodata`, `Total` (rows present on either side).
    pub sections: Vec<SectionDelta>,
    /// Type letters that changed (`T` → `W`, …) on names present on both sides.
    pub kind_changes: Vec<Change>,
}

impl Diff {
    pub fn text(&self) -> SectionDelta {
        self.sections
            .iter()
            .find(|s| s.name == ".text")
            .cloned()
            .unwrap_or(SectionDelta {
                name: ".text".into(),
                before: 0,
                after: 0,
                delta: 0,
            })
    }
}

pub const REPORTED_SECTIONS: [&str; 5] = [".text", ".data", ".bss", ".rodata", "Total"];

/// Compare two sides.
pub fn diff(before: &Side, after: &Side, opts: &DiffOptions) -> Diff {
    let (fa, fb) = rayon::join(|| fold(&before.rows, opts), || fold(&after.rows, opts));
    let listing = bucket(&fa, &fb, opts.threshold, &opts.only_names);
    let gate_view = if opts.threshold == 0 && opts.only_names.is_empty() {
        listing.clone()
    } else {
        bucket(&fa, &fb, 0, &[])
    };
    let mut sections = Vec::new();
    for name in REPORTED_SECTIONS {
        if name == ".text" || before.has_section(name) || after.has_section(name) {
            let (b, a) = (before.section(name), after.section(name));
            sections.push(SectionDelta {
                name: name.into(),
                before: b,
                after: a,
                delta: delta(b, a),
            });
        }
    }
    let mut kind_changes = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < fa.len() && j < fb.len() {
        match fa[i].name.cmp(&fb[j].name) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                let (x, y) = (&fa[i], &fb[j]);
                if x.kind != y.kind {
                    kind_changes.push(Change {
                        name: x.name.to_string(),
                        delta: delta(x.size, y.size),
                        before: x.size,
                        after: y.size,
                        before_mangled: x
                            .mangled
                            .first()
                            .map(|s| s.to_string())
                            .unwrap_or_default(),
                        after_mangled: y.mangled.first().map(|s| s.to_string()).unwrap_or_default(),
                        kind_before: Some(x.kind),
                        kind_after: Some(y.kind),
                    });
                }
                i += 1;
                j += 1;
            }
        }
    }
    Diff {
        listing,
        gate_view,
        defined_before: distinct(&before.rows),
        defined_after: distinct(&after.rows),
        names_before: fa.len(),
        names_after: fb.len(),
        sections,
        kind_changes,
    }
}

/// "defined symbols" = number of distinct mangled names (upstream's count).
fn distinct(rows: &[SymRow]) -> usize {
    let mut seen: crate::fasthash::FxHashMap<&str, ()> =
        crate::fasthash::FxHashMap::with_capacity_and_hasher(rows.len(), Default::default());
    for r in rows {
        seen.insert(r.mangled.as_str(), ());
    }
    seen.len()
}
