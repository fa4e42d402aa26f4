//! Counter contracts (`[[counters.expect]]` in mgctl.toml): `expect` lines comparing an
//! `MGPipe stats:` field of a window with a constant or with another field (`csom <= 4`,
//! `csom < csob`, `bytes/f.resid > 0`), evaluated per session and role on the last complete
//! window, every complete window or the steady state. A field that is absent is a failure, never
//! a pass: a contract must not hold vacuously on a build that does not print the counter.

use std::path::Path;

use serde::Deserialize;

use crate::budget::inputs::{self, InputFile};
use crate::budget::Control;
use crate::report::SteadyRange;
use crate::session::{Log, Session};
use crate::violation::{Severity, Violation};
use crate::window::{FieldKind, Value, Window};

diag::codes! {
    /// Finding codes of the `counters` gate (docs/codes.md).
    pub enum Code: "CNT" {
        Cnt001 = "CNT001": "a counter contract is broken",
        Cnt002 = "CNT002": "no log matches the contract's `logs` globs: nothing was checked",
        Cnt003 = "CNT003": "a field the contract compares is absent (or n/a) in the window",
        Cnt004 = "CNT004": "a log is unreadable or has no window the contract can read",
        Cnt005 = "CNT005": "an `expect` line or steady range does not parse",
        Cnt006 = "CNT006": "a log is older than the library that produced it (`produced_by`): it counts an older build",
        Cnt007 = "CNT007": "a session contract reads a structural zero: a field another process counts (the client's srv, srvpark, frames, window under spawn)",
    }
}

/// `[counters]` in mgctl.toml.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CountersConfig {
    #[serde(default)]
    pub expect: Vec<Contract>,
}

/// One `[[counters.expect]]` table.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Contract {
    pub name: String,
    /// Workspace-relative globs of logs.
    #[serde(default)]
    pub logs: Vec<String>,
    /// Instead of `logs`: a device session directory (`bench session`'s layouts); the contract
    /// reads the `role` log of every proven arm (of transport `arm`, when given).
    pub session: Option<String>,
    #[serde(default)]
    pub role: SessionRole,
    /// A transport (`inproc`, `spawn+shm`, …): only the session's arms of it.
    pub arm: Option<String>,
    #[serde(default)]
    pub window: WindowSel,
    /// Complete windows of the steady state (`3..`, `3..6`); default 3.. (as `stats summary`).
    pub steady: Option<String>,
    pub expect: Vec<String>,
    /// The derivation, printed with the verdict.
    #[serde(default)]
    pub why: String,
    /// The library the logs were made with: a log older than it is named (CNT006, a warning).
    pub produced_by: Option<String>,
}

/// Which role log of a session arm a contract reads.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SessionRole {
    #[default]
    Client,
    Server,
}

/// Fields the client's log reports as zero under spawn because another process counts them.
const SPAWN_CLIENT_STRUCTURAL: [&str; 4] = ["srv", "srvpark", "frames", "window"];

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WindowSel {
    #[default]
    LastComplete,
    EveryComplete,
    Steady,
}

impl WindowSel {
    pub fn as_str(self) -> &'static str {
        match self {
            WindowSel::LastComplete => "last-complete",
            WindowSel::EveryComplete => "every-complete",
            WindowSel::Steady => "steady",
        }
    }
}

/// A comparison operator of an `expect` line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Le,
    Lt,
    Ge,
    Gt,
    Eq,
    Ne,
}

