//! Budgets (`[[budget]]` in mgctl.toml): a ceiling and/or floor on a figure mgctl already reads —
//! DriverBench `T1`, `T2`, `T1-T2`, `ns_per_op`; benchmark.json `mean`/`p50`/`p95`/`p99` of an arm
//! (best of N) and their push − pull deltas in ms and %; any `MGPipe stats:` field of the last
//! complete window or the steady state — with the derivation (`why`) printed beside the verdict.
//!
//! A budget whose inputs are absent fails (never a silent skip) unless it says `optional = true`.
//! In a git workspace a budget must be pinned before its run: its lines last changed in a commit
//! that is an ancestor of the commit that first added its inputs. The git facts come from the
//! caller (the `lints` crate owns git2) through [`PinCheck`]; the verdict is decided here.

pub mod ab;
mod controls;
mod runs;
use runs::frame_runs;
pub use runs::{frames_value, session_runs, RunArms, SessionError, SessionRuns};
pub mod inputs;

use std::path::Path;

use serde::Deserialize;

use crate::bench_report::Series;
use crate::benchmark::{run_number, SeriesStats};
use crate::counters::{steady_value, window_value, CounterError, WindowSel};
use crate::driverbench::{arm_name, BenchOutput};
use crate::report::SteadyRange;
use crate::session::Log;
use crate::violation::{Severity, Violation};

pub use controls::run_controls;
use inputs::InputFile;

pub use diag::Control;

/// A control's result from the first finding it produced, as `(code, message)`; `code` is
/// what a negative control waits for.
pub(crate) fn control_from_hit(
    name: &str,
    expect_trip: bool,
    code: &str,
    hit: Option<(&str, &str)>,
) -> Control {
    Control {
        name: name.into(),
        expect_trip,
        tripped: hit.is_some(),
        detail: match hit {
            Some((c, message)) => format!("{c}: {message}"),
            None if expect_trip => format!("no {code} finding"),
            None => "clean".into(),
        },
    }
}

diag::codes! {
    /// Finding codes of the `budgets` gate (docs/codes.md).
    pub enum Code: "BUD" {
        Bud001 = "BUD001": "a budget is exceeded (above its max or below its min)",
        Bud002 = "BUD002": "no input matches the budget's `inputs` globs (and it is not optional)",
        Bud003 = "BUD003": "an arm, case or field the budget reads is absent from its inputs",
        Bud004 = "BUD004": "an input of the budget is unreadable or malformed",
        Bud005 = "BUD005": "the budget itself is invalid (metric, selectors, bounds, why)",
        Bud006 = "BUD006": "the budget was edited after its data landed (not pinned before the run)",
        Bud007 = "BUD007": "the pin (budget older than its inputs) could not be checked",
        Bud008 = "BUD008": "an optional budget had no inputs and was not evaluated",
        Bud009 = "BUD009": "the repository the pin is read from cannot be read (a corrupt or missing object)",
        Bud010 = "BUD010": "an input is older than the library that produced it (`produced_by`): it measures an older build",
    }
}

impl Code {
    /// Notes do not fail the gate.
    pub const fn is_error(self) -> bool {
        !matches!(self, Code::Bud007 | Code::Bud008 | Code::Bud010)
    }
}

/// Which frame-time series a benchmark metric reads.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SeriesSel {
    #[default]
    Cpu,
    Wall,
}

impl SeriesSel {
    pub fn series(self) -> Series {
        match self {
            SeriesSel::Cpu => Series::Cpu,
            SeriesSel::Wall => Series::Wall,
        }
    }
}

