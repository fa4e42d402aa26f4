//! One session in detail: the per-field table of its last complete window, invariants,
//! teardown, steady state, run totals, verify, Fatal lines, dump notice and self-check; as
//! text and as JSON.

use std::io::{self, Write};

use serde_json::{json, Value as Json};

use super::fatals::{fatal_json, fatal_line_text};
use super::{fixed_or_na, ratio_or_na, SteadyRange};
use crate::analysis::{hit_rate, per_draw, Ending, PeriodSource};
use crate::fixed::{Fixed2, Ratio};
use crate::session::{DumpNote, Log, Session};
use crate::window::{FieldKind, Value, Window};

/// JSON form of one value: numbers stay numbers, `n/a` is null, hits/misses an object.
pub fn value_json(v: &Value) -> Json {
    match v {
        Value::Int(i) => json!(i),
        Value::Fixed(f) => json!(f.to_f64()),
        Value::NotAvailable => Json::Null,
        Value::HitMiss { hit, miss } => json!({ "hit": hit, "miss": miss }),
        Value::Text(s) => json!(s),
    }
}

fn kind_str(k: FieldKind) -> &'static str {
    match k {
        FieldKind::RunTotal => "run-total",
        FieldKind::WindowLength => "window",
        FieldKind::Count => "count",
        FieldKind::PerFrame => "per-frame",
        FieldKind::PerDraw => "per-draw",
        FieldKind::Gauge => "gauge",
        FieldKind::HitMiss => "hit-miss",
        FieldKind::Unknown => "unknown",
    }
}

/// Rows of the per-field table of one window: (field, value, per frame, per draw, note).
pub fn field_rows(w: &Window) -> Vec<[String; 5]> {
    let mut rows = Vec::new();
    for f in &w.fields {
        let name = f.name();
        let kind = f.kind();
        let (pf, pd, note) = match (kind, &f.value) {
            (FieldKind::Count, Value::Int(v))
                if name != "draws" && name != "acc" && f.group.as_deref() != Some("bytes") =>
            {
                (
                    fixed_or_na(Fixed2::ratio(*v, w.window)),
                    ratio_or_na(Ratio::from_u64(*v, w.draws), 4),
                    String::new(),
                )
            }
            (FieldKind::Count, Value::Int(v)) if name == "draws" => (
                fixed_or_na(Fixed2::ratio(*v, w.window)),
                String::new(),
                String::new(),
            ),
            (FieldKind::Count, Value::Int(v)) if name == "acc" => (
                fixed_or_na(Fixed2::ratio(*v, w.window)),
                fixed_or_na(Fixed2::ratio(*v, w.draws)),
                String::new(),
            ),
            (FieldKind::Count, Value::Int(v)) => (
                fixed_or_na(Fixed2::ratio(*v, w.window)),
                ratio_or_na(Ratio::from_u64(*v, w.draws), 2),
                "window total".into(),
            ),
            (FieldKind::PerFrame, Value::Fixed(v)) if f.group.is_some() => (
                v.to_string(),
                ratio_or_na(per_draw(*v, w.window, w.draws), 2),
                String::new(),
            ),
            (FieldKind::HitMiss, Value::HitMiss { hit, miss }) => (
                String::new(),
                ratio_or_na(Ratio::from_u64(hit.saturating_add(*miss), w.draws), 4),
                hit_rate(*hit, *miss).map_or_else(
                    || "not exercised (0/0)".into(),
                    |r| format!("hit rate {}", r.format(4, false)),
                ),
            ),
            (FieldKind::Gauge, _) => (
                String::new(),
                String::new(),
                "gauge (run value, never summed)".into(),
            ),
            (FieldKind::RunTotal, _) => (String::new(), String::new(), "cumulative".into()),
            (FieldKind::Unknown, _) => (String::new(), String::new(), "unknown shape, kept".into()),
            _ => (String::new(), String::new(), String::new()),
        };
        let note = match name.as_str() {
            "draws/f" => "printed; re-derived from draws/window".to_string(),
            "acc/draw" => "printed; re-derived from acc/draws".to_string(),
            _ => note,
        };
        rows.push([name, f.value.to_string(), pf, pd, note]);
    }
    rows
}

