//! Analyse: normalise, fold and bucket two sides' symbols (spec §1.4), then apply the gates.
//! Pure functions over the model; no I/O.

use std::borrow::Cow;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use rayon::prelude::*;
use serde::Serialize;

use crate::demangle::demangle_shared;
use crate::fasthash::{FxHashMap, FxHasher};
use crate::model::{Identity, Library, SectionSize, Symbol, Table};

/// One defined symbol as the diff sees it. The texts are shared (`Arc<str>`): a name defined
/// by both libraries is stored, and demangled, once.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SymRow {
    /// Mangled name (with `@@VER` only under `--keep-versions`).
    pub mangled: Arc<str>,
    /// Demangled text (with the version appended under `--keep-versions`).
    pub demangled: Arc<str>,
    pub kind: char,
    pub size: u64,
    pub address: u64,
    pub version: Option<Arc<str>>,
}

/// One side of a diff: the rows in table order plus the section sizes.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Side {
    pub identity: Option<Identity>,
    pub table: Option<Table>,
    pub rows: Vec<SymRow>,
    pub sections: Vec<SectionSize>,
    /// Each row's numbers in the [`NameTable`] both sides were built from: with them the
    /// diff folds and matches names by number instead of hashing their texts again.
    #[serde(skip)]
    pub name_ids: Option<NameIds>,
    /// Version-definition symbols (`A LLVM_15`) left out because versions are stripped.
    #[serde(skip)]
    pub version_nodes: usize,
    /// Names kept mangled because their demangled text would pass the demangler's length cap.
    #[serde(skip)]
    pub kept_mangled: usize,
}

/// Per row: the number of its mangled name and of its demangled text in one [`NameTable`].
#[derive(Debug, Clone)]
pub struct NameIds {
    /// Which table the numbers come from: two sides compare numbers only from the same one.
    space: u64,
    rows: Vec<(u32, u32)>,
    names: usize,
    texts: usize,
}

impl Side {
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
    let names = NameTable::new(&[before, after]);
    rayon::join(
        || side(before, keep_versions, &names, 0),
        || side(after, keep_versions, &names, 1),
    )
}

/// Every distinct defined name of some libraries, demangled once.
pub struct NameTable {
    /// Distinct mangled names, in first-seen order.
    pub mangled: Vec<Arc<str>>,
    /// The demangled text of each entry of `mangled`.
    pub demangled: Vec<Arc<str>>,
    /// The number of each entry's demangled text among the distinct texts (two mangled names
    /// can demangle alike: constructor and destructor variants, local-name discriminators).
    text_ids: Vec<u32>,
    /// Per library, per defined symbol: its entry in the table.
    ids: Vec<Vec<u32>>,
    space: u64,
}

/// Tells tables apart, so numbers from two tables are never compared.
static NEXT_SPACE: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

impl NameTable {
    /// Collect the distinct names of `libs` and demangle them in parallel.
    pub fn new(libs: &[&Library]) -> NameTable {
        let (names, ids) = distinct_names(libs);
        type Texts = (Vec<Arc<str>>, Vec<u64>);
        let (mangled, (demangled, text_hashes)): (Vec<Arc<str>>, Texts) = names
            .par_iter()
            .with_min_len(256)
            .map(|&n| {
                let text = demangle_shared(n);
                let hash = hash_of(&text);
                (n.clone(), (text, hash))
            })
            .unzip();
        let text_ids = number_alike(&text_hashes, |i| &*demangled[i]);
        NameTable {
            mangled,
            demangled,
            text_ids,
            ids,
            space: NEXT_SPACE.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
        }
    }
}

