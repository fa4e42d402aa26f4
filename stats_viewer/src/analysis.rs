//! Pure analysis over a parsed [`Session`]: period, complete windows, teardown, steady state,
//! run totals and gate hit rates (spec §2.2, §12.5–§12.7).

use std::collections::HashMap;
use std::mem::{discriminant, Discriminant};

use crate::fixed::{Fixed2, Ratio};
use crate::session::{At, Session};
use crate::window::{FastMap, Field, FieldKind, Mismatch, Sym, Value, Window};

/// Where the period came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum PeriodSource {
    Banner,
    /// No banner: the most frequent `window` value (ties: the larger value).
    Inferred,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Period {
    pub frames: u64,
    pub source: PeriodSource,
}

/// How a session ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Ending {
    /// A teardown window line arrived (clean `Shutdown()`).
    Teardown,
    /// A `Fatal{` line and no teardown after it.
    Fatal,
    /// Neither: killed, still running, or the capture stopped.
    NoTeardown,
}

impl Session {
    pub fn period(&self) -> Option<Period> {
        if let Some(b) = &self.banner {
            if b.item.period > 0 {
                return Some(Period {
                    frames: b.item.period,
                    source: PeriodSource::Banner,
                });
            }
        }
        // A session has one or two distinct `window` values (the period, the teardown): a small
        // vector beats a map, and the whole vote is one pass.
        let mut counts: Vec<(u64, usize)> = Vec::new();
        for w in &self.windows {
            let v = w.item.window;
            if v == 0 {
                continue;
            }
            match counts.iter_mut().find(|(k, _)| *k == v) {
                Some(e) => e.1 += 1,
                None => counts.push((v, 1)),
            }
        }
        counts
            .into_iter()
            .max_by_key(|&(v, n)| (n, v))
            .map(|(v, _)| Period {
                frames: v,
                source: PeriodSource::Inferred,
            })
    }

    /// A complete window: `window == period` and `frames` a multiple of it.
    pub fn is_complete(&self, w: &Window) -> bool {
        complete_in(self.period(), w)
    }

    pub fn complete_windows(&self) -> Vec<&At<Window>> {
        let Some(p) = self.period() else {
            return Vec::new();
        };
        self.windows
            .iter()
            .filter(|w| w.item.window == p.frames && w.item.frames % p.frames == 0)
            .collect()
    }

    /// The last complete window (the project's reading rule).
    pub fn last_complete(&self) -> Option<&At<Window>> {
        self.complete_windows().last().copied()
    }

    /// The teardown line: the session's last window line when it is not complete.
    pub fn teardown(&self) -> Option<&At<Window>> {
        let last = self.windows.last()?;
        (!self.is_complete(&last.item)).then_some(last)
    }

    /// Incomplete window lines other than the teardown line (unexpected: a period change?).
    pub fn irregular_windows(&self) -> Vec<&At<Window>> {
        let n = self.windows.len();
        // The period once, not per window (it is a pass over every window).
        let p = self.period();
        self.windows
            .iter()
            .take(n.saturating_sub(1))
            .filter(|w| !complete_in(p, &w.item))
            .collect()
    }

    pub fn ending(&self) -> Ending {
        let teardown_line = self.teardown().map(|t| t.line);
        let fatal_line = self.fatals.last().map(|f| f.line);
        match (teardown_line, fatal_line) {
            (Some(t), Some(f)) if f > t => Ending::Fatal,
            (Some(_), _) => Ending::Teardown,
            (None, Some(_)) => Ending::Fatal,
            (None, None) => Ending::NoTeardown,
        }
    }

    /// Every window line whose `draws/f` / `acc/draw` does not re-derive.
    pub fn mismatches(&self) -> Vec<(usize, Mismatch)> {
        self.windows
            .iter()
            .flat_map(|w| w.item.rederive().into_iter().map(move |m| (w.line, m)))
            .collect()
    }

    /// Weighted aggregate over complete windows `from..=to` (1-based, inclusive).
    pub fn steady(&self, from: usize, to: Option<usize>) -> Result<Aggregate, SteadyError> {
        let complete = self.complete_windows();
        let n = complete.len();
        let to = to.unwrap_or(n);
        if from == 0 || from > to || to > n {
            return Err(SteadyError::OutOfRange {
                from,
                to,
                complete: n,
            });
        }
        Ok(Aggregate::over(
            complete[from - 1..to].iter().map(|w| &w.item),
            from,
            to,
        ))
    }

    /// Run totals over every window line (teardown included).
    pub fn totals(&self) -> Totals {
        Totals::over(self.windows.iter().map(|w| &w.item))
    }
}

/// A steady-state range a session cannot give.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SteadyError {
    #[error("complete windows {from}..{to} requested, the session has {complete}")]
    OutOfRange {
        from: usize,
        to: usize,
        complete: usize,
    },
}

fn complete_in(p: Option<Period>, w: &Window) -> bool {
    p.is_some_and(|p| w.window == p.frames && w.frames % p.frames == 0)
}

