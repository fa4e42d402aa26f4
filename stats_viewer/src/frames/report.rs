//! [`Frames`] as text, Markdown and JSON. Every number is printed as Python's `repr` prints the
//! float, so the text shows the same digits as `frame_stats.py`'s JSON.

use std::io::{self, Write};

use serde_json::{json, Map, Value};

use super::model::{Column, RoleLog, Side, DEFINITION};
use super::Frames;
use diag::escape;

/// Python's `repr(float)`: the shortest digits that read back to the same double, fixed notation
/// for decimal exponents -4..15 (`18.333333333333332`, `4.0`, `0.0001`), else `1e-05`, `1e+16`.
pub fn py_repr(x: f64) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf" } else { "-inf" }.into();
    }
    if x == 0.0 {
        return if x.is_sign_negative() { "-0.0" } else { "0.0" }.into();
    }
    let sci = format!("{:e}", x.abs());
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let sign = if x < 0.0 { "-" } else { "" };
    let point = exp + 1; // digits d1d2… mean 0.d1d2… × 10^point
    let n = digits.len() as i32;
    let body = if (-3..=16).contains(&point) {
        if point <= 0 {
            format!("0.{}{digits}", "0".repeat(point.unsigned_abs() as usize))
        } else if point >= n {
            format!("{digits}{}.0", "0".repeat((point - n) as usize))
        } else {
            let (a, b) = digits.split_at(point as usize);
            format!("{a}.{b}")
        }
    } else {
        let (first, rest) = digits.split_at(1);
        let frac = if rest.is_empty() {
            String::new()
        } else {
            format!(".{rest}")
        };
        let esign = if exp < 0 { '-' } else { '+' };
        format!("{first}{frac}e{esign}{:02}", exp.unsigned_abs())
    };
    format!("{sign}{body}")
}

/// What a reader should know about an input that is not an error (invalid UTF-8 replaced), one
/// line each, for stderr.
pub fn warnings(f: &Frames) -> Vec<String> {
    [&f.client, &f.server]
        .into_iter()
        .filter_map(|l| {
            let b = &l.bad_bytes;
            b.first_line.map(|first| {
                format!(
                    "{}:{first}: {} invalid UTF-8 sequences on {} lines, each read as U+FFFD (as frame_stats.py reads them)",
                    escape::terminal(&l.path.display().to_string()),
                    b.sequences,
                    b.lines
                )
            })
        })
        .collect()
}

fn input_line(l: &RoleLog) -> String {
    let skipped = match l.side {
        Side::Client => "kind is not frame",
        Side::Server => "valid is not 1",
    };
    let mut s = format!(
        "{}: {} bytes, {} lines, {} {} lines, {} frame rows, {} skipped ({skipped})",
        escape::terminal(&l.path.display().to_string()),
        l.bytes,
        l.lines,
        l.marker_lines,
        l.side.marker_name(),
        l.frames.len(),
        l.skipped.rows,
    );
    if let Some(first) = l.bad_bytes.first_line {
        s.push_str(&format!(
            ", {} invalid UTF-8 sequences (first on line {first})",
            l.bad_bytes.sequences
        ));
    }
    s
}

fn selection_text(f: &Frames) -> String {
    let s = &f.stats;
    let tail = match s.selection.tail {
        Some(t) if t > 0 => format!("the last {t}"),
        _ => "all".into(),
    };
    format!(
        "frames {}..{}: {} paired (warmup: ids <= {} left out; tail: {tail})",
        s.first_frame,
        s.last_frame,
        s.frames(),
        s.selection.warmup
    )
}

fn share_sum(f: &Frames) -> f64 {
    f.stats.shares.iter().sum()
}

/// The human report.
pub fn text(f: &Frames, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "client  {}", input_line(&f.client))?;
    writeln!(out, "server  {}", input_line(&f.server))?;
    writeln!(out, "{}", selection_text(f))?;
    writeln!(out)?;
    let header = [
        "metric",
        "avg ms",
        "p50 ms",
        "p99 ms",
        "share % of client present",
    ];
    let mut rows = vec![header.map(String::from)];
    for c in Column::ALL {
        let d = f.stats.stat(c);
        rows.push([
            c.key().to_string(),
            py_repr(d.avg),
            py_repr(d.p50),
            py_repr(d.p99),
            f.stats.share(c).map(py_repr).unwrap_or_default(),
        ]);
    }
    let widths: Vec<usize> = (0..5)
        .map(|i| rows.iter().map(|r| r[i].len()).max().unwrap_or(0))
        .collect();
    for r in &rows {
        let mut line = String::new();
        for (i, cell) in r.iter().enumerate() {
            if i == 0 {
                line.push_str(&format!("{cell:<w$}", w = widths[0]));
            } else {
                line.push_str(&format!("  {cell:>w$}", w = widths[i]));
            }
        }
        writeln!(out, "{}", line.trim_end())?;
    }
    writeln!(out)?;
    let sum = share_sum(f);
    writeln!(
        out,
        "shares sum to {} % of the client present time{}",
        py_repr(sum),
        if sum > 100.0 {
            " (above 100: role CPU and transport wait overlap)"
        } else {
            ""
        }
    )?;
    writeln!(out, "percentile: nearest rank; {DEFINITION}")
}

