//! `bench session` as text, JSON (`"schema": 1`, docs/json.md) and Markdown (a PR comment).
//! Every figure is the report's; nothing here computes one.

use std::io::{self, Write};

use diag::escape::{markdown_cell, terminal};
use serde_json::{json, Value as Json};

use super::analyse::SessionReport;
use super::analyse::{ArmReport, Rate, Sourced, Status};
use super::load::Layout;
use crate::bench_report::METHOD;
use crate::benchmark::SeriesStats;

fn layout_name(l: Layout) -> &'static str {
    match l {
        Layout::P6 => "P6 session (session-summary.json)",
        Layout::Disagg => "disagg matrix (summary.json)",
    }
}

fn ms(v: Option<f64>) -> String {
    v.map_or_else(|| "-".into(), |v| format!("{v:.3}"))
}

fn signed(v: Option<f64>) -> String {
    v.map_or_else(|| "-".into(), |v| format!("{v:+.3}"))
}

fn spread_text(a: &ArmReport) -> String {
    a.spread.map_or_else(
        || "-".into(),
        |s| format!("{:.3}..{:.3} ({:.1}%)", s.min_mean_ms, s.max_mean_ms, s.pct),
    )
}

fn rate_text(r: &Rate) -> String {
    match r {
        Ok(v) => format!("{v:.3}"),
        Err(_) => "error SES007".into(),
    }
}

fn sourced_text(s: &Option<Sourced>) -> String {
    s.as_ref().map_or_else(
        || "-".into(),
        |s| format!("{} ({} {}:{})", s.value, s.role, s.source, s.line),
    )
}

fn reasons(a: &ArmReport) -> Vec<String> {
    a.diags
        .iter()
        .map(|d| format!("{} {}", d.code.as_str(), d.message))
        .collect()
}

fn headline(r: &SessionReport) -> String {
    let proven = r.proven().count();
    format!(
        "{} arm(s), {proven} proven, {} excluded",
        r.arms.len(),
        r.arms.len() - proven
    )
}

fn baseline_label(r: &SessionReport) -> Option<&str> {
    r.baseline.map(|b| r.arms[b].label.as_str())
}

fn rate_of<'a>(a: &'a ArmReport, name: &str) -> Option<&'a Rate> {
    a.rates.iter().find(|(n, _)| n == name).map(|(_, r)| r)
}

