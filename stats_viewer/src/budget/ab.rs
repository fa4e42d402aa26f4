//! `mgctl bench ab RUNS_DIR`: a directory of paired runs reduced to MEASUREMENTS.md's table
//! (case | backend | finish | pull p50 | push p50 | Δ p50 | pull p99 | push p99 | Δ p99 | counters),
//! CPU frame times (`frameCpuTimesMs[]`) of each arm's best repeat, nearest-rank percentiles over
//! the tail, exactly as `bench frames` computes them. Cells where a budget fails are marked.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use serde_json::{json, Value as Json};

use super::inputs::{self, InputError, InputFile};
use super::{frames_value, num, BudgetConfig, Metric, RunArms, Stat};
use crate::bench_report::{RunGroup, Series, METHOD};
use crate::benchmark::{BenchmarkFile, SeriesStats};
use crate::session::Log;

/// Where the run and the arm sit in the directory tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Layout {
    /// `<case>-<backend>/<arm>/…` (the default).
    #[default]
    RunArm,
    /// `<arm>/<case>-<backend>/…`.
    ArmRun,
}

/// One arm of one run.
pub struct AbArm {
    pub name: String,
    pub group: RunGroup,
    pub log: Option<(String, Log)>,
}

/// One paired run directory.
pub struct AbRun {
    pub dir: String,
    pub arms: Vec<AbArm>,
}

/// A failed budget on one run: the budget, what it measured, which cell it marks.
#[derive(Debug, Clone, PartialEq)]
pub struct Mark {
    pub budget: String,
    /// `pull p50`, `Δ p99`, … (None: a statistic the table has no column for).
    pub column: Option<String>,
    pub text: String,
}

/// Per-arm figures of a row.
#[derive(Debug, Clone)]
pub struct ArmCell {
    pub repeats: usize,
    pub best_run: Option<String>,
    pub finish: Option<bool>,
    pub stats: Option<(usize, SeriesStats)>,
}

/// One table row.
#[derive(Debug, Clone)]
pub struct Row {
    pub dir: String,
    pub case: String,
    pub backend: String,
    pub pull: Option<ArmCell>,
    pub push: Option<ArmCell>,
    /// `(field, value)` of the push arm's last complete window (`csom`, `csob`).
    pub counters: Vec<(String, String)>,
    pub marks: Vec<Mark>,
}