/// Σ-weighted figures over several windows: Σdraws/Σframes and Σacc/Σdraws, never an average of
/// the printed ratios.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Aggregate {
    /// 1-based complete-window range.
    pub from: usize,
    pub to: usize,
    pub windows: usize,
    pub frames: u64,
    pub draws: u64,
    pub acc: u64,
}

impl Aggregate {
    pub fn over<'a>(ws: impl Iterator<Item = &'a Window>, from: usize, to: usize) -> Aggregate {
        let mut a = Aggregate {
            from,
            to,
            windows: 0,
            frames: 0,
            draws: 0,
            acc: 0,
        };
        for w in ws {
            a.windows += 1;
            a.frames += w.window;
            a.draws += w.draws;
            a.acc += w.acc;
        }
        a
    }

    pub fn draws_per_frame(&self) -> Option<Ratio> {
        Ratio::from_u64(self.draws, self.frames)
    }

    pub fn acc_per_draw(&self) -> Option<Ratio> {
        Ratio::from_u64(self.acc, self.draws)
    }
}

/// Run totals: counts summed, gauges kept at their last value, byte classes recovered
/// approximately (value × window, error ≤ window × 0.005 bytes per line).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Totals {
    pub windows: usize,
    /// `frames=` of the last line (cumulative).
    pub frames: u64,
    /// Σ window.
    pub window_frames: u64,
    /// Summed counts by namespaced name, in first-seen order.
    pub counts: Vec<(String, u64)>,
    /// Summed hits/misses by gate.
    pub gates: Vec<(String, u64, u64)>,
    /// Gauges at their last value (never summed).
    pub gauges: Vec<(String, String)>,
    /// Approximate byte totals: (class, total bytes, max error in bytes).
    pub bytes: Vec<(String, u64, u64)>,
}

/// Sums in first-seen order of the namespaced name, found per field by its interned
/// `(group, key)` pair: no name is formatted or compared per window (issue 16), only once per
/// distinct pair. Two pairs spelling the same name share one slot, as the names did.
struct Named<T> {
    by_sym: FastMap<(Option<Sym>, Sym), usize>,
    by_name: HashMap<String, usize>,
    items: Vec<(String, T)>,
}

impl<T: Default> Named<T> {
    fn new() -> Self {
        Named {
            by_sym: FastMap::default(),
            by_name: HashMap::new(),
            items: Vec::new(),
        }
    }

    /// The index of `f`'s sum, made (at `T::default()`) the first time its name is seen.
    fn slot(&mut self, f: &Field, name: impl FnOnce() -> String) -> usize {
        let k = (f.group, f.key);
        if let Some(&i) = self.by_sym.get(&k) {
            return i;
        }
        let name = name();
        let i = match self.by_name.get(&name) {
            Some(&i) => i,
            None => {
                let i = self.items.len();
                self.by_name.insert(name.clone(), i);
                self.items.push((name, T::default()));
                i
            }
        };
        self.by_sym.insert(k, i);
        i
    }
}

/// A field's place in a window layout: its group, key and value shape.
type Shape = (Option<Sym>, Sym, Discriminant<Value>);

/// What one field of a window adds to the run totals: the index of its sum in `Totals::over`'s
/// tables, by kind.
#[derive(Clone, Copy)]
enum Add {
    /// A window-total byte count (`bytes[…]`, `window == 0`).
    WindowBytes(usize),
    Count(usize),
    Gate(usize),
    Gauge(usize),
    /// A per-frame byte rate (`bytes/f[…]`), recovered as rate × window.
    RateBytes(usize),
    Nothing,
}