/// One `[[budget]]` table.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BudgetConfig {
    /// Spanned so the pin check can find the budget's lines in mgctl.toml.
    pub name: toml::Spanned<String>,
    /// `T1`, `T2`, `T1-T2`, `ns_per_op`, `mean|p50|p95|p99`, `p99-delta`, `p99-delta-pct`,
    /// `stats:FIELD`.
    pub metric: String,
    /// Workspace-relative globs of the inputs.
    #[serde(default)]
    pub inputs: Vec<String>,
    /// Instead of `inputs`: a device session directory (`bench session`'s P6 or matrix layout),
    /// workspace-relative. Benchmark metrics only; arms are transports, and only proven arms are
    /// measured (a budget on an arm the session left out fails, naming why).
    pub session: Option<String>,
    /// DriverBench case (`mc_vanilla_draw`).
    pub case: Option<String>,
    /// The arm (DriverBench arm name or benchmark arm directory); for deltas the B side (push).
    pub arm: Option<String>,
    /// For deltas, the A side (default `pull`).
    pub base: Option<String>,
    /// Restrict a benchmark metric to one run directory (`<case>-<backend>`).
    pub run: Option<String>,
    #[serde(default)]
    pub series: SeriesSel,
    /// For `stats:` metrics: `last-complete` (default) or `steady`.
    #[serde(default)]
    pub window: WindowSel,
    pub steady: Option<String>,
    pub max: Option<f64>,
    pub min: Option<f64>,
    pub unit: String,
    /// The derivation of the bound, printed with the verdict.
    pub why: String,
    /// Inputs may be absent (the `why` says why that is acceptable).
    #[serde(default)]
    pub optional: bool,
    /// The library the runs were made with (`build/push/libMobileGL.so`): an input older than
    /// it is named (BUD010, a warning).
    pub produced_by: Option<String>,
}

impl BudgetConfig {
    pub fn name(&self) -> &str {
        self.name.get_ref()
    }
}

/// A benchmark statistic.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stat {
    Mean,
    P50,
    P95,
    P99,
}

impl Stat {
    pub fn of(self, s: &SeriesStats) -> f64 {
        match self {
            Stat::Mean => s.mean,
            Stat::P50 => s.median,
            Stat::P95 => s.p95,
            Stat::P99 => s.p99,
        }
    }
    pub fn as_str(self) -> &'static str {
        match self {
            Stat::Mean => "mean",
            Stat::P50 => "p50",
            Stat::P95 => "p95",
            Stat::P99 => "p99",
        }
    }
}

/// A parsed `metric`.
#[derive(Debug, Clone, PartialEq)]
pub enum Metric {
    T1,
    T2,
    T1MinusT2,
    NsPerOp,
    /// benchmark.json statistic of one arm, or (delta) arm − base in ms, or in % of base.
    Frames {
        stat: Stat,
        delta: Option<bool>,
    },
    Stats(String),
}

/// A `metric` that names none.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MetricError {
    #[error("unknown metric {metric:?} (T1, T2, T1-T2, ns_per_op, mean|p50|p95|p99[-delta[-pct]], stats:FIELD)")]
    Unknown { metric: String },
}

impl Metric {
    pub fn parse(s: &str) -> Result<Metric, MetricError> {
        let stat = |t: &str| match t {
            "mean" => Some(Stat::Mean),
            "p50" => Some(Stat::P50),
            "p95" => Some(Stat::P95),
            "p99" => Some(Stat::P99),
            _ => None,
        };
        Ok(match s {
            "T1" => Metric::T1,
            "T2" => Metric::T2,
            "T1-T2" => Metric::T1MinusT2,
            "ns_per_op" => Metric::NsPerOp,
            _ => {
                if let Some(f) = s.strip_prefix("stats:").filter(|f| !f.is_empty()) {
                    Metric::Stats(f.to_string())
                } else if let Some(st) = stat(s) {
                    Metric::Frames {
                        stat: st,
                        delta: None,
                    }
                } else if let Some(st) = s.strip_suffix("-delta-pct").and_then(stat) {
                    Metric::Frames {
                        stat: st,
                        delta: Some(true),
                    }
                } else if let Some(st) = s.strip_suffix("-delta").and_then(stat) {
                    Metric::Frames {
                        stat: st,
                        delta: Some(false),
                    }
                } else {
                    return Err(MetricError::Unknown {
                        metric: s.to_string(),
                    });
                }
            }
        })
    }
}

/// What git says about one budget (read by `lints::pin`, which owns git; the verdict is decided here).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BudgetPin {
    /// Every line's last change is an ancestor of the inputs' first-added commit.
    Pinned { budget: String, inputs: String },
    /// A line changed in, or after, the inputs' first-added commit (or is uncommitted).
    EditedAfter { budget: String, inputs: String },
    /// No order can be read here (not a repository, a shallow or partial clone, no committed
    /// input): said as a note.
    NotChecked(String),
    /// The repository cannot be read (a corrupt or missing object): the gate could not run.
    Unreadable(String),
}

/// What the pin check is asked: the config file, the budget's 1-based line range, its inputs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PinQuery<'a> {
    pub config: &'a str,
    pub lines: (usize, usize),
    pub inputs: &'a [String],
}

