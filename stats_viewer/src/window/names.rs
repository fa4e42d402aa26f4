//! The names of a window's fields, interned: the producer's known groups and keys are a
//! compile-time table, other names go into a capped process-wide table; each thread remembers
//! the previous line's names, so a window line is mostly matched, not hashed.

use std::fmt;
use std::num::NonZeroU32;
use std::sync::{OnceLock, RwLock};

/// Every group and key the producer prints today: a window holds 4-byte indices into this table
/// instead of a string per field (issue 16: the keys repeat on every window line).
/// The groups come first; `tex` and `emit` are both a group and a key.
const KNOWN_GROUPS: usize = 7;
const KNOWN: &[&str] = &[
    "bytes/f",
    "bytes",
    "tex",
    "cso",
    "emit",
    "wait",
    "gates",
    "frames",
    "fbe",
    "window",
    "wrec",
    "wrec/f",
    "draws",
    "draws/f",
    "acc",
    "acc/draw",
    "buf",
    "box",
    "trp",
    "ubog",
    "ubon",
    "vtxc",
    "vbs",
    "idxc",
    "icmd",
    "pmap",
    "resid",
    "rect",
    "rsp",
    "ringwraps",
    "ringpads",
    "ringwaits",
    "csob-blob",
    "csom",
    "csob",
    "ctu",
    "cli",
    "clipark",
    "seg",
    "sve",
    "sse",
    "sie",
    "srv",
    "srvpark",
    "ers",
    "etl",
    "eub",
    "jobs",
    "mpr",
    "maxrec",
    "maxcap",
    "mfp",
    "mpm",
    "mdt",
];

/// Distinct unknown group or key names the process keeps (issue 16): names repeat across windows,
/// so a real producer needs a handful; a corrupt or hostile log cannot grow the table past this.
pub const UNKNOWN_NAMES_CAP: usize = 4_096;

/// A group or key name, interned: known names index [`KNOWN`], others are leaked once per
/// distinct name into a process-wide table of at most [`UNKNOWN_NAMES_CAP`] names.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Sym(NonZeroU32);

struct Extra {
    index: FastMap<&'static str, u32>,
    names: Vec<&'static str>,
}

/// foldhash, the workspace's one fast hasher: the names are a few bytes long and looked up once
/// per field of every window, where SipHash's setup cost dominated (no untrusted party chooses them).
pub(crate) type FastMap<K, V> = foldhash::HashMap<K, V>;

fn known_index() -> &'static FastMap<&'static str, u32> {
    static INDEX: OnceLock<FastMap<&'static str, u32>> = OnceLock::new();
    INDEX.get_or_init(|| {
        (1u32..)
            .zip(KNOWN.iter().copied())
            .map(|(i, k)| (k, i))
            .collect()
    })
}

fn extra() -> &'static RwLock<Extra> {
    static EXTRA: OnceLock<RwLock<Extra>> = OnceLock::new();
    EXTRA.get_or_init(|| {
        RwLock::new(Extra {
            index: FastMap::default(),
            names: Vec::new(),
        })
    })
}

/// Whether two names are equal, in a `const` context.
const fn same_name(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

impl Sym {
    /// The symbol of a name in [`KNOWN`]; bound to a `const`, it is found at compile time (a name
    /// not in the table does not compile), so a per-window lookup of it costs no hashing.
    pub(crate) const fn known(name: &str) -> Sym {
        let mut i = 0;
        while i < KNOWN.len() {
            if same_name(KNOWN[i], name) {
                return match NonZeroU32::new(i as u32 + 1) {
                    Some(n) => Sym(n),
                    None => panic!("indices start at 1"),
                };
            }
            i += 1;
        }
        panic!("not a name of KNOWN")
    }

    /// The symbol of `s`, interning it when it is new; `None` when it is new and the table of
    /// unknown names already holds [`UNKNOWN_NAMES_CAP`] names.
    pub fn intern(s: &str) -> Option<Sym> {
        if let Some(&i) = known_index().get(s) {
            return Some(Sym::from_index(i));
        }
        if let Some(&i) = extra()
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .index
            .get(s)
        {
            return Some(Sym::from_index(i));
        }
        if LOOKUP_ONLY.get() {
            MET_NEW.set(true);
            return None;
        }
        let mut x = extra().write().unwrap_or_else(|e| e.into_inner());
        if let Some(&i) = x.index.get(s) {
            return Some(Sym::from_index(i));
        }
        if x.names.len() >= UNKNOWN_NAMES_CAP {
            return None;
        }
        let name: &'static str = Box::leak(s.to_owned().into_boxed_str());
        let i = KNOWN.len() as u32 + 1 + x.names.len() as u32;
        x.names.push(name);
        x.index.insert(name, i);
        Some(Sym::from_index(i))
    }

    /// The symbol of `s` if it was ever interned (never adds a name): a window's field can only
    /// carry an interned name, so a name without a symbol is on no window.
    pub fn lookup(s: &str) -> Option<Sym> {
        if let Some(&i) = known_index().get(s) {
            return Some(Sym::from_index(i));
        }
        extra()
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .index
            .get(s)
            .map(|&i| Sym::from_index(i))
    }

    fn from_index(i: u32) -> Sym {
        // Indices start at 1 by construction.
        Sym(NonZeroU32::new(i).unwrap_or(NonZeroU32::MIN))
    }

    /// The name.
    pub fn as_str(self) -> &'static str {
        let i = self.0.get() as usize;
        match KNOWN.get(i - 1) {
            Some(k) => k,
            None => extra()
                .read()
                .unwrap_or_else(|e| e.into_inner())
                .names
                .get(i - 1 - KNOWN.len())
                .copied()
                .unwrap_or(""),
        }
    }

    /// A group name the producer prints today (the first [`KNOWN_GROUPS`] of the table).
    pub fn is_known_group(self) -> bool {
        (self.0.get() as usize) <= KNOWN_GROUPS
    }

    /// A key the producer prints today (else a newer field, kept verbatim).
    pub fn is_known_key(self) -> bool {
        let i = self.0.get() as usize;
        (KNOWN_GROUPS < i && i <= KNOWN.len()) || matches!(self.as_str(), "tex" | "emit")
    }
}

