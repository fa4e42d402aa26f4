//! The per-window counter series of a log, which the HTML counter charts draw.

use super::SteadyRange;
use crate::diff::Diff;
use crate::session::{At, Log, Session};
use crate::window::{Value, Window};

/// How the HTML counter charts of `stats summary` are drawn, printed under them.
pub const COUNTERS_METHOD: &str = "x: complete windows of the log in order (all sessions), 1-based; \
values as the producer printed them (draws/f, acc/draw, bytes/f) and gate hit rate = hits / (hits + misses); \
the shaded span is the steady state of the reported session (--steady); dashed lines mark session changes \
and Fatal lines (placed after the last complete window before them)";

/// How the HTML counter charts of `stats diff` are drawn: on the windows the verdict compares.
pub const DIFF_METHOD: &str = "x: complete windows of the session each arm's report compares (the last \
session with window lines), 1-based as the steady state counts them, so window k of A and window k of B \
share an x; other sessions are left out and named above the charts; values as the producer printed them \
(draws/f, acc/draw, bytes/f) and gate hit rate = hits / (hits + misses); the shaded span is the steady \
state both arms' figures use (--steady); dashed lines mark Fatal lines (placed after the last complete \
window before them)";

/// The per-window series of one log, for the HTML counter charts: every complete window in log
/// order, numbered from 1 across sessions.
#[derive(Debug, Clone, PartialEq)]
pub struct CounterSeries {
    pub label: String,
    /// (counter name, points (window number, value)), in first-seen order.
    pub metrics: Vec<(String, Vec<(f64, f64)>)>,
    /// Session changes, between the windows they separate.
    pub sessions: Vec<(f64, String)>,
    /// Fatal lines, after the last complete window before them.
    pub fatals: Vec<(f64, String)>,
    /// The reported session's steady state, in window numbers.
    pub steady: Option<(f64, f64)>,
    pub windows: usize,
    /// What the chart leaves out of the log and why, one sentence each.
    pub dropped: Vec<String>,
}

/// Adds window `w`'s counters at `x`.
fn push_window(metrics: &mut Vec<(String, Vec<(f64, f64)>)>, x: f64, w: &Window) {
    let mut push = |name: String, y: f64| match metrics.iter_mut().find(|(n, _)| *n == name) {
        Some((_, pts)) => pts.push((x, y)),
        None => metrics.push((name, vec![(x, y)])),
    };
    if let Some(v) = w.draws_per_frame {
        push("draws/f".into(), v.to_f64());
    }
    if let Some(v) = w.acc_per_draw {
        push("acc/draw".into(), v.to_f64());
    }
    for f in &w.fields {
        match (f.group.as_deref(), &f.value) {
            (Some("gates"), Value::HitMiss { hit, miss }) if hit + miss > 0 => push(
                format!("gate {} hit rate (%)", f.key),
                *hit as f64 * 100.0 / (hit + miss) as f64,
            ),
            (Some("bytes/f"), Value::Fixed(v)) => push(format!("bytes/f {}", f.key), v.to_f64()),
            _ => {}
        }
    }
}

fn session_name(s: &Session) -> String {
    format!(
        "session {} (pid {})",
        s.index,
        s.pid.map_or("?".into(), |p| p.to_string())
    )
}

/// Fatal line `line` sits after this many of `lines` (the complete windows' lines), plus one half.
fn after(lines: &[usize], line: usize) -> f64 {
    lines.iter().filter(|l| **l < line).count() as f64 + 0.5
}

pub fn counter_series(log: &Log, steady: SteadyRange) -> CounterSeries {
    let mut metrics: Vec<(String, Vec<(f64, f64)>)> = Vec::new();
    let mut sessions = Vec::new();
    let mut steady_span = None;
    let mut lines = Vec::new();
    let mut x = 0usize;
    let reported = log.reported_session().map(|s| s.index);
    for s in &log.sessions {
        let complete = s.complete_windows();
        if x > 0 && !complete.is_empty() {
            sessions.push((x as f64 + 0.5, session_name(s)));
        }
        if Some(s.index) == reported && !complete.is_empty() {
            let to = steady.to.unwrap_or(complete.len()).min(complete.len());
            if steady.from >= 1 && steady.from <= to {
                steady_span = Some(((x + steady.from) as f64, (x + to) as f64));
            }
        }
        for w in complete {
            x += 1;
            lines.push(w.line);
            push_window(&mut metrics, x as f64, &w.item);
        }
    }
    let fatals = log
        .fatals
        .iter()
        .map(|f| {
            (
                after(&lines, f.line),
                format!("Fatal{{{}}} line {}", f.fatal.kind, f.line),
            )
        })
        .collect();
    CounterSeries {
        label: log.path.display().to_string(),
        metrics,
        sessions,
        fatals,
        steady: steady_span,
        windows: x,
        dropped: Vec::new(),
    }
}