pub type PinCheck<'a> = &'a dyn Fn(&PinQuery<'_>) -> BudgetPin;

/// One finding of a budget (its unit is the budget's name; it points into mgctl.toml or an input).
pub type Finding = Violation<Code>;

/// A finding of budget `budget`; notes (BUD007, BUD008) do not fail the gate.
fn finding(
    code: Code,
    budget: &str,
    message: String,
    path: Option<String>,
    line: Option<usize>,
) -> Finding {
    let severity = if code == Code::Bud010 {
        Severity::Warning
    } else if code.is_error() {
        Severity::Error
    } else {
        Severity::Note
    };
    crate::violation::placed(
        crate::violation::violation(code, severity, budget, message),
        path,
        line,
    )
}

/// One measured value of a budget (per run directory, DriverBench directory or log session).
#[derive(Debug, Clone, PartialEq)]
pub struct Measured {
    pub label: String,
    pub value: f64,
    pub ok: bool,
}

/// The verdict of one budget.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    pub name: String,
    pub metric: String,
    pub unit: String,
    pub why: String,
    pub max: Option<f64>,
    pub min: Option<f64>,
    pub measured: Vec<Measured>,
    pub pin: Option<BudgetPin>,
}

/// Everything one run of the budgets found.
#[derive(Debug, Clone, Default)]
pub struct Outcome {
    pub findings: Vec<Finding>,
    pub verdicts: Vec<Verdict>,
    pub inputs: Vec<String>,
    /// Every budget's name, in config order (the gate's units).
    pub names: Vec<String>,
}

impl Outcome {
    /// Values measured over every budget.
    pub fn measurements(&self) -> usize {
        self.verdicts.iter().map(|v| v.measured.len()).sum()
    }

    /// Budgets exceeded (BUD001 findings).
    pub fn exceeded(&self) -> usize {
        self.findings
            .iter()
            .filter(|f| f.code == Code::Bud001)
            .count()
    }

    /// The gate's headline: `B budgets / M measurements / E exceeded`.
    pub fn headline(&self, budgets: usize) -> String {
        format!(
            "{budgets} budgets / {} measurements / {} exceeded",
            self.measurements(),
            self.exceeded()
        )
    }
}

/// Where the budgets come from: the workspace root and the config file (None: built-in profile).
#[derive(Debug, Clone, Copy)]
pub struct Workspace<'a> {
    pub root: &'a Path,
    pub config_rel: Option<&'a str>,
    pub config_text: &'a str,
}

/// The 1-based lines of the `[[budget]]` table holding byte offset `at`: from its header to its
/// last non-blank, non-comment line before the next table.
pub fn budget_lines(text: &str, at: usize) -> (usize, usize) {
    let lines: Vec<&str> = text.split('\n').collect();
    let mut offset = 0;
    let mut here = 0;
    for (i, l) in lines.iter().enumerate() {
        if offset + l.len() >= at {
            here = i;
            break;
        }
        offset += l.len() + 1;
        here = i;
    }
    let is_header = |l: &str| l.trim_start().starts_with('[');
    let start = (0..=here)
        .rev()
        .find(|&i| is_header(lines[i]))
        .unwrap_or(here);
    let mut end = (here + 1..lines.len())
        .find(|&i| is_header(lines[i]))
        .unwrap_or(lines.len());
    while end > here + 1 {
        let t = lines[end - 1].trim();
        if t.is_empty() || t.starts_with('#') {
            end -= 1;
        } else {
            break;
        }
    }
    (start + 1, end.max(here + 1))
}

fn num(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{v:.0}")
    } else if v.abs() >= 100.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.3}")
    }
}

/// The benchmark files of one arm directory, in run order: `benchmark-run<i>.json` when any
/// exist (the runner leaves a copy of the last as `benchmark.json`), else `benchmark.json`.
pub fn arm_files<'a>(files: &[&'a InputFile]) -> Vec<&'a InputFile> {
    let mut runs: Vec<(u32, &InputFile)> = files
        .iter()
        .filter_map(|f| run_number(&f.path).map(|n| (n, *f)))
        .collect();
    runs.sort_by_key(|r| r.0);
    if !runs.is_empty() {
        return runs.into_iter().map(|r| r.1).collect();
    }
    files.to_vec()
}