/// Why RUNS_DIR cannot be read as paired runs; every variant names the path.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error(transparent)]
    Inputs(#[from] InputError),
    #[error("{}: expected <case>-<backend>/<arm>/ (or --layout arm-run), found files in {found:?}", .dir.display())]
    Layout { dir: PathBuf, found: String },
    /// A benchmark file or a log that does not parse.
    #[error(transparent)]
    Parse(#[from] crate::Error),
    #[error("{}: frameTimesMs is empty", .path.display())]
    NoFrames { path: PathBuf },
    #[error("{}: no benchmark*.json under <case>-<backend>/<arm>/", .dir.display())]
    NoRuns { dir: PathBuf },
}

/// Reads RUNS_DIR (errors name the path). Benchmark files are `benchmark*.json`; the arm's log
/// is the first `*.log` / `*logcat*.txt` in its directory.
pub fn load(dir: &Path, layout: Layout) -> Result<Vec<AbRun>, LoadError> {
    let globs = vec![
        "**/benchmark*.json".to_string(),
        "**/*.log".to_string(),
        "**/*logcat*.txt".to_string(),
    ];
    let files = inputs::read_matching(dir, &globs, "bench ab")?;
    let mut runs: Vec<AbRun> = Vec::new();
    let mut by_dir: Vec<(String, Vec<&InputFile>)> = Vec::new();
    for f in &files {
        let d = f.rel.rsplit_once('/').map_or("", |(d, _)| d).to_string();
        match by_dir.iter_mut().find(|(n, _)| *n == d) {
            Some((_, v)) => v.push(f),
            None => by_dir.push((d, vec![f])),
        }
    }
    for (d, fs) in by_dir {
        let parts: Vec<&str> = d.split('/').collect();
        let [a, b] = parts.as_slice() else {
            return Err(LoadError::Layout {
                dir: dir.to_path_buf(),
                found: d,
            });
        };
        let (run, arm) = match layout {
            Layout::RunArm => (*a, *b),
            Layout::ArmRun => (*b, *a),
        };
        let bench: Vec<&InputFile> = fs
            .iter()
            .copied()
            .filter(|f| f.rel.ends_with(".json"))
            .collect();
        let mut group = Vec::new();
        for f in super::arm_files(&bench) {
            let shown = dir.join(&f.rel);
            let b = BenchmarkFile::parse(&shown, &f.bytes)?;
            if b.wall.is_empty() {
                return Err(LoadError::NoFrames { path: shown });
            }
            group.push(b);
        }
        let log = match fs.iter().find(|f| !f.rel.ends_with(".json")) {
            Some(f) => {
                let shown = dir.join(&f.rel);
                Some((f.rel.clone(), Log::parse(&shown, &f.bytes)?))
            }
            None => None,
        };
        let entry = AbArm {
            name: arm.to_string(),
            group: RunGroup {
                label: d.clone(),
                runs: group,
                tail: None,
            },
            log,
        };
        match runs.iter_mut().find(|r| r.dir == run) {
            Some(r) => r.arms.push(entry),
            None => runs.push(AbRun {
                dir: run.to_string(),
                arms: vec![entry],
            }),
        }
    }
    if runs.is_empty() {
        return Err(LoadError::NoRuns {
            dir: dir.to_path_buf(),
        });
    }
    runs.sort_by(|a, b| a.dir.cmp(&b.dir));
    Ok(runs)
}

/// A device session (`bench session`'s P6 or matrix layout) as paired runs: each proven arm under
/// `<case>-<backend>`, named by its transport label (repeats of one transport in several folders
/// pooled, session order kept), with its client log for the counters cell. The arms left out
/// come back, each with its standing and first reason: a voided arm is never compared.
pub fn from_session(
    input: &crate::devsession::SessionInput,
    report: &crate::devsession::SessionReport,
) -> (Vec<AbRun>, Vec<String>) {
    let mut runs: Vec<AbRun> = Vec::new();
    let mut left_out = Vec::new();
    for arm in &input.arms {
        let Some(r) = report.arms.iter().find(|r| r.label == arm.label) else {
            continue;
        };
        if r.status != crate::devsession::Status::Proven {
            let why = r.diags.first().map_or("", |d| d.message.as_str());
            let why = why
                .strip_prefix(&format!("arm {}: ", r.label))
                .unwrap_or(why);
            left_out.push(format!(
                "{} {}: {}",
                diag::escape::line(&r.label),
                r.status.as_str(),
                diag::escape::line(why)
            ));
            continue;
        }
        let dir = format!("{}-{}", arm.case, arm.backend);
        let run = match runs.iter().position(|x| x.dir == dir) {
            Some(i) => &mut runs[i],
            None => {
                runs.push(AbRun {
                    dir: dir.clone(),
                    arms: Vec::new(),
                });
                let last = runs.len() - 1;
                &mut runs[last]
            }
        };
        let files = arm.runs.iter().map(|b| b.file.clone());
        match run.arms.iter_mut().find(|a| a.name == arm.transport_label) {
            Some(a) => a.group.runs.extend(files),
            None => run.arms.push(AbArm {
                name: arm.transport_label.clone(),
                group: RunGroup {
                    label: arm.label.clone(),
                    runs: files.collect(),
                    tail: None,
                },
                log: arm
                    .client
                    .as_ref()
                    .map(|c| (c.shown.clone(), c.log.clone())),
            }),
        }
    }
    (runs, left_out)
}

fn cell(arm: Option<&AbArm>) -> Option<ArmCell> {
    let a = arm?;
    let best = a.group.best();
    Some(ArmCell {
        repeats: a.group.runs.len(),
        best_run: best.map(|b| {
            crate::benchmark::run_number(&a.group.runs[b].path)
                .map_or_else(|| (b + 1).to_string(), |n| n.to_string())
        }),
        finish: best.and_then(|b| a.group.runs[b].finish),
        stats: best
            .and_then(|b| a.group.stats(b, Series::Cpu))
            .map(|(t, _, s)| (t, s)),
    })
}

fn column(b: &BudgetConfig, stat: Stat, delta: Option<bool>, pull: &str) -> Option<String> {
    if !matches!(stat, Stat::P50 | Stat::P99) {
        return None;
    }
    Some(match delta {
        Some(_) => format!("Δ {}", stat.as_str()),
        None if b.arm.as_deref() == Some(pull) => format!("pull {}", stat.as_str()),
        None => format!("push {}", stat.as_str()),
    })
}

/// The rows of the table; `budgets` with a benchmark metric mark the cells they fail.
pub fn rows(runs: &[AbRun], pull: &str, push: &str, budgets: &[BudgetConfig]) -> Vec<Row> {
    let mut out = Vec::new();
    for r in runs {
        let find = |n: &str| r.arms.iter().find(|a| a.name == n);
        let first = find(pull)
            .or_else(|| find(push))
            .and_then(|a| a.group.best().map(|b| &a.group.runs[b]));
        let (case, backend) = match r.dir.rsplit_once('-') {
            Some((c, b)) => (c.to_string(), b.to_string()),
            None => (r.dir.clone(), "?".into()),
        };
        let backend = first.and_then(|f| f.backend.clone()).unwrap_or(backend);
        let mut counters = Vec::new();
        if let Some((_, log)) = find(push).and_then(|a| a.log.as_ref()) {
            if let Some(w) = log.reported_session().and_then(|s| s.last_complete()) {
                for k in ["csom", "csob"] {
                    if let Ok(v) = crate::counters::window_value(&w.item, k) {
                        counters.push((k.to_string(), num(v)));
                    }
                }
            }
        }
        let arms = RunArms {
            label: r.dir.clone(),
            arms: r
                .arms
                .iter()
                .map(|a| (a.name.clone(), a.group.clone()))
                .collect(),
        };
        let mut marks = Vec::new();
        for b in budgets {
            let Ok(Metric::Frames { stat, delta }) = Metric::parse(&b.metric) else {
                continue;
            };
            if b.run.as_deref().is_some_and(|x| x != r.dir) || (delta.is_none() && b.arm.is_none())
            {
                continue;
            }
            let Ok(v) = frames_value(b, stat, delta, &arms) else {
                continue;
            };
            let over = b.max.is_some_and(|m| v > m);
            let under = b.min.is_some_and(|m| v < m);
            if over || under {
                let bound = if over {
                    format!("> max {}", num(b.max.unwrap_or_default()))
                } else {
                    format!("< min {}", num(b.min.unwrap_or_default()))
                };
                marks.push(Mark {
                    budget: b.name().to_string(),
                    column: column(b, stat, delta, pull),
                    text: format!(
                        "budget {} fails on {}: {} = {} {} {bound} {} (why: {})",
                        b.name(),
                        r.dir,
                        b.metric,
                        num(v),
                        b.unit,
                        b.unit,
                        b.why
                    ),
                });
            }
        }
        out.push(Row {
            dir: r.dir.clone(),
            case: first.map_or(case, BenchmarkFile::case),
            backend,
            pull: cell(find(pull)),
            push: cell(find(push)),
            counters,
            marks,
        });
    }
    out
}

pub const HEADER: [&str; 11] = [
    "case",
    "backend",
    "finish",
    "pull p50",
    "push p50",
    "Δ p50",
    "pull p99",
    "push p99",
    "Δ p99",
    "counters",
    "n · repeats",
];

fn ms(v: f64) -> String {
    format!("{v:.3}")
}

/// No cell of the table fails a budget.
pub fn pass(rows: &[Row]) -> bool {
    rows.iter().all(|r| r.marks.is_empty())
}

/// The row's cells, in [`HEADER`] order, with `✗` where a budget fails.
pub fn cells(r: &Row) -> Vec<String> {
    let st = |c: &Option<ArmCell>, s: Stat| c.as_ref().and_then(|c| c.stats).map(|(_, x)| s.of(&x));
    let val = |v: Option<f64>| v.map_or_else(|| "—".into(), ms);
    let delta = |s: Stat| match (st(&r.pull, s), st(&r.push, s)) {
        (Some(a), Some(b)) => format!("{:+.3}", b - a),
        _ => "—".into(),
    };
    let finish = match (
        r.pull.as_ref().and_then(|c| c.finish),
        r.push.as_ref().and_then(|c| c.finish),
    ) {
        (Some(true), Some(true)) => "yes".to_string(),
        (Some(a), Some(b)) => format!("no (pull {a}, push {b})"),
        _ => "?".into(),
    };
    let counters = if r.counters.is_empty() {
        "—".to_string()
    } else {
        r.counters
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let arm = |c: &Option<ArmCell>| {
        c.as_ref().map_or_else(
            || "—".to_string(),
            |c| {
                format!(
                    "n={} best of {}{}",
                    c.stats.map_or(0, |s| s.0),
                    c.repeats,
                    c.best_run
                        .as_ref()
                        .map(|b| format!(" (run {b})"))
                        .unwrap_or_default()
                )
            },
        )
    };
    let mut v = vec![
        r.case.clone(),
        r.backend.clone(),
        finish,
        val(st(&r.pull, Stat::P50)),
        val(st(&r.push, Stat::P50)),
        delta(Stat::P50),
        val(st(&r.pull, Stat::P99)),
        val(st(&r.push, Stat::P99)),
        delta(Stat::P99),
        counters,
        format!("pull {}; push {}", arm(&r.pull), arm(&r.push)),
    ];
    for m in &r.marks {
        if let Some(i) = m
            .column
            .as_ref()
            .and_then(|c| HEADER.iter().position(|h| h == c))
        {
            if !v[i].ends_with('✗') {
                v[i].push_str(" ✗");
            }
        }
    }
    v
}

const PREAMBLE: &str = "CPU frame times (frameCpuTimesMs[]), ms; each arm's best repeat (lowest wall meanFrameMs, <= 0 counts as +inf, earliest on ties) over its tail (tailFrames); Δ = push − pull";

fn notes(rows: &[Row], markdown: bool, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "method: {METHOD}")?;
    for r in rows {
        for m in &r.marks {
            match markdown {
                true => writeln!(out, "✗ {}", diag::escape::markdown_cell(&m.text))?,
                false => writeln!(out, "✗ {}", m.text)?,
            }
        }
    }
    Ok(())
}

pub fn human(runs_dir: &str, rows: &[Row], out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "A/B runs: {runs_dir}")?;
    writeln!(out, "{PREAMBLE}")?;
    let table: Vec<Vec<String>> = rows.iter().map(cells).collect();
    let mut w: Vec<usize> = HEADER.iter().map(|h| h.chars().count()).collect();
    for r in &table {
        for (i, c) in r.iter().enumerate() {
            w[i] = w[i].max(c.chars().count());
        }
    }
    let line = |cells: Vec<&str>| {
        cells
            .iter()
            .enumerate()
            .map(|(i, c)| format!("{c:<w$}", w = w[i]))
            .collect::<Vec<_>>()
            .join("  ")
            .trim_end()
            .to_string()
    };
    writeln!(out, "{}", line(HEADER.to_vec()))?;
    for r in &table {
        writeln!(out, "{}", line(r.iter().map(String::as_str).collect()))?;
    }
    notes(rows, false, out)
}

