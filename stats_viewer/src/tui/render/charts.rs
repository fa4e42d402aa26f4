//! The charts view: one ratatui [`Chart`] per counter (braille line), the `--baseline` value as a
//! second series, session changes and Fatal lines as labelled vertical markers. Pure: reads
//! [`ViewState`] only.
//!
//! x is the window's position among the ring's complete windows (the `window N/M` of the tab line),
//! across sessions, up to the shown window; y is the counter in its unit, bounded by the min and
//! max of what is drawn (live and baseline), which the y labels print.

use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::symbols::Marker;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Axis, Block, Borders, Chart, Dataset, GraphType, Paragraph};
use ratatui::Frame;

use crate::analysis::hit_rate;
use crate::window::{Value, Window};

use super::super::state::{Alert, Entry, ViewState};

/// Rows per chart: the title, at least four plot rows, the x axis and its labels.
pub(crate) const CHART_ROWS: u16 = 8;

/// What a chart plots, picked from the shown window (the same series as [`super::super::charts`]).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Metric {
    DrawsPerFrame,
    AccPerDraw,
    /// `gates.NAME`'s hit rate (basis points).
    HitRate(String),
    /// A byte class (`bytes/f.buf`).
    Bytes(String),
}

impl Metric {
    /// Hundredths of the unit (rates: basis points), as the table's exact figures.
    fn value(&self, w: &Window) -> Option<u64> {
        match self {
            Metric::DrawsPerFrame => w.draws_per_frame.map(|v| v.hundredths()),
            Metric::AccPerDraw => w.acc_per_draw.map(|v| v.hundredths()),
            Metric::HitRate(name) => match w.get(name) {
                Some(Value::HitMiss { hit, miss }) => hit_rate(*hit, *miss)
                    .and_then(|r| r.scale(10_000).format(0, false).parse().ok()),
                _ => None,
            },
            Metric::Bytes(name) => match w.get(name) {
                Some(Value::Fixed(v)) => Some(v.hundredths()),
                Some(Value::Int(v)) => Some(v.saturating_mul(100)),
                _ => None,
            },
        }
    }

    fn unit(&self) -> &'static str {
        match self {
            Metric::DrawsPerFrame => "draws/f",
            Metric::AccPerDraw => "acc/draw",
            Metric::HitRate(_) => "hit %",
            Metric::Bytes(_) => "B/frame",
        }
    }
}

fn metrics(cur: &Window) -> Vec<(String, Metric)> {
    let mut out = vec![
        ("draws/f".to_string(), Metric::DrawsPerFrame),
        ("acc/draw".to_string(), Metric::AccPerDraw),
    ];
    for f in &cur.fields {
        if let Value::HitMiss { hit, miss } = f.value {
            if hit.saturating_add(miss) > 0 {
                out.push((format!("{} hit%", f.key), Metric::HitRate(f.name())));
            }
        }
    }
    let group = cur.bytes_group().to_string();
    let mut classes: Vec<(&str, u64)> = cur
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
        out.push((
            format!("{group}[{key}]"),
            Metric::Bytes(format!("{group}.{key}")),
        ));
    }
    out
}

/// A vertical marker on the x axis.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum MarkKind {
    /// The first window of a new session.
    Session,
    /// The last window logged before a Fatal line.
    Fatal,
}

impl MarkKind {
    fn glyph(self) -> &'static str {
        match self {
            MarkKind::Session => "S",
            MarkKind::Fatal => "F",
        }
    }
    fn style(self) -> Style {
        match self {
            MarkKind::Session => Style::new().fg(Color::Yellow),
            MarkKind::Fatal => Style::new().fg(Color::Red).add_modifier(Modifier::BOLD),
        }
    }
}

/// The windows every chart of the view spans, and the markers on them.
pub(crate) struct Span2 {
    /// (x = position among the ring's complete windows, entry), oldest first.
    entries: Vec<(u64, Entry)>,
    pub(crate) marks: Vec<(u64, MarkKind)>,
}