fn table(
    out: &mut dyn Write,
    indent: &str,
    header: &[&str],
    rows: &[Vec<String>],
) -> io::Result<()> {
    let cols = header.len();
    let mut width: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for r in rows {
        for (i, c) in r.iter().enumerate().take(cols) {
            width[i] = width[i].max(c.chars().count());
        }
    }
    let line = |cells: Vec<&str>| -> String {
        let mut s = String::from(indent);
        for (i, c) in cells.iter().enumerate() {
            if i + 1 == cells.len() {
                s.push_str(c);
            } else {
                s.push_str(&format!("{c:<w$}  ", w = width[i]));
            }
        }
        s.trim_end().to_string()
    };
    writeln!(out, "{}", line(header.to_vec()))?;
    for r in rows {
        writeln!(out, "{}", line(r.iter().map(String::as_str).collect()))?;
    }
    Ok(())
}

fn session_label(s: &Session) -> String {
    let pid = s
        .pid
        .map_or_else(|| "no pid".to_string(), |p| format!("pid {p}"));
    format!("session {} ({pid}, role {})", s.index, s.role.as_str())
}

fn ending_text(s: &Session) -> &'static str {
    match s.ending() {
        Ending::Teardown => "teardown window present (clean shutdown)",
        Ending::Fatal => "ended in a Fatal (no teardown window after it)",
        Ending::NoTeardown => "no teardown window (killed, aborted, or the capture stopped)",
    }
}

