//! Renderers for `bench frames` (benchmark.json) and `bench driver` (DriverBench) results.

use std::fmt::Write as _;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use serde_json::{json, Value as Json};

use crate::benchmark::{best_of, run_number, BenchmarkFile, SeriesStats};
use crate::driverbench::{arm_name, BenchOutput, CaseStats};
use crate::error::Error;

/// Which frame-time series a report is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Series {
    Wall,
    Cpu,
}

impl Series {
    pub fn name(self) -> &'static str {
        match self {
            Series::Wall => "wall",
            Series::Cpu => "cpu",
        }
    }

    pub fn values(self, f: &BenchmarkFile) -> &[f64] {
        match self {
            Series::Wall => &f.wall,
            Series::Cpu => &f.cpu,
        }
    }
}

pub const METHOD: &str = "nearest rank: pNN = the ceil(NN/100 · n)-th smallest frame (min rank 1), always an observed frame; median/p50 = middle value, mean of the two middles for even n; mean = sequential sum / n";

/// One repeat group (a result directory or a list of files): its runs in run order.
#[derive(Debug, Clone)]
pub struct RunGroup {
    pub label: String,
    pub runs: Vec<BenchmarkFile>,
    /// `--tail` override (None: each file's `tailFrames`, the runner's rule).
    pub tail: Option<usize>,
}

impl RunGroup {
    pub fn best(&self) -> Option<usize> {
        best_of(&self.runs)
    }

    fn run_label(&self, i: usize) -> String {
        run_number(&self.runs[i].path).map_or_else(|| (i + 1).to_string(), |n| n.to_string())
    }

    /// Stats of a series over the tail of one run; `None` when the series is empty.
    pub fn stats(&self, i: usize, s: Series) -> Option<(usize, usize, SeriesStats)> {
        let f = &self.runs[i];
        let v = s.values(f);
        let t = f.tail_for(v.len(), self.tail);
        SeriesStats::of(&v[v.len() - t..]).map(|st| (t, v.len(), st))
    }

    /// The runner's lines: one per repeat, then `best of N (run k)`.
    pub fn runner_lines(&self) -> Vec<String> {
        let n = self.runs.len();
        let mut out = Vec::new();
        for (i, f) in self.runs.iter().enumerate() {
            out.push(format!(
                "{} / {} run {}/{n}: {}",
                f.case(),
                f.backend.as_deref().unwrap_or("?"),
                self.run_label(i),
                f.runner_line()
            ));
        }
        if let Some(b) = self.best() {
            let f = &self.runs[b];
            out.push(format!(
                "{} / {} best of {n} (run {}): {}",
                f.case(),
                f.backend.as_deref().unwrap_or("?"),
                self.run_label(b),
                f.runner_line()
            ));
        }
        out
    }
}

fn ms(v: f64) -> String {
    format!("{v:.3}")
}

fn device_check(f: &BenchmarkFile, s: Series, st: &SeriesStats) -> Option<String> {
    let (mean, median, p95) = match s {
        Series::Wall => (f.mean_frame_ms, f.median_frame_ms, f.p95_frame_ms),
        Series::Cpu => (f.mean_cpu_ms, f.median_cpu_ms, f.p95_cpu_ms),
    };
    let mut bad = Vec::new();
    for (name, dev, host) in [
        ("mean", mean, st.mean),
        ("median", median, st.median),
        ("p95", p95, st.p95),
    ] {
        if let Some(d) = dev {
            // The arrays are printed to 3 decimals, so a recomputation may differ in the last digit.
            if (d - host).abs() > 0.0015 {
                bad.push(format!("{name} device {d:.3} vs host {host:.3}"));
            }
        }
    }
    (!bad.is_empty()).then(|| bad.join(", "))
}