impl Op {
    pub fn as_str(self) -> &'static str {
        match self {
            Op::Le => "<=",
            Op::Lt => "<",
            Op::Ge => ">=",
            Op::Gt => ">",
            Op::Eq => "==",
            Op::Ne => "!=",
        }
    }
    pub fn holds(self, a: f64, b: f64) -> bool {
        match self {
            Op::Le => a <= b,
            Op::Lt => a < b,
            Op::Ge => a >= b,
            Op::Gt => a > b,
            Op::Eq => a == b,
            Op::Ne => a != b,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum Operand {
    Const(f64),
    Field(String),
}

/// One parsed `expect` line: `FIELD OP (NUMBER | FIELD)`.
#[derive(Debug, Clone, PartialEq)]
pub struct Expect {
    pub lhs: String,
    pub op: Op,
    pub rhs: Operand,
}

/// Why an `expect` line does not parse, a field has no number, or a session gives no windows.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CounterError {
    #[error("`{expect}`: no comparison (<=, <, >=, >, ==, !=)")]
    NoComparison { expect: String },
    #[error("`{expect}`: `=` is not a comparison (use ==)")]
    SingleEquals { expect: String },
    #[error("`{expect}`: left side `{lhs}` is not a field name")]
    NotAField { expect: String, lhs: String },
    #[error("`{expect}`: right side `{rhs}` is neither a number nor a field")]
    NotAnOperand { expect: String, rhs: String },
    #[error("{field} is a hit/miss pair (compare NAME.hit or NAME.miss)")]
    HitMiss { field: String },
    #[error("{field} is n/a (zero denominator)")]
    ZeroDenominator { field: String },
    #[error("{field} is n/a (zero frames)")]
    ZeroFrames { field: String },
    /// The value Debug-quoted: a malformed value never reaches the terminal raw.
    #[error("{field} is not a number ({value:?})")]
    NotANumber { field: String, value: String },
    #[error("{field} is absent")]
    Absent { field: String },
    #[error("{field} is unavailable: the steady state has no window")]
    NoSteadyWindow { field: String },
    #[error("no complete `MGPipe stats:` window (window == period)")]
    NoCompleteStats,
    #[error("no complete window")]
    NoCompleteWindow,
    #[error("steady state {from}..{to} requested, the session has {complete} complete windows")]
    SteadyRange {
        from: usize,
        to: usize,
        complete: usize,
    },
}

/// Parses `csom <= 4`, `csom<csob`, `bytes/f.resid > 0`.
pub fn parse_expect(s: &str) -> Result<Expect, CounterError> {
    let expect = || s.to_string();
    let at = s
        .find(['<', '>', '=', '!'])
        .ok_or_else(|| CounterError::NoComparison { expect: expect() })?;
    let rest = &s[at..];
    let (op, len) = match rest.as_bytes() {
        [b'<', b'=', ..] => (Op::Le, 2),
        [b'>', b'=', ..] => (Op::Ge, 2),
        [b'=', b'=', ..] => (Op::Eq, 2),
        [b'!', b'=', ..] => (Op::Ne, 2),
        [b'<', ..] => (Op::Lt, 1),
        [b'>', ..] => (Op::Gt, 1),
        _ => return Err(CounterError::SingleEquals { expect: expect() }),
    };
    let lhs = s[..at].trim();
    let rhs = rest[len..].trim();
    let field_ok = |f: &str| {
        !f.is_empty()
            && f.chars()
                .all(|c| c.is_ascii_alphanumeric() || "/._-".contains(c))
    };
    if !field_ok(lhs) || lhs.parse::<f64>().is_ok() {
        return Err(CounterError::NotAField {
            expect: expect(),
            lhs: lhs.to_string(),
        });
    }
    let rhs = match rhs.parse::<f64>() {
        Ok(v) if v.is_finite() => Operand::Const(v),
        _ if field_ok(rhs) => Operand::Field(rhs.to_string()),
        _ => {
            return Err(CounterError::NotAnOperand {
                expect: expect(),
                rhs: rhs.to_string(),
            })
        }
    };
    Ok(Expect {
        lhs: lhs.to_string(),
        op,
        rhs,
    })
}

/// The raw value of a field: the namespaced name (`bytes/f.resid`, `cso.csom`), else a bare key
/// that is unique across brackets (`csom`). `NAME.hit` / `NAME.miss` read half of a gate.
fn raw<'a>(w: &'a Window, name: &str) -> Option<(&'a Value, Option<bool>)> {
    if let Some(v) = w.get(name) {
        return Some((v, None));
    }
    for (suffix, hit) in [(".hit", true), (".miss", false)] {
        if let Some(base) = name.strip_suffix(suffix) {
            if let Some(v) = raw(w, base) {
                return Some((v.0, Some(hit)));
            }
        }
    }
    if name.contains('.') {
        return None;
    }
    let mut hits = w.fields.iter().filter(|f| f.key == name);
    match (hits.next(), hits.next()) {
        (Some(f), None) => Some((&f.value, None)),
        _ => None,
    }
}