/// Every distinct defined name of the libraries, and per library each symbol's name index.
fn distinct_names<'a>(libs: &[&'a Library]) -> (Vec<&'a Arc<str>>, Vec<Vec<u32>>) {
    let total: usize = libs.iter().map(|l| l.defined.len()).sum();
    // Hash in parallel; the map below then only compares.
    let hashed: Vec<Vec<Hashed<'a>>> = libs
        .par_iter()
        .map(|l| {
            l.defined
                .par_iter()
                .with_min_len(1024)
                .map(|s| Hashed::new(&s.name))
                .collect()
        })
        .collect();
    let mut index: FxHashMap<Hashed<'a>, u32> =
        FxHashMap::with_capacity_and_hasher(total, Default::default());
    let mut names = Vec::with_capacity(total);
    let mut ids = Vec::with_capacity(libs.len());
    for (lib, hashed) in libs.iter().zip(&hashed) {
        // Names an earlier library already has are looked up in parallel; only the new ones
        // are inserted, in order (most of a library's names are in the one before it).
        let known: Vec<Option<u32>> = hashed
            .par_iter()
            .with_min_len(1024)
            .map(|h| index.get(h).copied())
            .collect();
        let lib_ids: Vec<u32> = hashed
            .iter()
            .zip(&lib.defined)
            .zip(known)
            .map(|((&h, symbol), known)| {
                known.unwrap_or_else(|| {
                    *index.entry(h).or_insert_with(|| {
                        names.push(&symbol.name);
                        // u32: a symbol table has fewer than 2^32 entries (st_name is 32-bit).
                        (names.len() - 1) as u32
                    })
                })
            })
            .collect();
        ids.push(lib_ids);
    }
    (names, ids)
}

/// Numbers equal texts alike: for each item `i` (with `hashes[i]` the hash of `text(i)`), the
/// index of the first item with the same text (so every number is below the item count). Sorting the
/// (hash, index) pairs in parallel and comparing texts only within a run of equal hashes
/// replaces a hash map filled on one thread (the texts of two libraries, ~90k, on the
/// critical path).
fn number_alike<'t>(hashes: &[u64], text: impl Fn(usize) -> &'t str) -> Vec<u32> {
    let n = hashes.len();
    // u32 indices: a symbol table has fewer than 2^32 entries (st_name is 32-bit); the two
    // libraries' tables together are far below it in any file that can be read.
    let mut order: Vec<(u64, u32)> = hashes
        .iter()
        .enumerate()
        .map(|(i, &h)| (h, i as u32))
        .collect();
    order.par_sort_unstable();
    let mut numbers = vec![0u32; n];
    // The distinct texts of the current run of equal hashes (nearly always one).
    let mut leaders: Vec<u32> = Vec::new();
    for (k, &(hash, i)) in order.iter().enumerate() {
        if k == 0 || order[k - 1].0 != hash {
            leaders.clear();
        }
        // Within a run indices ascend, so a leader is the first item of its text. The first
        // of a run is one without reading any text.
        let found = if leaders.is_empty() {
            None
        } else {
            let t = text(i as usize);
            leaders.iter().copied().find(|&l| text(l as usize) == t)
        };
        let number = found.unwrap_or_else(|| {
            leaders.push(i);
            i
        });
        numbers[i as usize] = number;
    }
    numbers
}