pub fn markdown(rows: &[Row], out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "{PREAMBLE}.")?;
    writeln!(out)?;
    writeln!(out, "| {} |", HEADER.join(" | "))?;
    writeln!(out, "|---|---|---|---:|---:|---:|---:|---:|---:|---|---|")?;
    // Every cell through the one Markdown escaper (issue 29): a `tracePath` holding `|` forged
    // columns of the row.
    for r in rows {
        let cells: Vec<String> = cells(r)
            .iter()
            .map(|c| diag::escape::markdown_cell(c))
            .collect();
        writeln!(out, "| {} |", cells.join(" | "))?;
    }
    writeln!(out)?;
    notes(rows, true, out)
}

pub fn json(runs_dir: &str, rows: &[Row]) -> Json {
    let arm = |c: &Option<ArmCell>| {
        c.as_ref().map(|c| {
            json!({
                "repeats": c.repeats, "best_run": c.best_run, "benchmark_finish": c.finish,
                "n": c.stats.map(|s| s.0),
                "p50": c.stats.map(|s| s.1.median), "p99": c.stats.map(|s| s.1.p99),
            })
        })
    };
    let d = |r: &Row, s: Stat| {
        let g = |c: &Option<ArmCell>| c.as_ref().and_then(|c| c.stats).map(|x| s.of(&x.1));
        match (g(&r.pull), g(&r.push)) {
            (Some(a), Some(b)) => Some(b - a),
            _ => None,
        }
    };
    json!({
        "schema": 1,
        "runs_dir": runs_dir,
        "series": "cpu",
        "best_of": "lowest wall meanFrameMs (<= 0 counts as +inf), earliest on ties",
        "method": METHOD,
        "rows": rows.iter().map(|r| json!({
            "dir": r.dir, "case": r.case, "backend": r.backend,
            "pull": arm(&r.pull), "push": arm(&r.push),
            "delta": {"p50": d(r, Stat::P50), "p99": d(r, Stat::P99)},
            "counters": r.counters.iter().map(|(k, v)| (k.clone(), Json::String(v.clone()))).collect::<serde_json::Map<_, _>>(),
            "budget_failures": r.marks.iter().map(|m| json!({"budget": m.budget, "column": m.column, "message": m.text})).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
    })
}