fn number(v: &Value, half: Option<bool>, name: &str) -> Result<f64, CounterError> {
    let field = name.to_string();
    match (v, half) {
        (Value::Int(x), None) => Ok(*x as f64),
        (Value::Fixed(x), None) => Ok(x.to_f64()),
        (Value::HitMiss { hit, .. }, Some(true)) => Ok(*hit as f64),
        (Value::HitMiss { miss, .. }, Some(false)) => Ok(*miss as f64),
        (Value::HitMiss { .. }, None) => Err(CounterError::HitMiss { field }),
        (Value::NotAvailable, _) => Err(CounterError::ZeroDenominator { field }),
        (other, _) => Err(CounterError::NotANumber {
            field,
            value: other.to_string(),
        }),
    }
}

/// A field of one window as a number; `Err` says why it is absent.
pub fn window_value(w: &Window, name: &str) -> Result<f64, CounterError> {
    match raw(w, name) {
        Some((v, half)) => number(v, half, name),
        None => Err(CounterError::Absent {
            field: name.to_string(),
        }),
    }
}

/// A field over the steady state, by its kind: per-frame values Σ(v·window)/Σwindow (`draws/f`
/// exactly Σdraws/Σwindow), `acc/draw` Σacc/Σdraws, counts and gate halves summed, gauges and
/// run totals the last value. Absent in any window = absent.
pub fn steady_value(ws: &[&Window], name: &str) -> Result<f64, CounterError> {
    let field = || name.to_string();
    let Some(last) = ws.last() else {
        return Err(CounterError::NoSteadyWindow { field: field() });
    };
    let frames: u64 = ws.iter().map(|w| w.window).sum();
    let draws: u64 = ws.iter().map(|w| w.draws).sum();
    let ratio = |a: u64, b: u64| {
        if b == 0 {
            Err(CounterError::ZeroDenominator { field: field() })
        } else {
            Ok(a as f64 / b as f64)
        }
    };
    match name {
        "draws/f" => return ratio(draws, frames),
        "acc/draw" => return ratio(ws.iter().map(|w| w.acc).sum(), draws),
        _ => {}
    }
    let kind = last
        .fields
        .iter()
        .find(|f| f.name() == name || f.key == name)
        .map(|f| f.kind());
    let mut values = Vec::with_capacity(ws.len());
    for w in ws {
        values.push((window_value(w, name)?, w.window));
    }
    Ok(match kind {
        Some(FieldKind::PerFrame) => {
            if frames == 0 {
                return Err(CounterError::ZeroFrames { field: field() });
            }
            values.iter().map(|(v, n)| v * *n as f64).sum::<f64>() / frames as f64
        }
        Some(FieldKind::Gauge | FieldKind::RunTotal) => values.last().map_or(0.0, |v| v.0),
        _ => values.iter().map(|v| v.0).sum(),
    })
}

/// One finding of a contract (an error; its unit is the contract's name; it points into a log).
pub type Finding = Violation<Code>;

fn finding(code: Code, contract: &str, message: String) -> Finding {
    crate::violation::violation(code, Severity::Error, contract, message)
}

/// What one run of every contract found.
#[derive(Debug, Clone, Default)]
pub struct Outcome {
    pub findings: Vec<Finding>,
    pub contracts: usize,
    /// Expect lines evaluated (per log, session and window).
    pub checks: usize,
    pub logs: Vec<String>,
}

impl Outcome {
    /// Contracts broken (CNT001 findings).
    pub fn broken(&self) -> usize {
        self.findings
            .iter()
            .filter(|f| f.code == Code::Cnt001)
            .count()
    }

    /// The gate's headline: `C contracts / L logs / K checks / B broken`.
    pub fn headline(&self) -> String {
        format!(
            "{} contracts / {} logs / {} checks / {} broken",
            self.contracts,
            self.logs.len(),
            self.checks,
            self.broken()
        )
    }
}

fn fmt_num(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{v:.0}")
    } else {
        format!("{v:.2}")
    }
}

/// One judged unit of a session: a label, its line and the windows it covers.
type Target<'a> = (String, usize, Vec<&'a Window>);