/// The rows of library number `lib` of `names`.
fn side(lib: &Library, keep_versions: bool, names: &NameTable, lib_index: usize) -> Side {
    // The version-definition symbols (`A LLVM_15`) are the versions themselves: when names are
    // matched without versions they are not symbols to compare (LLVM_14 -> LLVM_15 is no change).
    let mut nodes: FxHashMap<&str, ()> = FxHashMap::default();
    if !keep_versions {
        // Runs of symbols share a version: only a change of version is hashed.
        let mut last: Option<&str> = None;
        for v in lib.defined.iter().filter_map(|s| s.version.as_deref()) {
            if last != Some(v) {
                nodes.insert(v, ());
                last = Some(v);
            }
        }
    }
    let is_node = |s: &Symbol| {
        s.kind.eq_ignore_ascii_case(&'a') && s.size == 0 && nodes.contains_key(&*s.name)
    };
    let ids = &names.ids[lib_index];
    // One thread per side (the two sides are built in parallel): the rows of a side share a
    // few version strings, and bumping one reference count from two threads costs more than
    // building the rows.
    let mut rows = Vec::with_capacity(lib.defined.len());
    let mut row_ids = Vec::with_capacity(lib.defined.len());
    lib.defined
        .iter()
        .zip(ids)
        .filter(|(s, _)| !is_node(s))
        .map(|(s, &number)| {
            let id = number as usize;
            let (mangled, demangled) = match &s.version {
                Some(v) if keep_versions => {
                    let at = if s.version_hidden { "@" } else { "@@" };
                    let suffix = [at, v].concat();
                    (
                        Arc::from([&*s.name, &suffix].concat()),
                        Arc::from([&*names.demangled[id], &suffix].concat()),
                    )
                }
                _ => (names.mangled[id].clone(), names.demangled[id].clone()),
            };
            let row = SymRow {
                mangled,
                demangled,
                kind: s.kind,
                size: s.size,
                address: s.address,
                version: s.version.clone(),
            };
            (row, (number, names.text_ids[id]))
        })
        .for_each(|(row, id)| {
            rows.push(row);
            row_ids.push(id);
        });
    // With `--keep-versions` the texts carry their version, so the table's numbers do not
    // name them.
    let name_ids = (!keep_versions).then_some(NameIds {
        space: names.space,
        rows: row_ids,
        names: names.mangled.len(),
        // A text's number is the index of its first entry: below the entry count.
        texts: names.text_ids.len(),
    });
    // Only names that did not demangle are checked again (a handful per library).
    let kept_mangled = rows
        .iter()
        .filter(|r| r.demangled == r.mangled && crate::demangle::over_limit(&r.mangled))
        .count();
    Side {
        identity: Some(lib.identity.clone()),
        table: Some(lib.table),
        kept_mangled,
        version_nodes: lib.defined.len() - rows.len(),
        rows,
        sections: lib.sections.clone(),
        name_ids,
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

/// How much a rename map may multiply a name's length at worst. Each `OLD=NEW` entry can
/// multiply it by `len(NEW) / len(OLD)` (every byte of the name an occurrence of OLD), and the
/// entries apply in turn: 40 entries `a=aa` would double a name 40 times, 2^40-fold, and the
/// run would die out of memory. A real map renames a namespace or two and stays far below.
pub const MAX_RENAME_GROWTH: f64 = 4096.0;

/// Refuse a rename map whose worst-case growth exceeds [`MAX_RENAME_GROWTH`].
pub fn check_rename_growth(map: &[(String, String)]) -> Result<(), String> {
    let mut growth = 1.0_f64;
    for (old, new) in map {
        if !old.is_empty() && new.len() > old.len() {
            growth *= new.len() as f64 / old.len() as f64;
        }
    }
    if growth > MAX_RENAME_GROWTH {
        return Err(format!(
            "the {} entries can grow a name up to {growth:.3e}-fold (each OLD=NEW applies to the result of the ones before it); at most {MAX_RENAME_GROWTH}-fold is accepted",
            map.len()
        ));
    }
    Ok(())
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
    fn shared_name(&self) -> Arc<str> {
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

/// A string with its hash computed once. Maps keyed by it never rehash the text, and two keys
/// that point at the same text (a name shared by both sides) compare without reading it.
#[derive(Clone, Copy)]
struct Hashed<'a> {
    hash: u64,
    text: &'a str,
}

impl<'a> Hashed<'a> {
    fn new(text: &'a str) -> Self {
        Hashed {
            hash: hash_of(text),
            text,
        }
    }
}

fn hash_of(text: &str) -> u64 {
    let mut h = FxHasher::default();
    h.write(text.as_bytes());
    h.finish()
}

impl PartialEq for Hashed<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.hash == other.hash && (std::ptr::eq(self.text, other.text) || self.text == other.text)
    }
}

impl Eq for Hashed<'_> {}

impl Hash for Hashed<'_> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.hash);
    }
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
struct Folding<'a, K> {
    folded: Vec<Folded<'a>>,
    keys: Vec<K>,
    distinct: usize,
}

fn fold_hashed<'a>(rows: &'a [SymRow], opts: &DiffOptions) -> Folding<'a, u64> {
    // Every text is hashed once, in parallel; the maps below only compare equal hashes.
    let mangled: Vec<Hashed<'a>> = rows
        .par_iter()
        .with_min_len(512)
        .map(|r| Hashed::new(&r.mangled))
        .collect();
    let mut counts: FxHashMap<Hashed<'a>, u32> =
        FxHashMap::with_capacity_and_hasher(rows.len(), Default::default());
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
    let mut slot: FxHashMap<Hashed<'_>, usize> =
        FxHashMap::with_capacity_and_hasher(rows.len(), Default::default());
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
fn fold_by_number<'a>(
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
    Some((b, a, pairs))
}

/// Both sides' folds by numbers, and for each entry before, its entry after.
type Numbered<'a> = (Folding<'a, u32>, Folding<'a, u32>, Vec<Option<usize>>);

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

