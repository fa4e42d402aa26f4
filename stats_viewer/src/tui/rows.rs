//! The numbers on screen, computed once from the shown window, its predecessor and the baseline.
//! Render and the JSON export both read these rows, so what is exported is what is seen.

use crate::analysis::{hit_rate, per_draw};
use crate::fixed::Ratio;
use crate::window::{Field, FieldKind, Value, Window};

use super::state::{arm, backend, Entry, ViewState};

/// One counter row.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Row {
    /// The bracket (`calls` for the leading scalars).
    pub group: String,
    /// Namespaced name (`draws`, `bytes/f.tex`, `gates.ers`, `gates.ers.hit%`).
    pub name: String,
    /// Short label shown in the table.
    pub label: String,
    pub kind: RowKind,
    /// A key this mgctl does not know (shown, never hidden).
    pub unknown: bool,
    /// The value as printed (`absent` when the shown window lacks the key).
    pub value: String,
    pub per_frame: Option<String>,
    pub per_draw: Option<String>,
    /// Change from the previous complete window of the same session.
    pub delta_prev: Option<String>,
    /// The baseline's value (`absent` when the baseline lacks the key).
    pub base: Option<String>,
    pub delta_base: Option<String>,
    pub delta_base_pct: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RowKind {
    Field(FieldKind),
    /// A gate's hit rate (hits / evaluations), in percent; deltas in percentage points.
    HitRate,
}

const ABSENT: &str = "absent";

fn group_name(f: &Field) -> String {
    f.group
        .as_deref()
        .map_or_else(|| "calls".to_string(), str::to_string)
}

/// Unknown keys are the ones outside the window parser's table of known names.
fn is_unknown(f: &Field) -> bool {
    !f.key.is_known_key() || f.group.is_some_and(|g| !g.is_known_group())
}

/// The exact numeric value of a field, when it has one.
fn number(v: &Value) -> Option<Ratio> {
    match v {
        Value::Int(i) => Some(Ratio::from_int(*i)),
        Value::Fixed(x) => Some(Ratio::from_fixed(*x)),
        _ => None,
    }
}

fn rate(v: &Value) -> Option<Ratio> {
    match v {
        Value::HitMiss { hit, miss } => hit_rate(*hit, *miss).map(|r| r.scale(100)),
        _ => None,
    }
}

/// Integer deltas print as integers (a gate's: its hits), everything else with two decimals.
fn delta(a: &Value, b: &Value) -> Option<String> {
    match (a, b) {
        (Value::Int(x), Value::Int(y)) => Some(
            Ratio::from_int(*x)
                .minus(Ratio::from_int(*y))
                .format(0, true),
        ),
        // A gate's delta is in hits: two windows of the same trace evaluate the gate equally
        // often, so a delta of evaluations reads `+0` for 97862/4899 against 98019/4742.
        (Value::HitMiss { hit: h1, .. }, Value::HitMiss { hit: h2, .. }) => Some(
            Ratio::from_int(*h1)
                .minus(Ratio::from_int(*h2))
                .format(0, true),
        ),
        _ => Some(number(a)?.minus(number(b)?).format(2, true)),
    }
}

fn pct(d: Ratio, base: Ratio) -> Option<String> {
    if base.num == 0 {
        return None;
    }
    let base = Ratio::new(base.num.abs(), base.den)?;
    d.divided_by(base)
        .map(|r| r.scale(100).format(2, true) + "%")
}

fn find<'a>(w: Option<&'a Window>, group: Option<&str>, key: &str) -> Option<&'a Value> {
    w?.fields
        .iter()
        .find(|f| f.group.as_deref() == group && f.key == key)
        .map(|f| &f.value)
}

fn normalised(f: &Field, w: &Window) -> (Option<String>, Option<String>) {
    let fmt = |r: Option<Ratio>| r.map(|r| r.format(2, false));
    match (f.kind(), &f.value) {
        // draws per draw is 1 by definition.
        (FieldKind::Count, Value::Int(v)) if f.group.is_none() && f.key == "draws" => {
            (fmt(Ratio::from_u64(*v, w.window)), None)
        }
        (FieldKind::Count, Value::Int(v)) if f.group.as_deref() != Some("bytes") => (
            fmt(Ratio::from_u64(*v, w.window)),
            fmt(Ratio::from_u64(*v, w.draws)),
        ),
        (FieldKind::Count, Value::Int(v)) => (None, fmt(Ratio::from_u64(*v, w.draws))),
        (FieldKind::PerFrame, Value::Fixed(v)) if f.key != "draws/f" => {
            (None, fmt(per_draw(*v, w.window, w.draws)))
        }
        (FieldKind::HitMiss, Value::HitMiss { hit, miss }) => {
            let e = hit.saturating_add(*miss);
            (
                fmt(Ratio::from_u64(e, w.window)),
                fmt(Ratio::from_u64(e, w.draws)),
            )
        }
        _ => (None, None),
    }
}