/// The human report.
pub fn human(r: &SessionReport, out: &mut dyn Write) -> io::Result<()> {
    let t = |s: &str| terminal(s).into_owned();
    writeln!(
        out,
        "bench session {} — {}{}: {}",
        t(&r.dir),
        layout_name(r.layout),
        r.label
            .as_deref()
            .map(|l| format!(", session {}", t(l)))
            .unwrap_or_default(),
        headline(r)
    )?;
    writeln!(
        out,
        "baseline: {}",
        baseline_label(r).map_or_else(|| "none".into(), t)
    )?;
    writeln!(out, "\nArms (session order):")?;
    for a in &r.arms {
        let pid = a
            .server_pid
            .map(|p| format!(", server pid {p}"))
            .unwrap_or_default();
        writeln!(
            out,
            "  {:>2}  {:<9} {}  [{}{pid}]",
            a.order,
            a.status.as_str(),
            t(&a.label),
            t(&a.transport_label)
        )?;
        for why in reasons(a) {
            writeln!(out, "        {}", t(&why))?;
        }
    }
    writeln!(
        out,
        "\nComparison (proven arms only; best of N by lowest wall meanFrameMs; figures over its tail; Δ = arm − baseline, ms):"
    )?;
    writeln!(
        out,
        "  {:<40} {:>5} {:>10} {:>24} {:>9} {:>9} {:>9} {:>9} {:>9}",
        "arm",
        "n",
        "tail mean",
        "spread of means",
        "Δ mean",
        "cpu p50",
        "Δ p50",
        "cpu p99",
        "Δ p99"
    )?;
    for a in r.proven() {
        let best = a.best_repeat();
        let cpu: Option<SeriesStats> = best.and_then(|b| b.cpu);
        let d = a.delta;
        writeln!(
            out,
            "  {:<40} {:>5} {:>10} {:>24} {:>9} {:>9} {:>9} {:>9} {:>9}",
            t(&a.label),
            a.repeats.len(),
            ms(best.and_then(|b| b.wall.map(|w| w.mean))),
            spread_text(a),
            if Some(a.label.as_str()) == baseline_label(r) {
                "base".into()
            } else {
                signed(d.and_then(|d| d.wall_mean_ms))
            },
            ms(cpu.map(|c| c.median)),
            signed(d.and_then(|d| d.cpu_p50_ms)),
            ms(cpu.map(|c| c.p99)),
            signed(d.and_then(|d| d.cpu_p99_ms)),
        )?;
    }
    writeln!(
        out,
        "\nCounters (proven arms; run totals from each role's terminal `MGPipe stats:` line, the log named):"
    )?;
    for a in r.proven() {
        writeln!(out, "  {} [{}]", t(&a.label), t(&a.transport_label))?;
        writeln!(out, "    {:<10} {}", "frames", t(&sourced_text(&a.frames)))?;
        if let Some(n) = &a.frames_note {
            writeln!(out, "    {:<10} {}", "", t(n))?;
        }
        for (name, v) in &a.waits {
            let rate = rate_of(a, &format!("{name}/frame"))
                .map(|r| format!("  {name}/frame {}", rate_text(r)))
                .unwrap_or_default();
            writeln!(out, "    {:<10} {}{rate}", name, t(&sourced_text(v)))?;
        }
        for (name, v) in &a.gauges {
            writeln!(out, "    {:<10} {}", name, t(&sourced_text(v)))?;
        }
    }
    totals_text(r, out)?;
    writeln!(out, "method: {METHOD}")?;
    if !r.diags.is_empty() {
        writeln!(out, "\nFindings:")?;
        for d in &r.diags {
            let at = d
                .location
                .as_ref()
                .map(|l| format!("{l}: "))
                .unwrap_or_default();
            writeln!(
                out,
                "  {} {} {}{}",
                d.severity,
                d.code.as_str(),
                t(&at),
                t(&d.message)
            )?;
        }
    }
    Ok(())
}

fn stats_json(s: &Option<SeriesStats>) -> Json {
    s.map_or(Json::Null, |s| json!(s))
}

fn sourced_json(s: &Option<Sourced>) -> Json {
    s.as_ref().map_or(Json::Null, |s| json!(s))
}

/// The merged dump keys shown, each with its short name (make_report.py's columns).
const TOTALS: [(&str, &str); 13] = [
    ("srv", "wire.server-waits"),
    ("srvpark", "wire.server-parks"),
    ("cli", "wire.client-waits"),
    ("clipark", "wire.client-parks"),
    ("stage seg B", "bytes.stage-segment-bytes"),
    ("stage buf B", "bytes.stage-buffer"),
    ("stage tex B", "bytes.stage-texture"),
    ("pmap push B", "bytes.persistent-map-push"),
    ("wire-records", "calls.wire-records"),
    ("draws", "calls.draws"),
    ("maxrec", "wire.max-record-bytes"),
    ("maxcap", "wire.max-record-bytes-cap"),
    ("ringwraps", "wire.ring-wraps"),
];

