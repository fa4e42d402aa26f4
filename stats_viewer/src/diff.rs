//! A/B of two arms: every field of the last complete windows side by side, and the validity check
//! (the same trace replays the same frames, so `draws` per window must be identical).

use std::collections::HashMap;
use std::io::{self, Write};

use serde_json::{json, Value as Json};

use crate::analysis::hit_rate;
use crate::fixed::Ratio;
use crate::report::{value_json, SteadyRange};
use crate::session::{At, Log, Session};
use crate::window::{Value, Window};

/// One field compared across the arms.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldDiff {
    pub name: String,
    /// `None`: the key is absent in that arm (not zero).
    pub a: Option<Value>,
    pub b: Option<Value>,
}

impl FieldDiff {
    fn numeric(v: &Value) -> Option<Ratio> {
        match v {
            Value::Int(i) => Some(Ratio::from_int(*i)),
            Value::Fixed(f) => Some(Ratio::from_fixed(*f)),
            Value::HitMiss { hit, miss } => hit_rate(*hit, *miss),
            _ => None,
        }
    }

    /// b − a (for hit/miss: the hit-rate difference).
    pub fn delta(&self) -> Option<Ratio> {
        let a = Self::numeric(self.a.as_ref()?)?;
        let b = Self::numeric(self.b.as_ref()?)?;
        Some(b.minus(a))
    }

    /// (b − a) / a × 100; `None` when a is zero or either side is absent.
    pub fn percent(&self) -> Option<Ratio> {
        if matches!(self.a, Some(Value::HitMiss { .. })) {
            return None;
        }
        let a = Self::numeric(self.a.as_ref()?)?;
        self.delta()?.divided_by(a).map(|r| r.scale(100))
    }
}

/// The validity verdict of an A/B pair.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Validity {
    /// Window lines aligned by `frames=` in both arms.
    pub aligned: usize,
    /// (frames, draws A, draws B) for every aligned window whose draws differ.
    pub mismatched: Vec<(u64, u64, u64)>,
}

impl Validity {
    pub fn valid(&self) -> bool {
        self.aligned > 0 && self.mismatched.is_empty()
    }
}

#[derive(Debug, Clone)]
pub struct Diff<'a> {
    pub a: &'a Log,
    pub b: &'a Log,
    pub sa: &'a Session,
    pub sb: &'a Session,
    pub wa: &'a At<Window>,
    pub wb: &'a At<Window>,
    pub fields: Vec<FieldDiff>,
    pub validity: Validity,
    pub steady: SteadyRange,
}

/// Why two logs cannot be compared.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DiffError {
    NoWindow { path: String },
    NoComplete { path: String },
}

impl std::fmt::Display for DiffError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DiffError::NoWindow { path } => write!(f, "no `MGPipe stats:` window found in {path}"),
            DiffError::NoComplete { path } => write!(
                f,
                "{path}: no complete `MGPipe stats:` window (window == period) in the last session"
            ),
        }
    }
}

pub fn diff<'a>(a: &'a Log, b: &'a Log, steady: SteadyRange) -> Result<Diff<'a>, DiffError> {
    let pick = |l: &'a Log| -> Result<(&'a Session, &'a At<Window>), DiffError> {
        let path = l.path.display().to_string();
        let s = l
            .reported_session()
            .filter(|s| !s.windows.is_empty())
            .ok_or_else(|| DiffError::NoWindow { path: path.clone() })?;
        let w = s.last_complete().ok_or(DiffError::NoComplete { path })?;
        Ok((s, w))
    };
    let (sa, wa) = pick(a)?;
    let (sb, wb) = pick(b)?;
    let mut fields: Vec<FieldDiff> = Vec::new();
    for f in &wa.item.fields {
        let name = f.name();
        let bv = wb.item.get(&name).cloned();
        fields.push(FieldDiff {
            name,
            a: Some(f.value.clone()),
            b: bv,
        });
    }
    for f in &wb.item.fields {
        let name = f.name();
        if wa.item.get(&name).is_none() {
            fields.push(FieldDiff {
                name,
                a: None,
                b: Some(f.value.clone()),
            });
        }
    }
    let mut validity = Validity {
        aligned: 0,
        mismatched: Vec::new(),
    };
    // B's first window per (frames, window), looked up once per window of A: linear, not A x B.
    let mut by_frames: HashMap<(u64, u64), &At<Window>> = HashMap::with_capacity(sb.windows.len());
    for y in &sb.windows {
        by_frames.entry((y.item.frames, y.item.window)).or_insert(y);
    }
    for x in &sa.windows {
        if let Some(y) = by_frames.get(&(x.item.frames, x.item.window)) {
            validity.aligned += 1;
            if x.item.draws != y.item.draws {
                validity
                    .mismatched
                    .push((x.item.frames, x.item.draws, y.item.draws));
            }
        }
    }
    Ok(Diff {
        a,
        b,
        sa,
        sb,
        wa,
        wb,
        fields,
        validity,
        steady,
    })
}

