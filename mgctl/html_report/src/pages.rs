//! The four report pages. Each takes a plain view filled by its command from library results.

use std::fmt::Write as _;

use crate::svg::{self, Axes, Mark, Series};
use crate::{esc, page};
use check_report::{CheckRun, Severity, Verdict};
use symbols::report::{self, ReportInput};
use symbols::top;

/// One arm of `bench frames` (its best run's tail per series, with its nearest-rank figures) and
/// one log of `stats summary` / `stats diff` (per-window counter series): stats_viewer's models.
pub use stats_viewer::bench_report::{BestTail as FrameArm, TailSeries as FrameSeries};
pub use stats_viewer::report::CounterSeries as CounterArm;

fn axes(title: String, x: &str, y: &str) -> Axes {
    Axes {
        title,
        x_label: x.into(),
        y_label: y.into(),
        whole_x: false,
    }
}

fn pct_marks(arms: &[(&str, &FrameSeries)], u: Unit) -> Vec<Mark> {
    let mut marks = Vec::new();
    for (i, (label, s)) in arms.iter().enumerate() {
        for (p, v) in [("p50", s.p50), ("p95", s.p95), ("p99", s.p99)] {
            marks.push(Mark {
                x: v * u.scale,
                label: format!("{label} {p} {}", u.show(v)),
                kind: "pct",
                series: Some(i),
            });
        }
    }
    marks
}

/// The time unit of a frames page: the one text reports use, picked from every frame.
type Unit = stats_viewer::unit::TimeUnit;

fn unit_of(arms: &[FrameArm]) -> Unit {
    Unit::for_ms(
        arms.iter()
            .flat_map(|a| a.series.iter().flat_map(|s| s.values.iter()))
            .copied(),
    )
}

/// B − A in `u` and in percent of A (hyperfine's Δ).
fn delta(u: Unit, a: f64, b: f64) -> String {
    let pct = if a != 0.0 {
        format!(" ({:+.2} %)", (b - a) / a * 100.0)
    } else {
        String::new()
    };
    format!("{}{pct}", u.show_delta(b - a))
}

/// `bench frames` (one arm or `--compare A B`): histogram and CDF per series, percentiles marked.
pub fn frames_page(arms: &[FrameArm], method: &str, version: &str) -> String {
    let u = unit_of(arms);
    let mut body = String::new();
    legend_lines(&mut body, arms.iter().map(|a| a.label.as_str()));
    let _ = write!(
        body,
        "<h2>Summary</h2><table class=\"summary\"><tr><th>arm</th><th>chosen run</th><th>series</th><th class=\"num\">n</th><th class=\"num\">p50 {u}</th><th class=\"num\">p95 {u}</th><th class=\"num\">p99 {u}</th></tr>",
        u = u.name
    );
    for (a, short) in arms.iter().zip(ARM_NAMES) {
        for s in &a.series {
            let _ = write!(
                body,
                "<tr><td>{short}</td><td>{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
                esc(&a.chosen),
                s.name,
                s.values.len(),
                u.show(s.p50),
                u.show(s.p95),
                u.show(s.p99)
            );
        }
    }
    // --compare: B − A per series and percentile, as hyperfine prints it. (The inputs are named
    // once, above: A and B here.)
    if let [a, b] = arms {
        for sa in &a.series {
            if let Some(sb) = b.series.iter().find(|s| s.name == sa.name) {
                let _ = write!(
                    body,
                    "<tr class=\"delta\"><td>Δ</td><td>B − A ({u}, % of A)</td><td>{}</td><td class=\"num\"></td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
                    sa.name,
                    delta(u, sa.p50, sb.p50),
                    delta(u, sa.p95, sb.p95),
                    delta(u, sa.p99, sb.p99),
                    u = u.name
                );
            }
        }
    }
    body.push_str("</table>");
    let names: Vec<&'static str> = {
        let mut n: Vec<&'static str> = arms
            .iter()
            .flat_map(|a| a.series.iter().map(|s| s.name))
            .collect();
        n.dedup();
        let mut seen = Vec::new();
        n.retain(|x| {
            let new = !seen.contains(x);
            seen.push(*x);
            new
        });
        n
    };
    for name in names {
        // Short arm names (A, B) in titles, legends and marks: the page maps them to the inputs
        // once, at the top, and full paths on six staggered marks overlap.
        let present: Vec<(&str, &FrameSeries)> = arms
            .iter()
            .zip(ARM_NAMES)
            .filter_map(|(a, short)| a.series.iter().find(|s| s.name == name).map(|s| (short, s)))
            .collect();
        let sizes: Vec<String> = present
            .iter()
            .map(|(l, s)| format!("{l} n={}", s.values.len()))
            .collect();
        let _ = write!(body, "<h2>{name} frame time</h2>");
        let scaled: Vec<Vec<f64>> = present
            .iter()
            .map(|(_, s)| s.values.iter().map(|v| v * u.scale).collect())
            .collect();
        let samples: Vec<(&str, &[f64])> = present
            .iter()
            .zip(&scaled)
            .map(|((l, _), v)| (*l, v.as_slice()))
            .collect();
        body.push_str(&svg::histogram(
            &axes(
                format!("{name} frame time, histogram ({})", sizes.join(", ")),
                &format!("frame time ({})", u.name),
                "frames",
            ),
            &samples,
            40,
            &pct_marks(&present, u),
        ));
        let cdf: Vec<Series> = present
            .iter()
            .zip(&scaled)
            .map(|((l, _), v)| {
                let mut v = v.clone();
                v.sort_by(f64::total_cmp);
                let n = v.len() as f64;
                Series {
                    name: (*l).to_string(),
                    points: v
                        .iter()
                        .enumerate()
                        .map(|(i, x)| (*x, (i + 1) as f64 / n))
                        .collect(),
                }
            })
            .collect();
        body.push_str(&svg::lines(
            &axes(
                format!("{name} frame time, CDF ({})", sizes.join(", ")),
                &format!("frame time ({})", u.name),
                "fraction of frames ≤ x",
            ),
            &cdf,
            true,
            &pct_marks(&present, u),
            None,
        ));
    }
    let _ = write!(body, "<p class=\"method\">method: {}</p>", esc(method));
    page(
        "mgctl bench frames",
        &[arms
            .iter()
            .map(|a| a.label.clone())
            .collect::<Vec<_>>()
            .join(" vs ")],
        &body,
        version,
    )
}