/// `bench frames` human output for one group.
pub fn frames_text(g: &RunGroup, series: &[Series], out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "== {}", g.label)?;
    for l in g.runner_lines() {
        writeln!(out, "{l}")?;
    }
    writeln!(out, "method: {METHOD}")?;
    let mut rows: Vec<[String; 11]> = Vec::new();
    let mut notes = Vec::new();
    for i in 0..g.runs.len() {
        for &s in series {
            let name = g.runs[i]
                .path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            match g.stats(i, s) {
                Some((t, len, st)) => {
                    if let Some(n) = device_check(&g.runs[i], s, &st) {
                        notes.push(format!(
                            "run {} {}: device summary disagrees with the arrays: {n}",
                            g.run_label(i),
                            s.name()
                        ));
                    }
                    rows.push([
                        g.run_label(i),
                        name,
                        s.name().into(),
                        format!("{t} of {len}"),
                        ms(st.mean),
                        ms(st.median),
                        ms(st.p95),
                        ms(st.p99),
                        ms(st.min),
                        ms(st.max),
                        if st.mean > 0.0 {
                            format!("{:.3}", 1000.0 / st.mean)
                        } else {
                            "-".into()
                        },
                    ]);
                }
                None => notes.push(format!(
                    "run {} {}: {} (empty array)",
                    g.run_label(i),
                    s.name(),
                    if s == Series::Cpu {
                        "cpu unavailable: no per-thread CPU clock in this run"
                    } else {
                        "no frames"
                    }
                )),
            }
        }
    }
    let header = [
        "run", "file", "series", "n (tail)", "mean", "median", "p95", "p99", "min", "max", "fps",
    ];
    let mut w: Vec<usize> = header.iter().map(|h| h.len()).collect();
    for r in &rows {
        for (i, c) in r.iter().enumerate() {
            w[i] = w[i].max(c.chars().count());
        }
    }
    let fmt = |cells: &[&str]| -> String {
        cells
            .iter()
            .enumerate()
            .map(|(i, c)| {
                if i < 4 {
                    format!("{c:<w$}", w = w[i])
                } else {
                    format!("{c:>w$}", w = w[i])
                }
            })
            .collect::<Vec<_>>()
            .join("  ")
    };
    writeln!(out, "{}", fmt(&header))?;
    for r in &rows {
        writeln!(
            out,
            "{}",
            fmt(&r.iter().map(String::as_str).collect::<Vec<_>>())
        )?;
    }
    for n in notes {
        writeln!(out, "note: {n}")?;
    }
    if let Some(b) = g.best() {
        let f = &g.runs[b];
        write!(
            out,
            "best of {}: run {} (lowest wall meanFrameMs {})",
            g.runs.len(),
            g.run_label(b),
            f.mean_frame_ms.map_or_else(|| "-1.000".into(), ms)
        )?;
        for &s in series {
            match g.stats(b, s) {
                Some((t, _, st)) => write!(
                    out,
                    "; {} p50 {} ms, p99 {} ms (n={t}, nearest rank)",
                    s.name(),
                    ms(st.median),
                    ms(st.p99)
                )?,
                None => write!(out, "; {} unavailable", s.name())?,
            }
        }
        writeln!(out)?;
        for &s in series {
            if let Some((t, _, st)) = g.stats(b, s) {
                if t < 100 {
                    writeln!(out, "note: {} p99 with n={t} is {} (rank {} of {t}): too few frames for a stable p99", s.name(), ms(st.p99), crate::benchmark::nearest_rank(99, t))?;
                }
            }
        }
    }
    Ok(())
}

fn stats_json(st: Option<(usize, usize, SeriesStats)>) -> Json {
    match st {
        Some((t, len, s)) => json!({
            "n": t, "series_length": len, "mean": s.mean, "median": s.median, "p50": s.median, "p95": s.p95, "p99": s.p99,
            "min": s.min, "max": s.max, "fps": if s.mean > 0.0 { Some(1000.0 / s.mean) } else { None },
        }),
        None => Json::Null,
    }
}

pub fn group_json(g: &RunGroup) -> Json {
    let best = g.best();
    json!({
        "label": g.label,
        "runs": (0..g.runs.len()).map(|i| {
            let f = &g.runs[i];
            json!({
                "path": f.path.display().to_string(), "run": g.run_label(i), "case": f.case(), "backend": f.backend,
                "benchmark_finish": f.finish, "total_frames": f.total_frames, "tail_frames": f.tail_frames,
                "device": {"mean_frame_ms": f.mean_frame_ms, "median_frame_ms": f.median_frame_ms, "p95_frame_ms": f.p95_frame_ms, "fps": f.fps,
                           "mean_cpu_ms": f.mean_cpu_ms, "median_cpu_ms": f.median_cpu_ms, "p95_cpu_ms": f.p95_cpu_ms},
                "wall": stats_json(g.stats(i, Series::Wall)),
                "cpu": stats_json(g.stats(i, Series::Cpu)),
                "runner_line": f.runner_line(),
            })
        }).collect::<Vec<_>>(),
        "best": best.map(|b| json!({"index": b, "run": g.run_label(b), "rule": "lowest wall meanFrameMs (<= 0 counts as +inf), earliest on ties"})),
        "runner_lines": g.runner_lines(),
    })
}

