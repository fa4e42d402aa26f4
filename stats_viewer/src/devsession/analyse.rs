//! The one analysis of a session: each arm proven (or voided, saying why) from its own role logs,
//! its counters taken from the log that counted them, its repeats reduced (best of N, spread), and
//! the proven arms compared against a baseline arm. Pure: no I/O.

use diag::Diag;

use super::load::{ArmInput, Bench, Layout, RoleLog, SessionInput, Transport};
use super::proof::{self, KNOBS};
use super::Code;
use crate::benchmark::{best_of, SeriesStats};
use crate::g4::{self, Problem};
use crate::window::Window;

/// What the caller chose.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The arm every Δ is taken against: a folder label, its `NN`, or a transport
    /// (the first proven arm of it). Default: the first proven monolith arm, else the first proven.
    pub baseline: Option<String>,
}

/// An arm's standing. Only `Proven` arms enter a comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Status {
    Proven,
    /// The log does not prove the label (SES001).
    Unproven,
    /// Pin, reboot or missing evidence (SES002, SES003, SES005).
    Void,
    /// A Fatal line in a role log (SES004).
    Failed,
    /// A stale benchmark.json (SES006).
    Refused,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Proven => "PROVEN",
            Status::Unproven => "UNPROVEN",
            Status::Void => "VOID",
            Status::Failed => "FAILED",
            Status::Refused => "REFUSED",
        }
    }
}

/// A figure and the log line it was read from.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Sourced {
    pub value: u64,
    /// `client` or `server`.
    pub role: &'static str,
    /// The log, relative to the session directory.
    pub source: String,
    pub line: usize,
}

/// Best-of-N spread of the repeats' mean wall frame time.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Spread {
    pub min_mean_ms: f64,
    pub max_mean_ms: f64,
    pub median_of_means_ms: f64,
    /// (max − min) / min × 100.
    pub pct: f64,
}

/// One repeat's figures over its tail.
#[derive(Debug, Clone, PartialEq)]
pub struct Repeat {
    pub shown: String,
    /// The device's `meanFrameMs` (the best-of-N key).
    pub mean_ms: Option<f64>,
    pub wall: Option<SeriesStats>,
    pub cpu: Option<SeriesStats>,
}

/// Δ of an arm against the baseline arm (arm − baseline, ms).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Delta {
    pub wall_mean_ms: Option<f64>,
    pub cpu_p50_ms: Option<f64>,
    pub cpu_p99_ms: Option<f64>,
}

/// A per-frame rate: the value, or why there is none (SES007).
pub type Rate = Result<f64, String>;

