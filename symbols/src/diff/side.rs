//! One side of a diff: the defined symbols of a library as rows, every distinct name of both
//! libraries numbered and demangled once ([`NameTable`]).

use std::sync::Arc;

use rayon::prelude::*;
use serde::Serialize;

use super::{hash_of, Hashed};
use crate::demangle::demangle_shared;
use crate::fast::FastMap;
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
    pub(super) space: u64,
    pub(super) rows: Vec<(u32, u32)>,
    pub(super) names: usize,
    pub(super) texts: usize,
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
    let mut index: FastMap<Hashed<'a>, u32> =
        FastMap::with_capacity_and_hasher(total, Default::default());
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
    let mut nodes: FastMap<&str, ()> = FastMap::default();
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