impl Totals {
    pub fn over<'a>(ws: impl Iterator<Item = &'a Window>) -> Totals {
        let mut t = Totals {
            windows: 0,
            frames: 0,
            window_frames: 0,
            counts: Vec::new(),
            gates: Vec::new(),
            gauges: Vec::new(),
            bytes: Vec::new(),
        };
        let mut counts: Named<u64> = Named::new();
        let mut gates: Named<(u64, u64)> = Named::new();
        // The last value of each gauge, rendered once at the end.
        let mut gauges: Named<Option<&'a Value>> = Named::new();
        // hundredths·window (or exact when window == 0), and the error bound's Σ window.
        let mut bytes: Named<(u64, u64)> = Named::new();
        // Windows of a session print the same fields in the same order, so what each field adds
        // is decided once per layout (its names and value shapes), not looked up per field.
        // Per field of the last layout: its names and value shape, and what it adds.
        let mut plan: Vec<(Shape, Add)> = Vec::new();
        for w in ws {
            t.windows += 1;
            t.frames = w.frames;
            t.window_frames += w.window;
            let same = plan.len() == w.fields.len()
                && plan
                    .iter()
                    .zip(&w.fields)
                    .all(|((l, _), f)| *l == (f.group, f.key, discriminant(&f.value)));
            if !same {
                plan.clear();
                for f in &w.fields {
                    let add = match (f.kind(), &f.value) {
                        (FieldKind::Count, Value::Int(_))
                            if f.group.as_deref() == Some("bytes") =>
                        {
                            Add::WindowBytes(bytes.slot(f, || format!("bytes/f.{}", f.key)))
                        }
                        (FieldKind::Count, Value::Int(_)) => {
                            Add::Count(counts.slot(f, || f.name()))
                        }
                        (FieldKind::HitMiss, Value::HitMiss { .. }) => {
                            Add::Gate(gates.slot(f, || f.name()))
                        }
                        (FieldKind::Gauge, _) => Add::Gauge(gauges.slot(f, || f.name())),
                        (FieldKind::PerFrame, Value::Fixed(_))
                            if f.group.as_deref() == Some("bytes/f") =>
                        {
                            Add::RateBytes(bytes.slot(f, || f.name()))
                        }
                        _ => Add::Nothing,
                    };
                    plan.push(((f.group, f.key, discriminant(&f.value)), add));
                }
            }
            for ((_, add), f) in plan.iter().zip(&w.fields) {
                match (*add, &f.value) {
                    (Add::WindowBytes(i), Value::Int(v)) => {
                        let e = &mut bytes.items[i].1;
                        e.0 = e.0.saturating_add(v.saturating_mul(100));
                    }
                    (Add::Count(i), Value::Int(v)) => {
                        let e = &mut counts.items[i].1;
                        *e = e.saturating_add(*v);
                    }
                    (Add::Gate(i), Value::HitMiss { hit, miss }) => {
                        let g = &mut gates.items[i].1;
                        g.0 = g.0.saturating_add(*hit);
                        g.1 = g.1.saturating_add(*miss);
                    }
                    (Add::Gauge(i), v) => gauges.items[i].1 = Some(v),
                    (Add::RateBytes(i), Value::Fixed(v)) => {
                        let e = &mut bytes.items[i].1;
                        e.0 = e.0.saturating_add(v.hundredths().saturating_mul(w.window));
                        e.1 = e.1.saturating_add(w.window);
                    }
                    _ => {}
                }
            }
        }
        t.counts = counts.items;
        t.gates = gates
            .items
            .into_iter()
            .map(|(n, (h, m))| (n, h, m))
            .collect();
        t.gauges = gauges
            .items
            .into_iter()
            .map(|(n, v)| (n, v.map(Value::to_string).unwrap_or_default()))
            .collect();
        t.bytes = bytes
            .items
            .into_iter()
            .map(|(name, (h, e))| {
                // Each printed value is within ±0.005 of the true rate: ±window/200 bytes per line.
                (
                    name.replace("bytes/f.", ""),
                    (h + 50) / 100,
                    e.div_ceil(200),
                )
            })
            .collect();
        t
    }

    pub fn count(&self, name: &str) -> Option<u64> {
        self.counts.iter().find(|(n, _)| n == name).map(|(_, v)| *v)
    }
}

/// hits / (hits + misses) as an exact ratio; `None` for 0/0.
pub fn hit_rate(hit: u64, miss: u64) -> Option<Ratio> {
    Ratio::from_u64(hit, hit.saturating_add(miss))
}

/// Per-draw value of a per-frame field: `v × window / draws`.
pub fn per_draw(v: Fixed2, window: u64, draws: u64) -> Option<Ratio> {
    Ratio::new(
        i128::from(v.hundredths()) * i128::from(window),
        i128::from(draws) * 100,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn window(body: &str) -> Window {
        Window::parse(&format!("MGPipe stats: {body}")).unwrap_or_else(|e| panic!("{e}: {body}"))
    }

    /// The per-layout plan gives the totals a per-field reading gives, also when the layout
    /// changes mid-run (a field added, a value changing shape) and changes back.
    #[test]
    fn totals_follow_layout_changes() {
        let a = |f: u64, emit: &str, ers: &str, srv: u64| {
            window(&format!(
                "frames={f} window=120 draws=10 draws/f=0.08 acc=20 acc/draw=2.00 \
                 tex[emit={emit} box=2] gates[ers={ers}] wait[srv={srv}]"
            ))
        };
        let ws = [
            a(120, "1", "3/4", 5),
            a(240, "10", "1/1", 6),
            window(
                "frames=360 window=120 draws=10 draws/f=0.08 acc=20 acc/draw=2.00 \
                 bytes/f[buf=1.50] tex[emit=x box=2 jobs=7] gates[ers=n/a] wait[srv=9]",
            ),
            a(480, "100", "10/20", 8),
        ];
        let t = Totals::over(ws.iter());
        assert_eq!(t.windows, 4);
        assert_eq!(t.frames, 480);
        assert_eq!(t.window_frames, 480);
        assert_eq!(t.count("draws"), Some(40));
        assert_eq!(t.count("tex.emit"), Some(111));
        assert_eq!(t.count("tex.box"), Some(8));
        assert_eq!(t.count("tex.jobs"), Some(7));
        assert_eq!(t.gates, vec![("gates.ers".to_string(), 14, 25)]);
        assert_eq!(t.gauges, vec![("wait.srv".to_string(), "8".to_string())]);
        assert_eq!(t.bytes, vec![("buf".to_string(), 180, 1)]);
        let names: Vec<&str> = t.counts.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["draws", "acc", "tex.emit", "tex.box", "tex.jobs"]);
    }
}
