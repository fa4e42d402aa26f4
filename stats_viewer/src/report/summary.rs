//! The summary of a log: the human text (line counts, sessions, then each reported session in
//! detail), its JSON, the Markdown row of `stats summary --markdown`, and why a log fails.

use std::io::{self, Write};

use serde_json::{json, Value as Json};

use super::dump::{dump_json, dump_text, DumpCheck};
use super::session::{session_json, session_text};
use super::{fixed_or_na, ratio_or_na, SteadyRange};
use crate::analysis::{hit_rate, Ending, PeriodSource};
use crate::session::Log;
use crate::window::Value;

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

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::super::samples::{log, written, ARM_A, ARM_B};
    use super::*;

    fn text(l: &Log) -> String {
        written(|o| summary_text(l, SteadyRange::default(), o))
    }

    #[test]
    fn text_counts_lines_and_sessions_and_reports_the_last_session() {
        let a = text(&log("a.log", ARM_A));
        assert!(a.starts_with("== a.log ("), "{a}");
        assert!(a.lines().next().unwrap().ends_with(", CRLF)"), "{a}");
        assert!(a.contains(", 0 ignored ("), "{a}");
        assert!(a.contains("\nsessions: 1\n"), "{a}");
        assert!(a.contains("period 120 (banner)"), "{a}");
        assert!(
            a.contains("windows 7 (6 complete)  ended: teardown  <- reported"),
            "{a}"
        );

        let b = text(&log("b.txt", ARM_B));
        assert!(b.lines().next().unwrap().ends_with(", LF)"), "{b}");
        assert!(b.contains(", 10 ignored ("), "{b}");
        assert!(b.contains("\nsessions: 2\n"), "{b}");
        let rows: Vec<&str> = b.lines().filter(|l| l.starts_with("  #")).collect();
        assert_eq!(rows.len(), 2, "{b}");
        assert!(
            rows[0].contains("pid 20877") && rows[0].contains("ended: no teardown"),
            "{b}"
        );
        assert!(!rows[0].contains("<- reported"), "{b}");
        assert!(
            rows[1].contains("pid 21377") && rows[1].ends_with("<- reported"),
            "{b}"
        );
        // The reported session follows, in detail.
        assert!(b.contains("frames=720 window=120"), "{b}");
    }

    #[test]
    fn markdown_row_carries_the_expected_numbers() {
        let logs = [log("a.log", ARM_A), log("b.txt", ARM_B)];
        let md = written(|o| summary_markdown(&logs, o));
        let rows: Vec<&str> = md.lines().collect();
        assert_eq!(rows.len(), 4, "{md}");
        assert_eq!(
            rows[2],
            "| `a.log` | frames=720 window=120 | 855.09 | 10.06 | 96119.47 | 97280.00 | 0.00 | 0.9539 | 0.0721 | 0.0650 | — | 853.46 | 10.20 | not armed | 0 |"
        );
        assert_eq!(
            rows[3],
            "| `b.txt` | frames=720 window=120 | 855.09 | 9.02 | 96119.47 | 97280.00 | 3993.93 | 0.9523 | 0.0722 | 0.0656 | 0/61654 | 853.46 | 9.11 | armed | 0 |"
        );
    }

    #[test]
    fn json_and_problems_of_the_samples() {
        let b = log("b.txt", ARM_B);
        let j = log_json(&b, SteadyRange::default());
        assert_eq!(j["lines"]["ignored"], 10);
        assert_eq!(j["lines"]["crlf"], 0);
        assert_eq!(j["sessions"].as_array().unwrap().len(), 2);
        assert_eq!(j["reported_session"], j["sessions"][1]["index"]);
        let a = log("a.log", ARM_A);
        let s = serde_json::to_value(summary_json(&[a], SteadyRange::default(), None)).unwrap();
        assert_eq!(s["schema"], 1);
        assert_eq!(s["steady"]["from"], 3);
        assert_eq!(
            s["logs"][0]["lines"]["crlf"],
            s["logs"][0]["lines"]["total"]
        );

        assert_eq!(log_problems(&[b]), Vec::<String>::new());
        let empty = log("empty.log", b"nothing here\n");
        assert_eq!(
            log_problems(&[empty]),
            ["no `MGPipe stats:` window found in empty.log"]
        );
    }
}