/// `bench frames --compare A B`: best repeat of each arm, Δ of mean/p50/p95/p99.
pub fn compare_text(
    a: &RunGroup,
    b: &RunGroup,
    series: &[Series],
    out: &mut dyn Write,
) -> io::Result<()> {
    let (Some(ba), Some(bb)) = (a.best(), b.best()) else {
        return writeln!(out, "compare: an arm has no runs");
    };
    writeln!(
        out,
        "A: {} (best of {}: run {})",
        a.label,
        a.runs.len(),
        a.run_label(ba)
    )?;
    writeln!(
        out,
        "B: {} (best of {}: run {})",
        b.label,
        b.runs.len(),
        b.run_label(bb)
    )?;
    for &s in series {
        match (a.stats(ba, s), b.stats(bb, s)) {
            (Some((ta, _, x)), Some((tb, _, y))) => {
                let unit = crate::unit::TimeUnit::for_ms([x.mean, x.p99, y.mean, y.p99]);
                writeln!(
                    out,
                    "{} frame times, {} (A n={ta}, B n={tb}; nearest rank):",
                    s.name(),
                    unit.name
                )?;
                writeln!(
                    out,
                    "  {:<6}  {:>9}  {:>9}  {:>9}  {:>8}",
                    "stat", "A", "B", "Δ (B−A)", "Δ %"
                )?;
                for (name, va, vb) in [
                    ("mean", x.mean, y.mean),
                    ("p50", x.median, y.median),
                    ("p95", x.p95, y.p95),
                    ("p99", x.p99, y.p99),
                ] {
                    let pct = if va != 0.0 {
                        format!("{:+.2} %", 100.0 * (vb - va) / va)
                    } else {
                        "—".into()
                    };
                    writeln!(
                        out,
                        "  {name:<6}  {:>9}  {:>9}  {:>9}  {pct:>8}",
                        unit.show(va),
                        unit.show(vb),
                        unit.show_delta(vb - va)
                    )?;
                }
            }
            _ => writeln!(
                out,
                "{}: unavailable in at least one arm (empty array)",
                s.name()
            )?,
        }
    }
    Ok(())
}

pub fn compare_json(a: &RunGroup, b: &RunGroup) -> Json {
    let side = |g: &RunGroup| {
        let best = g.best();
        json!({
            "label": g.label, "best_run": best.map(|i| g.run_label(i)),
            "wall": best.map_or(Json::Null, |i| stats_json(g.stats(i, Series::Wall))),
            "cpu": best.map_or(Json::Null, |i| stats_json(g.stats(i, Series::Cpu))),
        })
    };
    let delta = |s: Series| -> Json {
        match (
            a.best().and_then(|i| a.stats(i, s)),
            b.best().and_then(|i| b.stats(i, s)),
        ) {
            (Some((_, _, x)), Some((_, _, y))) => {
                json!({"mean": y.mean - x.mean, "p50": y.median - x.median, "p95": y.p95 - x.p95, "p99": y.p99 - x.p99})
            }
            _ => Json::Null,
        }
    };
    json!({"a": side(a), "b": side(b), "delta": {"wall": delta(Series::Wall), "cpu": delta(Series::Cpu)}})
}

/// One DriverBench arm.
#[derive(Debug, Clone)]
pub struct Arm {
    pub name: String,
    pub output: BenchOutput,
}

/// The T1/T2 columns available for a set of arms.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decomposition {
    pub pull: usize,
    pub push: usize,
    /// The arm measured with `MOBILEGL_PIPE_PUSH=0x7f` (name ends in `push7f`, else `push0`).
    pub push0: Option<usize>,
}