fn parent(rel: &str) -> &str {
    rel.rsplit_once('/').map_or("", |(d, _)| d)
}

fn base_name(rel: &str) -> &str {
    rel.rsplit_once('/').map_or(rel, |(_, n)| n)
}

/// Measured values of one budget over its inputs: (label, value) or a finding (code, message, path).
type Measure = Result<(String, f64), (Code, String, Option<String>)>;

fn measure(
    b: &BudgetConfig,
    metric: &Metric,
    files: &[InputFile],
    session: Option<&SessionRuns>,
) -> Vec<Measure> {
    let mut out = Vec::new();
    if let Some(s) = session {
        let Metric::Frames { stat, delta } = metric else {
            return vec![Err((
                Code::Bud005,
                format!(
                    "metric {} cannot read a session: `session` serves benchmark metrics (mean, p50, p95, p99 and their deltas) only",
                    b.metric
                ),
                None,
            ))];
        };
        if delta.is_none() && b.arm.is_none() {
            return vec![Err((
                Code::Bud005,
                format!("metric {} needs `arm`", b.metric),
                None,
            ))];
        }
        let left_out = if s.left_out.is_empty() {
            String::new()
        } else {
            format!("; left out of the session: {}", s.left_out.join("; "))
        };
        for run in s
            .runs
            .iter()
            .filter(|r| b.run.as_deref().is_none_or(|x| base_name(&r.label) == x))
        {
            out.push(
                frames_value(b, *stat, *delta, run)
                    .map(|v| (run.label.clone(), v))
                    .map_err(|(c, m)| (c, format!("{m}{left_out}"), None)),
            );
        }
        if out.is_empty() {
            out.push(Err((
                Code::Bud003,
                format!("session {} has no proven run to measure{left_out}", s.dir),
                None,
            )));
        }
        return out;
    }
    match metric {
        Metric::T1 | Metric::T2 | Metric::T1MinusT2 | Metric::NsPerOp => {
            let Some(case) = b.case.as_deref() else {
                return vec![Err((
                    Code::Bud005,
                    format!("metric {} needs `case`", b.metric),
                    None,
                ))];
            };
            // One DriverBench directory = one device's set of arms.
            let mut dirs: Vec<(&str, Vec<(String, BenchOutput)>)> = Vec::new();
            for f in files {
                let parsed = match BenchOutput::parse(Path::new(&f.rel), &f.bytes) {
                    Ok(p) => p,
                    Err(e) => {
                        out.push(Err((Code::Bud004, e.to_string(), Some(f.rel.clone()))));
                        continue;
                    }
                };
                let d = parent(&f.rel);
                let arm = (arm_name(Path::new(&f.rel)), parsed);
                match dirs.iter_mut().find(|(n, _)| *n == d) {
                    Some((_, v)) => v.push(arm),
                    None => dirs.push((d, vec![arm])),
                }
            }
            for (dir, arms) in dirs {
                let label = if dir.is_empty() { "." } else { dir };
                let median = |suffix: &str| -> Result<f64, (Code, String, Option<String>)> {
                    let (name, o) = arms
                        .iter()
                        .find(|(n, _)| n == suffix || n.ends_with(&format!("-{suffix}")))
                        .ok_or_else(|| {
                            (
                                Code::Bud003,
                                format!(
                                    "arm {suffix:?} is missing in {label} (arms: {})",
                                    arms.iter()
                                        .map(|a| a.0.as_str())
                                        .collect::<Vec<_>>()
                                        .join(", ")
                                ),
                                None,
                            )
                        })?;
                    o.cases()
                        .into_iter()
                        .find(|c| c.case == case)
                        .map(|c| c.median)
                        .ok_or_else(|| {
                            (
                                Code::Bud003,
                                format!("case {case:?} is absent from arm {name}"),
                                Some(o.path.display().to_string()),
                            )
                        })
                };
                let v = match metric {
                    Metric::T1 => median("push").and_then(|p| Ok(p - median("pull")?)),
                    Metric::T2 => median("push7f")
                        .or_else(|_| median("push0"))
                        .and_then(|p| Ok(p - median("pull")?)),
                    Metric::T1MinusT2 => median("push").and_then(|p| {
                        let p0 = median("push7f").or_else(|_| median("push0"))?;
                        Ok(p - p0)
                    }),
                    _ => median(b.arm.as_deref().unwrap_or("push")),
                };
                out.push(v.map(|v| (format!("{label} {case}"), v)));
            }
        }
        Metric::Frames { stat, delta } => {
            if delta.is_none() && b.arm.is_none() {
                return vec![Err((
                    Code::Bud005,
                    format!("metric {} needs `arm`", b.metric),
                    None,
                ))];
            }
            let runs = match frame_runs(files) {
                Ok(r) => r,
                Err((c, m)) => return vec![Err((c, m, None))],
            };
            for run in runs
                .iter()
                .filter(|r| b.run.as_deref().is_none_or(|x| base_name(&r.label) == x))
            {
                out.push(
                    frames_value(b, *stat, *delta, run)
                        .map(|v| (run.label.clone(), v))
                        .map_err(|(c, m)| (c, m, None)),
                );
            }
            if out.is_empty() {
                out.push(Err((
                    Code::Bud003,
                    format!("no run directory named {:?} among the inputs", b.run),
                    None,
                )));
            }
        }
        Metric::Stats(field) => {
            let steady = match b.steady.as_deref().map(SteadyRange::parse) {
                None => SteadyRange::default(),
                Some(Some(r)) => r,
                Some(None) => {
                    return vec![Err((
                        Code::Bud005,
                        format!("steady = {:?}: expected FROM, FROM.. or FROM..TO", b.steady),
                        None,
                    ))]
                }
            };
            for f in files {
                let log = match Log::parse(Path::new(&f.rel), &f.bytes) {
                    Ok(l) => l,
                    Err(e) => {
                        out.push(Err((Code::Bud004, e.to_string(), Some(f.rel.clone()))));
                        continue;
                    }
                };
                for s in log.reported_sessions() {
                    let label = format!("{} session {} ({})", f.rel, s.index, s.role.as_str());
                    let complete = s.complete_windows();
                    let v = match b.window {
                        WindowSel::Steady => {
                            let to = steady.to.unwrap_or(complete.len());
                            if steady.from > to || to > complete.len() {
                                Err(CounterError::SteadyRange {
                                    from: steady.from,
                                    to,
                                    complete: complete.len(),
                                })
                            } else {
                                let ws: Vec<_> = complete[steady.from - 1..to]
                                    .iter()
                                    .map(|w| &w.item)
                                    .collect();
                                steady_value(&ws, field)
                            }
                        }
                        _ => match complete.last() {
                            Some(w) => window_value(&w.item, field),
                            None => Err(CounterError::NoCompleteWindow),
                        },
                    };
                    out.push(
                        v.map(|v| (label.clone(), v)).map_err(|m| {
                            (Code::Bud003, format!("{label}: {m}"), Some(f.rel.clone()))
                        }),
                    );
                }
            }
        }
    }
    out
}

