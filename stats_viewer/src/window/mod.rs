//! The `MGPipe stats:` window line (spec §2): grammar, typed model, re-derivation self-check.
//!
//! Parsing is generic on purpose: fields were appended phase by phase, so every `key=value` token
//! and every bracketed group is kept, in order, namespaced by its bracket (`bytes/f.tex` is bytes
//! per frame, `tex.emit` is a count). Unknown keys are preserved, never dropped.

use std::fmt;

use crate::fixed::Fixed2;

mod names;

use names::NameCursor;
pub(crate) use names::{FastMap, LookupOnly};
pub use names::{Sym, UNKNOWN_NAMES_CAP};

/// The exact prefix of a window line after envelope stripping (banner and dump notices also start
/// with `MGPipe stats:` but are not windows).
pub const WINDOW_PREFIX: &str = "MGPipe stats: frames=";

/// One value on the line, typed by its shape.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    /// `U`: unsigned 64-bit decimal.
    Int(u64),
    /// `F`: exactly two decimals.
    Fixed(Fixed2),
    /// `n/a`: the producer's zero-denominator marker (never a fake 0.00).
    NotAvailable,
    /// `U/U`: gate hits/misses.
    HitMiss { hit: u64, miss: u64 },
    /// A shape this parser does not know (kept verbatim so nothing is lost).
    Text(Box<str>),
}

impl Value {
    /// One pass over the bytes: `U`, `U.DD`, `U/U`, `n/a`, else kept as text.
    fn parse(s: &str) -> Value {
        let b = s.as_bytes();
        let (int, i) = match leading_u64(b) {
            Some(v) => v,
            None if s == "n/a" => return Value::NotAvailable,
            None => return Value::Text(s.into()),
        };
        match &b[i..] {
            [] => Value::Int(int),
            [b'.', d1, d2] if d1.is_ascii_digit() && d2.is_ascii_digit() => {
                let frac = u64::from(d1 - b'0') * 10 + u64::from(d2 - b'0');
                match int.checked_mul(100).and_then(|h| h.checked_add(frac)) {
                    Some(h) => Value::Fixed(Fixed2(h)),
                    None => Value::Text(s.into()),
                }
            }
            [b'/', rest @ ..] => match leading_u64(rest) {
                Some((miss, n)) if n == rest.len() => Value::HitMiss { hit: int, miss },
                _ => Value::Text(s.into()),
            },
            _ => Value::Text(s.into()),
        }
    }

    /// The value at the start of `s`, up to its first ` `, `[` or `]`, and that length: what
    /// [`Value::parse`] gives for that text, read in the same pass as its end is found for the
    /// shapes a producer prints (the rest is found first and parsed after).
    fn scan(s: &str) -> (Value, usize) {
        let b = s.as_bytes();
        let ends = |k: usize| matches!(b.get(k), None | Some(b' ' | b'[' | b']'));
        if let Some((int, k)) = leading_u64(b) {
            match b.get(k) {
                _ if ends(k) => return (Value::Int(int), k),
                Some(b'.') => {
                    if let (Some(d1), Some(d2)) = (b.get(k + 1), b.get(k + 2)) {
                        let frac = (d1.is_ascii_digit() && d2.is_ascii_digit() && ends(k + 3))
                            .then(|| u64::from(d1 - b'0') * 10 + u64::from(d2 - b'0'));
                        let h = frac.and_then(|f| int.checked_mul(100)?.checked_add(f));
                        if let Some(h) = h {
                            return (Value::Fixed(Fixed2(h)), k + 3);
                        }
                    }
                }
                Some(b'/') => {
                    if let Some((miss, n)) = b.get(k + 1..).and_then(leading_u64) {
                        if ends(k + 1 + n) {
                            return (Value::HitMiss { hit: int, miss }, k + 1 + n);
                        }
                    }
                }
                _ => {}
            }
        }
        let end = b
            .iter()
            .position(|c| matches!(c, b' ' | b'[' | b']'))
            .unwrap_or(b.len());
        (Value::parse(&s[..end]), end)
    }