impl Span2 {
    fn lo(&self) -> u64 {
        self.entries.first().map_or(1, |e| e.0)
    }
    fn hi(&self) -> u64 {
        self.entries.last().map_or(1, |e| e.0)
    }
    /// The x bounds: a single window sits in the middle.
    fn bounds(&self) -> [f64; 2] {
        let (lo, hi) = (self.lo() as f64, self.hi() as f64);
        if hi > lo {
            [lo, hi]
        } else {
            [lo - 1.0, lo + 1.0]
        }
    }
}

/// The complete windows up to the shown one, the newest `max` of them, with their markers.
pub(crate) fn span(s: &ViewState, max: usize) -> Option<Span2> {
    let live = s.shown();
    let cur = s.current()?;
    // Walked from the newest end and stopped after `max`: a frame costs the windows drawn, not
    // the history (x counts down from the ring's complete-window count).
    let n = live.complete_count() as u64;
    let mut entries: Vec<(u64, Entry)> = live
        .complete()
        .rev()
        .zip((1..=n).rev())
        .skip_while(|(e, _)| e.seq > cur.seq)
        .take(max.max(2))
        .map(|(e, x)| (x, e.clone()))
        .collect();
    entries.reverse();
    let mut marks = Vec::new();
    for pair in entries.windows(2) {
        if pair[0].1.session != pair[1].1.session {
            marks.push((pair[1].0, MarkKind::Session));
        }
    }
    // A Fatal is marked at the last window logged before it (the last one before the shown
    // window's successor: a Fatal after the shown window belongs to later history).
    let next_line = live
        .complete()
        .rev()
        .take_while(|e| e.seq > cur.seq)
        .last()
        .map_or(usize::MAX, |e| e.line);
    for a in &live.alerts {
        if let Alert::Fatal { line, .. } = a {
            if *line >= next_line {
                continue;
            }
            if let Some((x, _)) = entries.iter().rev().find(|(_, e)| e.line < *line) {
                // Before the first window drawn: it belongs to a window not on screen.
                let first_after = entries.iter().find(|(_, e)| e.line > *line);
                let inside = first_after.is_none_or(|f| f.0 > *x);
                if inside {
                    marks.push((*x, MarkKind::Fatal));
                }
            }
        }
    }
    marks.sort_by_key(|m| m.0);
    marks.dedup();
    Some(Span2 { entries, marks })
}

fn hundredths(v: u64) -> String {
    format!("{}.{:02}", v / 100, v % 100)
}

/// One chart's numbers.
pub(crate) struct ChartData {
    pub(crate) label: String,
    unit: &'static str,
    rate: bool,
    /// Runs of consecutive points (split where a session changes or a window lacks the key).
    runs: Vec<Vec<(f64, f64)>>,
    latest: Option<u64>,
    min: u64,
    max: u64,
    base: Option<u64>,
}

impl ChartData {
    fn show(&self, v: u64) -> String {
        if self.rate {
            format!("{}%", hundredths(v))
        } else {
            hundredths(v)
        }
    }
    /// y bounds and their labels, from the min and max drawn (a flat series gets ±1 %).
    fn y(&self) -> ([f64; 2], [String; 2]) {
        let lo = self.min.min(self.base.unwrap_or(self.min));
        let hi = self.max.max(self.base.unwrap_or(self.max));
        if hi > lo {
            (
                [lo as f64 / 100.0, hi as f64 / 100.0],
                [self.show(lo), self.show(hi)],
            )
        } else {
            let d = (lo / 100).max(1);
            let (a, b) = (lo.saturating_sub(d), lo.saturating_add(d));
            (
                [a as f64 / 100.0, b as f64 / 100.0],
                [self.show(a), self.show(b)],
            )
        }
    }
}

