//! Renderers for log summaries and Fatal censuses: human text, versioned JSON, Markdown.
//! Reporters only format what analysis computed; they never re-parse.

use std::io::{self, Write};

use serde_json::{json, Value as Json};

use crate::analysis::{hit_rate, per_draw, Ending, PeriodSource};
use crate::fatal::TranscriptVerify;
use crate::fixed::{Fixed2, Ratio};
use crate::session::{DumpNote, FatalLine, Log, Session};
use crate::window::{FieldKind, Value, Window};

/// Which complete windows form the steady state (1-based, inclusive; `to = None` = the last).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SteadyRange {
    pub from: usize,
    pub to: Option<usize>,
}

impl Default for SteadyRange {
    /// Complete windows 3..last: the first two windows of a replay are load and warm-up.
    fn default() -> Self {
        SteadyRange { from: 3, to: None }
    }
}

impl SteadyRange {
    /// `3`, `3..`, `3..6`, `3-6`.
    pub fn parse(s: &str) -> Option<SteadyRange> {
        let s = s.trim();
        let (a, b) = match s.split_once("..").or_else(|| s.split_once('-')) {
            Some((a, b)) => (a, Some(b)),
            None => (s, None),
        };
        let from = a.trim().parse().ok().filter(|v| *v > 0)?;
        let to = match b.map(str::trim) {
            None | Some("") => None,
            Some(b) => Some(b.parse().ok()?),
        };
        Some(SteadyRange { from, to })
    }
}

fn ratio_or_na(r: Option<Ratio>, places: u32) -> String {
    r.map_or_else(|| "n/a".to_string(), |r| r.format(places, false))
}

fn fixed_or_na(v: Option<Fixed2>) -> String {
    v.map_or_else(|| "n/a".to_string(), |v| v.to_string())
}

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