    pub fn as_int(&self) -> Option<u64> {
        match self {
            Value::Int(v) => Some(*v),
            _ => None,
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Int(v) => write!(f, "{v}"),
            Value::Fixed(v) => write!(f, "{v}"),
            Value::NotAvailable => f.write_str("n/a"),
            Value::HitMiss { hit, miss } => write!(f, "{hit}/{miss}"),
            Value::Text(s) => f.write_str(s),
        }
    }
}

/// A leading run of decimal digits as u64 and its length; `None` when empty or on overflow.
fn leading_u64(b: &[u8]) -> Option<(u64, usize)> {
    let mut v: u64 = 0;
    let mut i = 0;
    while let Some(d) = b.get(i).filter(|c| c.is_ascii_digit()) {
        v = v.checked_mul(10)?.checked_add(u64::from(d - b'0'))?;
        i += 1;
    }
    (i > 0).then_some((v, i))
}

/// One `key=value` token; `group` is the bracket it sits in (`None` for the leading scalars).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    pub group: Option<Sym>,
    pub key: Sym,
    pub value: Value,
}

impl Field {
    /// The namespaced name: `draws`, `bytes/f.tex`, `tex.emit`, `gates.ers`.
    pub fn name(&self) -> String {
        match &self.group {
            Some(g) => format!("{g}.{}", self.key),
            None => self.key.to_string(),
        }
    }

    /// How the field behaves across windows.
    pub fn kind(&self) -> FieldKind {
        field_kind(self.group.as_deref(), self.key.as_str(), &self.value)
    }
}

/// Window-vs-run-total semantics of a field (spec §2.4, §12.5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FieldKind {
    /// `frames`: presents since `Init()`, cumulative.
    RunTotal,
    /// `window`: frames in this window.
    WindowLength,
    /// A count over the window: sums across windows.
    Count,
    /// Per-frame value (`draws/f`, `bytes/f[…]`, `wrec/f`).
    PerFrame,
    /// Per-draw value (`acc/draw`).
    PerDraw,
    /// The last published run-total value or a maximum: never summed.
    Gauge,
    /// Gate hits/misses over the window: both halves sum.
    HitMiss,
    /// Not interpretable (unknown shape).
    Unknown,
}

fn field_kind(group: Option<&str>, key: &str, value: &Value) -> FieldKind {
    match (group, key) {
        (None, "frames") => FieldKind::RunTotal,
        (None, "window") => FieldKind::WindowLength,
        (None, "acc/draw") => FieldKind::PerDraw,
        (Some("wait"), _) => FieldKind::Gauge,
        (Some("emit"), "maxrec" | "maxcap" | "ringwraps" | "ringpads" | "ringwaits") => {
            FieldKind::Gauge
        }
        _ => match value {
            Value::HitMiss { .. } => FieldKind::HitMiss,
            Value::Int(_) if group == Some("bytes") => FieldKind::Count,
            Value::Fixed(_) | Value::NotAvailable
                if key.ends_with("/f") || group == Some("bytes/f") =>
            {
                FieldKind::PerFrame
            }
            Value::Int(_) if key.ends_with("/f") => FieldKind::Count,
            Value::Int(_) => FieldKind::Count,
            _ => FieldKind::Unknown,
        },
    }
}

/// One parsed window line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Window {
    pub frames: u64,
    pub window: u64,
    pub draws: u64,
    pub acc: u64,
    /// Printed `draws/f` (`None` = `n/a`).
    pub draws_per_frame: Option<Fixed2>,
    /// Printed `acc/draw` (`None` = `n/a`).
    pub acc_per_draw: Option<Fixed2>,
    /// Every token in line order, the scalars included.
    pub fields: Vec<Field>,
    /// Fields left out because their unknown name arrived after the process-wide table of
    /// unknown names was full ([`UNKNOWN_NAMES_CAP`]): counted, so nothing is lost silently.
    pub dropped_keys: u32,
    /// `emit.wrec/f` re-derives from `emit.wrec` (or the line lacks one of them): decided at
    /// parse time, while the fields are in cache, so [`Window::rederive`] over a long session
    /// does not walk every window's fields again to find them (issue 16).
    wrec_derives: bool,
}

