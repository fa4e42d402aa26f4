//! Small hand-written SVG charts for the HTML reports: histogram, line/step chart and signed bars.
//!
//! Hand-written rather than `plotters`: the four chart kinds need ~300 lines, the output is plain
//! SVG whose structure tests can count (every mark carries a class), and colours come from the
//! page's CSS variables so one file reads in light and dark mode and prints. See docs/html.md.

use std::fmt::Write as _;

use crate::esc;

const W: f64 = 760.0;
const H: f64 = 300.0;
const LEFT: f64 = 64.0;
const RIGHT: f64 = 16.0;
const TOP: f64 = 34.0;
const BOTTOM: f64 = 48.0;

/// A named series of values (one arm of an A/B, one counter).
pub(crate) struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
}

/// A vertical mark on the x axis: a percentile, a session change, a Fatal line.
pub(crate) struct Mark {
    pub x: f64,
    pub label: String,
    /// CSS class: `pct`, `session`, `fatal`.
    pub kind: &'static str,
    /// Which series the mark belongs to (colour), if any.
    pub series: Option<usize>,
}

pub(crate) struct Axes {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    /// The x axis counts whole things (windows): ticks on integers only.
    pub whole_x: bool,
}

/// "Nice" tick positions (1, 2 or 5 times a power of ten) covering `lo..=hi`.
fn ticks(lo: f64, hi: f64, want: usize) -> Vec<f64> {
    if !(lo.is_finite() && hi.is_finite()) || hi <= lo {
        return vec![lo];
    }
    let raw = (hi - lo) / want.max(1) as f64;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|s| *s >= raw * (1.0 - 1e-9))
        .unwrap_or(10.0 * mag);
    // Ticks are whole multiples of the step, rounded to its decimals, so 0.6 prints as 0.6.
    let decimals = (-step.log10().floor()).max(0.0) as i32;
    let scale = 10f64.powi(decimals);
    let first = (lo / step - 1e-9).ceil() as i64;
    let mut out = Vec::new();
    for k in first..first + 50 {
        let t = ((k as f64 * step) * scale).round() / scale;
        if t > hi + step * 1e-9 {
            break;
        }
        out.push(t);
    }
    out
}

/// A hovered value: six significant figures, trailing zeros dropped (855.09, 95.2368, 3993.93).
fn fmt_value(v: f64) -> String {
    if !v.is_finite() || v == 0.0 {
        return format!("{v}");
    }
    let decimals = (5 - v.abs().log10().floor() as i32).clamp(0, 9) as usize;
    let s = format!("{v:.decimals$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

fn fmt_tick(v: f64) -> String {
    if (v == v.trunc() && v.abs() < 1e9) || v.abs() >= 100.0 {
        format!("{v:.0}")
    } else if v.abs() >= 1.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.3}")
    }
}

/// Maps data coordinates into the plot area.
struct Frame {
    x0: f64,
    x1: f64,
    y0: f64,
    y1: f64,
}

impl Frame {
    fn new(x0: f64, x1: f64, y0: f64, y1: f64) -> Frame {
        let widen = |a: f64, b: f64| if b > a { (a, b) } else { (a - 0.5, a + 0.5) };
        let (x0, x1) = widen(x0, x1);
        let (y0, y1) = widen(y0, y1);
        Frame { x0, x1, y0, y1 }
    }
    fn px(&self, x: f64) -> f64 {
        LEFT + (x - self.x0) / (self.x1 - self.x0) * (W - LEFT - RIGHT)
    }
    fn py(&self, y: f64) -> f64 {
        H - BOTTOM - (y - self.y0) / (self.y1 - self.y0) * (H - TOP - BOTTOM)
    }
}

fn open(out: &mut String, axes: &Axes, kind: &str) {
    let _ = write!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" class="chart {kind}" viewBox="0 0 {W} {H}" role="img" aria-label="{t}"><title>{t}</title><text class="title" x="{LEFT}" y="20">{t}</text>"#,
        t = esc(&axes.title)
    );
}