/// Short arm names for legends and marks; the page maps each to its input once, at the top.
const ARM_NAMES: [&str; 8] = ["A", "B", "C", "D", "E", "F", "G", "H"];

fn legend_lines<'a>(body: &mut String, labels: impl Iterator<Item = &'a str>) {
    body.push_str("<p class=\"meta\">");
    for (l, short) in labels.zip(ARM_NAMES) {
        let _ = write!(body, "<b>{short}</b> = <code>{}</code><br/>", esc(l));
    }
    body.push_str("</p>");
}

/// `stats summary` (one log) or `stats diff A B`: one chart per counter, A and B overlaid.
pub fn counters_page(title: &str, arms: &[CounterArm], method: &str, version: &str) -> String {
    let mut body = String::new();
    let mut names: Vec<&str> = Vec::new();
    for a in arms {
        for (n, _) in &a.metrics {
            if !names.contains(&n.as_str()) {
                names.push(n);
            }
        }
    }
    let _ = write!(
        body,
        "<p class=\"meta\">{}</p>",
        esc(&arms
            .iter()
            .map(|a| format!("{}: {} windows", a.label, a.windows))
            .collect::<Vec<_>>()
            .join("; "))
    );
    // What the charts leave out of the logs (a stale session, say), so no reader takes the x axis
    // for the whole log.
    let dropped: Vec<&String> = arms.iter().flat_map(|a| &a.dropped).collect();
    if !dropped.is_empty() {
        body.push_str("<ul class=\"dropped\">");
        for d in dropped {
            let _ = write!(body, "<li>{}</li>", esc(d));
        }
        body.push_str("</ul>");
    }
    if let [a, b, ..] = arms {
        if b.steady.is_some() && b.steady != a.steady {
            let (f, t) = b.steady.unwrap_or_default();
            let _ = write!(
                body,
                "<p class=\"note\">the shaded span is A's steady state; B's is windows {f}–{t}</p>"
            );
        }
    }
    for name in names {
        let series: Vec<Series> = arms
            .iter()
            .zip(ARM_NAMES)
            .map(|(a, short)| Series {
                name: short.to_string(),
                points: a
                    .metrics
                    .iter()
                    .find(|(n, _)| n == name)
                    .map(|(_, p)| p.clone())
                    .unwrap_or_default(),
            })
            .collect();
        let mut marks = Vec::new();
        for (i, a) in arms.iter().enumerate() {
            for (x, l) in &a.sessions {
                marks.push(Mark {
                    x: *x,
                    label: l.clone(),
                    kind: "session",
                    series: Some(i),
                });
            }
            for (x, l) in &a.fatals {
                marks.push(Mark {
                    x: *x,
                    label: l.clone(),
                    kind: "fatal",
                    series: Some(i),
                });
            }
        }
        let shade = arms.first().and_then(|a| a.steady);
        let n: Vec<String> = series
            .iter()
            .map(|s| format!("{} n={}", s.name, s.points.len()))
            .collect();
        let _ = write!(body, "<h2>{}</h2>", esc(name));
        body.push_str(&svg::lines(
            &Axes {
                whole_x: true,
                ..axes(
                    format!("{name} per window ({})", n.join(", ")),
                    "window",
                    name,
                )
            },
            &series,
            false,
            &marks,
            shade,
        ));
        // Two identical arms draw one line: say so, or B's reads as A's missing.
        if let [a, rest @ ..] = series.as_slice() {
            for (b, short) in rest.iter().zip(&ARM_NAMES[1..]) {
                if !a.points.is_empty() && a.points == b.points {
                    let _ = write!(
                        body,
                        "<p class=\"note identical\">{short} equals A at every window: its line is drawn over A's</p>"
                    );
                }
            }
        }
    }
    let _ = write!(body, "<p class=\"method\">{}</p>", esc(method));
    page(
        title,
        &arms.iter().map(|a| a.label.clone()).collect::<Vec<_>>(),
        &body,
        version,
    )
}