/// One arm, analysed.
#[derive(Debug, Clone)]
pub struct ArmReport {
    pub order: usize,
    pub label: String,
    pub dir: String,
    pub case: String,
    pub backend: String,
    pub transport_label: String,
    pub transport: Transport,
    pub status: Status,
    /// This arm's findings (its voiding reasons first), also in the session's list.
    pub diags: Vec<Diag<Code>>,
    /// The server's pid, from the `spawn ARMED` line.
    pub server_pid: Option<u32>,
    /// The frame denominator and the log that counted it.
    pub frames: Option<Sourced>,
    /// Why the client's frame figure is not the denominator, when it is not.
    pub frames_note: Option<String>,
    /// `srv`, `srvpark`, `cli`, `clipark` with their sources.
    pub waits: Vec<(&'static str, Option<Sourced>)>,
    /// Run-total gauges from the client's terminal line: `maxrec`, `maxcap`, `ringwraps`, `ringwaits`.
    pub gauges: Vec<(&'static str, Option<Sourced>)>,
    /// `<wait>/frame` for each wait.
    pub rates: Vec<(String, Rate)>,
    pub repeats: Vec<Repeat>,
    pub best: Option<usize>,
    pub spread: Option<Spread>,
    /// The best repeat's tail: CPU frame times (empty: no per-thread clock) and wall frame times.
    pub best_cpu: Vec<f64>,
    pub best_wall: Vec<f64>,
    pub delta: Option<Delta>,
    /// The PipeStats dumps merged (client, server, TCP server), when the arm has any.
    pub totals: Option<super::totals::RunTotals>,
    /// The `linkmetrics-lines.txt` rollup, when the arm has one.
    pub link: Option<super::totals::LinkRollup>,
}

impl ArmReport {
    pub fn best_repeat(&self) -> Option<&Repeat> {
        self.best.and_then(|b| self.repeats.get(b))
    }
}

/// The whole session, analysed: what every format renders.
#[derive(Debug, Clone)]
pub struct SessionReport {
    pub dir: String,
    pub layout: Layout,
    pub label: Option<String>,
    pub arms: Vec<ArmReport>,
    /// Index into `arms` of the baseline.
    pub baseline: Option<usize>,
    /// Every finding, arm by arm in session order, then the session's own.
    pub diags: Vec<Diag<Code>>,
}

impl SessionReport {
    /// The one verdict: no error finding (a voided arm is a warning, reported, not a failure).
    pub fn passed(&self) -> bool {
        !self.diags.iter().any(Diag::is_error)
    }
    pub fn proven(&self) -> impl Iterator<Item = &ArmReport> {
        self.arms.iter().filter(|a| a.status == Status::Proven)
    }
}

fn terminal(l: &RoleLog) -> Option<(usize, &Window)> {
    let s = l.log.reported_session()?;
    s.windows.last().map(|w| (w.line, &w.item))
}

fn field(l: Option<&RoleLog>, name: &str) -> Option<Sourced> {
    let l = l?;
    let role = l.log.role.as_str();
    let (line, w) = terminal(l)?;
    let value = w.get(name)?.as_int()?;
    Some(Sourced {
        value,
        role,
        source: l.shown.clone(),
        line,
    })
}

/// The arm-proof rules (docs/session.md): the library's own log, never the label.
fn prove(a: &ArmInput, out: &mut Vec<Diag<Code>>) {
    let warn = |m: String| Diag::warning(Code::Ses001, m);
    let Some(client) = &a.client else {
        out.push(
            Diag::warning(
                Code::Ses005,
                format!(
                    "arm {}: no client role log (mobilegl.client.log) to prove it from",
                    a.label
                ),
            )
            .file(&a.dir),
        );
        return;
    };
    let at = |line: usize| (client.shown.clone(), line);
    match a.transport {
        Transport::Monolith => {
            if let Some(m) = client
                .markers
                .transport
                .iter()
                .find(|m| m.text != "monolith")
            {
                let (p, l) = at(m.line);
                out.push(
                    warn(format!(
                        "arm {}: labelled monolith, but its log resolved MOBILEGL_TRANSPORT={}",
                        a.label, m.text
                    ))
                    .at(p, l as u32, None),
                );
            }
            for l in [Some(client), a.server.as_ref()].into_iter().flatten() {
                if let Some(m) = l.markers.ipc.first() {
                    out.push(warn(format!("arm {}: monolith arm wrote a `Config: IPC` line: the split knobs were armed", a.label)).at(&l.shown, m.line as u32, None));
                }
            }
        }
        Transport::Inproc | Transport::Spawn => {
            let want = if a.transport == Transport::Inproc {
                "inproc"
            } else {
                "spawn"
            };
            let ok =
                |v: &str| v == want || (a.transport_label == "spawn+tcp" && v.starts_with("tcp"));
            match client.markers.transport.last() {
                None => out.push(warn(format!("arm {}: {} carries no `Config: MOBILEGL_TRANSPORT=` marker: the transport never resolved to {want}", a.label, client.shown)).file(&client.shown)),
                Some(m) if !ok(&m.text) => {
                    let (p, l) = at(m.line);
                    out.push(warn(format!("arm {}: labelled {}, but its log resolved MOBILEGL_TRANSPORT={}", a.label, a.transport_label, m.text)).at(p, l as u32, None));
                }
                Some(_) => {}
            }
            if client.markers.ipc.is_empty() {
                out.push(
                    warn(format!(
                        "arm {}: no `Config: IPC` line in {}: the split knobs never resolved",
                        a.label, client.shown
                    ))
                    .file(&client.shown),
                );
            } else {
                for k in KNOBS {
                    if !client.markers.ipc.iter().any(|m| {
                        m.text
                            .split_whitespace()
                            .any(|w| w.trim_matches(|c: char| c == ',' || c == ';') == k)
                    }) {
                        let (p, l) = at(client.markers.ipc[0].line);
                        out.push(
                            warn(format!("arm {}: the `Config: IPC` line lacks {k}", a.label))
                                .at(p, l as u32, None),
                        );
                    }
                }
            }
            let tcp = a.transport_label == "spawn+tcp" && client.markers.tcp_session.is_some();
            if a.transport == Transport::Spawn && client.markers.spawn_armed.is_none() && !tcp {
                out.push(warn(format!("arm {}: no `spawn ARMED - the server role runs in pid N` line in {}: the server never left this process (a fallback to monolith)", a.label, client.shown)).file(&client.shown));
            }
            if a.server.is_none() {
                out.push(
                    Diag::warning(
                        Code::Ses005,
                        format!(
                            "arm {}: {} arm has no server role log (mobilegl.server.log)",
                            a.label, a.transport_label
                        ),
                    )
                    .file(&a.dir),
                );
            }
        }
    }
}

fn pins(a: &ArmInput, out: &mut Vec<Diag<Code>>) {
    for (name, text, rc) in [
        ("pin-before.txt", &a.pin_before, a.pin_before_rc),
        ("pin-after.txt", &a.pin_after, a.pin_after_rc),
    ] {
        let path = format!("{}/{name}", a.dir);
        match text {
            None if a.pins_required => out.push(
                Diag::warning(
                    Code::Ses002,
                    format!(
                        "arm {}: no {name}: the pin is unproven, the arm is void",
                        a.label
                    ),
                )
                .file(&path),
            ),
            None => {}
            Some(t) => {
                if let Err(why) = proof::pinned(t) {
                    out.push(
                        Diag::warning(
                            Code::Ses002,
                            format!("arm {}: {name} {why}: not PINNED, the arm is void", a.label),
                        )
                        .file(&path),
                    );
                }
            }
        }
        if let Some(rc) = rc.filter(|rc| *rc != 0) {
            out.push(
                Diag::warning(
                    Code::Ses002,
                    format!(
                        "arm {}: the pin script exited {rc} ({name}): not PINNED, the arm is void",
                        a.label
                    ),
                )
                .file(&path),
            );
        }
    }
}

fn reboot(s: &SessionInput, a: &ArmInput, out: &mut Vec<Diag<Code>>) {
    let m = &s.meta;
    if m.reboot {
        if let (Some(b), Some(c)) = (&m.boot_before, &m.boot_after) {
            if b == c {
                out.push(Diag::warning(Code::Ses003, format!("arm {}: --reboot was asked for, but the boot id is unchanged ({b}): no reboot happened, the arm is void", a.label)).file("session-summary.json"));
            }
        }
    }
    if let (Some(arm), Some(session)) = (&a.boot_id, &m.boot_after) {
        if arm != session {
            out.push(Diag::warning(Code::Ses003, format!("arm {}: ran under boot id {arm}, the session's is {session}: the device rebooted inside the session, the arm is void", a.label)).file(format!("{}/arm-summary.json", a.dir)));
        }
    }
}

fn fatals(a: &ArmInput, out: &mut Vec<Diag<Code>>) {
    for l in [a.client.as_ref(), a.server.as_ref()].into_iter().flatten() {
        for p in g4::verdict(&l.log, false).problems {
            if let Problem::Fatal(f) = p {
                out.push(
                    Diag::warning(
                        Code::Ses004,
                        format!(
                            "arm {}: {} in {}: the arm failed",
                            a.label,
                            f.fatal.marker_text(),
                            l.shown
                        ),
                    )
                    .at(&l.shown, f.line as u32, None),
                );
            }
        }
    }
}

fn stale(a: &ArmInput, b: &Bench, out: &mut Vec<Diag<Code>>) {
    if let (Some(t), Some(start)) = (b.mtime, a.started) {
        if t < start {
            out.push(Diag::error(Code::Ses006, format!(
                "{}: written {}, before arm {} started at {}: a stale result (another arm's?), refused",
                b.shown, super::load::format_utc(t), a.label, a.started_text.as_deref().unwrap_or("?")
            )).file(&b.shown));
        }
    }
    let case = b.file.trace_path.as_ref().map(|_| b.file.case());
    let mut wrong = Vec::new();
    if let Some(c) = case.as_ref().filter(|c| **c != a.case) {
        wrong.push(format!("case `{c}`"));
    }
    if let Some(be) = b.file.backend.as_ref().filter(|be| **be != a.backend) {
        wrong.push(format!("backend `{be}`"));
    }
    if let Some(t) = b.transport.as_ref().filter(|t| {
        **t != a.transport_label && !(a.transport == Transport::Spawn && t.as_str() == "spawn")
    }) {
        wrong.push(format!("transport `{t}`"));
    }
    if !wrong.is_empty() {
        out.push(Diag::error(Code::Ses006, format!(
            "{}: names {}, but arm {} is case `{}`, backend `{}`, transport `{}`: another arm's result, refused",
            b.shown, wrong.join(", "), a.label, a.case, a.backend, a.transport_label
        )).file(&b.shown));
    }
}

fn status_of(diags: &[Diag<Code>]) -> Status {
    let has = |c: Code| diags.iter().any(|d| d.code == c);
    if has(Code::Ses006) {
        Status::Refused
    } else if has(Code::Ses004) {
        Status::Failed
    } else if has(Code::Ses001) {
        Status::Unproven
    } else if has(Code::Ses002) || has(Code::Ses003) || has(Code::Ses005) {
        Status::Void
    } else {
        Status::Proven
    }
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        0.5 * (v[n / 2 - 1] + v[n / 2])
    }
}

fn tail(b: &Bench, series: &[f64]) -> Vec<f64> {
    let t = b.file.tail_for(series.len(), None);
    series[series.len() - t..].to_vec()
}

fn arm(s: &SessionInput, a: &ArmInput) -> ArmReport {
    let mut diags = Vec::new();
    prove(a, &mut diags);
    if a.pins_required || a.pin_before.is_some() || a.pin_after.is_some() {
        pins(a, &mut diags);
    }
    reboot(s, a, &mut diags);
    fatals(a, &mut diags);
    let benches: Vec<&Bench> = if a.runs.is_empty() {
        a.result.iter().collect()
    } else {
        a.runs.iter().collect()
    };
    if benches.is_empty() {
        diags.push(Diag::warning(Code::Ses005, format!("arm {}: no benchmark-run*.json or benchmark.json: nothing was measured, the arm is void", a.label)).file(&a.dir));
    }
    for b in a.runs.iter().chain(a.result.iter()) {
        stale(a, b, &mut diags);
    }
    let status = status_of(&diags);

    // Structural zeros: under spawn, present (and so `frames=`) and the apply thread's waits
    // live in the server process; the client's zeros there mean "another process".
    let client = a.client.as_ref();
    let server = a.server.as_ref();
    let crole = client.map_or("client", |c| c.log.role.as_str());
    let spawn = a.transport == Transport::Spawn;
    let frames = if spawn {
        field(server, "frames")
    } else {
        field(client, "frames")
    };
    let frames_note = if spawn {
        client.and_then(terminal).map(|(line, w)| {
            format!(
                "{}:{line}: client frames={} window={}: structural under spawn (present is applied in the server), not the denominator",
                client.map_or("", |c| c.shown.as_str()),
                w.frames,
                w.window
            )
        })
    } else {
        None
    };
    let pair_log = if spawn { server } else { client };
    let waits = vec![
        ("srv", field(pair_log, "wait.srv")),
        ("srvpark", field(pair_log, "wait.srvpark")),
        ("cli", field(client, "wait.cli")),
        ("clipark", field(client, "wait.clipark")),
    ];
    let gauges = ["maxrec", "maxcap", "ringwraps", "ringwaits"]
        .into_iter()
        .map(|g| (g, field(client, &format!("emit.{g}"))))
        .collect();
    let mut rates = Vec::new();
    if status == Status::Proven {
        let denominator = frames.as_ref().filter(|f| f.value > 0);
        for (name, w) in &waits {
            let Some(w) = w else { continue };
            let r = match denominator {
                Some(f) => Ok(w.value as f64 / f.value as f64),
                None => {
                    let why = match (&frames, spawn) {
                        (Some(f), true) => format!("the server log {} counted frames={} (line {}), and the client's frames=0 is structural under spawn", f.source, f.value, f.line),
                        (None, true) => format!("the server log {} has no `MGPipe stats:` line, and the client's frames=0 is structural under spawn", server.map_or("(none)", |l| l.shown.as_str())),
                        (Some(f), false) => format!("the {} log {} counted frames={} (line {})", f.role, f.source, f.value, f.line),
                        (None, false) => format!("the {crole} log has no `MGPipe stats:` line"),
                    };
                    let msg = format!("arm {}: {name}/frame is a rate over a structural zero: {why}; no log counted this arm's frames", a.label);
                    diags.push(Diag::error(Code::Ses007, msg.clone()).file(&a.dir));
                    Err(msg)
                }
            };
            rates.push((format!("{name}/frame"), r));
        }
    }

    let repeats: Vec<Repeat> = benches
        .iter()
        .map(|b| Repeat {
            shown: b.shown.clone(),
            mean_ms: b.file.mean_frame_ms,
            wall: SeriesStats::of(&tail(b, &b.file.wall)),
            cpu: SeriesStats::of(&tail(b, &b.file.cpu)),
        })
        .collect();
    let files: Vec<_> = benches.iter().map(|b| b.file.clone()).collect();
    let best = best_of(&files);
    let mut means: Vec<f64> = repeats
        .iter()
        .filter_map(|r| r.mean_ms.filter(|m| *m > 0.0).or(r.wall.map(|w| w.mean)))
        .collect();
    let spread = (!means.is_empty()).then(|| {
        let min = means.iter().copied().fold(f64::INFINITY, f64::min);
        let max = means.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        Spread {
            min_mean_ms: min,
            max_mean_ms: max,
            median_of_means_ms: median(&mut means),
            pct: if min > 0.0 {
                (max - min) / min * 100.0
            } else {
                0.0
            },
        }
    });
    let (best_cpu, best_wall) = best
        .and_then(|i| benches.get(i))
        .map(|b| (tail(b, &b.file.cpu), tail(b, &b.file.wall)))
        .unwrap_or_default();
    ArmReport {
        order: a.order,
        label: a.label.clone(),
        dir: a.dir.clone(),
        case: a.case.clone(),
        backend: a.backend.clone(),
        transport_label: a.transport_label.clone(),
        transport: a.transport,
        status,
        diags,
        server_pid: client.and_then(|c| {
            c.markers
                .spawn_armed
                .or(c.markers.tcp_session)
                .map(|(_, p)| p)
        }),
        frames,
        frames_note,
        waits,
        gauges,
        rates,
        repeats,
        best,
        spread,
        best_cpu,
        best_wall,
        delta: None,
        totals: super::totals::RunTotals::merge(&a.dumps),
        link: a
            .link_lines
            .as_ref()
            .and_then(|(shown, text)| super::totals::LinkRollup::parse(shown, text)),
    }
}

/// A usage error of the analysis.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AnalyseError {
    #[error("--baseline {baseline}: no arm has that label, number or transport (arms: {})", .arms.join(", "))]
    NoSuchBaseline {
        baseline: String,
        /// Every arm's label, in order.
        arms: Vec<String>,
    },
}