/// The windows a contract reads in one session, with a label and a line: `Err` when there is none.
fn targets<'a>(
    c: &Contract,
    s: &'a Session,
    steady: SteadyRange,
) -> Result<Vec<Target<'a>>, CounterError> {
    let complete = s.complete_windows();
    if complete.is_empty() {
        return Err(CounterError::NoCompleteStats);
    }
    Ok(match c.window {
        WindowSel::LastComplete => complete
            .last()
            .map(|w| {
                vec![(
                    format!("last complete window frames={}", w.item.frames),
                    w.line,
                    vec![&w.item],
                )]
            })
            .unwrap_or_default(),
        WindowSel::EveryComplete => complete
            .iter()
            .map(|w| {
                (
                    format!("complete window frames={}", w.item.frames),
                    w.line,
                    vec![&w.item],
                )
            })
            .collect(),
        WindowSel::Steady => {
            let to = steady.to.unwrap_or(complete.len());
            if steady.from > to || to > complete.len() {
                return Err(CounterError::SteadyRange {
                    from: steady.from,
                    to,
                    complete: complete.len(),
                });
            }
            let ws = &complete[steady.from - 1..to];
            vec![(
                format!("steady state (complete windows {}..{to})", steady.from),
                ws.first().map_or(0, |w| w.line),
                ws.iter().map(|w| &w.item).collect(),
            )]
        }
    })
}

/// Evaluates one contract over parsed logs (`(rel, log)`); pure.
pub fn evaluate(c: &Contract, logs: &[(String, Log)]) -> (Vec<Finding>, usize) {
    let mut out = Vec::new();
    let mut checks = 0;
    let finding = |code: Code, message: String, path: Option<&str>, line: Option<usize>| {
        crate::violation::placed(
            finding(code, &c.name, message),
            path.map(str::to_string),
            line,
        )
    };
    let why = if c.why.is_empty() {
        String::new()
    } else {
        format!(" (why: {})", c.why)
    };
    let mut parsed = Vec::new();
    for e in &c.expect {
        match parse_expect(e) {
            Ok(x) => parsed.push((e.trim().to_string(), x)),
            Err(m) => out.push(finding(
                Code::Cnt005,
                format!("contract {}: expect {m}", c.name),
                None,
                None,
            )),
        }
    }
    let steady = match &c.steady {
        None => SteadyRange::default(),
        Some(s) => match SteadyRange::parse(s) {
            Some(r) => r,
            None => {
                out.push(finding(
                    Code::Cnt005,
                    format!(
                        "contract {}: steady = {s:?}: expected FROM, FROM.. or FROM..TO",
                        c.name
                    ),
                    None,
                    None,
                ));
                return (out, 0);
            }
        },
    };
    if logs.is_empty() {
        out.push(finding(
            Code::Cnt002,
            format!(
                "contract {}: no log matches logs = {:?}: nothing was checked{why}",
                c.name, c.logs
            ),
            None,
            None,
        ));
        return (out, 0);
    }
    for (rel, log) in logs {
        let sessions: Vec<&Session> = log
            .reported_sessions()
            .into_iter()
            .filter(|s| !s.windows.is_empty())
            .collect();
        if sessions.is_empty() {
            out.push(finding(
                Code::Cnt004,
                format!("contract {}: {rel}: no `MGPipe stats:` window", c.name),
                Some(rel),
                None,
            ));
            continue;
        }
        for s in sessions {
            let who = format!(
                "session {} ({}{})",
                s.index,
                s.role.as_str(),
                s.pid.map(|p| format!(", pid {p}")).unwrap_or_default()
            );
            let ts = match targets(c, s, steady) {
                Ok(t) => t,
                Err(m) => {
                    out.push(finding(
                        Code::Cnt004,
                        format!("contract {}: {rel} {who}: {m}", c.name),
                        Some(rel),
                        Some(s.start_line),
                    ));
                    continue;
                }
            };
            for (label, line, ws) in &ts {
                let value = |name: &str| match c.window {
                    WindowSel::Steady => steady_value(ws, name),
                    _ => ws.first().map_or_else(
                        || {
                            Err(CounterError::Absent {
                                field: name.to_string(),
                            })
                        },
                        |w| window_value(w, name),
                    ),
                };
                for (text, x) in &parsed {
                    checks += 1;
                    let lhs = value(&x.lhs);
                    let rhs = match &x.rhs {
                        Operand::Const(v) => Ok(*v),
                        Operand::Field(f) => value(f),
                    };
                    let at = format!("{rel}:{line} {who}, {label}");
                    match (lhs, rhs) {
                        (Ok(a), Ok(b)) if x.op.holds(a, b) => {}
                        (Ok(a), Ok(b)) => {
                            let shown = match &x.rhs {
                                Operand::Const(_) => format!("{} = {}", x.lhs, fmt_num(a)),
                                Operand::Field(f) => {
                                    format!("{} = {}, {f} = {}", x.lhs, fmt_num(a), fmt_num(b))
                                }
                            };
                            out.push(finding(
                                Code::Cnt001,
                                format!(
                                    "contract {} broken: `{text}` does not hold ({shown}) at {at}{why}",
                                    c.name
                                ),
                                Some(rel),
                                Some(*line),
                            ));
                        }
                        (Err(m), _) | (_, Err(m)) => out.push(finding(
                            Code::Cnt003,
                            format!(
                                "contract {}: `{text}` cannot be evaluated: {m} at {at} (an absent field fails){why}",
                                c.name
                            ),
                            Some(rel),
                            Some(*line),
                        )),
                    }
                }
            }
        }
    }
    (out, checks)
}