/// `check --format html`: the gate table, per-gate timing bars, findings by gate with locations.
pub fn check_page(run: &CheckRun) -> String {
    let mut body = String::new();
    let verdict = if run.passed {
        "<span class=\"pass\">PASS</span>"
    } else {
        "<span class=\"fail\">FAIL</span>"
    };
    let _ = write!(
        body,
        "<p>{verdict} — {} gates in {:.1} ms</p>",
        run.gates.len(),
        run.wall_ms
    );
    body.push_str("<table><tr><th>gate</th><th>verdict</th><th class=\"num\">errors</th><th class=\"num\">warnings</th><th class=\"num\">notes</th><th>headline</th><th class=\"num\">time</th></tr>");
    for g in &run.gates {
        let (e, w, n) = check_report::counts(g);
        let (class, text) = match &g.verdict {
            Verdict::Pass => ("pass", "pass".to_string()),
            Verdict::Fail => ("fail", "fail".to_string()),
            Verdict::Skipped { reason } => ("skipped", format!("skipped: {reason}")),
        };
        let _ = write!(
            body,
            "<tr><td><a href=\"#gate-{name}\">{name}</a></td><td class=\"{class}\">{}</td><td class=\"num\">{e}</td><td class=\"num\">{w}</td><td class=\"num\">{n}</td><td>{}</td><td class=\"num\">{}</td></tr>",
            esc(&text),
            esc(&g.headline),
            if matches!(g.verdict, Verdict::Skipped { .. }) { "–".to_string() } else { format!("{:.1} ms", g.wall_ms) },
            name = esc(g.gate)
        );
    }
    body.push_str("</table>");
    let timing: Vec<(String, f64)> = run
        .gates
        .iter()
        .filter(|g| !matches!(g.verdict, Verdict::Skipped { .. }))
        .map(|g| (g.gate.to_string(), g.wall_ms))
        .collect();
    body.push_str(&svg::signed_bars(
        &axes(
            format!("wall time per gate ({} gates run)", timing.len()),
            "milliseconds",
            "gate",
        ),
        &timing,
        true,
    ));
    for g in run.gates.iter().filter(|g| !g.findings.is_empty()) {
        let _ = write!(body, "<h2 id=\"gate-{0}\">{0}</h2><table><tr><th>severity</th><th>code</th><th>where</th><th>message</th></tr>", esc(g.gate));
        for f in &g.findings {
            let sev = match f.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
                Severity::Note => "note",
            };
            let place = f.location.as_ref().map_or_else(String::new, |l| {
                format!(
                    "<a href=\"{}\"><code>{}</code></a>",
                    esc(&run.view.link(l)),
                    esc(&l.to_string())
                )
            });
            let _ = write!(
                body,
                "<tr><td class=\"{}\">{sev}</td><td><code>{}</code></td><td>{place}</td><td>{}</td></tr>",
                if sev == "error" { "fail" } else { "skipped" },
                esc(f.code),
                esc(&f.message)
            );
        }
        body.push_str("</table>");
    }
    page(
        &format!("mgctl check {}", run.workspace),
        &[format!("config: {}", run.config)],
        &body,
        run.version,
    )
}