fn pick_baseline(arms: &[ArmReport], want: Option<&str>) -> Result<Option<usize>, AnalyseError> {
    let proven = |i: &usize| arms[*i].status == Status::Proven;
    match want {
        None => Ok((0..arms.len())
            .filter(proven)
            .find(|&i| arms[i].transport == Transport::Monolith)
            .or_else(|| (0..arms.len()).find(proven))),
        Some(w) => {
            if let Some(i) = arms.iter().position(|a| a.label == w || a.dir == w) {
                return Ok(Some(i));
            }
            if let Ok(n) = w.parse::<usize>() {
                if let Some(i) = arms.iter().position(|a| a.order == n) {
                    return Ok(Some(i));
                }
            }
            let of: Vec<usize> = (0..arms.len())
                .filter(|&i| arms[i].transport_label == w)
                .collect();
            if let Some(&i) = of.iter().find(|i| proven(i)).or(of.first()) {
                return Ok(Some(i));
            }
            Err(AnalyseError::NoSuchBaseline {
                baseline: w.to_string(),
                arms: arms.iter().map(|a| a.label.clone()).collect(),
            })
        }
    }
}

fn delta(a: &ArmReport, b: &ArmReport) -> Delta {
    let (ar, br) = (a.best_repeat(), b.best_repeat());
    let d = |f: &dyn Fn(&Repeat) -> Option<f64>| Some(f(ar?)? - f(br?)?);
    Delta {
        wall_mean_ms: d(&|r| r.wall.map(|w| w.mean)),
        cpu_p50_ms: d(&|r| r.cpu.map(|c| c.median)),
        cpu_p99_ms: d(&|r| r.cpu.map(|c| c.p99)),
    }
}