pub fn decomposition(arms: &[Arm]) -> Option<Decomposition> {
    let find = |suffix: &str| {
        arms.iter()
            .position(|a| a.name == suffix || a.name.ends_with(&format!("-{suffix}")))
    };
    Some(Decomposition {
        pull: find("pull")?,
        push: find("push")?,
        push0: find("push7f").or_else(|| find("push0")),
    })
}

fn cell(out: &mut String, c: Option<&CaseStats>) {
    match c {
        Some(c) => {
            let _ = write!(out, "{:.1} (n={}, min {:.1})", c.median, c.n, c.min);
        }
        None => out.push('—'),
    }
}

fn delta_cell(out: &mut String, a: Option<&CaseStats>, b: Option<&CaseStats>) {
    match (a, b) {
        (Some(a), Some(b)) => {
            let d = b.median - a.median;
            let _ = write!(out, "{d:+.1} ns/op");
            if a.median != 0.0 {
                let _ = write!(out, " ({:+.2} %)", 100.0 * d / a.median);
            }
        }
        _ => out.push('—'),
    }
}

/// The DriverBench table. Every cell of every row lives in one buffer: 100,000 cases per arm
/// would otherwise be half a million small strings (issue 16: the 16x input cost 20x the time).
struct DriverTable {
    header: Vec<String>,
    text: String,
    /// End offset in `text` of each cell, row after row, `header.len()` cells a row.
    ends: Vec<usize>,
}

impl DriverTable {
    fn end_cell(&mut self) {
        self.ends.push(self.text.len());
    }

    fn rows(&self) -> impl Iterator<Item = impl Iterator<Item = &str>> {
        let cols = self.header.len().max(1);
        self.ends.chunks(cols).enumerate().map(move |(r, ends)| {
            let mut start = if r == 0 { 0 } else { self.ends[r * cols - 1] };
            ends.iter().map(move |&end| {
                let c = &self.text[start..end];
                start = end;
                c
            })
        })
    }
}

/// Header and one row per case (cases in first-seen order).
fn driver_table(arms: &[Arm]) -> DriverTable {
    let stats: Vec<Vec<CaseStats>> = arms.iter().map(|a| a.output.cases()).collect();
    // Cases in first-seen order, each arm's statistics in the case's row: one hash per case
    // and arm, linear in the cases.
    let mut cases: Vec<&str> = Vec::new();
    let mut row_of: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    let mut slots: Vec<Option<&CaseStats>> = Vec::new();
    for (arm, s) in stats.iter().enumerate() {
        for c in s {
            let row = *row_of.entry(c.case.as_str()).or_insert_with(|| {
                cases.push(c.case.as_str());
                slots.resize(cases.len() * arms.len(), None);
                cases.len() - 1
            });
            slots[row * arms.len() + arm] = Some(c);
        }
    }
    let get = |arm: usize, row: usize| slots[row * arms.len() + arm];
    let mut header = vec!["case".to_string()];
    header.extend(arms.iter().map(|a| a.name.clone()));
    let dec = decomposition(arms);
    match &dec {
        Some(d) => {
            header.push(format!(
                "T1 = {} − {}",
                arms[d.push].name, arms[d.pull].name
            ));
            if let Some(p0) = d.push0 {
                header.push(format!("T2 = {} − {}", arms[p0].name, arms[d.pull].name));
                header.push("T1 − T2".into());
            }
        }
        None if arms.len() == 2 => header.push(format!("{} − {}", arms[1].name, arms[0].name)),
        None => {}
    }
    let mut t = DriverTable {
        header,
        text: String::new(),
        ends: Vec::new(),
    };
    for (row, &name) in cases.iter().enumerate() {
        t.text.push_str(name);
        t.end_cell();
        for i in 0..arms.len() {
            cell(&mut t.text, get(i, row));
            t.end_cell();
        }
        match &dec {
            Some(d) => {
                delta_cell(&mut t.text, get(d.pull, row), get(d.push, row));
                t.end_cell();
                if let Some(p0) = d.push0 {
                    delta_cell(&mut t.text, get(d.pull, row), get(p0, row));
                    t.end_cell();
                    match (get(d.push, row), get(p0, row)) {
                        (Some(a), Some(b)) => {
                            let _ = write!(t.text, "{:+.1} ns/op", a.median - b.median);
                        }
                        _ => t.text.push('—'),
                    }
                    t.end_cell();
                }
            }
            None if arms.len() == 2 => {
                delta_cell(&mut t.text, get(0, row), get(1, row));
                t.end_cell();
            }
            None => {}
        }
    }
    t
}