/// Evaluates one budget over its (already read) inputs: pure apart from `pin`.
pub fn evaluate(
    b: &BudgetConfig,
    config: Option<&str>,
    lines: (usize, usize),
    files: &[InputFile],
    session: Option<&SessionRuns>,
    pin: PinCheck<'_>,
) -> (Verdict, Vec<Finding>) {
    let name = b.name().to_string();
    let mut findings = Vec::new();
    let at_budget = |code: Code, message: String| {
        let line = config.map(|_| lines.0);
        finding(code, &name, message, config.map(str::to_string), line)
    };
    let mut v = Verdict {
        name: name.clone(),
        metric: b.metric.clone(),
        unit: b.unit.clone(),
        why: b.why.clone(),
        max: b.max,
        min: b.min,
        measured: Vec::new(),
        pin: None,
    };
    let why = format!("why: {}", b.why);
    let metric = match Metric::parse(&b.metric) {
        Ok(m) => m,
        Err(e) => {
            findings.push(at_budget(Code::Bud005, format!("budget {name}: {e}")));
            return (v, findings);
        }
    };
    if b.max.is_none() && b.min.is_none() {
        findings.push(at_budget(
            Code::Bud005,
            format!("budget {name}: neither `max` nor `min`: it bounds nothing"),
        ));
    }
    if b.why.trim().is_empty() {
        findings.push(at_budget(
            Code::Bud005,
            format!(
                "budget {name}: `why` is empty: a bound without its derivation cannot be reviewed"
            ),
        ));
    }
    if b.session.is_some() != b.inputs.is_empty() {
        findings.push(at_budget(
            Code::Bud005,
            format!("budget {name}: give either `inputs` or `session` (exactly one)"),
        ));
        return (v, findings);
    }
    if files.is_empty() && session.is_none() {
        let msg = match &b.session {
            Some(dir) => format!("budget {name}: no session directory {dir}"),
            None => format!("budget {name}: no input matches inputs = {:?}", b.inputs),
        };
        if b.optional {
            findings.push(at_budget(
                Code::Bud008,
                format!("{msg}: optional, not evaluated ({why})"),
            ));
        } else {
            findings.push(at_budget(
                Code::Bud002,
                format!("{msg}: a budget whose inputs are absent fails (set optional = true and say why in `why` if that is expected)"),
            ));
        }
        return (v, findings);
    }
    for m in measure(b, &metric, files, session) {
        match m {
            Ok((label, value)) => {
                let over = b.max.is_some_and(|mx| value > mx);
                let under = b.min.is_some_and(|mn| value < mn);
                if over || under {
                    let bound = if over {
                        format!("> max {}", num(b.max.unwrap_or_default()))
                    } else {
                        format!("< min {}", num(b.min.unwrap_or_default()))
                    };
                    findings.push(at_budget(
                        Code::Bud001,
                        format!(
                            "budget {name} exceeded: {} = {} {} {bound} {} on {label} ({why})",
                            b.metric,
                            num(value),
                            b.unit,
                            b.unit
                        ),
                    ));
                }
                v.measured.push(Measured {
                    label,
                    value,
                    ok: !over && !under,
                });
            }
            Err((code, msg, path)) => findings.push(finding(
                code,
                &name,
                format!("budget {name}: {msg}"),
                path.or_else(|| config.map(str::to_string)),
                None,
            )),
        }
    }
    let rels: Vec<String> = match session {
        Some(s) => s.rels.clone(),
        None => files.iter().map(|f| f.rel.clone()).collect(),
    };
    let p = match config {
        Some(c) => pin(&PinQuery {
            config: c,
            lines,
            inputs: &rels,
        }),
        None => BudgetPin::NotChecked("the built-in profile has no mgctl.toml lines to pin".into()),
    };
    let where_ = config.map_or_else(String::new, |c| format!(" ({c}:{}-{})", lines.0, lines.1));
    match &p {
        BudgetPin::Pinned { .. } => {}
        BudgetPin::EditedAfter { budget, inputs } => findings.push(at_budget(
            Code::Bud006,
            format!(
                "budget {name} was edited after its data: its lines{where_} last changed in {budget}, which is not older than {inputs}, the commit that first added its inputs; a bound set after the run passes trivially (pin it before the run, then commit the data)"
            ),
        )),
        BudgetPin::NotChecked(why_not) => findings.push(at_budget(
            Code::Bud007,
            format!("budget {name}: the pin could not be checked: {why_not}"),
        )),
        BudgetPin::Unreadable(why) => findings.push(at_budget(
            Code::Bud009,
            format!("budget {name}: the repository cannot be read, so the pin cannot be checked: {why}"),
        )),
    }
    v.pin = Some(p);
    (v, findings)
}