/// Why a line that starts like a window line is not one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WindowError {
    /// The line lacks its closing `]` or its brackets do not balance: a record cut mid-line.
    CutShort,
    /// A required scalar is missing or has the wrong shape.
    BadScalar {
        key: &'static str,
        found: Option<String>,
    },
    /// A token that is not `key=value`.
    BadToken { token: String },
}

impl fmt::Display for WindowError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WindowError::CutShort => {
                f.write_str("window line cut short (no closing `]` or unbalanced brackets)")
            }
            WindowError::BadScalar { key, found: None } => write!(f, "window line lacks `{key}=`"),
            WindowError::BadScalar {
                key,
                found: Some(v),
            } => write!(f, "window line has `{key}={v}`, not a valid value"),
            WindowError::BadToken { token } => write!(
                f,
                "window line has a token that is not key=value: `{token}`"
            ),
        }
    }
}

/// A re-derived ratio that does not reproduce the printed text.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Mismatch {
    pub field: &'static str,
    pub printed: String,
    pub derived: String,
}

impl Window {
    /// Parses a message (envelope already removed). The caller checks [`WINDOW_PREFIX`] first.
    pub fn parse(msg: &str) -> Result<Window, WindowError> {
        let mut names = NameCursor::take();
        let w = Window::parse_with(msg, &mut names);
        names.put_back();
        w
    }