pub(crate) fn chart_data(s: &ViewState, sp: &Span2) -> Vec<ChartData> {
    let Some(cur) = s.current() else {
        return Vec::new();
    };
    let base = s.base().map(|b| &b.item);
    metrics(&cur.window)
        .into_iter()
        .map(|(label, m)| {
            let mut runs: Vec<Vec<(f64, f64)>> = Vec::new();
            let mut prev: Option<(u64, usize)> = None;
            let mut vals = Vec::new();
            for (x, e) in &sp.entries {
                let Some(v) = m.value(&e.window) else {
                    prev = None;
                    continue;
                };
                vals.push(v);
                let joined = prev.is_some_and(|(px, ps)| px + 1 == *x && ps == e.session);
                if !joined || runs.is_empty() {
                    runs.push(Vec::new());
                }
                if let Some(r) = runs.last_mut() {
                    r.push((*x as f64, v as f64 / 100.0));
                }
                prev = Some((*x, e.session));
            }
            ChartData {
                label,
                unit: m.unit(),
                rate: matches!(m, Metric::HitRate(_)),
                latest: m.value(&cur.window),
                min: vals.iter().copied().min().unwrap_or(0),
                max: vals.iter().copied().max().unwrap_or(0),
                base: base.and_then(|b| m.value(b)),
                runs,
            }
        })
        .collect()
}

impl ChartData {
    fn label_width(&self) -> u16 {
        let (_, l) = self.y();
        [l[0].chars().count(), l[1].chars().count(), self.unit.len()]
            .into_iter()
            .max()
            .unwrap_or(0) as u16
    }
}

/// Rows the panel needs to show every chart (for `--once`).
pub(crate) fn panel_height(s: &ViewState, width: u16) -> u16 {
    let Some(sp) = span(s, max_windows(width)) else {
        return 0;
    };
    1 + CHART_ROWS * chart_data(s, &sp).len() as u16
}

fn max_windows(width: u16) -> usize {
    // Two braille dots per column: every window keeps its own dot column.
    usize::from(width.saturating_sub(10)) * 2
}

fn dim() -> Style {
    Style::new().fg(Color::DarkGray)
}

/// Live series, baseline and marker styles.
fn live_style() -> Style {
    Style::new().fg(Color::Green)
}
fn base_style() -> Style {
    Style::new().fg(Color::Magenta)
}

/// The legend row (the same for every chart) plus which charts are on screen; a compact form
/// when the full one does not fit `width`.
fn legend(
    s: &ViewState,
    sp: &Span2,
    (first, shown, n): (usize, usize, usize),
    width: u16,
) -> Line<'static> {
    let build = |compact: bool| {
        let gap = if compact { "  " } else { "   " };
        let mut spans = vec![Span::styled("⣀⠤⠒ ", live_style()), Span::raw("live")];
        if let Some(b) = &s.baseline {
            spans.push(Span::raw(gap));
            spans.push(Span::styled("••• ", base_style()));
            spans.push(Span::raw(format!("baseline {}", b.label)));
        }
        for k in [MarkKind::Session, MarkKind::Fatal] {
            if sp.marks.iter().any(|m| m.1 == k) {
                spans.push(Span::raw(gap));
                spans.push(Span::styled(format!("┆{}", k.glyph()), k.style()));
                spans.push(Span::raw(match (k, compact) {
                    (MarkKind::Session, false) => " session change",
                    (MarkKind::Session, true) => " session",
                    (MarkKind::Fatal, _) => " Fatal",
                }));
            }
        }
        if shown < n {
            let pages = format!("{}–{}/{n} ↑↓", first + 1, first + shown.max(1));
            spans.push(Span::styled(
                if compact {
                    format!("{gap}{pages}")
                } else {
                    format!("{gap}charts {pages}")
                },
                dim(),
            ));
        }
        Line::from(spans)
    };
    let full = build(false);
    if full.width() <= usize::from(width) {
        full
    } else {
        build(true)
    }
}