/// The gate's entry point: every contract of `cfg` over the workspace at `root`.
pub fn run(root: &Path, cfg: &CountersConfig) -> Outcome {
    let mut o = Outcome {
        contracts: cfg.expect.len(),
        ..Outcome::default()
    };
    for c in &cfg.expect {
        if let Some(dir) = &c.session {
            let (f, n) = session_contract(root, c, dir, &mut o.logs);
            o.findings.extend(f);
            o.checks += n;
            continue;
        }
        let files = match inputs::read_matching(root, &c.logs, &format!("contract {} logs", c.name))
        {
            Ok(f) => f,
            Err(m) => {
                o.findings
                    .push(finding(Code::Cnt004, &c.name, m.to_string()));
                continue;
            }
        };
        let (f, n) = evaluate_files(c, &files, &mut o.logs);
        o.findings.extend(f);
        o.checks += n;
        if let Some(lib) = &c.produced_by {
            let name = &c.name;
            let warn =
                |m: String| crate::violation::violation(Code::Cnt006, Severity::Warning, name, m);
            match inputs::older_than_library(root, lib, &files) {
                Ok(old) => o.findings.extend(old.into_iter().map(|rel| {
                    warn(format!("contract {name}: {rel} is older than {lib}, the library that produced it: it counts an older build (re-run it)")).file(rel)
                })),
                Err(why) => o.findings.push(warn(format!("contract {name}: {why}"))),
            }
        }
    }
    o.logs.sort();
    o.logs.dedup();
    o
}