/// Axes, grid, tick labels and axis labels (x label under the axis, y label rotated).
fn axes(out: &mut String, f: &Frame, a: &Axes, x_ticks: bool) {
    let (bx, by) = (H - BOTTOM, LEFT);
    for t in ticks(f.y0, f.y1, 5) {
        let y = f.py(t);
        let _ = write!(
            out,
            r#"<line class="grid" x1="{LEFT}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}"/><text class="tick ytick" x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"#,
            W - RIGHT,
            LEFT - 6.0,
            y + 4.0,
            fmt_tick(t)
        );
    }
    if x_ticks {
        let mut xt = ticks(f.x0, f.x1, 8);
        if a.whole_x {
            xt.retain(|t| t.fract() == 0.0);
            if xt.len() < 2 {
                xt = (f.x0.ceil() as i64..=f.x1.floor() as i64)
                    .map(|t| t as f64)
                    .collect();
            }
        }
        for t in xt {
            let x = f.px(t);
            let _ = write!(
                out,
                r#"<line class="axis" x1="{x:.1}" y1="{bx}" x2="{x:.1}" y2="{:.1}"/><text class="tick xtick" x="{x:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
                bx + 4.0,
                bx + 16.0,
                fmt_tick(t)
            );
        }
    }
    let _ = write!(
        out,
        r#"<line class="axis" x1="{by}" y1="{TOP}" x2="{by}" y2="{bx}"/><line class="axis" x1="{by}" y1="{bx}" x2="{:.1}" y2="{bx}"/><text class="label xlabel" x="{:.1}" y="{:.1}" text-anchor="middle">{}</text><text class="label ylabel" transform="translate(14 {:.1}) rotate(-90)" text-anchor="middle">{}</text>"#,
        W - RIGHT,
        (LEFT + W - RIGHT) / 2.0,
        H - 8.0,
        esc(&a.x_label),
        (TOP + H - BOTTOM) / 2.0,
        esc(&a.y_label)
    );
}

fn legend(out: &mut String, names: &[&str]) {
    let mut x = W - RIGHT;
    for (i, name) in names.iter().enumerate().rev() {
        let w = 18.0 + 7.0 * name.chars().count() as f64;
        x -= w + 12.0;
        let _ = write!(
            out,
            r#"<g class="legend"><rect class="swatch s{i}" x="{x:.1}" y="10" width="12" height="12"/><text x="{:.1}" y="20">{}</text></g>"#,
            x + 16.0,
            esc(name)
        );
    }
}

/// Width of a mark label in viewBox units (10 px text: about 6.2 units a character), with a gap.
fn label_width(text: &str) -> f64 {
    6.2 * text.chars().count() as f64 + 8.0
}

fn marks(out: &mut String, f: &Frame, marks: &[Mark]) {
    // Labels go left to right into the first row where they clear the previous label, so marks
    // that sit close together ("A p50" and "B p95") never print over each other.
    let mut order: Vec<usize> = (0..marks.len())
        .filter(|i| marks[*i].x.is_finite())
        .collect();
    // A label that would run past the right edge sits left of its line instead.
    let start = |m: &Mark| {
        let (x, w) = (f.px(m.x), label_width(&m.label));
        if x + 3.0 + w > W - RIGHT {
            (x - 3.0 - w + 8.0).max(0.0)
        } else {
            x + 3.0
        }
    };
    let mut row_end: Vec<f64> = Vec::new();
    let mut rows = vec![0usize; marks.len()];
    order.sort_by(|a, b| start(&marks[*a]).total_cmp(&start(&marks[*b])));
    for i in order {
        let x = start(&marks[i]);
        let row = match row_end.iter().position(|end| *end <= x) {
            Some(r) => r,
            None => {
                row_end.push(f64::NEG_INFINITY);
                row_end.len() - 1
            }
        };
        row_end[row] = x + label_width(&marks[i].label);
        rows[i] = row;
    }
    for (i, m) in marks.iter().enumerate() {
        if !m.x.is_finite() {
            continue;
        }
        let x = f.px(m.x);
        let s = m.series.map(|s| format!(" s{s}")).unwrap_or_default();
        let y = TOP + 10.0 + 12.0 * rows[i] as f64;
        let _ = write!(
            out,
            r#"<g class="mark {kind}{s}"><line x1="{x:.1}" y1="{TOP}" x2="{x:.1}" y2="{:.1}"/><text x="{:.1}" y="{y:.1}">{}</text></g>"#,
            H - BOTTOM,
            start(m),
            esc(&m.label),
            kind = m.kind
        );
    }
}