/// The detailed report of one session (its last complete window, teardown, steady state, …).
pub fn session_text(
    log: &Log,
    s: &Session,
    steady: SteadyRange,
    out: &mut dyn Write,
) -> io::Result<()> {
    writeln!(out)?;
    writeln!(out, "{}:", session_label(s))?;
    if let Some(p) = s.period() {
        writeln!(
            out,
            "  period: {} frames ({})",
            p.frames,
            if p.source == PeriodSource::Banner {
                "from the banner"
            } else {
                "inferred: no banner, most frequent window"
            }
        )?;
    }
    writeln!(
        out,
        "  window lines: {}, complete: {}",
        s.windows.len(),
        s.complete_windows().len()
    )?;
    match s.last_complete() {
        Some(w) => {
            writeln!(
                out,
                "  last complete window (line {}): frames={} window={}",
                w.line, w.item.frames, w.item.window
            )?;
            let rows: Vec<Vec<String>> = field_rows(&w.item)
                .into_iter()
                .map(|r| r.to_vec())
                .collect();
            table(
                out,
                "    ",
                &["field", "value", "per frame", "per draw", "note"],
                &rows,
            )?;
        }
        None => writeln!(out, "  last complete window: none")?,
    }
    if let Some(w) = s.last_complete() {
        let inv = w.item.invariants();
        let broken: Vec<String> = inv
            .iter()
            .filter(|i| !i.1)
            .map(|(n, _, d)| format!("{n} ({d})"))
            .collect();
        if broken.is_empty() {
            writeln!(
                out,
                "  invariants (last complete window): {} checked, all hold",
                inv.len()
            )?;
        } else {
            writeln!(
                out,
                "  invariants (last complete window): {} of {} BROKEN: {}",
                broken.len(),
                inv.len(),
                broken.join("; ")
            )?;
        }
    }
    if let Some(t) = s.teardown() {
        writeln!(
            out,
            "  teardown window (line {}, partial, NOT complete): frames={} window={} draws={} draws/f={}",
            t.line,
            t.item.frames,
            t.item.window,
            t.item.draws,
            fixed_or_na(t.item.draws_per_frame)
        )?;
    }
    for w in s.irregular_windows() {
        writeln!(
            out,
            "  irregular window (line {}): frames={} window={} (not the period, not the last line)",
            w.line, w.item.frames, w.item.window
        )?;
    }
    match s.steady(steady.from, steady.to) {
        Ok(a) => writeln!(
            out,
            "  steady state, complete windows {}-{} ({} frames): draws/f {}, acc/draw {} (Σdraws/Σframes, Σacc/Σdraws; acc/draw {} to 4 places)",
            a.from,
            a.to,
            a.frames,
            ratio_or_na(a.draws_per_frame(), 2),
            ratio_or_na(a.acc_per_draw(), 2),
            ratio_or_na(a.acc_per_draw(), 4)
        )?,
        Err(e) => writeln!(out, "  steady state: not available ({e})")?,
    }
    let t = s.totals();
    writeln!(
        out,
        "  run totals ({} window lines incl. teardown, {} frames): draws {}, acc {}",
        t.windows,
        t.frames,
        t.count("draws").unwrap_or(0),
        t.count("acc").unwrap_or(0)
    )?;
    let other: Vec<String> = t
        .counts
        .iter()
        .filter(|(n, _)| n != "draws" && n != "acc")
        .map(|(n, v)| format!("{n} {v}"))
        .collect();
    if !other.is_empty() {
        writeln!(out, "    counts: {}", other.join(", "))?;
    }
    if !t.gates.is_empty() {
        let g: Vec<String> = t
            .gates
            .iter()
            .map(|(n, h, m)| format!("{} {h}/{m}", n.trim_start_matches("gates.")))
            .collect();
        writeln!(out, "    gates (hit/miss): {}", g.join(", "))?;
    }
    if !t.bytes.is_empty() {
        let b: Vec<String> = t
            .bytes
            .iter()
            .map(|(n, v, e)| format!("{n} ≈{v} (±{e})"))
            .collect();
        writeln!(out, "    bytes (≈ value × window): {}", b.join(", "))?;
    }
    if !t.gauges.is_empty() {
        let g: Vec<String> = t.gauges.iter().map(|(n, v)| format!("{n}={v}")).collect();
        writeln!(out, "    gauges (last value, not summed): {}", g.join(" "))?;
    }
    if let Some(w) = s.last_complete() {
        let mut g = Vec::new();
        for f in w
            .item
            .fields
            .iter()
            .filter(|f| f.group.as_deref() == Some("gates"))
        {
            if let Value::HitMiss { hit, miss } = f.value {
                g.push(match hit_rate(hit, miss) {
                    Some(r) => format!("{} {} ({hit}/{miss})", f.key, r.format(4, false)),
                    None => format!("{} 0/0", f.key),
                });
            }
        }
        writeln!(
            out,
            "  gate hit rates (last complete window): {}",
            g.join(", ")
        )?;
    }
    match s.armed.first() {
        Some(a) => writeln!(
            out,
            "  verify: armed (line {}: {} fields, {} verbs, fatal={})",
            a.line,
            a.item.fields,
            a.item.verbs,
            u8::from(a.item.fatal)
        )?,
        None => writeln!(out, "  verify: not armed (no `MGPipe: verify armed` line)")?,
    }
    for c in &s.corruption_armed {
        writeln!(
            out,
            "  verify corruption armed (negative control) at line {}: {}",
            c.line, c.item
        )?;
    }
    if let Some(v) = &s.verify_summary {
        writeln!(
            out,
            "  verify summary (line {}): {} divergence(s) survived",
            v.line, v.item
        )?;
    }
    if s.fatals.is_empty() {
        writeln!(out, "  Fatal lines: none")?;
    } else {
        writeln!(out, "  Fatal lines: {}", s.fatals.len())?;
        for f in &s.fatals {
            writeln!(out, "    {}", fatal_line_text(log, f))?;
        }
    }
    match &s.dump {
        Some(DumpNote::Written { line, path }) => {
            writeln!(out, "  JSON dump: written to {path} (line {line})")?
        }
        Some(DumpNote::Failed { line, message, .. }) => {
            writeln!(out, "  JSON dump: FAILED (line {line}): {message}")?
        }
        None => writeln!(out, "  JSON dump: no notice")?,
    }
    writeln!(out, "  end: {}", ending_text(s))?;
    let mism = s.mismatches();
    if mism.is_empty() {
        writeln!(
            out,
            "  self-check: {}/{} window lines re-derive draws/f and acc/draw exactly",
            s.windows.len(),
            s.windows.len()
        )?;
    } else {
        for (line, m) in &mism {
            writeln!(
                out,
                "  self-check MISMATCH {}:{}: {} printed {} but re-derives to {}",
                log.path.display(),
                line,
                m.field,
                m.printed,
                m.derived
            )?;
        }
    }
    Ok(())
}