/// A contract over a device session: the `role` log of every proven arm (of `arm`, if given).
/// Under spawn the client's `srv`, `srvpark`, `frames` and `window` are another process's, so a
/// contract reading them there is an error (CNT007), never a measurement of zero.
fn session_contract(
    root: &Path,
    c: &Contract,
    dir: &str,
    seen: &mut Vec<String>,
) -> (Vec<Finding>, usize) {
    let fail = |code: Code, m: String| vec![finding(code, &c.name, m)];
    if !c.logs.is_empty() {
        return (
            fail(
                Code::Cnt005,
                format!(
                    "contract {}: give either `logs` or `session` (exactly one)",
                    c.name
                ),
            ),
            0,
        );
    }
    let input = match crate::devsession::load(&root.join(dir)) {
        Ok(i) => i,
        Err(e) => {
            return (
                fail(
                    Code::Cnt004,
                    format!("contract {}: session {dir}: {e}", c.name),
                ),
                0,
            )
        }
    };
    let report = match crate::devsession::analyse(&input, &crate::devsession::Options::default()) {
        Ok(r) => r,
        Err(e) => {
            return (
                fail(
                    Code::Cnt004,
                    format!("contract {}: session {dir}: {e}", c.name),
                ),
                0,
            )
        }
    };
    let fields: Vec<String> = c
        .expect
        .iter()
        .filter_map(|e| parse_expect(e).ok())
        .flat_map(|x| {
            let mut v = vec![x.lhs.clone()];
            if let Operand::Field(f) = &x.rhs {
                v.push(f.clone());
            }
            v
        })
        .collect();
    let mut out = Vec::new();
    let mut logs = Vec::new();
    for arm in &input.arms {
        let proven = report
            .arms
            .iter()
            .any(|r| r.label == arm.label && r.status == crate::devsession::Status::Proven);
        if !proven || c.arm.as_deref().is_some_and(|t| t != arm.transport_label) {
            continue;
        }
        if c.role == SessionRole::Client && arm.transport == crate::devsession::Transport::Spawn {
            let at = arm.client.as_ref().map(|l| format!("{dir}/{}", l.shown));
            for f in fields
                .iter()
                .filter(|f| SPAWN_CLIENT_STRUCTURAL.contains(&f.as_str()))
            {
                let d = finding(
                    Code::Cnt007,
                    &c.name,
                    format!(
                        "contract {}: arm {} ({}): the client's `{f}` is a structural zero under spawn (the server process counts it): read role = \"server\"",
                        c.name,
                        diag::escape::line(&arm.label),
                        diag::escape::line(&arm.transport_label)
                    ),
                );
                out.push(match &at {
                    Some(p) => d.file(p.clone()),
                    None => d,
                });
            }
        }
        let log = match c.role {
            SessionRole::Client => arm.client.as_ref(),
            SessionRole::Server => arm.server.as_ref(),
        };
        if let Some(l) = log {
            let rel = format!("{dir}/{}", l.shown);
            seen.push(rel.clone());
            logs.push((rel, l.log.clone()));
        }
    }
    if !out.is_empty() {
        return (out, 0);
    }
    if logs.is_empty() {
        let of = c
            .arm
            .as_deref()
            .map(|t| format!(" of transport {t}"))
            .unwrap_or_default();
        let role = match c.role {
            SessionRole::Client => "client",
            SessionRole::Server => "server",
        };
        return (
            fail(
                Code::Cnt002,
                format!("contract {}: session {dir}: no proven arm{of} has a {role} log: nothing was checked", c.name),
            ),
            0,
        );
    }
    let (mut f, n) = evaluate(c, &logs);
    out.append(&mut f);
    (out, n)
}

fn evaluate_files(
    c: &Contract,
    files: &[InputFile],
    seen: &mut Vec<String>,
) -> (Vec<Finding>, usize) {
    let mut logs = Vec::new();
    let mut bad = Vec::new();
    for f in files {
        seen.push(f.rel.clone());
        match Log::parse(Path::new(&f.rel), &f.bytes) {
            Ok(l) => logs.push((f.rel.clone(), l)),
            Err(e) => bad.push(
                finding(
                    Code::Cnt004,
                    &c.name,
                    format!("contract {}: unreadable log: {e}", c.name),
                )
                .file(f.rel.clone()),
            ),
        }
    }
    if logs.is_empty() && !bad.is_empty() {
        return (bad, 0);
    }
    let (mut f, n) = evaluate(c, &logs);
    bad.append(&mut f);
    (bad, n)
}

const BANNER: &str = "[10:00:00] [Linux t/INFO]: MGPipe stats: counters ON (MOBILEGL_PIPE_STATS), summary every 60 frames\n";

fn window_line(frames: u64, csom: u64, csob: u64, resid: &str) -> String {
    format!("[10:00:01] [Linux t/INFO]: MGPipe stats: frames={frames} window=60 draws=600 draws/f=10.00 acc=1200 acc/draw=2.00 bytes/f[buf=8.00 resid={resid}] cso[csom={csom} csob={csob} mpr=0] gates[ers=1/2]\n")
}