/// How many scopes and symbols the symbols page lists; the rest are counted and totalled, so the
/// page of a 45k-symbol libLLVM diff stays small.
pub(crate) const SYMBOLS_TOP: usize = 20;

/// `symbols diff --html`: signed bars of the bytes moved per scope (the text report's rollup), the
/// top symbols beside them, the section deltas and the text report's summary lines.
pub fn symbols_page(r: &ReportInput<'_>, version: &str) -> String {
    let d = r.diff;
    let l = &d.listing;
    let mut body = String::new();
    let _ = write!(
        body,
        "<p>{} → {} defined symbols: <b>{}</b> added, <b>{}</b> removed, <b>{}</b> resized, <b>{}</b> renamed, {} unchanged.</p>",
        d.defined_before,
        d.defined_after,
        l.added.len(),
        l.removed.len(),
        l.resized.len(),
        l.renamed.len(),
        l.unchanged
    );
    // Sections first (the two numbers a reviewer asks for), then the scope rollup across the
    // page's width, then the symbols: SuperSize's and bloaty's order.
    body.push_str("<h2>Sections</h2><table class=\"sections\"><tr><th>section</th><th class=\"num\">before</th><th class=\"num\">after</th><th class=\"num\">Δ bytes</th><th class=\"num\">Δ %</th></tr>");
    for s in &d.sections {
        let class = match s.delta.signum() {
            1 => " grow",
            -1 => " shrink",
            _ => "",
        };
        let _ = write!(
            body,
            "<tr><td><code>{}</code></td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num{class}\">{:+}</td><td class=\"num{class}\">{:+.3}</td></tr>",
            esc(&s.name),
            s.before,
            s.after,
            s.delta,
            s.percent()
        );
    }
    body.push_str("</table>");
    body.push_str("<div class=\"scopes\">");
    let (depth, groups) = r.rollup.or(r.groups).unwrap_or((1, &[]));
    let (shown, rest) = top::top_scopes(groups, SYMBOLS_TOP);
    let _ = write!(
        body,
        "<h2>Bytes by scope</h2><p class=\"meta\">namespace or class, depth {depth}: the {} largest growths and shrinkages of {} scopes</p>",
        shown.len(),
        groups.len()
    );
    let bars: Vec<(String, f64)> = shown
        .iter()
        .map(|g| (g.namespace.clone(), g.delta as f64))
        .collect();
    body.push_str(&svg::signed_bars(
        &axes(
            format!(
                "Δ bytes per scope ({} of {} scopes)",
                shown.len(),
                groups.len()
            ),
            "Δ bytes (growth right, shrinkage left)",
            "scope",
        ),
        &bars,
        false,
    ));
    if rest.count > 0 {
        let _ = write!(
            body,
            "<p class=\"meta rest\">… and {} more scope{}: {:+} bytes of growth, {:+} bytes of shrinkage</p>",
            rest.count,
            if rest.count == 1 { "" } else { "s" },
            rest.growth,
            rest.shrinkage
        );
    }
    body.push_str("</div><div class=\"top\">");
    let (changes, crest) = top::top_changes(l, SYMBOLS_TOP);
    let _ = write!(
        body,
        "<h2>Top symbols</h2><p class=\"meta\">top {} of {} added, removed or resized symbols by |Δ|</p>",
        changes.len(),
        changes.len() + crest.count
    );
    body.push_str("<table class=\"symbols\"><tr><th>change</th><th>symbol</th><th class=\"num\">before</th><th class=\"num\">after</th><th class=\"num\">Δ bytes</th></tr>");
    for (kind, c) in &changes {
        let class = if c.delta >= 0 { "grow" } else { "shrink" };
        let _ = write!(
            body,
            "<tr><td class=\"{class}\">{}</td><td class=\"symname\"><code class=\"sym\" title=\"{name}\">{name}</code></td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num {class}\">{:+}</td></tr>",
            kind.as_str(),
            c.before,
            c.after,
            c.delta,
            name = esc(&c.name)
        );
    }
    body.push_str("</table>");
    if crest.count > 0 {
        let _ = write!(
            body,
            "<p class=\"meta rest\">… and {} more symbol{}: {:+} bytes of growth, {:+} bytes of shrinkage</p>",
            crest.count,
            if crest.count == 1 { "" } else { "s" },
            crest.growth,
            crest.shrinkage
        );
    }
    if !l.renamed.is_empty() {
        let _ = write!(
            body,
            "<p class=\"meta\">{} renamed-only symbol{} (same size) not listed</p>",
            l.renamed.len(),
            if l.renamed.len() == 1 { "" } else { "s" }
        );
    }
    body.push_str("</div>");
    body.push_str("<h2>Text report</h2><pre class=\"lines\">");
    for line in report::summary_lines(r) {
        body.push_str(&esc(&line));
        body.push('\n');
    }
    body.push_str("</pre>");
    let half = SYMBOLS_TOP / 2;
    let _ = write!(
        body,
        "<p class=\"method\">method: {}</p>",
        esc(&format!(
            "symbols read in process from each library's symbol table, demangled, normalised and folded as in the text report; \
             a scope is the first {depth} namespace or class component(s) of a name ((global) when it has none) and its Δ is the sum over its \
             added, removed and resized symbols; the chart shows the {half} largest growths and the {half} largest shrinkages (a side with fewer leaves its share \
             to the other), the table the top {SYMBOLS_TOP} symbols by |Δ| (ties by name); the rest are counted and totalled; \
             sizes are st_size bytes, sections are section header sizes."
        ))
    );
    let side = |s: &symbols::diff::Side, what: &str| {
        s.identity.as_ref().map_or_else(
            || format!("{what}: (canned)"),
            |i| format!("{what}: {} ({} bytes on disk)", i.path, i.file_bytes),
        )
    };
    page(
        "mgctl symbols diff",
        &[side(r.before, "before"), side(r.after, "after")],
        &body,
        version,
    )
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use symbols::diff::{diff, DiffOptions, SymRow};
    use symbols::gate::{evaluate, GateOptions};
    use symbols::report::MarkdownLimits;

    /// A hostile demangled name cannot add markup or control bytes, and the page stays one
    /// well-formed document with one bar per scope that moved bytes.
    #[test]
    fn symbols_page_escapes_names_and_stays_wellformed() {
        let (before, mut after) = symbols::selftest::canned();
        after.rows.push(SymRow {
            mangled: "_Zevil".into(),
            demangled: "evil::<script>alert(1)</script>\u{1b}[31m()".into(),
            kind: 'T',
            size: 64,
            address: 0x900,
            version: None,
        });
        let opts = DiffOptions::default();
        let gates = GateOptions::default();
        let d = diff(&before, &after, &opts);
        let outcome = evaluate(&d, &gates);
        let groups = symbols::group::group(&d.listing, 1);
        let input = ReportInput {
            before: &before,
            after: &after,
            diff: &d,
            opts: &opts,
            gates: &gates,
            outcome: &outcome,
            keep_versions: false,
            warnings: &[],
            groups: None,
            rollup: Some((1, &groups)),
            sort: report::SortOrder::Abs,
            limits: MarkdownLimits::default(),
        };
        let html = symbols_page(&input, "0.0.0 (test)");
        assert!(
            !html.contains("<script") && !html.contains('\u{1b}'),
            "{html}"
        );
        assert!(html.contains("evil::&lt;script&gt;"));
        let doc = roxmltree::Document::parse_with_options(
            &html,
            roxmltree::ParsingOptions {
                allow_dtd: true,
                ..Default::default()
            },
        )
        .unwrap();
        let bars = doc
            .descendants()
            .filter(|n| n.has_tag_name("rect"))
            .filter(|n| n.attribute("class").is_some_and(|c| c.starts_with("bar ")))
            .count();
        let moved = groups.iter().filter(|g| g.delta != 0).count();
        assert_eq!(bars, moved.min(SYMBOLS_TOP));
        assert!(moved > 0);
    }
}