fn show(v: &Option<Value>) -> String {
    v.as_ref()
        .map_or_else(|| "absent".to_string(), Value::to_string)
}

impl Diff<'_> {
    fn delta_text(f: &FieldDiff) -> (String, String) {
        let places = match (&f.a, &f.b) {
            (Some(Value::HitMiss { .. }), _) => 4,
            (Some(Value::Int(_)), Some(Value::Int(_))) => 0,
            _ => 2,
        };
        let d = f
            .delta()
            .map_or_else(|| "—".to_string(), |d| d.format(places, true));
        let d = if matches!(f.a, Some(Value::HitMiss { .. })) && d != "—" {
            format!("{d} hit rate")
        } else {
            d
        };
        let p = f
            .percent()
            .map_or_else(|| "—".to_string(), |p| format!("{} %", p.format(2, true)));
        (d, p)
    }

    pub fn only_in_b(&self) -> Vec<&str> {
        self.fields
            .iter()
            .filter(|f| f.a.is_none())
            .map(|f| f.name.as_str())
            .collect()
    }

    pub fn only_in_a(&self) -> Vec<&str> {
        self.fields
            .iter()
            .filter(|f| f.b.is_none())
            .map(|f| f.name.as_str())
            .collect()
    }

    /// The stderr line when the arms did not replay the same frames (None when they did), and
    /// whether that fails the command (it does not with `--allow-mismatch`).
    pub fn validity_problem(&self, allow_mismatch: bool) -> Option<(String, bool)> {
        if self.validity.valid() {
            return None;
        }
        Some(if allow_mismatch {
            ("warning: the arms did not replay the same frames (draws differ); compared anyway (--allow-mismatch)".to_string(), false)
        } else {
            (format!(
                "{} and {} are not an A/B of the same trace: draws differ in {} of {} aligned window(s) (pass --allow-mismatch to compare anyway)",
                self.a.path.display(),
                self.b.path.display(),
                self.validity.mismatched.len(),
                self.validity.aligned
            ), true)
        })
    }

    pub fn text(&self, out: &mut dyn Write) -> io::Result<()> {
        for (arm, log, s, w) in [
            ("A", self.a, self.sa, self.wa),
            ("B", self.b, self.sb, self.wb),
        ] {
            writeln!(
                out,
                "{arm}: {} (session {}, last complete window line {}: frames={} window={})",
                log.path.display(),
                s.index,
                w.line,
                w.item.frames,
                w.item.window
            )?;
        }
        let v = &self.validity;
        if v.valid() {
            writeln!(
                out,
                "validity: same trace — draws identical in all {} window(s) aligned by frames=",
                v.aligned
            )?;
        } else if v.aligned == 0 {
            writeln!(
                out,
                "validity: INVALID — no window of A aligns with a window of B by frames=/window="
            )?;
        } else {
            let (fr, da, db) = v.mismatched[0];
            writeln!(
                out,
                "validity: INVALID — draws differ in {} of {} aligned window(s) (first: frames={fr} draws A={da} B={db}); the arms did not replay the same frames",
                v.mismatched.len(),
                v.aligned
            )?;
        }
        let mut w = [5usize, 1, 1, 5, 4];
        let rows: Vec<[String; 5]> = self
            .fields
            .iter()
            .map(|f| {
                let (d, p) = Self::delta_text(f);
                [f.name.clone(), show(&f.a), show(&f.b), d, p]
            })
            .collect();
        for r in &rows {
            for i in 0..5 {
                w[i] = w[i].max(r[i].chars().count());
            }
        }
        writeln!(
            out,
            "{:<w0$}  {:>w1$}  {:>w2$}  {:>w3$}  {:>w4$}",
            "field",
            "A",
            "B",
            "Δ (B−A)",
            "Δ %",
            w0 = w[0],
            w1 = w[1],
            w2 = w[2],
            w3 = w[3],
            w4 = w[4]
        )?;
        for r in &rows {
            writeln!(
                out,
                "{:<w0$}  {:>w1$}  {:>w2$}  {:>w3$}  {:>w4$}",
                r[0],
                r[1],
                r[2],
                r[3],
                r[4],
                w0 = w[0],
                w1 = w[1],
                w2 = w[2],
                w3 = w[3],
                w4 = w[4]
            )?;
        }
        for (absent, present, keys) in [("A", "B", self.only_in_b()), ("B", "A", self.only_in_a())]
        {
            if !keys.is_empty() {
                writeln!(
                    out,
                    "absent in {absent} (present only in {present}, not zero): {}",
                    keys.join(", ")
                )?;
            }
        }
        let sa = self.sa.steady(self.steady.from, self.steady.to);
        let sb = self.sb.steady(self.steady.from, self.steady.to);
        match (sa, sb) {
            (Ok(x), Ok(y)) => {
                let pair = |a: Option<Ratio>, b: Option<Ratio>| -> String {
                    match (a, b) {
                        (Some(a), Some(b)) => format!(
                            "A {} B {} Δ {}",
                            a.format(4, false),
                            b.format(4, false),
                            b.minus(a).format(4, true)
                        ),
                        _ => "n/a".into(),
                    }
                };
                writeln!(
                    out,
                    "steady state, complete windows {}-{} / {}-{}: draws/f {}; acc/draw {}",
                    x.from,
                    x.to,
                    y.from,
                    y.to,
                    pair(x.draws_per_frame(), y.draws_per_frame()),
                    pair(x.acc_per_draw(), y.acc_per_draw())
                )?;
            }
            (Err(e), _) | (_, Err(e)) => writeln!(out, "steady state: not available ({e})")?,
        }
        Ok(())
    }

    pub fn json(&self) -> Json {
        let steady = |s: &Session| match s.steady(self.steady.from, self.steady.to) {
            Ok(a) => {
                json!({"from": a.from, "to": a.to, "draws_per_frame": a.draws_per_frame().map(|r| r.to_f64()), "acc_per_draw": a.acc_per_draw().map(|r| r.to_f64())})
            }
            Err(e) => json!({"error": e.to_string()}),
        };
        json!({
            "schema": 1,
            "a": {"path": self.a.path.display().to_string(), "session": self.sa.index, "line": self.wa.line, "frames": self.wa.item.frames, "window": self.wa.item.window, "steady": steady(self.sa)},
            "b": {"path": self.b.path.display().to_string(), "session": self.sb.index, "line": self.wb.line, "frames": self.wb.item.frames, "window": self.wb.item.window, "steady": steady(self.sb)},
            "validity": {"valid": self.validity.valid(), "aligned": self.validity.aligned,
                "mismatched": self.validity.mismatched.iter().map(|(f, a, b)| json!({"frames": f, "draws_a": a, "draws_b": b})).collect::<Vec<_>>()},
            "fields": self.fields.iter().map(|f| {
                let (d, p) = Self::delta_text(f);
                json!({
                    "name": f.name,
                    "a": f.a.as_ref().map(value_json), "b": f.b.as_ref().map(value_json),
                    "absent_in": if f.a.is_none() { Some("a") } else if f.b.is_none() { Some("b") } else { None },
                    "delta": f.delta().map(|r| r.to_f64()), "delta_text": d,
                    "percent": f.percent().map(|r| r.to_f64()), "percent_text": p,
                })
            }).collect::<Vec<_>>(),
        })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn log(name: &str, windows: &[(u64, u64)]) -> Log {
        let mut t = String::from("[10:00:00] [Linux t/INFO]: MGPipe stats: counters ON (MOBILEGL_PIPE_STATS), summary every 2 frames\n");
        for (frames, draws) in windows {
            t.push_str(&format!("[10:00:01] [Linux t/INFO]: MGPipe stats: frames={frames} window=2 draws={draws} draws/f=1.00 acc=0 acc/draw=0.00 bytes/f[buf=0.00] gates[ers=0/0]\n"));
        }
        Log::parse(std::path::Path::new(name), t.as_bytes()).unwrap()
    }

    #[test]
    fn windows_align_by_frames_in_one_pass_first_match_wins() {
        // B repeats frames=4 (the first copy counts) and lacks frames=6; A is long enough that an
        // A x B scan would show in the test's time.
        let mut a: Vec<(u64, u64)> = (1..=20_000).map(|k| (2 * k, 2)).collect();
        a[1].1 = 9;
        let b: Vec<(u64, u64)> = (1..=20_000)
            .filter(|&k| k != 3)
            .flat_map(|k| {
                if k == 2 {
                    vec![(4, 2), (4, 7)]
                } else {
                    vec![(2 * k, 2)]
                }
            })
            .collect();
        let (la, lb) = (log("a.log", &a), log("b.log", &b));
        let d = diff(&la, &lb, SteadyRange::default()).unwrap();
        assert_eq!(d.validity.aligned, 19_999);
        assert_eq!(d.validity.mismatched, vec![(4, 9, 2)]);
    }
}