/// Self-test controls, through [`evaluate_files`] as a real run. `neutered(name)` feeds that
/// negative control its clean twin.
pub fn run_controls(neutered: &dyn Fn(&str) -> bool) -> Vec<Control> {
    let clean = format!(
        "{BANNER}{}{}",
        window_line(60, 6, 241, "0.00"),
        window_line(120, 0, 241, "12.50")
    );
    let broken = format!(
        "{BANNER}{}{}",
        window_line(60, 0, 241, "0.00"),
        window_line(120, 64, 64, "12.50")
    );
    let no_cso = format!(
        "{BANNER}[10:00:01] [Linux t/INFO]: MGPipe stats: frames=60 window=60 draws=600 draws/f=10.00 acc=1200 acc/draw=2.00 bytes/f[buf=8.00 resid=1.00] gates[ers=1/2]\n"
    );
    let contract = |expect: &[&str]| Contract {
        name: "selftest".into(),
        logs: vec!["selftest.log".into()],
        window: WindowSel::LastComplete,
        steady: None,
        expect: expect.iter().map(|s| s.to_string()).collect(),
        why: "self-test".into(),
        produced_by: None,
        session: None,
        role: SessionRole::Client,
        arm: None,
    };
    let cso = [
        "csom <= 4",
        "csom < csob",
        "csob >= 16",
        "bytes/f.resid > 0",
    ];
    // (name, expect trip, code, bad log, clean twin, expect lines)
    type Case<'a> = (&'a str, bool, Code, String, String, Vec<&'a str>);
    let cases: Vec<Case<'_>> = vec![
        (
            "contract-broken",
            true,
            Code::Cnt001,
            broken,
            clean.clone(),
            cso.to_vec(),
        ),
        (
            "absent-field",
            true,
            Code::Cnt003,
            no_cso,
            clean.clone(),
            cso.to_vec(),
        ),
        (
            "no-logs",
            true,
            Code::Cnt002,
            String::new(),
            clean.clone(),
            cso.to_vec(),
        ),
        (
            "contract-holds",
            false,
            Code::Cnt001,
            clean.clone(),
            clean,
            cso.to_vec(),
        ),
    ];
    let mut out = Vec::new();
    for (name, expect_trip, code, bad, good, lines) in cases {
        let text = if expect_trip && neutered(name) {
            good
        } else {
            bad
        };
        let files: Vec<InputFile> = if text.is_empty() {
            Vec::new()
        } else {
            vec![InputFile::new(
                "selftest.log".into(),
                "selftest.log".into(),
                text.into_bytes(),
            )]
        };
        let (fs, _) = evaluate_files(&contract(&lines), &files, &mut Vec::new());
        let hit = fs
            .iter()
            .find(|f| if expect_trip { f.code == code } else { true });
        out.push(crate::budget::control_from_hit(
            name,
            expect_trip,
            code.as_str(),
            hit.map(|f| (f.code.as_str(), f.message.as_str())),
        ));
    }
    out
}