/// The human summary of one log.
pub fn summary_text(log: &Log, steady: SteadyRange, out: &mut dyn Write) -> io::Result<()> {
    let c = &log.lines;
    writeln!(
        out,
        "== {} ({} bytes, {} lines, {})",
        log.path.display(),
        log.bytes,
        c.total,
        if c.crlf > 0 {
            if c.crlf == c.total {
                "CRLF"
            } else {
                "mixed CRLF/LF"
            }
        } else {
            "LF"
        }
    )?;
    writeln!(
        out,
        "lines: {} MobileGL records, {} ignored ({} logcat marker, {} foreign tag, {} noise, {} cut record, {} bad window line{}){}",
        c.records,
        c.ignored(),
        c.markers,
        c.foreign,
        c.noise,
        c.cut,
        c.bad_windows,
        if c.overlong > 0 { format!(", {} over-long line (longer than the line cap, dropped unread)", c.overlong) } else { String::new() },
        if c.not_utf8 > 0 { format!("; {} line(s) not valid UTF-8, decoded lossily", c.not_utf8) } else { String::new() }
    )?;
    if c.unknown_keys_dropped > 0 {
        writeln!(
            out,
            "unknown keys dropped: {} (window fields whose name arrived after {} distinct unknown names were kept)",
            c.unknown_keys_dropped,
            crate::window::UNKNOWN_NAMES_CAP
        )?;
    }
    for b in &log.bad_windows {
        writeln!(
            out,
            "  skipped {}:{}: {}",
            log.path.display(),
            b.line,
            b.item
        )?;
    }
    let reported: Vec<usize> = log.reported_sessions().iter().map(|s| s.index).collect();
    writeln!(out, "sessions: {}", log.sessions.len())?;
    for s in &log.sessions {
        let period = s.period().map_or_else(
            || "period unknown".to_string(),
            |p| {
                format!(
                    "period {} ({})",
                    p.frames,
                    if p.source == PeriodSource::Banner {
                        "banner"
                    } else {
                        "inferred"
                    }
                )
            },
        );
        writeln!(
            out,
            "  #{} {} {:<6} lines {}-{}  {}  windows {} ({} complete)  {}{}",
            s.index,
            s.pid
                .map_or_else(|| "-".to_string(), |p| format!("pid {p}")),
            s.role.as_str(),
            s.start_line,
            s.last_line,
            period,
            s.windows.len(),
            s.complete_windows().len(),
            match s.ending() {
                Ending::Teardown => "ended: teardown",
                Ending::Fatal => "ended: Fatal",
                Ending::NoTeardown => "ended: no teardown",
            },
            if reported.contains(&s.index) {
                "  <- reported"
            } else {
                ""
            }
        )?;
    }
    if log.window_count() == 0
        && log.lines.records > 0
        && log.lines.records <= 3
        && log.sessions.iter().all(|s| s.banner.is_none())
    {
        // PipeFill.cpp's trap: a log call after Close() re-opens the role's file with "w".
        writeln!(
            out,
            "note: only {} late MobileGL line(s), no banner, no window: the log may have been re-opened (truncated) after Close(), not a run that logged nothing",
            log.lines.records
        )?;
    }
    let reported = log.reported_sessions();
    if reported.is_empty() {
        return writeln!(out, "no MobileGL session in this log");
    }
    for s in reported {
        session_text(log, s, steady, out)?;
    }
    Ok(())
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

pub fn fatal_line_text(log: &Log, f: &FatalLine) -> String {
    let mut s = format!(
        "{}:{}: {}",
        log.path.display(),
        f.line,
        f.fatal.marker_text()
    );
    if let Some(l) = f.level {
        s.push_str(&format!(" [{}]", l.as_str()));
    }
    if let Some(p) = f.pid {
        s.push_str(&format!(" pid {p}"));
    }
    if f.fatal.unterminated {
        s.push_str(" (cut: no closing brace)");
    }
    s
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

fn fatal_json(f: &FatalLine) -> Json {
    json!({
        "line": f.line, "pid": f.pid, "role": f.role, "level": f.level,
        "kind": f.fatal.kind, "detail": f.fatal.detail, "extras": f.fatal.extras, "tail": f.fatal.tail,
        "unterminated": f.fatal.unterminated, "verify_kind": f.fatal.is_verify_kind(),
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
        Err(e) => json!({ "error": e }),
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

/// The JSON object of one log (the `logs[]` entries of `stats summary --json`).
pub fn log_json(log: &Log, steady: SteadyRange) -> Json {
    let c = &log.lines;
    let mut lines = json!({
        "total": c.total, "crlf": c.crlf, "records": c.records, "ignored": c.ignored(), "markers": c.markers,
        "foreign": c.foreign, "noise": c.noise, "cut": c.cut, "bad_windows": c.bad_windows, "not_utf8": c.not_utf8,
        "overlong": c.overlong,
    });
    // Only when the table of unknown names overflowed (docs/performance.md, memory per window).
    if c.unknown_keys_dropped > 0 {
        lines["unknown_keys_dropped"] = json!(c.unknown_keys_dropped);
    }
    json!({
        "path": log.path.display().to_string(),
        "bytes": log.bytes,
        "role": log.role,
        "lines": lines,
        "bad_windows": log.bad_windows.iter().map(|b| json!({"line": b.line, "error": b.item.to_string()})).collect::<Vec<_>>(),
        "sessions": log.sessions.iter().map(|s| session_json(s, steady)).collect::<Vec<_>>(),
        "reported_session": log.reported_session().map(|s| s.index),
        "transcript": log.transcript.iter().map(|t| json!({"line": t.line, "verify": t.item})).collect::<Vec<_>>(),
    })
}

/// `stats summary --markdown`: a MEASUREMENTS.md-ready table, one row per log.
pub fn summary_markdown(logs: &[Log], out: &mut dyn Write) -> io::Result<()> {
    writeln!(
        out,
        "| log | last complete window | draws/f | acc/draw | buf B/f | tex B/f | resid B/f | ers hit | etl hit | eub hit | csom/csob | steady draws/f | steady acc/draw | verify | Fatal |"
    )?;
    writeln!(
        out,
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---|---:|"
    )?;
    for log in logs {
        let name = log.path.file_name().map_or_else(
            || log.path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        let Some(s) = log.reported_session() else {
            continue;
        };
        let Some(w) = s.last_complete() else {
            writeln!(
                out,
                "| {} | none | | | | | | | | | | | | | {} |",
                diag::escape::markdown_code(&name),
                log.fatals.len()
            )?;
            continue;
        };
        let w = &w.item;
        let b = w.bytes_group();
        let get = |k: &str| w.get(k).map_or_else(|| "—".to_string(), Value::to_string);
        let rate = |g: &str| {
            w.gate(g)
                .and_then(|(h, m)| hit_rate(h, m))
                .map_or_else(|| "—".to_string(), |r| r.format(4, false))
        };
        let cso = match (w.get("cso.csom"), w.get("cso.csob")) {
            (Some(m), Some(b)) => format!("{m}/{b}"),
            _ => "—".to_string(),
        };
        let st = s.steady(3, None).ok();
        writeln!(
            out,
            "| {} | frames={} window={} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            diag::escape::markdown_code(&name),
            w.frames,
            w.window,
            fixed_or_na(w.draws_per_frame),
            fixed_or_na(w.acc_per_draw),
            get(&format!("{b}.buf")),
            get(&format!("{b}.tex")),
            get(&format!("{b}.resid")),
            rate("ers"),
            rate("etl"),
            rate("eub"),
            cso,
            st.as_ref().map_or_else(|| "—".to_string(), |a| ratio_or_na(a.draws_per_frame(), 2)),
            st.as_ref().map_or_else(|| "—".to_string(), |a| ratio_or_na(a.acc_per_draw(), 2)),
            if s.armed.is_empty() { "not armed" } else { "armed" },
            s.fatals.len()
        )?;
    }
    Ok(())
}

/// (key, count) rows of a census.
pub type Census = Vec<(String, usize)>;

/// Census of Fatal lines by kind, then by kind and detail: (key, count), count descending, then first seen.
pub fn census<'a>(fatals: impl Iterator<Item = &'a FatalLine>) -> (Census, Census) {
    let mut by_kind: Vec<(String, usize)> = Vec::new();
    let mut by_detail: Vec<(String, usize)> = Vec::new();
    let bump = |v: &mut Vec<(String, usize)>, k: String| match v.iter_mut().find(|(n, _)| *n == k) {
        Some(e) => e.1 += 1,
        None => v.push((k, 1)),
    };
    for f in fatals {
        bump(&mut by_kind, f.fatal.kind.clone());
        let d = match &f.fatal.detail {
            Some(d) => format!("{} \"{d}\"", f.fatal.kind),
            None => format!("{} (no detail)", f.fatal.kind),
        };
        bump(&mut by_detail, d);
    }
    // Stable sort keeps first-seen order among equal counts.
    by_kind.sort_by_key(|e| std::cmp::Reverse(e.1));
    by_detail.sort_by_key(|e| std::cmp::Reverse(e.1));
    (by_kind, by_detail)
}

/// `stats fatals` JSON for one log.
pub fn fatals_json(log: &Log) -> Json {
    let (k, d) = census(log.fatals.iter());
    json!({
        "path": log.path.display().to_string(),
        "fatal_lines": log.fatals.len(),
        "fatals": log.fatals.iter().map(fatal_json).collect::<Vec<_>>(),
        "by_kind": k.iter().map(|(n, c)| json!({"kind": n, "count": c})).collect::<Vec<_>>(),
        "by_detail": d.iter().map(|(n, c)| json!({"key": n, "count": c})).collect::<Vec<_>>(),
        "verify_armed": log.armed().iter().map(|a| json!({"line": a.line, "fields": a.item.fields, "verbs": a.item.verbs, "fatal": a.item.fatal})).collect::<Vec<_>>(),
        "transcript": log.transcript.iter().map(|t| json!({"line": t.line, "verify": t.item})).collect::<Vec<_>>(),
    })
}

/// The dump cross-check as text: one summary line, then every disagreement.
pub fn dump_text(
    d: &crate::dump::Dump,
    checks: &[crate::dump::Check],
    out: &mut dyn Write,
) -> io::Result<()> {
    let bad: Vec<&crate::dump::Check> = checks.iter().filter(|c| !c.ok).collect();
    writeln!(
        out,
        "  JSON dump {} (run totals): frames {}, {} values compared with the windows, {} disagree; {} histogram(s) of 24 buckets",
        d.path.display(),
        d.frames,
        checks.len(),
        bad.len(),
        d.histograms.len()
    )?;
    for c in bad {
        writeln!(
            out,
            "    MISMATCH {}: dump {} vs windows {}{}",
            c.name,
            c.dump,
            c.windows
                .map_or_else(|| "absent".to_string(), |w| w.to_string()),
            if c.tolerance > 0 {
                format!(" (tolerance ±{})", c.tolerance)
            } else {
                String::new()
            }
        )?;
    }
    Ok(())
}

pub fn dump_json(d: &crate::dump::Dump, checks: &[crate::dump::Check]) -> Json {
    json!({
        "path": d.path.display().to_string(),
        "frames": d.frames,
        "values": d.values.iter().map(|(n, v)| json!({"name": n, "value": v})).collect::<Vec<_>>(),
        "histograms": d.histograms.iter().map(|(n, h)| json!({"name": n, "buckets": h})).collect::<Vec<_>>(),
        "checks": checks,
        "agree": checks.iter().all(|c| c.ok),
    })
}

/// Where a G4 problem is: `path:line` or `path`.
fn problem_at(log: &Log, p: &crate::g4::Problem) -> String {
    match p.line() {
        Some(l) => format!("{}:{l}", log.path.display()),
        None => log.path.display().to_string(),
    }
}

/// `stats fatals` text for one log and its G4 verdict.
pub fn fatals_text(log: &Log, v: &crate::g4::Verdict, out: &mut dyn Write) -> io::Result<()> {
    use crate::g4::Problem;
    writeln!(
        out,
        "== {}: {} Fatal line(s)",
        log.path.display(),
        log.fatals.len()
    )?;
    for f in &log.fatals {
        writeln!(out, "  {}", fatal_line_text(log, f))?;
    }
    let (by_kind, by_detail) = census(log.fatals.iter());
    if !by_kind.is_empty() {
        let k: Vec<String> = by_kind.iter().map(|(n, c)| format!("{n} {c}")).collect();
        writeln!(out, "  by kind: {}", k.join(", "))?;
        for (n, c) in &by_detail {
            writeln!(out, "  {c:>4}  {n}")?;
        }
        let verify_kind = log
            .fatals
            .iter()
            .filter(|f| f.fatal.is_verify_kind())
            .count();
        writeln!(out, "  verify-family Fatals (PipeVerifyDiffer|UnmigratedPipeInput|PipeVerifyBadKnob): {verify_kind}")?;
    }
    for a in log.armed() {
        writeln!(
            out,
            "  verify armed at line {}: {} fields, {} verbs, fatal={}",
            a.line,
            a.item.fields,
            a.item.verbs,
            u8::from(a.item.fatal)
        )?;
    }
    for t in &log.transcript {
        let text = match &t.item {
            TranscriptVerify::ArmedClean { case, backend } => {
                format!("armed, clean: {case} {backend}")
            }
            TranscriptVerify::NotRequested {
                case,
                backend,
                value,
            } => format!("not requested (MOBILEGL_PIPE_VERIFY={value}): {case} {backend}"),
            TranscriptVerify::Failed {
                case,
                backend,
                fatals,
            } => format!("FAILED: {case} {backend} ({fatals} Fatal)"),
        };
        writeln!(out, "  runner line {}: {text}", t.line)?;
    }
    if v.verify {
        // The verdict line follows from the same problems the gate reports: never "zero Fatal
        // lines" while a Fatal was counted.
        if v.pass() {
            writeln!(out, "  verify: armed, zero Fatal lines")?;
        }
        if v.fatal_lines > 0 {
            writeln!(
                out,
                "  verify FAIL: {}: {} Fatal line(s), zero required",
                log.path.display(),
                v.fatal_lines
            )?;
        }
        for p in v
            .problems
            .iter()
            .filter(|p| !matches!(p, Problem::Fatal(_)))
        {
            writeln!(
                out,
                "  verify FAIL: {}: {}",
                problem_at(log, p),
                p.message()
            )?;
        }
    } else {
        for p in v
            .problems
            .iter()
            .filter(|p| matches!(p, Problem::RunnerFailed { .. }))
        {
            writeln!(out, "  FAIL: {}: {}", problem_at(log, p), p.message())?;
        }
        if !v.armed {
            writeln!(out, "  verify: not armed")?;
        }
    }
    Ok(())
}

/// `stats fatals` text for several logs: each log, then the total when there is more than one.
pub fn fatals_report_text(
    logs: &[Log],
    verdicts: &[crate::g4::Verdict],
    out: &mut dyn Write,
) -> io::Result<()> {
    for (i, (l, v)) in logs.iter().zip(verdicts).enumerate() {
        if i > 0 {
            writeln!(out)?;
        }
        fatals_text(l, v, out)?;
    }
    if logs.len() > 1 {
        let total: usize = logs.iter().map(|l| l.fatals.len()).sum();
        let (k, _) = census(logs.iter().flat_map(|l| l.fatals.iter()));
        let k: Vec<String> = k.iter().map(|(n, c)| format!("{n} {c}")).collect();
        writeln!(
            out,
            "\ntotal: {total} Fatal line(s) in {} log(s){}",
            logs.len(),
            if k.is_empty() {
                String::new()
            } else {
                format!(": {}", k.join(", "))
            }
        )?;
    }
    Ok(())
}

/// `stats fatals --json` (`"schema": 1`).
pub fn fatals_report_json(logs: &[Log], verdicts: &[crate::g4::Verdict], verify: bool) -> Json {
    use crate::g4::Problem;
    let pass = verdicts.iter().all(crate::g4::Verdict::pass);
    let per_log: Vec<Json> = logs
        .iter()
        .zip(verdicts)
        .map(|(l, v)| {
            let mut j = fatals_json(l);
            j["armed"] = json!(v.armed);
            j["pass"] = json!(v.pass());
            j["verify_problems"] = json!(v
                .problems
                .iter()
                .filter(|p| !matches!(p, Problem::Fatal(_)))
                .map(|p| format!("{}: {}", problem_at(l, p), p.message()))
                .collect::<Vec<_>>());
            j
        })
        .collect();
    let total: usize = logs.iter().map(|l| l.fatals.len()).sum();
    let (k, _) = census(logs.iter().flat_map(|l| l.fatals.iter()));
    json!({
        "schema": 1, "verify_mode": verify, "pass": pass, "fatal_lines": total,
        "by_kind": k.iter().map(|(n, c)| json!({"kind": n, "count": c})).collect::<Vec<_>>(),
        "logs": per_log,
    })
}

/// Why `stats summary` exits 1 for these logs, one line each in log order: a log without a
/// window line, a printed `draws/f` or `acc/draw` that does not re-derive with the producer's
/// rounding.
pub fn log_problems(logs: &[Log]) -> Vec<String> {
    let mut out = Vec::new();
    for l in logs {
        if l.window_count() == 0 {
            out.push(format!(
                "no `MGPipe stats:` window found in {}",
                l.path.display()
            ));
        }
        for s in &l.sessions {
            for (line, m) in s.mismatches() {
                out.push(format!(
                    "{}:{line}: {} printed {} but re-derives to {} (producer rounding)",
                    l.path.display(),
                    m.field,
                    m.printed,
                    m.derived
                ));
            }
        }
    }
    out
}

/// A teardown JSON dump checked against the reported session of its log (`stats summary --dump`).
#[derive(Debug, Clone)]
pub struct DumpCheck {
    pub dump: crate::dump::Dump,
    pub checks: Vec<crate::dump::Check>,
}

impl DumpCheck {
    pub fn new(dump: crate::dump::Dump, log: &Log) -> DumpCheck {
        let checks = match log.reported_session() {
            Some(s) => crate::dump::cross_check(&dump, s),
            None => Vec::new(),
        };
        DumpCheck { dump, checks }
    }

    /// Why the pair fails (`shown` names the dump as it was given), None when every value agrees.
    pub fn problem(&self, shown: &str, log: &Log) -> Option<String> {
        let bad = self.checks.iter().filter(|c| !c.ok).count();
        (bad > 0).then(|| {
            format!(
                "{shown} does not match the windows of {} ({bad} value(s) disagree): not the same session?",
                log.path.display()
            )
        })
    }
}

/// `stats summary --format json`. Fields in alphabetical order, the order the output has always
/// had (serde_json objects sort their keys).
#[derive(Debug, serde::Serialize)]
pub struct SummaryJson {
    pub dump: Option<Json>,
    pub logs: Vec<Json>,
    pub schema: u32,
    pub steady: SteadyJson,
}

#[derive(Debug, serde::Serialize)]
pub struct SteadyJson {
    pub from: usize,
    pub to: Option<usize>,
}

pub fn summary_json(logs: &[Log], steady: SteadyRange, dump: Option<&DumpCheck>) -> SummaryJson {
    SummaryJson {
        dump: dump.map(|d| dump_json(&d.dump, &d.checks)),
        logs: logs.iter().map(|l| log_json(l, steady)).collect(),
        schema: 1,
        steady: SteadyJson {
            from: steady.from,
            to: steady.to,
        },
    }
}

/// `stats summary` as text: every log (a blank line between), then the dump cross-check.
pub fn summaries_text(
    logs: &[Log],
    steady: SteadyRange,
    dump: Option<&DumpCheck>,
    out: &mut dyn Write,
) -> io::Result<()> {
    for (i, l) in logs.iter().enumerate() {
        if i > 0 {
            writeln!(out)?;
        }
        summary_text(l, steady, out)?;
    }
    match dump {
        Some(d) => dump_text(&d.dump, &d.checks, out),
        None => Ok(()),
    }
}

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