/// The Markdown report: one line naming the inputs and the selection, then one table.
pub fn markdown(f: &Frames, out: &mut dyn Write) -> io::Result<()> {
    writeln!(
        out,
        "**mgctl stats frames**: client {}, server {}; {}; nearest-rank percentiles",
        escape::markdown_code(&f.client.path.display().to_string()),
        escape::markdown_code(&f.server.path.display().to_string()),
        selection_text(f)
    )?;
    writeln!(out)?;
    writeln!(
        out,
        "| metric | avg ms | p50 ms | p99 ms | share % of client present |"
    )?;
    writeln!(out, "|---|---:|---:|---:|---:|")?;
    for c in Column::ALL {
        let d = f.stats.stat(c);
        writeln!(
            out,
            "| {} | {} | {} | {} | {} |",
            c.key(),
            py_repr(d.avg),
            py_repr(d.p50),
            py_repr(d.p99),
            f.stats.share(c).map(py_repr).unwrap_or_default()
        )?;
    }
    writeln!(out)?;
    writeln!(
        out,
        "Shares sum to {} %. {}.",
        py_repr(share_sum(f)),
        escape::markdown_cell(DEFINITION)
    )
}

fn input_json(l: &RoleLog) -> Value {
    json!({
        "path": l.path.display().to_string(),
        "role": l.side,
        "marker": l.side.marker_name(),
        "bytes": l.bytes,
        "lines": l.lines,
        "marker_lines": l.marker_lines,
        "frame_rows": l.frames.len(),
        "skipped_rows": l.skipped.rows,
        "bad_utf8": l.bad_bytes,
    })
}

/// The JSON report (`"schema": 1`): the script's keys with its values, plus the inputs and the
/// per-frame series (nanoseconds, exact, with each row's line) for a chart.
pub fn json(f: &Frames) -> Value {
    let s = &f.stats;
    let stats: Map<String, Value> = Column::ALL
        .iter()
        .map(|&c| (c.key().to_string(), json!(s.stat(c))))
        .collect();
    let shares: Map<String, Value> = Column::SHARED
        .iter()
        .filter_map(|&c| s.share(c).map(|v| (c.key().to_string(), json!(v))))
        .collect();
    let mut series = Map::new();
    series.insert("unit".into(), json!("ns"));
    series.insert(
        "frame".into(),
        json!(s.series.iter().map(|p| p.client.frame).collect::<Vec<_>>()),
    );
    series.insert(
        "client_line".into(),
        json!(s.series.iter().map(|p| p.client.line).collect::<Vec<_>>()),
    );
    series.insert(
        "server_line".into(),
        json!(s.series.iter().map(|p| p.server.line).collect::<Vec<_>>()),
    );
    for c in Column::ALL {
        series.insert(
            c.series_key().into(),
            json!(s.series.iter().map(|p| c.of(p)).collect::<Vec<_>>()),
        );
    }
    json!({
        "schema": 1,
        "inputs": {"client": input_json(&f.client), "server": input_json(&f.server)},
        "frames": s.frames(),
        "first_frame": s.first_frame,
        "last_frame": s.last_frame,
        "warmup_frames": s.selection.warmup,
        "tail_frames": s.selection.tail,
        "definition": DEFINITION,
        "percentile": "nearest rank",
        "unit": "ms",
        "stats": stats,
        "share_percent_of_client_present": shares,
        "share_sum_percent": share_sum(f),
        "series": series,
    })
}

#[cfg(test)]
mod tests {
    use super::py_repr;

    #[test]
    fn floats_print_as_python_repr() {
        for (x, want) in [
            (5.5, "5.5"),
            (4.0, "4.0"),
            (18.333333333333332, "18.333333333333332"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (1e15, "1000000000000000.0"),
            (1e16, "1e+16"),
            (1.5e16, "1.5e+16"),
            (123456.789, "123456.789"),
            (-2.5, "-2.5"),
            (0.0, "0.0"),
            (1e-100, "1e-100"),
            (0.1 + 0.2, "0.30000000000000004"),
        ] {
            assert_eq!(py_repr(x), want, "{x:e}");
        }
    }
}