/// The gate's entry point: every budget over the workspace.
pub fn run(ws: &Workspace<'_>, budgets: &[BudgetConfig], pin: PinCheck<'_>) -> Outcome {
    let mut o = Outcome {
        names: budgets.iter().map(|b| b.name().to_string()).collect(),
        ..Outcome::default()
    };
    // Budgets over the same globs (the p50 and the p99 delta of one run) list and read them once.
    let mut read: Vec<(&[String], Vec<InputFile>)> = Vec::new();
    for b in budgets {
        let lines = budget_lines(ws.config_text, b.name.span().start);
        if let Some(dir) = b.session.as_deref().filter(|_| b.inputs.is_empty()) {
            if !ws.root.join(dir).is_dir() {
                // Absent data: the budget says whether that is acceptable (`optional`).
                let (v, f) = evaluate(b, ws.config_rel, lines, &[], None, pin);
                o.verdicts.push(v);
                o.findings.extend(f);
                continue;
            }
            match session_runs(ws.root, dir) {
                Ok(s) => {
                    o.inputs.extend(s.rels.iter().cloned());
                    let (v, f) = evaluate(b, ws.config_rel, lines, &[], Some(&s), pin);
                    o.verdicts.push(v);
                    o.findings.extend(f);
                }
                Err(m) => {
                    let line = ws.config_rel.map(|_| lines.0);
                    let path = ws.config_rel.map(str::to_string);
                    let m = format!("budget {}: session {dir}: {m}", b.name());
                    o.findings
                        .push(finding(Code::Bud004, b.name(), m, path, line));
                }
            }
            continue;
        }
        let at = match read.iter().position(|(g, _)| *g == b.inputs.as_slice()) {
            Some(i) => i,
            None => {
                match inputs::read_matching(
                    ws.root,
                    &b.inputs,
                    &format!("budget {} inputs", b.name()),
                ) {
                    Ok(f) => {
                        read.push((&b.inputs, f));
                        read.len() - 1
                    }
                    Err(m) => {
                        let line = ws.config_rel.map(|_| lines.0);
                        let path = ws.config_rel.map(str::to_string);
                        let m = m.to_string();
                        o.findings
                            .push(finding(Code::Bud004, b.name(), m, path, line));
                        continue;
                    }
                }
            }
        };
        // Borrowed from the cache: the inputs' bytes are read once and never copied.
        let files = &read[at].1;
        o.inputs.extend(files.iter().map(|f| f.rel.clone()));
        let (v, f) = evaluate(b, ws.config_rel, lines, files, None, pin);
        o.verdicts.push(v);
        o.findings.extend(f);
        if let Some(lib) = &b.produced_by {
            o.findings
                .extend(older_findings(ws, b.name(), lib, files, lines));
        }
    }
    o.inputs.sort();
    o.inputs.dedup();
    o
}

