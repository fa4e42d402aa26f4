//! Analyse: normalise, fold and bucket two sides' symbols (spec §1.4), then apply the gates.
//! Pure functions over the model; no I/O. [`side`] builds each side's rows from its library
//! (every distinct name demangled once), [`fold`] folds them by normalised name, [`bucket`]
//! matches the two folds and sorts the changes into the four buckets; [`diff`] runs the three.

use std::hash::{Hash, Hasher};

use serde::Serialize;

mod bucket;
mod fold;
mod side;

pub use bucket::{bucket, Bucket, Buckets, Change};
use bucket::{bucket_joined, delta, first_mangled, join};
pub use fold::{fold, normalise, Folded};
use fold::{fold_by_number, fold_hashed};
pub use side::{sides_from_libraries, NameIds, NameTable, Side, SymRow};

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

/// A diff setting that cannot be used.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DiffError {
    #[error("unknown bucket {bucket:?} (expected added, removed, resized or renamed)")]
    UnknownBucket { bucket: String },
    #[error("the {entries} entries can grow a name up to {growth:.3e}-fold (each OLD=NEW applies to the result of the ones before it); at most {MAX_RENAME_GROWTH}-fold is accepted")]
    RenameGrowth { entries: usize, growth: f64 },
}

/// Refuse a rename map whose worst-case growth exceeds [`MAX_RENAME_GROWTH`].
pub fn check_rename_growth(map: &[(String, String)]) -> Result<(), DiffError> {
    let mut growth = 1.0_f64;
    for (old, new) in map {
        if !old.is_empty() && new.len() > old.len() {
            growth *= new.len() as f64 / old.len() as f64;
        }
    }
    if growth > MAX_RENAME_GROWTH {
        return Err(DiffError::RenameGrowth {
            entries: map.len(),
            growth,
        });
    }
    Ok(())
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

/// The hash every map of the diff keys a text by.
fn hash_of(text: &str) -> u64 {
    crate::fast::hash_text(text)
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
            Some(n) => (
                (n.before.folded, n.before.distinct),
                (n.after.folded, n.after.distinct),
                n.pairs,
            ),
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