fn window_json(w: &Window) -> Json {
    let fields: Vec<Json> = w
        .fields
        .iter()
        .map(|f| json!({ "name": f.name(), "value": value_json(&f.value), "text": f.value.to_string(), "kind": kind_str(f.kind()) }))
        .collect();
    json!({
        "frames": w.frames, "window": w.window, "draws": w.draws, "acc": w.acc,
        "draws_per_frame": w.draws_per_frame.map(Fixed2::to_f64),
        "acc_per_draw": w.acc_per_draw.map(Fixed2::to_f64),
        "fields": fields,
    })
}

fn ratio_json(r: Option<Ratio>) -> Json {
    r.map_or(Json::Null, |r| json!(r.to_f64()))
}

/// The JSON object of one session.
pub fn session_json(s: &Session, steady: SteadyRange) -> Json {
    let period = s.period();
    let steady_json = match s.steady(steady.from, steady.to) {
        Ok(a) => json!({
            "from": a.from, "to": a.to, "windows": a.windows, "frames": a.frames, "draws": a.draws, "acc": a.acc,
            "draws_per_frame": ratio_json(a.draws_per_frame()), "acc_per_draw": ratio_json(a.acc_per_draw()),
            "draws_per_frame_text": ratio_or_na(a.draws_per_frame(), 2), "acc_per_draw_text": ratio_or_na(a.acc_per_draw(), 2),
        }),
        Err(e) => json!({ "error": e.to_string() }),
    };
    let t = s.totals();
    json!({
        "index": s.index, "pid": s.pid, "role": s.role, "start_line": s.start_line, "last_line": s.last_line,
        "started_by": s.started_by,
        "period": period.map(|p| p.frames), "period_source": period.map(|p| p.source),
        "window_lines": s.windows.len(), "complete_windows": s.complete_windows().len(),
        "last_complete": s.last_complete().map(|w| { let mut j = window_json(&w.item); j["line"] = json!(w.line); j }),
        "invariants": s.last_complete().map(|w| w.item.invariants().iter().map(|(n, ok, d)| json!({"name": n, "holds": ok, "detail": d})).collect::<Vec<_>>()),
        "teardown": s.teardown().map(|w| { let mut j = window_json(&w.item); j["line"] = json!(w.line); j }),
        "steady": steady_json,
        "totals": {
            "window_lines": t.windows, "frames": t.frames, "window_frames": t.window_frames,
            "counts": t.counts.iter().map(|(n, v)| json!({"name": n, "value": v})).collect::<Vec<_>>(),
            "gates": t.gates.iter().map(|(n, h, m)| json!({"name": n, "hit": h, "miss": m})).collect::<Vec<_>>(),
            "gauges_last": t.gauges.iter().map(|(n, v)| json!({"name": n, "value": v})).collect::<Vec<_>>(),
            "bytes_approx": t.bytes.iter().map(|(n, v, e)| json!({"class": n, "bytes": v, "max_error": e})).collect::<Vec<_>>(),
        },
        "verify_armed": s.armed.iter().map(|a| json!({"line": a.line, "fields": a.item.fields, "verbs": a.item.verbs, "fatal": a.item.fatal})).collect::<Vec<_>>(),
        "fatals": s.fatals.iter().map(fatal_json).collect::<Vec<_>>(),
        "dump": s.dump,
        "ending": s.ending(),
        "mismatches": s.mismatches().iter().map(|(l, m)| json!({"line": l, "field": m.field, "printed": m.printed, "derived": m.derived})).collect::<Vec<_>>(),
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::super::samples::{log, written, ARM_A, ARM_B};
    use super::*;

    fn text(l: &Log) -> String {
        let s = l.reported_session().unwrap();
        written(|o| session_text(l, s, SteadyRange::default(), o))
    }

    /// The row of `field` in the per-field table.
    fn row<'a>(t: &'a str, field: &str) -> Vec<&'a str> {
        let l = t
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("{field} ")))
            .unwrap();
        l.split("  ")
            .map(str::trim)
            .filter(|c| !c.is_empty())
            .collect()
    }

    #[test]
    fn text_of_arm_b_has_the_expected_windows_totals_and_verify() {
        let b = text(&log("b.txt", ARM_B));
        assert!(
            b.contains("  period: 120 frames (from the banner)\n"),
            "{b}"
        );
        assert!(b.contains("  window lines: 7, complete: 6\n"), "{b}");
        assert!(b.contains("): frames=720 window=120\n"), "{b}");
        assert_eq!(row(&b, "draws")[1], "102611");
        assert_eq!(row(&b, "draws/f")[1], "855.09");
        assert_eq!(row(&b, "acc")[1], "925544");
        assert_eq!(row(&b, "acc/draw")[1], "9.02");
        assert!(
            b.contains(
                ", partial, NOT complete): frames=745 window=25 draws=21342 draws/f=853.68\n"
            ),
            "{b}"
        );
        assert!(
            b.contains(
                "  steady state, complete windows 3-6 (480 frames): draws/f 853.46, acc/draw 9.11 "
            ),
            "{b}"
        );
        assert!(
            b.contains("  run totals (7 window lines incl. teardown, 745 frames): draws 502443, "),
            "{b}"
        );
        assert!(b.contains("ers 0.9523 (97862/4899)"), "{b}");
        assert!(b.contains(": 63 fields, 69 verbs, fatal=1)\n"), "{b}");
        assert!(b.contains("  Fatal lines: none\n"), "{b}");
        assert!(
            b.contains("  JSON dump: written to /data/local/tmp/mgout/pipestats.json (line "),
            "{b}"
        );
        assert!(
            b.contains("  end: teardown window present (clean shutdown)\n"),
            "{b}"
        );
        assert!(
            b.contains("  self-check: 7/7 window lines re-derive draws/f and acc/draw exactly\n"),
            "{b}"
        );
    }

    #[test]
    fn text_of_arm_a_shows_its_own_acc_and_the_failed_dump() {
        let a = text(&log("a.log", ARM_A));
        assert_eq!(row(&a, "acc")[1], "1032346");
        assert_eq!(row(&a, "acc/draw")[1], "10.06");
        assert!(a.contains("draws/f 853.46, acc/draw 10.20 "), "{a}");
        assert!(a.contains("ers 0.9539 (98019/4742)"), "{a}");
        assert!(
            a.contains("  verify: not armed (no `MGPipe: verify armed` line)\n"),
            "{a}"
        );
        assert!(a.contains("  JSON dump: FAILED (line "), "{a}");
        assert!(a.contains("/sdcard/mgout/pipestats.json"), "{a}");
    }

    #[test]
    fn json_of_a_session_keeps_numbers_and_texts() {
        let b = log("b.txt", ARM_B);
        let j = session_json(b.reported_session().unwrap(), SteadyRange::default());
        assert_eq!(j["period"], 120);
        assert_eq!(j["complete_windows"], 6);
        assert_eq!(j["last_complete"]["frames"], 720);
        assert_eq!(j["last_complete"]["draws_per_frame"], 855.09);
        assert_eq!(j["teardown"]["window"], 25);
        assert_eq!(j["steady"]["draws_per_frame_text"], "853.46");
        assert_eq!(j["steady"]["acc_per_draw_text"], "9.11");
        assert_eq!(j["verify_armed"][0]["fields"], 63);
        let draws = j["totals"]["counts"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == "draws")
            .unwrap();
        assert_eq!(draws["value"], 502443);
        let w = b.reported_session().unwrap().last_complete().unwrap();
        let gate = field_rows(&w.item)
            .into_iter()
            .find(|r| r[0] == "gates.ers")
            .unwrap();
        assert_eq!(gate[4], "hit rate 0.9523");
    }
}
