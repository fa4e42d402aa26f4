//! The `bench session` page: arms in session order, the proven arms' figures and Δ, their
//! distributions side by side. Filled from `stats_viewer::devsession`'s report; computes nothing.

use std::fmt::Write as _;

use crate::svg::{self, Axes, Mark};
use crate::{esc, page};

fn axes(title: String, x: &str, y: &str) -> Axes {
    Axes {
        title,
        x_label: x.into(),
        y_label: y.into(),
        whole_x: false,
    }
}

/// `bench session`: every arm's standing (voided arms named with their reasons), the proven arms'
/// figures with their spread and Δ against the baseline, and their CPU (else wall) frame-time
/// distributions side by side, percentiles marked.
pub fn session_page(r: &stats_viewer::devsession::SessionReport, version: &str) -> String {
    use stats_viewer::devsession::Status;
    let mut body = String::new();
    let base = r.baseline.map(|b| r.arms[b].label.as_str());
    let _ = write!(
        body,
        "<h2>Arms, in session order</h2><table><tr><th class=\"num\">#</th><th>arm</th><th>transport</th><th>status</th><th>why</th></tr>"
    );
    for a in &r.arms {
        let cls = if a.status == Status::Proven {
            "pass"
        } else {
            "fail"
        };
        let why: Vec<String> = a
            .diags
            .iter()
            .map(|d| format!("{} {}", d.code.as_str(), esc(&d.message)))
            .collect();
        let _ = write!(
            body,
            "<tr><td class=\"num\">{}</td><td><code>{}</code></td><td>{}</td><td class=\"{cls}\">{}</td><td>{}</td></tr>",
            a.order,
            esc(&a.label),
            esc(&a.transport_label),
            a.status.as_str(),
            if why.is_empty() { "-".to_string() } else { why.join("<br/>") }
        );
    }
    body.push_str("</table>");
    let f = |v: Option<f64>| v.map_or_else(|| "-".to_string(), |v| format!("{v:.3}"));
    let sg = |v: Option<f64>| v.map_or_else(|| "-".to_string(), |v| format!("{v:+.3}"));
    let _ = write!(
        body,
        "<h2>Proven arms: best of N, Δ against <code>{}</code> (ms)</h2><table><tr><th>arm</th><th class=\"num\">n</th><th class=\"num\">wall mean</th><th class=\"num\">spread of means</th><th class=\"num\">spread %</th><th class=\"num\">Δ mean</th><th class=\"num\">cpu p50</th><th class=\"num\">Δ p50</th><th class=\"num\">cpu p99</th><th class=\"num\">Δ p99</th><th>frames (from)</th></tr>",
        esc(base.unwrap_or("none"))
    );
    let mut bars = Vec::new();
    for a in r.proven() {
        let best = a.best_repeat();
        let cpu = best.and_then(|b| b.cpu);
        let d = a.delta;
        let (lo, hi, pct) = a.spread.map_or((None, None, None), |s| {
            (Some(s.min_mean_ms), Some(s.max_mean_ms), Some(s.pct))
        });
        let frames = a.frames.as_ref().map_or_else(
            || "-".to_string(),
            |s| {
                format!(
                    "{} ({} <code>{}:{}</code>)",
                    s.value,
                    s.role,
                    esc(&s.source),
                    s.line
                )
            },
        );
        let _ = write!(
            body,
            "<tr><td><code>{}</code></td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}..{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td>{frames}</td></tr>",
            esc(&a.label),
            a.repeats.len(),
            f(best.and_then(|b| b.wall.map(|w| w.mean))),
            f(lo),
            f(hi),
            pct.map_or_else(|| "-".to_string(), |p| format!("{p:.1}")),
            if Some(a.label.as_str()) == base { "base".to_string() } else { sg(d.and_then(|d| d.wall_mean_ms)) },
            f(cpu.map(|c| c.median)),
            sg(d.and_then(|d| d.cpu_p50_ms)),
            f(cpu.map(|c| c.p99)),
            sg(d.and_then(|d| d.cpu_p99_ms)),
        );
        if let Some(d) = d.and_then(|d| d.cpu_p50_ms) {
            bars.push((format!("{} p50", a.label), d));
        }
        if let Some(d) = d.and_then(|d| d.cpu_p99_ms) {
            bars.push((format!("{} p99", a.label), d));
        }
    }
    body.push_str("</table>");
    if !bars.is_empty() {
        body.push_str(&svg::signed_bars(
            &axes(
                format!("Δ CPU frame time against {} (ms)", base.unwrap_or("none")),
                "Δ ms",
                "",
            ),
            &bars,
            false,
        ));
    }
    body.push_str("<h2>Frame-time distributions (best repeat's tail)</h2><div class=\"pair\">");
    for a in r.proven() {
        let (name, values) = if a.best_cpu.is_empty() {
            ("wall", &a.best_wall)
        } else {
            ("CPU", &a.best_cpu)
        };
        let st = stats_viewer::benchmark::SeriesStats::of(values);
        let marks: Vec<Mark> = st
            .iter()
            .flat_map(|s| [("p50", s.median), ("p99", s.p99)])
            .map(|(p, v)| Mark {
                x: v,
                label: format!("{p} {v:.3}"),
                kind: "pct",
                series: Some(0),
            })
            .collect();
        body.push_str("<div>");
        body.push_str(&svg::histogram(
            &axes(
                format!("{} — {name} frame time (n={})", a.label, values.len()),
                "frame time (ms)",
                "frames",
            ),
            &[(a.label.as_str(), values.as_slice())],
            30,
            &marks,
        ));
        body.push_str("</div>");
    }
    body.push_str("</div>");
    let _ = write!(
        body,
        "<p class=\"method\">method: best of N by lowest wall meanFrameMs; {}</p>",
        esc(stats_viewer::bench_report::METHOD)
    );
    page(
        "mgctl bench session",
        &[format!(
            "{} — {} arm(s), {} proven",
            r.label.as_deref().unwrap_or(&r.dir),
            r.arms.len(),
            r.proven().count()
        )],
        &body,
        version,
    )
}