/// Overlaid histograms of several samples on shared bins.
pub(crate) fn histogram(
    a: &Axes,
    samples: &[(&str, &[f64])],
    bins: usize,
    pcts: &[Mark],
) -> String {
    let all = samples.iter().flat_map(|(_, v)| v.iter().copied());
    let (lo, hi) = all
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), v| {
            (l.min(v), h.max(v))
        });
    let mut out = String::new();
    open(&mut out, a, "histogram");
    if !lo.is_finite() {
        out.push_str(r#"<text class="empty" x="100" y="150">no samples</text></svg>"#);
        return out;
    }
    let bins = bins.max(1);
    let width = if hi > lo {
        (hi - lo) / bins as f64
    } else {
        1.0
    };
    let counts: Vec<Vec<usize>> = samples
        .iter()
        .map(|(_, v)| {
            let mut c = vec![0usize; bins];
            for x in v.iter().filter(|x| x.is_finite()) {
                let i = (((x - lo) / width) as usize).min(bins - 1);
                c[i] += 1;
            }
            c
        })
        .collect();
    let top = counts.iter().flatten().copied().max().unwrap_or(1).max(1);
    let f = Frame::new(lo, lo + width * bins as f64, 0.0, top as f64 * 1.1);
    axes(&mut out, &f, a, true);
    for (s, c) in counts.iter().enumerate() {
        for (i, n) in c.iter().enumerate() {
            if *n == 0 {
                continue;
            }
            let x0 = f.px(lo + width * i as f64);
            let x1 = f.px(lo + width * (i + 1) as f64);
            let y = f.py(*n as f64);
            let _ = write!(
                out,
                r#"<rect class="bar s{s}" x="{x0:.1}" y="{y:.1}" width="{:.1}" height="{:.1}"><title>{}: {n} in [{}, {})</title></rect>"#,
                (x1 - x0 - 0.5).max(0.5),
                f.py(0.0) - y,
                esc(samples[s].0),
                fmt_tick(lo + width * i as f64),
                fmt_tick(lo + width * (i + 1) as f64)
            );
        }
    }
    marks(&mut out, &f, pcts);
    legend(
        &mut out,
        &samples.iter().map(|(n, _)| *n).collect::<Vec<_>>(),
    );
    out.push_str("</svg>");
    out
}