/// The two arms of `stats diff` as its verdict sees them: each arm's compared session only
/// (`Diff::sa` / `Diff::sb`), its complete windows numbered from 1, the steady span the one
/// `Session::steady` aggregates, and a sentence per session left out.
pub fn diff_series(d: &Diff<'_>) -> [CounterSeries; 2] {
    let arm = |name: &str, log: &Log, s: &Session| {
        let mut metrics = Vec::new();
        let complete: Vec<&At<Window>> = s.complete_windows();
        for (i, w) in complete.iter().enumerate() {
            push_window(&mut metrics, (i + 1) as f64, &w.item);
        }
        let lines: Vec<usize> = complete.iter().map(|w| w.line).collect();
        let fatals = s
            .fatals
            .iter()
            .map(|f| {
                (
                    after(&lines, f.line),
                    format!("Fatal{{{}}} line {}", f.fatal.kind, f.line),
                )
            })
            .collect();
        let dropped = log
            .sessions
            .iter()
            .filter(|o| o.index != s.index)
            .map(|o| {
                let n = o.complete_windows().len();
                let why = if o.index < s.index {
                    format!("stale, superseded by {}", session_name(s))
                } else {
                    format!("no window lines; the report compares {}", session_name(s))
                };
                format!(
                    "arm {name}: {} dropped ({why}); its {n} complete window{} not plotted",
                    session_name(o),
                    if n == 1 { " is" } else { "s are" }
                )
            })
            .collect();
        CounterSeries {
            label: log.path.display().to_string(),
            metrics,
            sessions: Vec::new(),
            fatals,
            steady: s
                .steady(d.steady.from, d.steady.to)
                .ok()
                .map(|a| (a.from as f64, a.to as f64)),
            windows: complete.len(),
            dropped,
        }
    };
    [arm("A", d.a, d.sa), arm("B", d.b, d.sb)]
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::super::samples::{log, ARM_A, ARM_B, FATAL_VERIFY};
    use super::*;

    fn metric<'a>(s: &'a CounterSeries, name: &str) -> &'a [(f64, f64)] {
        &s.metrics.iter().find(|(n, _)| n == name).unwrap().1
    }

    #[test]
    fn arm_b_numbers_windows_across_sessions() {
        let s = counter_series(&log("b.txt", ARM_B), SteadyRange::default());
        assert_eq!(s.label, "b.txt");
        // 1 window of the killed session, then the reported session's 6.
        assert_eq!(s.windows, 7);
        assert_eq!(s.sessions.len(), 1);
        assert_eq!(s.sessions[0].0, 1.5);
        assert!(s.sessions[0].1.ends_with("(pid 21377)"), "{:?}", s.sessions);
        assert_eq!(s.steady, Some((4.0, 7.0)));
        assert_eq!(metric(&s, "draws/f").last(), Some(&(7.0, 855.09)));
        assert_eq!(metric(&s, "acc/draw").last(), Some(&(7.0, 9.02)));
        let ers = metric(&s, "gate ers hit rate (%)").last().unwrap();
        assert!((ers.1 - 97862.0 * 100.0 / 102761.0).abs() < 1e-9);
        assert!(s.fatals.is_empty());
    }

    #[test]
    fn arm_a_and_a_fatal() {
        let a = counter_series(&log("a.log", ARM_A), SteadyRange::default());
        assert_eq!((a.windows, a.steady), (6, Some((3.0, 6.0))));
        assert!(a.sessions.is_empty());
        assert_eq!(metric(&a, "acc/draw").last(), Some(&(6.0, 10.06)));
        let v = counter_series(&log("v.log", FATAL_VERIFY), SteadyRange::default());
        assert_eq!(v.windows, 2);
        assert_eq!(v.fatals.len(), 1);
        assert_eq!(v.fatals[0].0, 2.5);
        assert!(
            v.fatals[0].1.starts_with("Fatal{PipeVerifyDiffer} line "),
            "{:?}",
            v.fatals
        );
    }

    #[test]
    fn diff_series_plots_the_compared_sessions_window_for_window() {
        let (a, b) = (log("a.log", ARM_A), log("b.txt", ARM_B));
        let d = crate::diff::diff(&a, &b, SteadyRange::default()).unwrap();
        let [sa, sb] = diff_series(&d);
        // B's stale first session is off the axis: window k of A and of B share x = k.
        assert_eq!((sa.windows, sb.windows), (6, 6));
        assert_eq!(metric(&sa, "draws/f"), metric(&sb, "draws/f"));
        assert_eq!(metric(&sb, "draws/f")[1], (2.0, 516.28));
        // The shade is the steady state the text report aggregates (3-6 in both).
        assert_eq!((sa.steady, sb.steady), (Some((3.0, 6.0)), Some((3.0, 6.0))));
        assert!(sa.dropped.is_empty() && sb.sessions.is_empty());
        assert_eq!(sb.dropped.len(), 1, "{:?}", sb.dropped);
        assert!(
            sb.dropped[0].starts_with(
                "arm B: session 1 (pid 20877) dropped (stale, superseded by session 2 (pid 21377))"
            ),
            "{:?}",
            sb.dropped
        );
    }
}