/// A MobileGL checkout commits no device logs, so the built-in profile has no contract (the
/// gate is skipped, saying so) rather than guessing result paths.
pub fn mobilegl_profile() -> Option<CountersConfig> {
    None
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn expect_lines_parse() {
        let e = parse_expect("csom<csob").unwrap();
        assert_eq!(
            (e.lhs.as_str(), e.op, e.rhs),
            ("csom", Op::Lt, Operand::Field("csob".into()))
        );
        let e = parse_expect(" bytes/f.resid > 0 ").unwrap();
        assert_eq!(
            (e.lhs.as_str(), e.op, e.rhs),
            ("bytes/f.resid", Op::Gt, Operand::Const(0.0))
        );
        assert_eq!(parse_expect("csom == csob").unwrap().op, Op::Eq);
        assert!(parse_expect("csom = 4").is_err());
        assert!(parse_expect("csom").is_err());
        assert!(parse_expect("4 < csom").is_err());
    }

    #[test]
    fn a_log_older_than_its_library_is_named_as_a_warning() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("run.log");
        std::fs::write(&log, format!("{BANNER}{}", window_line(60, 1, 2, "1.00"))).unwrap();
        std::fs::write(dir.path().join("lib.so"), "so").unwrap();
        let old = std::time::SystemTime::now() - std::time::Duration::from_secs(60);
        std::fs::File::options()
            .write(true)
            .open(&log)
            .unwrap()
            .set_modified(old)
            .unwrap();
        let mut cfg = CountersConfig {
            expect: vec![Contract {
                name: "cso".into(),
                logs: vec!["run.log".into()],
                window: WindowSel::LastComplete,
                steady: None,
                expect: vec!["csom < csob".into()],
                why: "w".into(),
                produced_by: Some("lib.so".into()),
                session: None,
                role: SessionRole::Client,
                arm: None,
            }],
        };
        let o = run(dir.path(), &cfg);
        let f: Vec<_> = o
            .findings
            .iter()
            .filter(|f| f.code == Code::Cnt006)
            .collect();
        assert_eq!(f.len(), 1, "{:?}", o.findings);
        assert_eq!(f[0].severity, Severity::Warning);
        assert!(
            f[0].message.contains("run.log is older than lib.so"),
            "{}",
            f[0].message
        );
        // A log as new as its library is not named; an absent library says it cannot tell.
        std::fs::File::options()
            .write(true)
            .open(&log)
            .unwrap()
            .set_modified(std::time::SystemTime::now() + std::time::Duration::from_secs(5))
            .unwrap();
        assert!(!run(dir.path(), &cfg)
            .findings
            .iter()
            .any(|f| f.code == Code::Cnt006));
        cfg.expect[0].produced_by = Some("missing.so".into());
        let o = run(dir.path(), &cfg);
        assert!(o
            .findings
            .iter()
            .any(|f| f.code == Code::Cnt006 && f.message.contains("cannot be read")));
    }

    #[test]
    fn equal_counters_break_strict_less() {
        let text = format!("{BANNER}{}", window_line(60, 61654, 61654, "1.00"));
        let log = Log::parse(Path::new("x.log"), text.as_bytes()).unwrap();
        let mut c = Contract {
            name: "cso".into(),
            logs: vec![],
            window: WindowSel::LastComplete,
            steady: None,
            expect: vec!["csom < csob".into()],
            why: "content addressing".into(),
            produced_by: None,
            session: None,
            role: SessionRole::Client,
            arm: None,
        };
        let (f, n) = evaluate(&c, &[("x.log".into(), log.clone())]);
        assert_eq!(n, 1);
        assert_eq!(f.len(), 1, "{f:?}");
        assert!(
            f[0].message.contains("csom = 61654, csob = 61654"),
            "{}",
            f[0].message
        );
        c.expect = vec!["csom == csob".into(), "gates.ers.miss >= 2".into()];
        assert!(evaluate(&c, &[("x.log".into(), log)]).0.is_empty());
    }

    #[test]
    fn a_malformed_value_is_absent_and_quoted() {
        let text =
            format!("{BANNER}{}", window_line(60, 1, 2, "1.00")).replace("csom=1", "csom=1x");
        let log = Log::parse(Path::new("x.log"), text.as_bytes()).unwrap();
        let w = &log.reported_session().unwrap().windows[0].item;
        let e = window_value(w, "csom").unwrap_err();
        assert!(e.to_string().contains("not a number (\"1x\")"), "{e}");
    }

    #[test]
    fn steady_sums_and_weights() {
        let text = format!(
            "{BANNER}{}{}{}",
            window_line(60, 1, 10, "1.00"),
            window_line(120, 2, 10, "2.00"),
            window_line(180, 3, 10, "4.00")
        );
        let log = Log::parse(Path::new("x.log"), text.as_bytes()).unwrap();
        let s = log.reported_session().unwrap();
        let ws: Vec<&Window> = s.complete_windows()[1..].iter().map(|w| &w.item).collect();
        assert_eq!(steady_value(&ws, "csom").unwrap(), 5.0);
        assert_eq!(steady_value(&ws, "bytes/f.resid").unwrap(), 3.0);
        assert_eq!(steady_value(&ws, "acc/draw").unwrap(), 2.0);
        assert!(steady_value(&ws, "nope").is_err());
    }

    #[test]
    fn controls_trip() {
        let r = run_controls(&|_| false);
        assert!(r.iter().all(|c| c.expect_trip == c.tripped), "{r:?}");
        let r = run_controls(&|c| c == "contract-broken");
        assert!(
            r.iter().any(|c| c.name == "contract-broken" && !c.tripped),
            "{r:?}"
        );
        assert!(
            diag::controls_can_fail(&|n| run_controls(n)).unwrap_or_else(|e| panic!("{e}")) > 0
        );
    }
}