/// Rows for `shown` (with its predecessor `prev`) against `base`, in line order, grouped as the line
/// groups them; keys only the baseline has are appended to their group.
pub fn rows(shown: &Window, prev: Option<&Window>, base: Option<&Window>) -> Vec<Row> {
    let mut out: Vec<Row> = Vec::with_capacity(shown.fields.len() + 8);
    let push_field = |f: &Field, cur: Option<&Value>, out: &mut Vec<Row>| {
        let group = f.group.as_deref();
        let p = find(prev, group, &f.key);
        let b = find(base, group, &f.key);
        let (per_frame, per_draw) = match cur {
            Some(_) => normalised(f, shown),
            None => (None, None),
        };
        let value = cur.map_or_else(|| ABSENT.to_string(), Value::to_string);
        let (base_text, delta_base, delta_base_pct) = match (base, cur, b) {
            (None, _, _) => (None, None, None),
            (Some(_), _, None) => (Some(ABSENT.to_string()), None, None),
            (Some(_), None, Some(bv)) => (Some(bv.to_string()), None, None),
            (Some(_), Some(cv), Some(bv)) => {
                let d = delta(cv, bv);
                let dp = match (number(cv), number(bv)) {
                    (Some(c), Some(bn)) => pct(c.minus(bn), bn),
                    _ => None,
                };
                (Some(bv.to_string()), d, dp)
            }
        };
        out.push(Row {
            group: group_name(f),
            name: f.name(),
            label: f.key.to_string(),
            kind: RowKind::Field(f.kind()),
            unknown: is_unknown(f),
            value,
            per_frame,
            per_draw,
            delta_prev: match (cur, p) {
                (Some(c), Some(p)) => delta(c, p),
                _ => None,
            },
            base: base_text,
            delta_base,
            delta_base_pct,
        });
        // A gate's hit rate is the number people read; give it its own row.
        let cr = cur.and_then(rate);
        let br = b.and_then(rate);
        if cr.is_some() || br.is_some() {
            let pr = p.and_then(rate);
            out.push(Row {
                group: group_name(f),
                name: format!("{}.hit%", f.name()),
                label: format!("{} hit%", f.key),
                kind: RowKind::HitRate,
                unknown: false,
                value: cr.map_or_else(|| "n/a".to_string(), |r| r.format(2, false) + "%"),
                per_frame: None,
                per_draw: None,
                delta_prev: match (cr, pr) {
                    (Some(c), Some(p)) => Some(c.minus(p).format(2, true) + "pp"),
                    _ => None,
                },
                base: base.map(|_| match (b, br) {
                    (None, _) => ABSENT.to_string(),
                    (Some(_), Some(r)) => r.format(2, false) + "%",
                    (Some(_), None) => "n/a".to_string(),
                }),
                delta_base: match (cr, br) {
                    (Some(c), Some(b)) => Some(c.minus(b).format(2, true) + "pp"),
                    _ => None,
                },
                delta_base_pct: None,
            });
        }
    };
    for f in &shown.fields {
        push_field(f, Some(&f.value), &mut out);
    }
    if let Some(bw) = base {
        for f in &bw.fields {
            let present = shown
                .fields
                .iter()
                .any(|s| s.group == f.group && s.key == f.key);
            if present {
                continue;
            }
            let group = group_name(f);
            let mut extra = Vec::new();
            push_field(f, None, &mut extra);
            // Insert after the last row of the same group, or at the end.
            let at = out
                .iter()
                .rposition(|r| r.group == group)
                .map_or(out.len(), |i| i + 1);
            for (k, r) in extra.into_iter().enumerate() {
                out.insert(at + k, r);
            }
        }
    }
    out
}

/// Rows of the view's shown window (empty before the first complete window).
pub fn view_rows(s: &ViewState) -> Vec<Row> {
    let Some(cur) = s.current() else {
        return Vec::new();
    };
    let prev = s.shown().previous(cur).map(|e| &e.window);
    rows(&cur.window, prev, s.base().map(|b| &b.item))
}

/// Whether a row passes the `/` filter (case-insensitive substring of the name).
pub fn matches(filter: &str, r: &Row) -> bool {
    filter.is_empty() || r.name.to_lowercase().contains(&filter.to_lowercase())
}

/// One chart: a label, the latest value's text and the series (scaled to integers for sparklines).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Series {
    pub label: String,
    pub latest: String,
    pub min: String,
    pub max: String,
    /// Hundredths (ratios) or basis points (rates), oldest first.
    pub points: Vec<u64>,
}