/// Line (or step) chart of several series, with vertical marks and an optional shaded x span.
pub(crate) fn lines(
    a: &Axes,
    series: &[Series],
    step: bool,
    vmarks: &[Mark],
    shade: Option<(f64, f64)>,
) -> String {
    let pts = series
        .iter()
        .flat_map(|s| s.points.iter())
        .filter(|(x, y)| x.is_finite() && y.is_finite());
    let (x0, x1, y0, y1) = pts.fold(
        (f64::INFINITY, f64::NEG_INFINITY, 0f64, f64::NEG_INFINITY),
        |(a, b, c, d), (x, y)| (a.min(*x), b.max(*x), c.min(*y), d.max(*y)),
    );
    let mut out = String::new();
    open(&mut out, a, "lines");
    if !x0.is_finite() {
        out.push_str(r#"<text class="empty" x="100" y="150">no points</text></svg>"#);
        return out;
    }
    let f = Frame::new(x0, x1, y0, y1 + (y1 - y0).abs() * 0.05);
    if let Some((s0, s1)) = shade {
        let _ = write!(
            out,
            r#"<rect class="shade" x="{:.1}" y="{TOP}" width="{:.1}" height="{:.1}"/>"#,
            f.px(s0),
            (f.px(s1) - f.px(s0)).max(1.0),
            H - TOP - BOTTOM
        );
    }
    axes(&mut out, &f, a, true);
    for (i, s) in series.iter().enumerate() {
        let mut d = String::new();
        let mut prev: Option<(f64, f64)> = None;
        for &(x, y) in s
            .points
            .iter()
            .filter(|(x, y)| x.is_finite() && y.is_finite())
        {
            let (px, py) = (f.px(x), f.py(y));
            match prev {
                None => {
                    let _ = write!(d, "M{px:.1},{py:.1}");
                }
                Some((_, ppy)) if step => {
                    let _ = write!(d, " L{px:.1},{ppy:.1} L{px:.1},{py:.1}");
                }
                Some(_) => {
                    let _ = write!(d, " L{px:.1},{py:.1}");
                }
            }
            prev = Some((px, py));
        }
        let _ = write!(
            out,
            r#"<path class="series s{i}" data-points="{}" d="{d}"><title>{}</title></path>"#,
            s.points.len(),
            esc(&s.name)
        );
        // Few points: show each one, so a 7-window session reads as 7 measurements.
        if s.points.len() <= 60 {
            for &(x, y) in &s.points {
                if x.is_finite() && y.is_finite() {
                    let _ = write!(
                        out,
                        r#"<circle class="point s{i}" cx="{:.1}" cy="{:.1}" r="2.5"><title>{}: {} at {}</title></circle>"#,
                        f.px(x),
                        f.py(y),
                        esc(&s.name),
                        fmt_value(y),
                        fmt_value(x)
                    );
                }
            }
        }
    }
    marks(&mut out, &f, vmarks);
    legend(
        &mut out,
        &series.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(),
    );
    out.push_str("</svg>");
    out
}

/// Horizontal bars of signed values (growth right in one colour, shrinkage left in another).
pub(crate) fn signed_bars(a: &Axes, bars: &[(String, f64)], neutral: bool) -> String {
    let row = 18.0;
    let height = TOP + BOTTOM + row * bars.len().max(1) as f64;
    let label_w = 300.0;
    let (lo, hi) = bars
        .iter()
        .fold((0f64, 0f64), |(l, h), (_, v)| (l.min(*v), h.max(*v)));
    let span = if hi > lo { hi - lo } else { 1.0 };
    let plot = W - label_w - RIGHT;
    let px = |v: f64| label_w + (v - lo) / span * plot;
    let mut out = String::new();
    let _ = write!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" class="chart bars" viewBox="0 0 {W} {height}" role="img" aria-label="{t}"><title>{t}</title><text class="title" x="8" y="20">{t}</text>"#,
        t = esc(&a.title)
    );
    for t in ticks(lo, hi, 5) {
        let x = px(t);
        let _ = write!(
            out,
            r#"<line class="grid" x1="{x:.1}" y1="{TOP}" x2="{x:.1}" y2="{:.1}"/><text class="tick xtick" x="{x:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
            height - BOTTOM,
            height - BOTTOM + 14.0,
            fmt_tick(t)
        );
    }
    for (i, (label, v)) in bars.iter().enumerate() {
        let y = TOP + row * i as f64;
        let (x0, x1) = if *v >= 0.0 {
            (px(0.0), px(*v))
        } else {
            (px(*v), px(0.0))
        };
        let kind = if neutral {
            "s0"
        } else if *v > 0.0 {
            "grow"
        } else if *v < 0.0 {
            "shrink"
        } else {
            "zero"
        };
        let mut shown: String = label.chars().take(44).collect();
        if shown.len() < label.len() {
            shown.push('…');
        }
        let _ = write!(
            out,
            r#"<text class="tick blabel" x="{:.1}" y="{:.1}" text-anchor="end">{}</text><rect class="bar {kind}" x="{x0:.1}" y="{:.1}" width="{:.1}" height="{:.1}"><title>{}: {}</title></rect>"#,
            label_w - 6.0,
            y + 12.0,
            esc(&shown),
            y + 2.0,
            (x1 - x0).max(0.5),
            row - 4.0,
            esc(label),
            fmt_tick(*v)
        );
        // The value beside the bar's far end (inside it when the plot has no room), so small
        // bars next to a dominant one still read as numbers.
        let value = if !neutral && *v > 0.0 {
            format!("+{}", fmt_tick(*v))
        } else {
            fmt_tick(*v)
        };
        let w = 6.5 * value.chars().count() as f64;
        let room_right = x1 + 4.0 + w <= W - RIGHT;
        let room_left = x0 - 4.0 - w >= label_w;
        let (x, anchor, inside) = match (*v >= 0.0, room_right, room_left) {
            (true, true, _) | (false, true, false) => (x1 + 4.0, "start", ""),
            (false, _, true) | (true, false, true) => (x0 - 4.0, "end", ""),
            (true, false, false) => (x1 - 4.0, "end", " inside"),
            (false, false, false) => (x0 + 4.0, "start", " inside"),
        };
        let _ = write!(
            out,
            r#"<text class="tick bvalue{inside}" x="{x:.1}" y="{:.1}" text-anchor="{anchor}">{value}</text>"#,
            y + 12.0
        );
    }
    let zero = px(0.0);
    let _ = write!(
        out,
        r#"<line class="axis" x1="{zero:.1}" y1="{TOP}" x2="{zero:.1}" y2="{:.1}"/><text class="label xlabel" x="{:.1}" y="{:.1}" text-anchor="middle">{}</text></svg>"#,
        height - BOTTOM,
        label_w + plot / 2.0,
        height - 10.0,
        esc(&a.x_label)
    );
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn doc(svg: &str) -> roxmltree::Document<'_> {
        roxmltree::Document::parse(svg).unwrap()
    }

    fn count(svg: &str, class: &str) -> usize {
        doc(svg)
            .descendants()
            .filter(|n| {
                n.attribute("class")
                    .is_some_and(|c| c.split(' ').any(|w| w == class))
            })
            .count()
    }

    fn axes() -> Axes {
        Axes {
            title: "frame CPU time <A & B>".into(),
            x_label: "ms".into(),
            y_label: "frames".into(),
            whole_x: false,
        }
    }

    fn xticks(svg: &str) -> Vec<String> {
        let d = doc(svg);
        d.descendants()
            .filter(|n| n.attribute("class") == Some("tick xtick"))
            .map(|n| n.text().unwrap_or_default().to_string())
            .collect()
    }

    #[test]
    fn window_axes_tick_whole_windows_only() {
        let s = |n: usize| Series {
            name: "A".into(),
            points: (1..=n).map(|i| (i as f64, 1.0)).collect(),
        };
        let whole = Axes {
            whole_x: true,
            ..axes()
        };
        // 1..3 windows: nice ticks would be 1, 1.5, 2, 2.5, 3.
        assert_eq!(
            xticks(&lines(&axes(), &[s(3)], false, &[], None)),
            ["1", "1.5", "2", "2.5", "3"]
        );
        assert_eq!(
            xticks(&lines(&whole, &[s(3)], false, &[], None)),
            ["1", "2", "3"]
        );
        assert_eq!(
            xticks(&lines(&whole, &[s(7)], false, &[], None)),
            ["1", "2", "3", "4", "5", "6", "7"]
        );
    }

    #[test]
    fn hovered_values_keep_six_significant_figures() {
        assert_eq!(fmt_value(855.09), "855.09");
        assert_eq!(fmt_value(97862.0 * 100.0 / 102761.0), "95.2326");
        assert_eq!(fmt_value(79.1), "79.1");
        assert_eq!(fmt_value(3.0), "3");
        assert_eq!(fmt_value(0.000123456), "0.000123456");
    }

    #[test]
    fn ticks_are_nice_and_cover_the_range() {
        assert_eq!(ticks(0.0, 10.0, 5), vec![0.0, 2.0, 4.0, 6.0, 8.0, 10.0]);
        assert_eq!(ticks(0.3, 0.9, 3), vec![0.4, 0.6, 0.8]);
        assert_eq!(ticks(5.0, 5.0, 5), vec![5.0]);
    }

    #[test]
    fn histogram_has_one_bar_per_nonempty_bin_and_series() {
        let a = [1.0, 1.0, 2.0, 3.0];
        let b = [3.0, 3.0];
        let marks = [Mark {
            x: 2.0,
            label: "p50 2.0".into(),
            kind: "pct",
            series: Some(0),
        }];
        let svg = histogram(&axes(), &[("A", &a), ("B", &b)], 3, &marks);
        assert_eq!(count(&svg, "bar"), 4); // A: bins 0,1,2; B: bin 2
        assert_eq!(count(&svg, "pct"), 1);
        assert!(svg.contains("frame CPU time &lt;A &amp; B&gt;"));
        assert!(count(&svg, "xlabel") == 1 && count(&svg, "ylabel") == 1);
    }

    #[test]
    fn lines_keep_every_point_and_shade() {
        let s = Series {
            name: "draws/f".into(),
            points: (0..7).map(|i| (i as f64, 850.0 + i as f64)).collect(),
        };
        let svg = lines(&axes(), &[s], false, &[], Some((2.0, 5.0)));
        assert_eq!(count(&svg, "point"), 7);
        assert!(svg.contains("<title>draws/f: 856 at 6</title>"), "{svg}");
        assert_eq!(count(&svg, "shade"), 1);
        let d = doc(&svg);
        let path = d.descendants().find(|n| n.has_tag_name("path")).unwrap();
        assert_eq!(path.attribute("data-points"), Some("7"));
        assert_eq!(path.attribute("d").unwrap().matches('L').count(), 6);
    }

    #[test]
    fn signed_bars_colour_growth_and_shrinkage_apart() {
        let svg = signed_bars(
            &axes(),
            &[
                ("llvm".into(), 1200.0),
                ("std".into(), -300.0),
                ("x".into(), 5.0),
            ],
            false,
        );
        assert_eq!(count(&svg, "grow"), 2);
        assert_eq!(count(&svg, "shrink"), 1);
        assert_eq!(count(&svg, "bvalue"), 3, "every bar carries its value");
        assert!(svg.contains(">+1200<") && svg.contains(">-300<"));
        let zero = signed_bars(&axes(), &[("renamed only".into(), 0.0)], false);
        assert_eq!(
            count(&zero, "zero"),
            1,
            "no growth, no shrinkage: neither colour"
        );
        let long = signed_bars(&axes(), &[("x".repeat(60), 1.0)], false);
        assert!(long.contains(&format!(">{}…<", "x".repeat(44))));
    }

    #[test]
    fn empty_input_still_makes_wellformed_svg() {
        doc(&histogram(&axes(), &[("A", &[])], 10, &[]));
        doc(&lines(&axes(), &[], true, &[], None));
        doc(&signed_bars(&axes(), &[], true));
    }
}