/// Run totals of the proven arms that have PipeStats dumps or a LinkMetrics file.
fn totals_text(r: &SessionReport, out: &mut dyn Write) -> io::Result<()> {
    let t = |s: &str| diag::escape::terminal(s).into_owned();
    let with: Vec<&ArmReport> = r
        .proven()
        .filter(|a| a.totals.is_some() || a.link.is_some())
        .collect();
    if with.is_empty() {
        return Ok(());
    }
    writeln!(
        out,
        "\nRun totals (PipeStats dumps merged: counters summed, max- gauges the larger side, frames the counting side; LinkMetrics kind=frame lines, each frame once):"
    )?;
    for a in with {
        writeln!(out, "  {} [{}]", t(&a.label), t(&a.transport_label))?;
        if let Some(x) = &a.totals {
            writeln!(
                out,
                "    {:<13} {}  (from {})",
                "frames",
                x.frames,
                t(&x.sources.join(" + "))
            )?;
            let cells: Vec<String> = TOTALS
                .iter()
                .map(|(short, key)| format!("{short}={}", x.get(key)))
                .collect();
            writeln!(out, "    {}", cells.join("  "))?;
        }
        if let Some(l) = &a.link {
            writeln!(
                out,
                "    LinkMetrics   frames={} wait_replies={} stage_bytes={} transport_wait={:.1} ms  ({}{})",
                l.frames,
                l.wait_replies,
                l.stage_bytes,
                l.transport_wait_ns as f64 / 1e6,
                t(&l.shown),
                if l.duplicates + l.unreadable > 0 {
                    format!("; {} repeated frame id(s), {} without an id, not summed", l.duplicates, l.unreadable)
                } else {
                    String::new()
                }
            )?;
        }
    }
    Ok(())
}

fn totals_json(a: &ArmReport) -> Json {
    json!({
        "pipestats": a.totals.as_ref().map(|x| json!({
            "frames": x.frames,
            "sources": x.sources,
            "values": x.values,
        })),
        "link_metrics": a.link.as_ref().map(|l| json!({
            "file": l.shown,
            "frames": l.frames,
            "wait_replies": l.wait_replies,
            "stage_bytes": l.stage_bytes,
            "transport_wait_ns": l.transport_wait_ns,
            "duplicate_frames": l.duplicates,
            "unreadable_lines": l.unreadable,
        })),
    })
}

fn arm_json(r: &SessionReport, a: &ArmReport) -> Json {
    let waits: serde_json::Map<String, Json> = a
        .waits
        .iter()
        .map(|(n, v)| ((*n).to_string(), sourced_json(v)))
        .collect();
    let gauges: serde_json::Map<String, Json> = a
        .gauges
        .iter()
        .map(|(n, v)| ((*n).to_string(), sourced_json(v)))
        .collect();
    let rates: serde_json::Map<String, Json> = a
        .rates
        .iter()
        .map(|(n, v)| {
            let j = match v {
                Ok(x) => json!({ "value": x }),
                Err(e) => json!({ "value": null, "error": e }),
            };
            (n.clone(), j)
        })
        .collect();
    json!({
        "order": a.order,
        "label": a.label,
        "dir": a.dir,
        "case": a.case,
        "backend": a.backend,
        "transport": a.transport_label,
        "status": a.status.as_str(),
        "compared": a.status == Status::Proven,
        "baseline": Some(a.label.as_str()) == baseline_label(r),
        "reasons": a.diags.iter().map(diag_json).collect::<Vec<_>>(),
        "server_pid": a.server_pid,
        "frames": sourced_json(&a.frames),
        "frames_note": a.frames_note,
        "waits": waits,
        "gauges": gauges,
        "rates": rates,
        "run_totals": totals_json(a),
        "repeats": a.repeats.iter().map(|p| json!({
            "file": p.shown,
            "mean_frame_ms": p.mean_ms,
            "wall": stats_json(&p.wall),
            "cpu": stats_json(&p.cpu),
        })).collect::<Vec<_>>(),
        "best": a.best_repeat().map(|b| b.shown.clone()),
        "spread": a.spread,
        "delta": a.delta,
    })
}

fn diag_json(d: &diag::Diag<super::Code>) -> Json {
    json!({
        "code": d.code.as_str(),
        "severity": d.severity,
        "message": d.message,
        "location": d.location,
    })
}

