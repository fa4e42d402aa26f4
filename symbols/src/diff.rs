//! Analyse: normalise, fold and bucket two sides' symbols (spec §1.4), then apply the gates.
//! Pure functions over the model; no I/O.

use std::collections::{BTreeMap, HashMap};

use rayon::prelude::*;
use serde::Serialize;

use crate::demangle::demangle;
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
        let rows = lib
            .defined
            .par_iter()
            .with_min_len(256)
            .map(|s| {
                let demangled = demangle(&s.name);
                let (mangled, demangled) = if keep_versions && s.version.is_some() {
                    let v = s.versioned_name();
                    let suffix = &v[s.name.len()..];
                    (v.clone(), format!("{demangled}{suffix}"))
                } else {
                    (s.name.clone(), demangled.into_owned())
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
pub struct Folded {
    pub size: u64,
    pub count: usize,
    /// Sorted mangled names.
    pub mangled: Vec<String>,
    /// Type letter of the first row in table order.
    pub kind: char,
}

/// Fold rows by normalised name. A mangled name that occurs more than once (file-local statics
/// of the same name in different objects) keeps each copy apart: copy k ≥ 2 (in address order)
/// is folded as `<name> [copy k]`, so a removed copy is a removal, not a resize (upstream bug).
pub fn fold(rows: &[SymRow], opts: &DiffOptions) -> BTreeMap<String, Folded> {
    let mut seen: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, r) in rows.iter().enumerate() {
        seen.entry(r.mangled.as_str()).or_default().push(i);
    }
    let mut copy_of = vec![1usize; rows.len()];
    for idx in seen.values_mut().filter(|v| v.len() > 1) {
        idx.sort_by_key(|&i| (rows[i].address, i));
        for (k, &i) in idx.iter().enumerate() {
            copy_of[i] = k + 1;
        }
    }
    let mut out: BTreeMap<String, Folded> = BTreeMap::new();
    for (i, r) in rows.iter().enumerate() {
        let mut key = normalise(&r.demangled, opts);
        if copy_of[i] > 1 {
            key = format!("{key} [copy {}]", copy_of[i]);
        }
        let e = out.entry(key).or_insert_with(|| Folded {
            size: 0,
            count: 0,
            mangled: Vec::new(),
            kind: r.kind,
        });
        e.size += r.size;
        e.count += 1;
        e.mangled.push(r.mangled.clone());
    }
    for e in out.values_mut() {
        e.mangled.sort();
    }
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

/// Bucket two folded maps (spec §1.4 step 2). `only` filters which names are listed; the
/// unchanged counter is never filtered.
pub fn bucket(
    before: &BTreeMap<String, Folded>,
    after: &BTreeMap<String, Folded>,
    threshold: u64,
    only: &[String],
) -> Buckets {
    let listed = |name: &str| only.is_empty() || only.iter().any(|o| name.contains(o.as_str()));
    let mut b = Buckets::default();
    let first = |f: &Folded| f.mangled.first().cloned().unwrap_or_default();
    let push = |bucket: &mut Vec<Change>, c: Change| {
        if listed(&c.name) {
            bucket.push(c);
        }
    };
    let mut ia = before.iter().peekable();
    let mut ib = after.iter().peekable();
    loop {
        let order = match (ia.peek(), ib.peek()) {
            (None, None) => break,
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (Some((ka, _)), Some((kb, _))) => ka.cmp(kb),
        };
        match order {
            std::cmp::Ordering::Less => {
                let Some((name, f)) = ia.next() else { break };
                let c = Change {
                    name: name.clone(),
                    delta: delta(f.size, 0),
                    before: f.size,
                    after: 0,
                    before_mangled: first(f),
                    after_mangled: String::new(),
                    kind_before: Some(f.kind),
                    kind_after: None,
                };
                push(&mut b.removed, c);
            }
            std::cmp::Ordering::Greater => {
                let Some((name, f)) = ib.next() else { break };
                let c = Change {
                    name: name.clone(),
                    delta: delta(0, f.size),
                    before: 0,
                    after: f.size,
                    before_mangled: String::new(),
                    after_mangled: first(f),
                    kind_before: None,
                    kind_after: Some(f.kind),
                };
                push(&mut b.added, c);
            }
            std::cmp::Ordering::Equal => {
                let (Some((name, fa)), Some((_, fb))) = (ia.next(), ib.next()) else {
                    break;
                };
                let c = Change {
                    name: name.clone(),
                    delta: delta(fa.size, fb.size),
                    before: fa.size,
                    after: fb.size,
                    before_mangled: first(fa),
                    after_mangled: first(fb),
                    kind_before: Some(fa.kind),
                    kind_after: Some(fb.kind),
                };
                if fa.size != fb.size && fa.size.abs_diff(fb.size) > threshold {
                    push(&mut b.resized, c);
                } else if fa.mangled != fb.mangled {
                    push(&mut b.renamed, Change { delta: 0, ..c });
                } else {
                    b.unchanged += 1;
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
    for (name, x) in &fa {
        if let Some(y) = fb.get(name) {
            if x.kind != y.kind {
                kind_changes.push(Change {
                    name: name.clone(),
                    delta: delta(x.size, y.size),
                    before: x.size,
                    after: y.size,
                    before_mangled: x.mangled.first().cloned().unwrap_or_default(),
                    after_mangled: y.mangled.first().cloned().unwrap_or_default(),
                    kind_before: Some(x.kind),
                    kind_after: Some(y.kind),
                });
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
    let mut v: Vec<&str> = rows.iter().map(|r| r.mangled.as_str()).collect();
    v.sort_unstable();
    v.dedup();
    v.len()
}