pub fn driver_text(arms: &[Arm], markdown: bool, out: &mut dyn Write) -> io::Result<()> {
    if !markdown {
        for a in arms {
            writeln!(
                out,
                "arm {}: {} ({} rows under {} header(s), {} other line(s) skipped)",
                a.name,
                a.output.path.display(),
                a.output.rows.len(),
                a.output.headers,
                a.output.noise
            )?;
        }
        writeln!(out, "median ns_per_op over repeats (statistics.median: mean of the two middles for an even count), min and n in brackets")?;
        if decomposition(arms).is_some_and(|d| d.push0.is_none()) {
            writeln!(
                out,
                "T2 not shown: no push7f/push0 arm (MOBILEGL_PIPE_PUSH=0x7f)"
            )?;
        }
    }
    let table = driver_table(arms);
    let header = &table.header;
    let mut line = String::new();
    if markdown {
        // Arm names and case names come from the input: each cell through the one escaper.
        let head: Vec<String> = header
            .iter()
            .map(|h| diag::escape::markdown_cell(h))
            .collect();
        writeln!(out, "| {} |", head.join(" | "))?;
        writeln!(out, "|{}", "---|".repeat(header.len()))?;
        for row in table.rows() {
            line.clear();
            for (i, c) in row.enumerate() {
                line.push_str(if i == 0 { "| " } else { " | " });
                // The case cell is the name as code: a code span sized to the name.
                if i == 0 {
                    line.push_str(&diag::escape::markdown_code(c));
                } else {
                    line.push_str(&diag::escape::markdown_cell(c));
                }
            }
            line.push_str(" |");
            writeln!(out, "{line}")?;
        }
        return Ok(());
    }
    let mut w: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in table.rows() {
        for (i, c) in row.enumerate() {
            w[i] = w[i].max(c.chars().count());
        }
    }
    // Cells padded to their column's width, two spaces apart, the line's end trimmed.
    let mut write_line = |cells: &mut dyn Iterator<Item = &str>| {
        line.clear();
        for (i, c) in cells.enumerate() {
            if i > 0 {
                line.push_str("  ");
            }
            line.push_str(c);
            line.extend(std::iter::repeat_n(
                ' ',
                w[i].saturating_sub(c.chars().count()),
            ));
        }
        writeln!(out, "{}", line.trim_end())
    };
    // Names come from the input: shown inert on a terminal.
    let header: Vec<String> = header
        .iter()
        .map(|h| diag::escape::terminal(h).into_owned())
        .collect();
    write_line(&mut header.iter().map(String::as_str))?;
    for row in table.rows() {
        let cells: Vec<String> = row
            .map(|c| diag::escape::terminal(c).into_owned())
            .collect();
        write_line(&mut cells.iter().map(String::as_str))?;
    }
    Ok(())
}

pub fn driver_json(arms: &[Arm]) -> Json {
    let dec = decomposition(arms);
    json!({
        "schema": 1,
        "aggregate": "median ns_per_op over repeats (mean of the two middles for an even count)",
        "arms": arms.iter().map(|a| json!({
            "name": a.name, "path": a.output.path.display().to_string(), "rows": a.output.rows.len(),
            "headers": a.output.headers, "skipped_lines": a.output.noise,
            "cases": a.output.cases(),
        })).collect::<Vec<_>>(),
        "decomposition": dec.map(|d| json!({
            "pull": arms[d.pull].name, "push": arms[d.push].name, "push0": d.push0.map(|i| arms[i].name.clone()),
        })),
    })
}