/// The JSON report (`"schema": 1`, docs/json.md).
pub fn json(r: &SessionReport) -> Json {
    json!({
        "schema": 1,
        "command": "bench session",
        "dir": r.dir,
        "layout": r.layout,
        "session": r.label,
        "method": METHOD,
        "baseline": baseline_label(r),
        "pass": r.passed(),
        "arms": r.arms.iter().map(|a| arm_json(r, a)).collect::<Vec<_>>(),
        "findings": r.diags.iter().map(diag_json).collect::<Vec<_>>(),
    })
}

/// The Markdown report: one table of arms, one comparison, one counter table, the findings.
pub fn markdown(r: &SessionReport, out: &mut dyn Write) -> io::Result<()> {
    let c = |s: &str| markdown_cell(s);
    writeln!(
        out,
        "### bench session {} — {}: {}\n",
        c(r.label.as_deref().unwrap_or(&r.dir)),
        layout_name(r.layout),
        headline(r)
    )?;
    writeln!(
        out,
        "| # | arm | transport | status | why |\n|---:|---|---|---|---|"
    )?;
    for a in &r.arms {
        let why = reasons(a).join("; ");
        writeln!(
            out,
            "| {} | {} | {} | {} | {} |",
            a.order,
            c(&a.label),
            c(&a.transport_label),
            a.status.as_str(),
            if why.is_empty() { "-".into() } else { c(&why) }
        )?;
    }
    writeln!(
        out,
        "\nProven arms, best of N; Δ against **{}** (ms); {}.\n",
        c(baseline_label(r).unwrap_or("none")),
        c(METHOD)
    )?;
    writeln!(out, "| arm | n | tail mean | spread of means | Δ mean | cpu p50 | Δ p50 | cpu p99 | Δ p99 | frames (from) | srv/frame | cli/frame |")?;
    writeln!(
        out,
        "|---|---:|---:|---|---:|---:|---:|---:|---:|---|---:|---:|"
    )?;
    for a in r.proven() {
        let best = a.best_repeat();
        let cpu = best.and_then(|b| b.cpu);
        let d = a.delta;
        let frames = a.frames.as_ref().map_or_else(
            || "-".into(),
            |f| format!("{} ({} {}:{})", f.value, f.role, f.source, f.line),
        );
        let rate = |n: &str| rate_of(a, n).map_or_else(|| "-".into(), rate_text);
        writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            c(&a.label),
            a.repeats.len(),
            ms(best.and_then(|b| b.wall.map(|w| w.mean))),
            spread_text(a),
            if Some(a.label.as_str()) == baseline_label(r) {
                "base".into()
            } else {
                signed(d.and_then(|d| d.wall_mean_ms))
            },
            ms(cpu.map(|c| c.median)),
            signed(d.and_then(|d| d.cpu_p50_ms)),
            ms(cpu.map(|c| c.p99)),
            signed(d.and_then(|d| d.cpu_p99_ms)),
            c(&frames),
            rate("srv/frame"),
            rate("cli/frame"),
        )?;
    }
    writeln!(out, "\n| arm | srv | srvpark | cli | clipark | maxrec | ringwraps |\n|---|---|---|---|---|---|---|")?;
    for a in r.proven() {
        let cell = |v: &Option<Sourced>| {
            v.as_ref()
                .map_or_else(|| "-".into(), |s| c(&format!("{} ({})", s.value, s.role)))
        };
        let find = |list: &[(&str, Option<Sourced>)], n: &str| {
            list.iter()
                .find(|(k, _)| *k == n)
                .map_or_else(|| "-".into(), |(_, v)| cell(v))
        };
        writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} |",
            c(&a.label),
            find(&a.waits, "srv"),
            find(&a.waits, "srvpark"),
            find(&a.waits, "cli"),
            find(&a.waits, "clipark"),
            find(&a.gauges, "maxrec"),
            find(&a.gauges, "ringwraps"),
        )?;
    }
    let errors: Vec<_> = r.diags.iter().filter(|d| d.is_error()).collect();
    if !errors.is_empty() {
        writeln!(out)?;
        for d in errors {
            writeln!(out, "- **error {}** {}", d.code.as_str(), c(&d.message))?;
        }
    }
    Ok(())
}