    fn parse_with(msg: &str, names: &mut NameCursor) -> Result<Window, WindowError> {
        let body = msg.strip_prefix("MGPipe stats: ").unwrap_or(msg);
        if !body.ends_with(']') {
            return Err(WindowError::CutShort);
        }
        let b = body.as_bytes();
        // Exact capacity: one `=` per field (no growth, no shrink copy).
        let mut fields = Vec::with_capacity(memchr::memchr_iter(b'=', b).count());
        // `Some(None)`: inside a group whose name could not be interned (its fields are dropped).
        let mut group: Option<Option<Sym>> = None;
        let mut dropped_keys = 0u32;
        let mut i = 0;
        // One pass over the bytes: `name[` opens a group, `]` closes it, `key=value` tokens
        // are separated by single spaces.
        while i < b.len() {
            match b[i] {
                b' ' => i += 1,
                b']' if group.is_some() => {
                    group = None;
                    i += 1;
                }
                b']' | b'[' | b'=' => return Err(WindowError::CutShort),
                _ => {
                    let start = i;
                    // Outside a dropped group, the previous line's name here is tried first.
                    let known = match group {
                        Some(None) => None,
                        _ => names.expected(&b[i..]),
                    };
                    match known {
                        Some((n, _)) => i += n,
                        None => {
                            while i < b.len() && !matches!(b[i], b' ' | b'[' | b']' | b'=') {
                                i += 1;
                            }
                        }
                    }
                    let mut name =
                        |s: &str| known.map_or_else(|| names.intern(s), |(_, k)| Some(k));
                    match b.get(i) {
                        Some(b'[') if group.is_none() => {
                            group = Some(name(&body[start..i]));
                            i += 1;
                        }
                        Some(b'[') => return Err(WindowError::CutShort),
                        Some(b'=') => {
                            let key = &body[start..i];
                            i += 1;
                            let (value, n) = Value::scan(&body[i..]);
                            i += n;
                            if b.get(i) == Some(&b'[') {
                                return Err(WindowError::CutShort);
                            }
                            // A field of a dropped group, or whose new name finds the table
                            // full, is counted instead of kept.
                            let kept = match group {
                                Some(None) => None,
                                Some(Some(g)) => name(key).map(|k| (Some(g), k)),
                                None => name(key).map(|k| (None, k)),
                            };
                            match kept {
                                Some((group, key)) => fields.push(Field { group, key, value }),
                                None => dropped_keys = dropped_keys.saturating_add(1),
                            }
                        }
                        _ => {
                            return Err(WindowError::BadToken {
                                token: body[start..i].to_string(),
                            })
                        }
                    }
                }
            }
        }
        if group.is_some() {
            return Err(WindowError::CutShort);
        }
        let int = |key: &'static str| -> Result<u64, WindowError> {
            match fields.iter().find(|f| f.group.is_none() && f.key == key) {
                Some(Field {
                    value: Value::Int(v),
                    ..
                }) => Ok(*v),
                Some(f) => Err(WindowError::BadScalar {
                    key,
                    found: Some(f.value.to_string()),
                }),
                None => Err(WindowError::BadScalar { key, found: None }),
            }
        };
        let ratio = |key: &'static str| -> Result<Option<Fixed2>, WindowError> {
            match fields.iter().find(|f| f.group.is_none() && f.key == key) {
                Some(Field {
                    value: Value::Fixed(v),
                    ..
                }) => Ok(Some(*v)),
                Some(Field {
                    value: Value::NotAvailable,
                    ..
                }) => Ok(None),
                Some(f) => Err(WindowError::BadScalar {
                    key,
                    found: Some(f.value.to_string()),
                }),
                None => Err(WindowError::BadScalar { key, found: None }),
            }
        };
        let mut w = Window {
            frames: int("frames")?,
            window: int("window")?,
            draws: int("draws")?,
            acc: int("acc")?,
            draws_per_frame: ratio("draws/f")?,
            acc_per_draw: ratio("acc/draw")?,
            fields,
            dropped_keys,
            wrec_derives: false,
        };
        w.wrec_derives = w.wrec_mismatch().is_none();
        Ok(w)
    }

    /// The value of a namespaced field (`draws`, `bytes/f.tex`, `gates.ers`).
    pub fn get(&self, name: &str) -> Option<&Value> {
        let (group, key) = match name.rsplit_once('.') {
            Some((g, k)) => (Some(g), k),
            None => (None, name),
        };
        // Symbols compare as integers (one symbol per distinct name), not as strings.
        let key = Sym::lookup(key)?;
        let group = match group {
            Some(g) => Some(Sym::lookup(g)?),
            None => None,
        };
        self.value(group, key)
    }

    /// The value of the field `key` in `group`, by symbol.
    pub(crate) fn value(&self, group: Option<Sym>, key: Sym) -> Option<&Value> {
        self.fields
            .iter()
            .find(|f| f.group == group && f.key == key)
            .map(|f| &f.value)
    }

    /// The byte bracket's label: `bytes/f` normally, `bytes` (window totals) when `window == 0`.
    pub fn bytes_group(&self) -> &str {
        self.fields
            .iter()
            .filter_map(|f| f.group.as_deref())
            .find(|g| *g == "bytes/f" || *g == "bytes")
            .unwrap_or("bytes/f")
    }

    /// Group names in line order (`None` for the scalars), each once.
    pub fn groups(&self) -> Vec<Option<&str>> {
        let mut out: Vec<Option<&str>> = Vec::new();
        for f in &self.fields {
            let g = f.group.as_deref();
            if !out.contains(&g) {
                out.push(g);
            }
        }
        out
    }

    /// Re-derives `draws/f`, `acc/draw` (and `emit.wrec/f`) with the producer's rounding and
    /// returns every one that does not reproduce the printed text.
    pub fn rederive(&self) -> Vec<Mismatch> {
        let mut out = Vec::new();
        let show = |v: Option<Fixed2>| v.map_or_else(|| "n/a".to_string(), |v| v.to_string());
        let d = Fixed2::ratio(self.draws, self.window);
        if d != self.draws_per_frame {
            out.push(Mismatch {
                field: "draws/f",
                printed: show(self.draws_per_frame),
                derived: show(d),
            });
        }
        let a = Fixed2::ratio(self.acc, self.draws);
        if a != self.acc_per_draw {
            out.push(Mismatch {
                field: "acc/draw",
                printed: show(self.acc_per_draw),
                derived: show(a),
            });
        }
        if !self.wrec_derives {
            out.extend(self.wrec_mismatch());
        }
        out
    }

    /// `emit.wrec/f` against `emit.wrec` re-derived with the producer's rounding.
    fn wrec_mismatch(&self) -> Option<Mismatch> {
        // Consts, so the table is searched at compile time.
        const EMIT: Option<Sym> = Some(Sym::known("emit"));
        const WREC: Sym = Sym::known("wrec");
        const WREC_F: Sym = Sym::known("wrec/f");
        let (Some(Value::Int(wrec)), Some(printed)) =
            (self.value(EMIT, WREC), self.value(EMIT, WREC_F))
        else {
            return None;
        };
        // At window == 0 the producer prints the integer window total instead of a rate.
        let derived = if self.window == 0 {
            Value::Int(*wrec)
        } else {
            Value::Fixed(Fixed2::ratio(*wrec, self.window).unwrap_or(Fixed2(0)))
        };
        (*printed != derived).then(|| Mismatch {
            field: "emit.wrec/f",
            printed: printed.to_string(),
            derived: derived.to_string(),
        })
    }

    /// Relations the producer's counters imply (spec §13): `(name, holds, detail)` for each one
    /// this line carries the fields for.
    pub fn invariants(&self) -> Vec<(&'static str, bool, String)> {
        let int = |k: &str| self.get(k).and_then(Value::as_int);
        let mut out = Vec::new();
        if let (Some(ctu), Some(emit)) = (int("emit.ctu"), int("tex.emit")) {
            out.push((
                "emit.ctu == tex.emit",
                ctu == emit,
                format!("{ctu} vs {emit}"),
            ));
        }
        if let (Some(jobs), Some(bx), Some(rect)) =
            (int("tex.jobs"), int("tex.box"), int("tex.rect"))
        {
            out.push((
                "tex.jobs >= tex.box + tex.rect",
                jobs >= bx.saturating_add(rect),
                format!("{jobs} vs {bx} + {rect}"),
            ));
        }
        if let (Some(maxrec), Some(maxcap)) = (int("emit.maxrec"), int("emit.maxcap")) {
            if maxcap > 0 {
                out.push((
                    "emit.maxrec <= emit.maxcap",
                    maxrec <= maxcap,
                    format!("{maxrec} vs {maxcap}"),
                ));
            }
        }
        let used = |gs: [&str; 3]| {
            gs.iter()
                .any(|g| self.gate(g).is_some_and(|(h, m)| h + m > 0))
        };
        if self.gate("ers").is_some() && self.gate("mfp").is_some() {
            let espryt = used(["ers", "etl", "eub"]);
            let magma = used(["mfp", "mpm", "mdt"]);
            out.push((
                "one backend's gates only",
                !(espryt && magma),
                format!("DirectGLES gates used: {espryt}, DirectVulkan gates used: {magma}"),
            ));
        }
        out
    }

    /// Hit rate of a gate (`ers`…), `None` for `0/0` or an absent gate.
    pub fn gate(&self, name: &str) -> Option<(u64, u64)> {
        match self
            .fields
            .iter()
            .find(|f| f.group.as_deref() == Some("gates") && f.key == name)?
            .value
        {
            Value::HitMiss { hit, miss } => Some((hit, miss)),
            _ => None,
        }
    }

    /// Renders the line back in the producer's shape (`MGPipe stats: frames=…`).
    pub fn to_line(&self) -> String {
        let mut s = String::from("MGPipe stats:");
        let mut open: Option<&str> = None;
        for f in &self.fields {
            let g = f.group.as_deref();
            if g != open {
                if open.is_some() {
                    s.push(']');
                }
                if let Some(g) = g {
                    s.push(' ');
                    s.push_str(g);
                    s.push('[');
                } else {
                    s.push(' ');
                }
                open = g;
            } else {
                s.push(' ');
            }
            s.push_str(&f.key);
            s.push('=');
            s.push_str(&f.value.to_string());
        }
        if open.is_some() {
            s.push(']');
        }
        s
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// The one-pass value reading gives what the scan-then-parse reading gives, on every string
    /// of up to five bytes over the characters that matter, and on overflowing numbers.
    #[test]
    fn value_scan_agrees_with_parse() {
        let alphabet = b"09./na x[]";
        let mut strings: Vec<String> = vec![
            "18446744073709551615".into(),
            "18446744073709551616".into(),
            "184467440737095516.15".into(),
            "184467440737095516.16 x".into(),
            "1/18446744073709551616]".into(),
            "18446744073709551616/1".into(),
        ];
        let mut cur = vec![String::new()];
        for _ in 0..5 {
            let mut next = Vec::new();
            for p in &cur {
                for &c in alphabet {
                    next.push(format!("{p}{}", c as char));
                }
            }
            strings.extend(next.iter().cloned());
            cur = next;
        }
        for s in &strings {
            let end = s.find([' ', '[', ']']).unwrap_or(s.len());
            assert_eq!(Value::scan(s), (Value::parse(&s[..end]), end), "{s:?}");
        }
    }

    /// Reading names against the previous line's gives the window a cold read gives, also when
    /// the layout shifts (a name added, removed, renamed or lengthened) between lines.
    #[test]
    fn warm_names_read_as_cold_ones() {
        let lines = [
            "MGPipe stats: frames=120 window=120 draws=1 draws/f=0.01 acc=2 acc/draw=2.00 tex[emit=1 box=2] gates[ers=1/2]",
            "MGPipe stats: frames=240 window=120 draws=1 draws/f=0.01 acc=2 acc/draw=2.00 tex[emit=1 box=2] gates[ers=1/2]",
            "MGPipe stats: frames=360 window=120 draws=1 draws/f=0.01 acc=2 acc/draw=2.00 tex[emit=1 boxx=2 box=3] gates[ers=1/2]",
            "MGPipe stats: frames=480 window=120 draws=1 draws/f=0.01 acc=2 acc/draw=2.00 tex[emit=1] texx[box=2] gates[ers=1/2]",
            "MGPipe stats: frames=600 window=120 draws=1 draws/f=0.01 acc=2 acc/draw=2.00 tex[emit[=1] gates[ers=1/2]",
            "MGPipe stats: frames=720 window=120 draws=1 draws/f=0.01 acc=2 acc/draw=2.00 tex[emit=1 box=2] gates[ers=1/2]",
            "MGPipe stats: frames=840 window=120 draws=1 draws/f=0.01 acc=2 acc/draw=2.00 tex[emit box=2] gates[ers=1/2]",
            "MGPipe stats: frames=960 window=120 draws=1 draws/f=0.01 acc=2 acc/draw=2.00 tex[emit=1 box=2] gates[ers=1/2 etl=3/4]",
            "MGPipe stats: frames=1080 window=120 draws=1 draws/f=0.01 acc=2 acc/draw=2.00 tex[emit=1 box=2] gates[ers=1/2 etl=3/4]",
        ];
        let mut warm = NameCursor {
            last: Vec::new(),
            pos: 0,
        };
        let mut matched = 0;
        for l in lines {
            warm.pos = 0;
            let w = Window::parse_with(l, &mut warm);
            matched += warm.pos;
            let mut cold = NameCursor {
                last: Vec::new(),
                pos: 0,
            };
            assert_eq!(w, Window::parse_with(l, &mut cold), "{l}");
        }
        assert!(matched > 0);
    }

    const PULL: &str = "MGPipe stats: frames=120 window=120 draws=9138 draws/f=76.15 acc=87495 acc/draw=9.57 bytes/f[buf=34962.67 tex=306.33 ubog=0.00 ubon=0.00 vtxc=0.00 idxc=0.00 icmd=0.00 pmap=0.00 resid=0.00] tex[emit=2 box=2 rect=0 jobs=2] gates[ers=9088/453 etl=630/8911 eub=535/9006 mfp=0/0 mpm=0/0 mdt=0/0]";

    #[test]
    fn parses_pull_line_namespaced() {
        let w = Window::parse(PULL).unwrap();
        assert_eq!(
            (w.frames, w.window, w.draws, w.acc),
            (120, 120, 9138, 87495)
        );
        assert_eq!(w.draws_per_frame, Some(Fixed2(7615)));
        assert_eq!(w.get("bytes/f.tex"), Some(&Value::Fixed(Fixed2(30633))));
        assert_eq!(w.get("tex.emit"), Some(&Value::Int(2)));
        assert_eq!(w.gate("ers"), Some((9088, 453)));
        assert!(w.rederive().is_empty());
        assert_eq!(w.to_line(), PULL);
    }

    #[test]
    fn unknown_keys_kept_and_csob_not_confused() {
        let line = "MGPipe stats: frames=1 window=1 draws=1 draws/f=1.00 acc=16 acc/draw=16.00 newkey=7 bytes/f[buf=184.00 csob-blob=3.00 zz=1.50] cso[csom=1 csob=2 mpr=0] future[a=b] gates[ers=1/1]";
        let w = Window::parse(line).unwrap();
        assert_eq!(w.get("newkey"), Some(&Value::Int(7)));
        assert_eq!(w.get("bytes/f.zz"), Some(&Value::Fixed(Fixed2(150))));
        assert_eq!(w.get("future.a"), Some(&Value::Text("b".into())));
        assert_eq!(w.get("cso.csob"), Some(&Value::Int(2)));
        assert_eq!(w.get("bytes/f.csob-blob"), Some(&Value::Fixed(Fixed2(300))));
        assert_eq!(w.to_line(), line);
    }

    #[test]
    fn window_zero_teardown() {
        let line = "MGPipe stats: frames=720 window=0 draws=5 draws/f=n/a acc=0 acc/draw=0.00 bytes[buf=100 tex=0] emit[wrec=3 wrec/f=3 maxrec=0] gates[ers=0/0]";
        let w = Window::parse(line).unwrap();
        assert_eq!(w.draws_per_frame, None);
        assert_eq!(w.bytes_group(), "bytes");
        assert_eq!(w.get("bytes.buf"), Some(&Value::Int(100)));
        assert!(w.rederive().is_empty());
    }

    #[test]
    fn invariants_hold_and_break() {
        let w = Window::parse(PULL).unwrap();
        assert!(w.invariants().iter().all(|i| i.1), "{:?}", w.invariants());
        let bad = PULL
            .replace("jobs=2]", "jobs=1]")
            .replace("mfp=0/0", "mfp=1/0");
        let w = Window::parse(&bad).unwrap();
        let broken: Vec<_> = w
            .invariants()
            .into_iter()
            .filter(|i| !i.1)
            .map(|i| i.0)
            .collect();
        assert_eq!(
            broken,
            vec!["tex.jobs >= tex.box + tex.rect", "one backend's gates only"]
        );
    }

    #[test]
    fn flags_mismatch() {
        let w = Window::parse(&PULL.replace("draws/f=76.15", "draws/f=76.14")).unwrap();
        let m = w.rederive();
        assert_eq!(m.len(), 1);
        assert_eq!(m[0].derived, "76.15");
    }

    #[test]
    fn rejects_cut_and_bad() {
        assert_eq!(Window::parse(&PULL[..200]), Err(WindowError::CutShort));
        assert!(matches!(
            Window::parse(&PULL.replace("draws=9138", "draws=x")),
            Err(WindowError::BadScalar { key: "draws", .. })
        ));
        assert!(matches!(
            Window::parse(&PULL.replace("acc=87495 ", "")),
            Err(WindowError::BadScalar {
                key: "acc",
                found: None
            })
        ));
        assert!(matches!(
            Window::parse(&PULL.replace("frames=120", "frames=99999999999999999999999")),
            Err(WindowError::BadScalar { .. })
        ));
        assert!(Window::parse("MGPipe stats: frames=1 window=1 ] x[").is_err());
    }
}