/// `bench frames --markdown`: the MEASUREMENTS.md row of each group's best repeat (the numbers an
/// A/B table publishes: CPU p50/p99 of the best of N, with the method and n).
pub fn frames_markdown(groups: &[RunGroup], out: &mut dyn Write) -> io::Result<()> {
    use diag::escape::markdown_cell;
    writeln!(out, "| arm | case / backend | best of N | wall mean ms | fps | cpu p50 ms | cpu p99 ms | n (tail) | method |")?;
    writeln!(out, "|---|---|---|---:|---:|---:|---:|---:|---|")?;
    for g in groups {
        let Some(b) = g.best() else { continue };
        let f = &g.runs[b];
        let wall = g.stats(b, Series::Wall);
        let cpu = g.stats(b, Series::Cpu);
        writeln!(
            out,
            "| {} | {} / {} | best of {} (run {}) | {} | {} | {} | {} | {} | nearest rank |",
            markdown_cell(&g.label),
            markdown_cell(&f.case()),
            markdown_cell(f.backend.as_deref().unwrap_or("?")),
            g.runs.len(),
            markdown_cell(&g.run_label(b)),
            f.mean_frame_ms.map_or_else(|| "-1.000".into(), ms),
            f.fps.map_or_else(|| "-1.0".into(), |v| format!("{v:.1}")),
            cpu.map_or_else(|| "unavailable".into(), |c| ms(c.2.median)),
            cpu.map_or_else(|| "unavailable".into(), |c| ms(c.2.p99)),
            cpu.or(wall).map_or(0, |c| c.0),
        )?;
    }
    Ok(())
}

impl RunGroup {
    /// The benchmark files of one input: a directory's `benchmark-run<i>.json` in run order (else
    /// its `benchmark.json`), or the file itself (`-` included).
    pub fn files(input: &Path) -> Result<Vec<PathBuf>, Error> {
        if input.as_os_str() == "-" || !input.is_dir() {
            return Ok(vec![input.to_path_buf()]);
        }
        let listed = std::fs::read_dir(input).map_err(|e| Error::Empty {
            path: input.to_path_buf(),
            reason: format!("cannot list: {e}"),
        })?;
        let mut runs: Vec<(u32, PathBuf)> = listed
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter_map(|p| run_number(&p).map(|n| (n, p)))
            .collect();
        runs.sort();
        if !runs.is_empty() {
            return Ok(runs.into_iter().map(|(_, p)| p).collect());
        }
        let single = input.join("benchmark.json");
        if single.is_file() {
            return Ok(vec![single]);
        }
        Err(Error::Empty {
            path: input.to_path_buf(),
            reason: "no benchmark-run<i>.json or benchmark.json in this directory".into(),
        })
    }

    /// The repeat group of `inputs` (files or result directories). `read` gives a file's bytes
    /// (the caller reads: `-` is stdin); `name` how a path is named in reports.
    pub fn load<E: From<Error>>(
        label: String,
        inputs: &[PathBuf],
        tail: Option<usize>,
        read: &dyn Fn(&Path) -> Result<Vec<u8>, E>,
        name: &dyn Fn(&Path) -> &Path,
    ) -> Result<RunGroup, E> {
        let mut runs = Vec::new();
        for i in inputs {
            for p in RunGroup::files(i)? {
                let f = BenchmarkFile::parse(name(&p), &read(&p)?)?;
                if f.wall.is_empty() {
                    return Err(Error::Empty {
                        path: p,
                        reason: "frameTimesMs is empty: no frame was timed, nothing to summarise"
                            .into(),
                    }
                    .into());
                }
                runs.push(f);
            }
        }
        Ok(RunGroup { label, runs, tail })
    }
}

/// `bench frames --format json`. Fields in alphabetical order, the order the output has always
/// had (serde_json objects sort their keys).
#[derive(Debug, serde::Serialize)]
pub struct FramesJson {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compare: Option<Json>,
    pub groups: Vec<Json>,
    pub method: &'static str,
    pub schema: u32,
}

/// One group, or two compared (A then B).
pub fn frames_json(groups: &[RunGroup]) -> FramesJson {
    FramesJson {
        compare: match groups {
            [a, b] => Some(compare_json(a, b)),
            _ => None,
        },
        groups: groups.iter().map(group_json).collect(),
        method: METHOD,
        schema: 1,
    }
}

/// `bench frames` as text: each group, then (two groups) their comparison.
pub fn frames_texts(groups: &[RunGroup], series: &[Series], out: &mut dyn Write) -> io::Result<()> {
    for (i, g) in groups.iter().enumerate() {
        if i > 0 {
            writeln!(out)?;
        }
        frames_text(g, series, out)?;
    }
    if let [a, b] = groups {
        writeln!(out)?;
        compare_text(a, b, series, out)?;
    }
    Ok(())
}