/// BUD010 warnings: the inputs older than `lib`, or why that cannot be told (at the budget).
fn older_findings(
    ws: &Workspace<'_>,
    name: &str,
    lib: &str,
    files: &[InputFile],
    lines: (usize, usize),
) -> Vec<Finding> {
    match inputs::older_than_library(ws.root, lib, files) {
        Ok(old) => old
            .into_iter()
            .map(|rel| {
                finding(
                    Code::Bud010,
                    name,
                    format!("budget {name}: {rel} is older than {lib}, the library that produced it: it measures an older build (re-run it)"),
                    Some(rel.clone()),
                    None,
                )
            })
            .collect(),
        Err(why) => vec![finding(
            Code::Bud010,
            name,
            format!("budget {name}: {why}"),
            ws.config_rel.map(str::to_string),
            ws.config_rel.map(|_| lines.0),
        )],
    }
}

/// A MobileGL checkout commits no run artifacts (device runs live in per-lane result
/// directories), so the built-in profile pins no budget: the gate is skipped, saying so.
pub fn mobilegl_profile() -> Vec<BudgetConfig> {
    Vec::new()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn metrics_parse() {
        assert_eq!(Metric::parse("T1-T2").unwrap(), Metric::T1MinusT2);
        assert_eq!(
            Metric::parse("p99-delta-pct").unwrap(),
            Metric::Frames {
                stat: Stat::P99,
                delta: Some(true)
            }
        );
        assert_eq!(
            Metric::parse("stats:bytes/f.resid").unwrap(),
            Metric::Stats("bytes/f.resid".into())
        );
        assert!(Metric::parse("p42").is_err());
        assert!(Metric::parse("stats:").is_err());
    }

    #[test]
    fn lines_of_a_budget_table() {
        let text = "[workspace]\nname = \"x\"\n\n# T1 budget\n[[budget]]\nname = \"t1\"\nmax = 45\n\n# next\n[[budget]]\nname = \"t2\"\n";
        let at = text.find("\"t1\"").unwrap();
        assert_eq!(budget_lines(text, at), (5, 7));
        let at = text.find("\"t2\"").unwrap();
        assert_eq!(budget_lines(text, at), (10, 11));
    }

    #[test]
    fn controls_trip() {
        let r = run_controls(&|_| false);
        assert!(r.iter().all(|c| c.expect_trip == c.tripped), "{r:?}");
        assert!(r.iter().any(|c| c.expect_trip));
        let r = run_controls(&|c| c == "budget-exceeded");
        assert!(r.iter().any(|c| c.name == "budget-exceeded" && !c.tripped));
        assert!(
            diag::controls_can_fail(&|n| run_controls(n)).unwrap_or_else(|e| panic!("{e}")) > 0
        );
    }
}