fn series_of(
    label: String,
    entries: &[&Entry],
    value: impl Fn(&Window) -> Option<u64>,
    show: impl Fn(u64) -> String,
) -> Option<Series> {
    let points: Vec<u64> = entries
        .iter()
        .map(|e| value(&e.window).unwrap_or(0))
        .collect();
    let last = *points.last()?;
    Some(Series {
        label,
        latest: show(last),
        min: show(points.iter().copied().min().unwrap_or(0)),
        max: show(points.iter().copied().max().unwrap_or(0)),
        points,
    })
}

fn hundredths(x: u64) -> String {
    format!("{}.{:02}", x / 100, x % 100)
}

/// History of the shown session, up to the shown window: draws/f, acc/draw, each gate's hit rate
/// (gates that were evaluated) and the three largest byte classes of the shown window.
pub fn charts(s: &ViewState) -> Vec<Series> {
    let live = s.shown();
    let Some(cur) = s.current() else {
        return Vec::new();
    };
    let entries: Vec<&Entry> = live
        .complete()
        .filter(|e| e.session == cur.session && e.seq <= cur.seq)
        .collect();
    let mut out = Vec::new();
    let fixed = |w: &Window, name: &str| match w.get(name) {
        Some(Value::Fixed(v)) => Some(v.hundredths()),
        _ => None,
    };
    out.extend(series_of(
        "draws/f".into(),
        &entries,
        |w| w.draws_per_frame.map(|v| v.hundredths()),
        hundredths,
    ));
    out.extend(series_of(
        "acc/draw".into(),
        &entries,
        |w| w.acc_per_draw.map(|v| v.hundredths()),
        hundredths,
    ));
    for f in &cur.window.fields {
        if let Value::HitMiss { hit, miss } = f.value {
            if hit.saturating_add(miss) == 0 {
                continue;
            }
            let name = f.name();
            out.extend(series_of(
                format!("{} hit%", f.key),
                &entries,
                |w| match w.get(&name) {
                    Some(Value::HitMiss { hit, miss }) => hit_rate(*hit, *miss)
                        .map(|r| r.scale(10_000).format(0, false).parse().unwrap_or(0)),
                    _ => None,
                },
                |bp| format!("{}%", hundredths(bp)),
            ));
        }
    }
    let group = cur.window.bytes_group().to_string();
    let mut classes: Vec<(&str, u64)> = cur
        .window
        .fields
        .iter()
        .filter(|f| f.group.as_deref() == Some(group.as_str()))
        .filter_map(|f| match f.value {
            Value::Fixed(v) => Some((f.key.as_ref(), v.hundredths())),
            Value::Int(v) => Some((f.key.as_ref(), v.saturating_mul(100))),
            _ => None,
        })
        .filter(|(_, v)| *v > 0)
        .collect();
    classes.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    for (key, _) in classes.into_iter().take(3) {
        let name = format!("{group}.{key}");
        out.extend(series_of(
            format!("{group}[{key}]"),
            &entries,
            |w| fixed(w, &name),
            hundredths,
        ));
    }
    out
}

/// The current view's data as JSON (`e`): header facts, the shown window's rows and the charts.
pub fn export(s: &ViewState) -> serde_json::Value {
    let live = s.shown();
    let cur = s.current();
    let session = s.session();
    let (pos, n) = s.position();
    serde_json::json!({
        "schema": 1,
        "tool": "mgctl stats watch",
        "source": s.source,
        "paused": s.paused(),
        "tab": s.tab,
        "filter": s.filter,
        "session": session.map(|ss| serde_json::json!({
            "index": ss.id,
            "pid": ss.pid,
            "role": ss.role,
            "started_by": ss.started_by,
            "period": ss.period().map(|p| p.0),
            "period_source": ss.period().map(|p| if p.1 { "banner" } else { "inferred" }),
            "verify_armed": ss.armed.as_ref().map(|a| serde_json::json!({
                "fields": a.fields, "verbs": a.verbs, "fatal": a.fatal })),
            "windows": ss.windows,
            "complete_windows": ss.complete,
        })),
        "window": cur.map(|e| serde_json::json!({
            "line": e.line,
            "frames": e.window.frames,
            "window": e.window.window,
            "backend": backend(&e.window),
            "arm": arm(&e.window),
            "position": pos,
            "of": n,
        })),
        "baseline": s.baseline.as_ref().zip(s.base()).map(|(b, w)| serde_json::json!({
            "label": b.label, "line": w.line, "pid": b.pid,
            "frames": w.item.frames, "window": w.item.window })),
        "counters": view_rows(s).into_iter().filter(|r| matches(&s.filter, r)).collect::<Vec<_>>(),
        "charts": charts(s),
        "alerts": live.alerts.iter().map(super::state::Alert::text).collect::<Vec<_>>(),
        "lines": {
            "read": live.lines, "bytes": live.bytes, "records": live.records,
            "ignored": live.ignored, "binary": live.binary, "overlong": live.overlong,
            "bad_windows": live.bad_windows,
        },
    })
}