/// The tail of one series of a group's best run, with the percentiles the text prints.
#[derive(Debug, Clone, PartialEq)]
pub struct TailSeries {
    pub name: &'static str,
    pub values: Vec<f64>,
    pub p50: f64,
    pub p95: f64,
    pub p99: f64,
}

/// The best run of a group (for the HTML page): which one, and its tail per series.
#[derive(Debug, Clone, PartialEq)]
pub struct BestTail {
    pub label: String,
    pub chosen: String,
    pub series: Vec<TailSeries>,
}

/// The best run of each group that has one.
pub fn best_tails(groups: &[RunGroup], series: &[Series]) -> Vec<BestTail> {
    groups
        .iter()
        .filter_map(|g| {
            let best = g.best()?;
            let series = series
                .iter()
                .filter_map(|s| {
                    let (tail, _, st) = g.stats(best, *s)?;
                    let v = s.values(&g.runs[best]);
                    Some(TailSeries {
                        name: s.name(),
                        values: v[v.len() - tail..].to_vec(),
                        p50: st.median,
                        p95: st.p95,
                        p99: st.p99,
                    })
                })
                .collect();
            Some(BestTail {
                label: g.label.clone(),
                chosen: format!("best of {} ({})", g.runs.len(), g.runs[best].path.display()),
                series,
            })
        })
        .collect()
}

impl Arm {
    /// How `bench driver` names an input: `NAME=PATH` (unless a file is named so), `-` (stdin),
    /// else after the file (`driverbench-A-espryt-pull.csv` -> `espryt-pull`).
    pub fn spec(spec: &str) -> (String, PathBuf) {
        match spec.split_once('=') {
            Some((n, p)) if !n.is_empty() && !Path::new(spec).exists() => {
                (n.to_string(), PathBuf::from(p))
            }
            _ if spec == "-" => ("stdin".to_string(), PathBuf::from(spec)),
            _ => (arm_name(Path::new(spec)), PathBuf::from(spec)),
        }
    }

    /// One arm from its output's bytes; a header without rows is an error naming `path`.
    pub fn parse(name: String, path: &Path, shown: &Path, bytes: &[u8]) -> Result<Arm, Error> {
        let output = BenchOutput::parse(shown, bytes)?;
        if output.rows.is_empty() {
            return Err(Error::Empty {
                path: path.to_path_buf(),
                reason: "DriverBench header found but no rows (did every case fail?)".into(),
            });
        }
        Ok(Arm { name, output })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn arm(name: &str, rows: &str) -> Arm {
        let text = format!("{}\n{rows}", crate::driverbench::HEADER);
        let output = BenchOutput::parse(Path::new("x.csv"), text.as_bytes()).unwrap();
        Arm {
            name: name.into(),
            output,
        }
    }

    #[test]
    fn driver_table_pads_cells_marks_missing_cases_and_trims_line_ends() {
        // A case only one arm has, a multi-byte cell (`—`) and a last column named with a
        // trailing space: widths count characters and each line's end is trimmed.
        let arms = [
            arm("a", "x,1,1,1,10.0,1\nlong_case,1,1,1,2.5,1\n"),
            arm("b ", "x,1,1,1,12.0,1\n"),
            arm("c ", "x,1,1,1,0.0,1\n"),
        ];
        let mut out = Vec::new();
        driver_text(&arms, false, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let table: Vec<&str> = text.lines().skip(4).collect();
        assert_eq!(
            table,
            [
                "case       a                     b                     c",
                "x          10.0 (n=1, min 10.0)  12.0 (n=1, min 12.0)  0.0 (n=1, min 0.0)",
                "long_case  2.5 (n=1, min 2.5)    —                     —",
            ]
        );
        let mut md = Vec::new();
        driver_text(&arms[..2], true, &mut md).unwrap();
        let md = String::from_utf8(md).unwrap();
        assert_eq!(
            md.lines().collect::<Vec<_>>(),
            [
                "| case | a | b  | b  − a |",
                "|---|---|---|---|",
                "| `x` | 10.0 (n=1, min 10.0) | 12.0 (n=1, min 12.0) | +2.0 ns/op (+20.00 %) |",
                "| `long_case` | 2.5 (n=1, min 2.5) | — | — |",
            ]
        );
    }
}