/// The charts panel: a legend row, then as many charts as fit; ↑/↓ (the scroll) pick the first.
pub(crate) fn panel(f: &mut Frame<'_>, s: &ViewState, area: Rect) {
    let Some(sp) = span(s, max_windows(area.width)) else {
        return;
    };
    let data = chart_data(s, &sp);
    if data.is_empty() || area.height < 2 {
        return;
    }
    let fit = usize::from((area.height - 1) / CHART_ROWS).clamp(1, data.len());
    let first = usize::from(s.scroll).min(data.len() - fit);
    let leg = legend(s, &sp, (first, fit, data.len()), area.width);
    f.render_widget(Paragraph::new(leg), Rect { height: 1, ..area });
    // One y-label width for the panel, so the charts' axes line up.
    let yw = data
        .iter()
        .skip(first)
        .take(fit)
        .map(ChartData::label_width)
        .max()
        .unwrap_or(0);
    // Spread spare rows over the charts shown.
    let per = ((area.height - 1) / fit as u16).max(CHART_ROWS.min(area.height - 1));
    for (i, d) in data.iter().skip(first).take(fit).enumerate() {
        let y = area.y + 1 + per * i as u16;
        let h = per.min(area.bottom().saturating_sub(y));
        if h < 3 {
            break;
        }
        chart(f, &sp, d, yw, Rect::new(area.x, y, area.width, h));
    }
}

/// The longest title that fits `w` columns (never cut mid-word when a shorter form fits).
pub(crate) fn title(d: &ChartData, sp: &Span2, w: usize) -> String {
    let now = d.latest.map_or_else(|| "absent".to_string(), |v| d.show(v));
    let base = d.base.map(|b| format!(" · baseline {}", d.show(b)));
    let range = if sp.lo() == sp.hi() {
        format!("window {}", sp.lo())
    } else {
        format!("windows {}–{}", sp.lo(), sp.hi())
    };
    let forms = [
        format!(
            "{} {now}{}  (min {} max {}, {range})",
            d.label,
            base.clone().unwrap_or_default(),
            d.show(d.min),
            d.show(d.max)
        ),
        format!(
            "{} {now}{}  ({range})",
            d.label,
            base.clone().unwrap_or_default()
        ),
        format!("{} {now}{}", d.label, base.unwrap_or_default()),
        format!("{} {now}", d.label),
    ];
    for t in &forms {
        if t.chars().count() <= w {
            return t.clone();
        }
    }
    let t = &forms[forms.len() - 1];
    t.chars().take(w.saturating_sub(1)).collect::<String>() + "…"
}

/// The plot area ratatui 0.29's `Chart` lays out inside `inner` (y labels left of the axis, the x
/// axis and its labels in the two bottom rows); the tests pin it against the drawn axes.
pub(crate) fn graph_area(inner: Rect, y_label_w: u16, first_x_label_w: u16) -> Rect {
    let left = y_label_w
        .max(first_x_label_w.saturating_sub(1))
        .min(inner.width / 3);
    let x = inner.x + left + 1;
    let h = inner.height.saturating_sub(2);
    Rect::new(x, inner.y, inner.right().saturating_sub(x), h)
}

/// The column of `x` on a braille canvas over `g` with bounds `b` (ratatui's `get_point`).
pub(crate) fn column(g: Rect, b: [f64; 2], x: f64) -> u16 {
    let res = f64::from(g.width) * 2.0;
    let dot = ((x - b[0]) * (res - 1.0) / (b[1] - b[0])).max(0.0) as u16;
    g.x + (dot / 2).min(g.width.saturating_sub(1))
}