impl std::ops::Deref for Sym {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for Sym {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl PartialEq<str> for Sym {
    fn eq(&self, o: &str) -> bool {
        self.as_str() == o
    }
}

impl PartialEq<&str> for Sym {
    fn eq(&self, o: &&str) -> bool {
        self.as_str() == *o
    }
}

impl fmt::Debug for Sym {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for Sym {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

thread_local! {
    /// The names of the last window line parsed on this thread, in line order. Window lines repeat
    /// their names, so a name is nearly always the one at the same position last time: one
    /// comparison instead of a hash lookup per field.
    static LAST_NAMES: std::cell::RefCell<Vec<(&'static str, Sym)>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

thread_local! {
    /// Set while this thread parses a later part of a log ahead of its turn
    /// ([`crate::halves`]): a name new to the process table must be interned in file order (the
    /// table is capped, so the order decides which names are kept), so it is only looked up.
    static LOOKUP_ONLY: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// A name was missing from the table while [`LOOKUP_ONLY`] was set.
    static MET_NEW: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// While alive, [`Sym::intern`] on this thread adds no name; it records that it met one.
pub(crate) struct LookupOnly;

impl LookupOnly {
    pub(crate) fn on() -> LookupOnly {
        LOOKUP_ONLY.set(true);
        MET_NEW.set(false);
        LookupOnly
    }

    /// A name missing from the table was met since [`LookupOnly::on`].
    pub(crate) fn met_new_name() -> bool {
        MET_NEW.get()
    }
}

impl Drop for LookupOnly {
    fn drop(&mut self) {
        LOOKUP_ONLY.set(false);
    }
}

/// Interns names in line order against the previous line's names (see [`LAST_NAMES`]).
pub(super) struct NameCursor {
    pub(super) last: Vec<(&'static str, Sym)>,
    pub(super) pos: usize,
}

impl NameCursor {
    pub(super) fn take() -> NameCursor {
        NameCursor {
            last: LAST_NAMES.with(|l| std::mem::take(&mut *l.borrow_mut())),
            pos: 0,
        }
    }

    pub(super) fn intern(&mut self, s: &str) -> Option<Sym> {
        if let Some(&(name, sym)) = self.last.get(self.pos) {
            if name == s {
                self.pos += 1;
                return Some(sym);
            }
        }
        let sym = Sym::intern(s)?;
        self.last.truncate(self.pos);
        self.last.push((sym.as_str(), sym));
        self.pos += 1;
        Some(sym)
    }

    /// The name this position held on the previous line, when `rest` starts with it followed by
    /// `=` or `[`: its length and symbol, read by one comparison instead of a byte scan and an
    /// [`NameCursor::intern`]. A name never holds a delimiter, so the scan would have stopped at
    /// that same byte and interned the same name.
    pub(super) fn expected(&mut self, rest: &[u8]) -> Option<(usize, Sym)> {
        let &(name, sym) = self.last.get(self.pos)?;
        let n = name.len();
        if rest.get(..n)? != name.as_bytes() || !matches!(rest.get(n), Some(b'=' | b'[')) {
            return None;
        }
        self.pos += 1;
        Some((n, sym))
    }

    pub(super) fn put_back(self) {
        LAST_NAMES.with(|l| *l.borrow_mut() = self.last);
    }
}