/// The one entry point (the command renders it; nothing else decides).
/// `Err` is a usage error: a `--baseline` that names no arm.
pub fn analyse(s: &SessionInput, opts: &Options) -> Result<SessionReport, AnalyseError> {
    let mut arms: Vec<ArmReport> = s.arms.iter().map(|a| arm(s, a)).collect();
    let baseline = pick_baseline(&arms, opts.baseline.as_deref())?;
    let mut session_diags = Vec::new();
    match baseline {
        None => session_diags.push(Diag::error(
            Code::Ses008,
            "no arm is proven: nothing was compared",
        )),
        Some(b) if arms[b].status != Status::Proven => session_diags.push(Diag::error(
            Code::Ses008,
            format!(
                "the baseline arm {} is {}: no Δ is taken against an arm that is not proven",
                arms[b].label,
                arms[b].status.as_str()
            ),
        )),
        Some(b) => {
            let base = arms[b].clone();
            for (i, a) in arms.iter_mut().enumerate() {
                if i != b && a.status == Status::Proven {
                    a.delta = Some(delta(a, &base));
                }
            }
        }
    }
    let mut diags: Vec<Diag<Code>> = arms.iter().flat_map(|a| a.diags.iter().cloned()).collect();
    diags.extend(session_diags);
    Ok(SessionReport {
        dir: s.dir.display().to_string(),
        layout: s.layout,
        label: s.meta.label.clone(),
        arms,
        baseline,
        diags,
    })
}