fn chart(f: &mut Frame<'_>, sp: &Span2, d: &ChartData, yw: u16, r: Rect) {
    let t = title(d, sp, usize::from(r.width));
    let block = Block::default()
        .borders(Borders::TOP)
        .border_style(dim())
        .title(Span::styled(t, Style::new().add_modifier(Modifier::BOLD)));
    let inner = block.inner(r);
    let xb = sp.bounds();
    let (yb, ylab) = d.y();
    let (lo, hi) = (sp.lo(), sp.hi());
    let xfirst = if lo == hi {
        String::new()
    } else {
        lo.to_string()
    };
    let xlast = if lo == hi {
        String::new()
    } else {
        hi.to_string()
    };
    // The unit sits between the y labels, like an axis title.
    let pad = |t: &str| format!("{t:<w$}", w = usize::from(yw));
    let ylabels = vec![
        Span::raw(pad(&ylab[0])),
        Span::styled(pad(d.unit), dim()),
        Span::raw(pad(&ylab[1])),
    ];
    let mut sets = Vec::new();
    if let Some(b) = d.base {
        let v = b as f64 / 100.0;
        let pts: Vec<(f64, f64)> = (0..=64)
            .map(|i| (xb[0] + (xb[1] - xb[0]) * f64::from(i) / 64.0, v))
            .collect();
        sets.push((pts, Marker::Dot, base_style()));
    }
    for run in &d.runs {
        sets.push((run.clone(), Marker::Braille, live_style()));
    }
    let datasets: Vec<Dataset<'_>> = sets
        .iter()
        .map(|(p, m, st)| {
            Dataset::default()
                .data(p)
                .marker(*m)
                .graph_type(if p.len() == 1 {
                    GraphType::Scatter
                } else {
                    GraphType::Line
                })
                .style(*st)
        })
        .collect();
    let chart = Chart::new(datasets)
        .block(block)
        .x_axis(
            Axis::default()
                .bounds(xb)
                .style(dim())
                .labels([xfirst.clone(), xlast]),
        )
        .y_axis(Axis::default().bounds(yb).style(dim()).labels(ylabels))
        .legend_position(None);
    f.render_widget(chart, r);
    if inner.height < 3 || inner.width < 8 {
        return;
    }
    let g = graph_area(inner, yw, xfirst.chars().count() as u16);
    let buf = f.buffer_mut();
    // Window numbers between the ends, centred on their columns, with a gap to their neighbours.
    let label_y = inner.bottom() - 1;
    let mut taken_to = g.x + xfirst.chars().count() as u16;
    let right_end = g.right().saturating_sub(hi.to_string().len() as u16 + 1);
    let step = x_step(hi - lo, g.width, hi.to_string().len() as u16);
    let mut k = if lo == hi { lo } else { (lo / step + 1) * step };
    while k <= hi {
        let text = if lo == hi {
            format!("window {k}")
        } else {
            k.to_string()
        };
        let c = column(g, xb, k as f64);
        let w = text.chars().count() as u16;
        let start = c.saturating_sub(w / 2);
        if (start > taken_to && start + w < right_end) || lo == hi {
            buf.set_string(start, label_y, &text, dim());
            taken_to = start + w;
        }
        if lo == hi {
            break;
        }
        k += step;
    }
    // Markers: a dotted column under the data, its letter on the top row.
    for (x, kind) in &sp.marks {
        let c = column(g, xb, *x as f64);
        for yy in g.y..g.bottom() {
            let cell = &mut buf[(c, yy)];
            if yy == g.y {
                cell.set_symbol(kind.glyph()).set_style(kind.style());
            } else if cell.symbol() == " " {
                cell.set_symbol("┆").set_style(kind.style());
            }
        }
    }
}

/// A label every `step` windows, on round steps: the smallest step whose labels (`label_w`
/// columns each) keep two free columns between neighbours, so 7 windows over 45 columns label
/// every window rather than every other one.
fn x_step(range: u64, width: u16, label_w: u16) -> u64 {
    let need = f64::from(label_w) + 2.0;
    let per_window = f64::from(width) / range.max(1) as f64;
    [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000]
        .into_iter()
        .find(|s| *s as f64 * per_window >= need)
        .unwrap_or_else(|| (need / per_window).ceil() as u64)
}
