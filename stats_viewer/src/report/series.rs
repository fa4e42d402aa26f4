//! The per-window counter series of a log, which the HTML counter charts draw.

use super::SteadyRange;
use crate::session::Log;
use crate::window::Value;

/// How the HTML counter charts are drawn, printed under them.
pub const COUNTERS_METHOD: &str = "x: complete windows of the log in order (all sessions), 1-based; \
values as the producer printed them (draws/f, acc/draw, bytes/f) and gate hit rate = hits / (hits + misses); \
the shaded span is the steady state of the reported session (--steady); dashed lines mark session changes \
and Fatal lines (placed after the last complete window before them)";

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
}

pub fn counter_series(log: &Log, steady: SteadyRange) -> CounterSeries {
    let mut metrics: Vec<(String, Vec<(f64, f64)>)> = Vec::new();
    let mut push = |name: String, x: f64, y: f64| match metrics.iter_mut().find(|(n, _)| *n == name)
    {
        Some((_, pts)) => pts.push((x, y)),
        None => metrics.push((name, vec![(x, y)])),
    };
    let mut sessions = Vec::new();
    let mut steady_span = None;
    let mut lines = Vec::new();
    let mut x = 0usize;
    let reported = log.reported_session().map(|s| s.index);
    for s in &log.sessions {
        let complete = s.complete_windows();
        if x > 0 && !complete.is_empty() {
            sessions.push((
                x as f64 + 0.5,
                format!(
                    "session {} (pid {})",
                    s.index,
                    s.pid.map_or("?".into(), |p| p.to_string())
                ),
            ));
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
            let xf = x as f64;
            if let Some(v) = w.item.draws_per_frame {
                push("draws/f".into(), xf, v.to_f64());
            }
            if let Some(v) = w.item.acc_per_draw {
                push("acc/draw".into(), xf, v.to_f64());
            }
            for f in &w.item.fields {
                match (f.group.as_deref(), &f.value) {
                    (Some("gates"), Value::HitMiss { hit, miss }) if hit + miss > 0 => push(
                        format!("gate {} hit rate (%)", f.key),
                        xf,
                        *hit as f64 * 100.0 / (hit + miss) as f64,
                    ),
                    (Some("bytes/f"), Value::Fixed(v)) => {
                        push(format!("bytes/f {}", f.key), xf, v.to_f64())
                    }
                    _ => {}
                }
            }
        }
    }
    let fatals = log
        .fatals
        .iter()
        .map(|f| {
            let before = lines.iter().filter(|l| **l < f.line).count();
            (
                before as f64 + 0.5,
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
    }
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
}