fn delta(a: u64, b: u64) -> i64 {
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
fn join(
    before: &[Folded<'_>],
    before_hashes: &[u64],
    after: &[Folded<'_>],
    after_hashes: &[u64],
) -> Vec<Option<usize>> {
    let index: FxHashMap<Hashed<'_>, usize> = after
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
fn bucket_joined(
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

fn first_mangled(f: &Folded<'_>) -> Arc<str> {
    f.mangled.clone()
}

/// A section's before/after sizes (a missing side counts as 0).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SectionDelta {
    pub name: String,
    pub before: u64,
    pub after: u64,
    pub delta: i64,
}

impl SectionDelta {
    /// The change in per cent of the before size (0 when there was none), as the text report prints it.
    pub fn percent(&self) -> f64 {
        crate::report::pct(self.delta, self.before)
    }
}

/// The complete comparison of two sides.
#[derive(Debug, Clone, Serialize)]
pub struct Diff {
    /// The listing (threshold and `--only-names` applied).
    pub listing: Buckets,
    /// What the gates see (threshold 0, no `--only-names` filter) when that differs from the
    /// listing; read it through [`Diff::gate_view`].
    gate_view: Option<Buckets>,
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
    /// What the gates see: threshold 0, no `--only-names` filter.
    pub fn gate_view(&self) -> &Buckets {
        self.gate_view.as_ref().unwrap_or(&self.listing)
    }

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
    let ((fa, distinct_before), (fb, distinct_after), pairs) =
        match fold_by_number(before, after, opts) {
            Some((b, a, pairs)) => ((b.folded, b.distinct), (a.folded, a.distinct), pairs),
            None => {
                let (b, a) = rayon::join(
                    || fold_hashed(&before.rows, opts),
                    || fold_hashed(&after.rows, opts),
                );
                let pairs = join(&b.folded, &b.keys, &a.folded, &a.keys);
                ((b.folded, b.distinct), (a.folded, a.distinct), pairs)
            }
        };
    let listing = bucket_joined(&fa, &fb, &pairs, opts.threshold, &opts.only_names);
    let gate_view = if opts.threshold == 0 && opts.only_names.is_empty() {
        None
    } else {
        Some(bucket_joined(&fa, &fb, &pairs, 0, &[]))
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
    let mut kind_changes: Vec<Change> = fa
        .iter()
        .zip(&pairs)
        .filter_map(|(x, pair)| Some((x, &fb[(*pair)?])))
        .filter(|(x, y)| x.kind != y.kind)
        .map(|(x, y)| Change {
            name: x.shared_name(),
            delta: delta(x.size, y.size),
            before: x.size,
            after: y.size,
            before_mangled: first_mangled(x),
            after_mangled: first_mangled(y),
            kind_before: Some(x.kind),
            kind_after: Some(y.kind),
        })
        .collect();
    kind_changes.sort_unstable_by(|x, y| x.name.cmp(&y.name));
    Diff {
        listing,
        gate_view,
        defined_before: distinct_before,
        defined_after: distinct_after,
        names_before: fa.len(),
        names_after: fb.len(),
        sections,
        kind_changes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Equal texts get one number (the first item's), different texts different numbers, also
    /// when every hash collides (one run holding several texts).
    #[test]
    fn number_alike_numbers_equal_texts_alike() {
        let texts = ["a", "b", "a", "c", "b", "a", ""];
        for hashes in [
            vec![7u64; texts.len()],
            texts.iter().map(|t| hash_of(t)).collect(),
        ] {
            let numbers = number_alike(&hashes, |i| texts[i]);
            let bound = numbers.len();
            assert_eq!(numbers, vec![0, 1, 0, 3, 1, 0, 6]);
            assert!(numbers.iter().all(|&n| (n as usize) < bound));
        }
    }

    /// Against a map from text to its first index, on many texts with few distinct hashes.
    #[test]
    fn number_alike_agrees_with_a_map() {
        let texts: Vec<String> = (0..5000)
            .map(|i| format!("t{}", (i * 7919) % 1231))
            .collect();
        let hashes: Vec<u64> = texts.iter().map(|t| hash_of(t) % 97).collect();
        let numbers = number_alike(&hashes, |i| &texts[i]);
        let mut first = std::collections::HashMap::new();
        for (i, t) in texts.iter().enumerate() {
            let want = *first.entry(t.as_str()).or_insert(i as u32);
            assert_eq!(numbers[i], want, "item {i} ({t})");
        }
    }
}
