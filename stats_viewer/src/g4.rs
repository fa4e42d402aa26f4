//! MobileGL's G4 verdict (zero `Fatal{…}` lines, every verify run armed, no failed runner case):
//! the one place it is decided. `mgctl stats fatals` renders a [`Verdict`] per log; the `fatals`
//! gate of `mgctl check` runs [`check`] over the configured logs and maps each [`Problem`] to a
//! finding by its [`Code`]; both self-test through [`run_controls`], along the same path.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use globset::{Glob, GlobSetBuilder};

use crate::fatal::TranscriptVerify;
use crate::session::{FatalLine, Log};
use crate::violation::Severity;

/// `[fatals]` in mgctl.toml.
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FatalsConfig {
    /// Workspace-relative globs of logs (file sink, logcat captures, role logs, ctest transcripts).
    pub logs: Vec<String>,
    /// G4: every log must also carry the verify arming line (`MGPipe: verify armed`).
    #[serde(default = "default_verify")]
    pub verify: bool,
}

fn default_verify() -> bool {
    true
}

/// A MobileGL checkout commits no logs: device and ctest logs live in build and result directories
/// that differ per lane, so the built-in profile leaves the gate unconfigured (skipped, with the
/// reason) rather than guessing paths.
pub fn mobilegl_profile() -> Option<FatalsConfig> {
    None
}

diag::codes! {
    /// Finding codes of the `fatals` gate (docs/codes.md).
    pub enum Code: "FAT" {
        Fat001 = "FAT001": "a Fatal{…} line in a configured log: the run died there",
        Fat002 = "FAT002": "verify is required and the log never armed it",
        Fat003 = "FAT003": "a configured log is unreadable or binary, or the logs could not be listed",
        Fat004 = "FAT004": "the retrace runner failed a case with MGPipe Fatals under verify",
        Fat005 = "FAT005": "no file matches [fatals] logs: nothing was checked",
    }
}

/// One reason a log fails G4.
#[derive(Debug, Clone, PartialEq)]
pub enum Problem {
    /// A `Fatal{…}` line (FAT001).
    Fatal(FatalLine),
    /// A ctest transcript's runner failed a case (FAT004).
    RunnerFailed {
        line: usize,
        case: String,
        backend: String,
        fatals: u64,
    },
    /// Verify required and never armed (FAT002).
    NeverArmed,
}

/// A G4 problem of one log as a `fatals` gate violation.
pub type Violation = crate::violation::Violation<Code>;

impl Problem {
    pub fn code(&self) -> Code {
        match self {
            Problem::Fatal(_) => Code::Fat001,
            Problem::RunnerFailed { .. } => Code::Fat004,
            Problem::NeverArmed => Code::Fat002,
        }
    }

    /// 1-based line of the log, where there is one.
    pub fn line(&self) -> Option<usize> {
        match self {
            Problem::Fatal(f) => Some(f.line),
            Problem::RunnerFailed { line, .. } => Some(*line),
            Problem::NeverArmed => None,
        }
    }

    /// The one wording of this problem, in every output.
    pub fn message(&self) -> String {
        match self {
            Problem::Fatal(f) => format!("{} (the run died here)", f.fatal.marker_text()),
            Problem::RunnerFailed {
                case,
                backend,
                fatals,
                ..
            } => format!(
                "the retrace runner failed {case} {backend}: {fatals} MGPipe Fatal(s) under MOBILEGL_PIPE_VERIFY"
            ),
            Problem::NeverArmed => "verify never armed: no `MGPipe: verify armed` line (a verify run whose log lacks it never armed)".to_string(),
        }
    }
}

/// The G4 verdict of one log.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    /// Verify was required (`--verify`, `[fatals] verify`).
    pub verify: bool,
    pub armed: bool,
    pub windows: usize,
    pub fatal_lines: usize,
    /// In order: Fatal lines, failed runner cases, then a missing arming line.
    pub problems: Vec<Problem>,
}

impl Verdict {
    pub fn pass(&self) -> bool {
        self.problems.is_empty()
    }
}

/// Decides G4 for one parsed log. Every Fatal line and every failed runner case fails it; with
/// `verify` a log that never armed fails it too.
pub fn verdict(log: &Log, verify: bool) -> Verdict {
    let mut problems: Vec<Problem> = log.fatals.iter().cloned().map(Problem::Fatal).collect();
    for t in &log.transcript {
        if let TranscriptVerify::Failed {
            case,
            backend,
            fatals,
        } = &t.item
        {
            problems.push(Problem::RunnerFailed {
                line: t.line,
                case: case.clone(),
                backend: backend.clone(),
                fatals: *fatals,
            });
        }
    }
    let armed = log.verify_armed();
    if verify && !armed {
        problems.push(Problem::NeverArmed);
    }
    Verdict {
        verify,
        armed,
        windows: log.window_count(),
        fatal_lines: log.fatals.len(),
        problems,
    }
}

/// Why the gate could not run at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CheckError {
    #[error("[fatals] logs: bad glob {glob:?}: {reason}")]
    BadGlob { glob: String, reason: String },
    #[error("{}: cannot list: {reason}", .dir.display())]
    List { dir: PathBuf, reason: String },
    #[error("no log matches [fatals] logs = {globs:?}: nothing was checked")]
    NoMatch { globs: Vec<String> },
}

impl CheckError {
    pub fn code(&self) -> Code {
        match self {
            CheckError::NoMatch { .. } => Code::Fat005,
            _ => Code::Fat003,
        }
    }
}

/// One configured log: its workspace-relative path and its verdict, or why it could not be read
/// (FAT003, the message naming the relative path).
#[derive(Debug, Clone, PartialEq)]
pub struct LogOutcome {
    pub rel: String,
    pub verdict: Result<Verdict, String>,
}

/// The gate's run over every configured log.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckOutcome {
    pub logs: Vec<LogOutcome>,
}

impl CheckOutcome {
    fn sum(&self, f: impl Fn(&Verdict) -> usize) -> usize {
        self.logs
            .iter()
            .filter_map(|l| l.verdict.as_ref().ok())
            .map(f)
            .sum()
    }

    pub fn windows(&self) -> usize {
        self.sum(|v| v.windows)
    }

    pub fn fatal_lines(&self) -> usize {
        self.sum(|v| v.fatal_lines)
    }

    pub fn armed(&self) -> usize {
        self.sum(|v| usize::from(v.armed))
    }

    /// The logs' workspace-relative paths, in order.
    pub fn rels(&self) -> Vec<String> {
        self.logs.iter().map(|l| l.rel.clone()).collect()
    }

    /// Every problem of every log as a gate violation (its unit and path the log's relative path),
    /// a log that could not be read as FAT003.
    pub fn violations(&self) -> Vec<Violation> {
        let mut out = Vec::new();
        for l in &self.logs {
            let at = |code: Code, message: String, line: Option<usize>| {
                crate::violation::placed(
                    crate::violation::violation(code, Severity::Error, &l.rel, message),
                    Some(l.rel.clone()),
                    line,
                )
            };
            match &l.verdict {
                Ok(v) => out.extend(v.problems.iter().map(|p| {
                    let mut v = at(p.code(), p.message(), p.line());
                    if let Problem::Fatal(fl) = p {
                        let x = &fl.fatal;
                        v.detail = Some(serde_json::json!({"kind": x.kind, "detail": x.detail, "extras": x.extras, "tail": x.tail, "verify_kind": x.is_verify_kind()}));
                    }
                    v
                })),
                Err(e) => out.push(at(Code::Fat003, e.clone(), None)),
            }
        }
        out
    }

    /// The headline: `N logs / W windows / F Fatal lines / armed A/N`.
    pub fn headline(&self) -> String {
        let n = self.logs.len();
        format!(
            "{n} logs / {} windows / {} Fatal lines / armed {}/{n}",
            self.windows(),
            self.fatal_lines(),
            self.armed()
        )
    }
}

/// Opens and parses one log from disk (streamed: memory holds the windows, not the file).
pub fn read_log(path: &Path) -> Result<Log, crate::Error> {
    Log::open(path)
}

/// Runs G4 over the workspace files matching `cfg.logs` (skipping `.git` and `target`).
pub fn check(root: &Path, cfg: &FatalsConfig) -> Result<CheckOutcome, CheckError> {
    check_overlay(root, cfg, &BTreeMap::new())
}

/// [`check`] where `overlay` (workspace-relative path -> bytes) replaces the bytes of logs on
/// disk: the live controls mutate the workspace in memory, never on disk. The list is the disk's.
pub fn check_overlay(
    root: &Path,
    cfg: &FatalsConfig,
    overlay: &BTreeMap<String, Vec<u8>>,
) -> Result<CheckOutcome, CheckError> {
    let paths = matching_logs(root, &cfg.logs)?;
    if paths.is_empty() {
        return Err(CheckError::NoMatch {
            globs: cfg.logs.clone(),
        });
    }
    let logs = paths
        .iter()
        .map(|p| {
            let rel = crate::budget::inputs::rel(root, p);
            let log = match overlay.get(&rel) {
                Some(bytes) => Log::parse(p, bytes),
                None => read_log(p),
            };
            let verdict = log.map(|log| verdict(&log, cfg.verify)).map_err(|e| {
                format!(
                    "unreadable log: {}",
                    e.to_string().replace(&p.display().to_string(), &rel)
                )
            });
            LogOutcome { rel, verdict }
        })
        .collect();
    Ok(CheckOutcome { logs })
}

fn matching_logs(root: &Path, globs: &[String]) -> Result<Vec<PathBuf>, CheckError> {
    let mut b = GlobSetBuilder::new();
    for g in globs {
        b.add(Glob::new(g).map_err(|e| CheckError::BadGlob {
            glob: g.clone(),
            reason: e.to_string(),
        })?);
    }
    let set = b.build().map_err(|e| CheckError::BadGlob {
        glob: globs.join(", "),
        reason: e.to_string(),
    })?;
    crate::budget::inputs::walk_globs(root, globs, &set).map_err(|(dir, e)| CheckError::List {
        dir,
        reason: e.to_string(),
    })
}

/// The live controls (issue 18 item 7), one per `[fatals] logs` glob (`live-<glob>`): a `Fatal{…}`
/// line appended to the first log the glob matches, in an in-memory overlay of the workspace at
/// `root`, must make [`check_overlay`] report it. A glob that matches no log cannot go red there,
/// so its control fails with that reason. `neutered(name)` runs it on the unmutated logs.
pub fn live_controls(
    root: &Path,
    cfg: &FatalsConfig,
    neutered: &dyn Fn(&str) -> bool,
) -> Vec<Control> {
    const FATAL: &str = "[00:00:00] [Linux mgctl-live-control/FATAL]: MGPipe: Fatal{PipeVerifyDiffer, \"mgctl live control\"}\n";
    let fail = |name: String, detail: String| Control {
        name,
        expect_trip: true,
        tripped: false,
        detail,
    };
    let mut out = Vec::new();
    for glob in &cfg.logs {
        let name = format!("live-{glob}");
        let one = std::slice::from_ref(glob);
        let target = match matching_logs(root, one) {
            Err(e) => {
                out.push(fail(name, e.to_string()));
                continue;
            }
            Ok(paths) => match paths.first() {
                Some(p) => p.clone(),
                None => {
                    out.push(fail(
                        name,
                        format!("[fatals] logs: {glob:?} matches no log of this workspace, so it cannot go red here (misspelt?)"),
                    ));
                    continue;
                }
            },
        };
        let target_rel = crate::budget::inputs::rel(root, &target);
        let mut overlay = BTreeMap::new();
        let mut line = 0;
        if !neutered(&name) {
            let mut bytes = match diag::walk::read(&target) {
                Ok(b) => b,
                Err(e) => {
                    out.push(fail(name, format!("{target_rel}: cannot read: {e}")));
                    continue;
                }
            };
            if !bytes.is_empty() && !bytes.ends_with(b"\n") {
                bytes.push(b'\n');
            }
            line = bytes.iter().filter(|&&b| b == b'\n').count() + 1;
            bytes.extend_from_slice(FATAL.as_bytes());
            overlay.insert(target_rel.clone(), bytes);
        }
        let run = check_overlay(
            root,
            &FatalsConfig {
                logs: one.to_vec(),
                verify: cfg.verify,
            },
            &overlay,
        );
        let hit = run.as_ref().ok().and_then(|o| {
            o.logs
                .iter()
                .filter(|l| l.rel == target_rel)
                .filter_map(|l| l.verdict.as_ref().ok())
                .flat_map(|v| v.problems.iter())
                .find(|p| p.code() == Code::Fat001 && p.line() == Some(line))
                .cloned()
        });
        out.push(Control {
            name,
            expect_trip: true,
            tripped: hit.is_some(),
            detail: match (hit, run) {
                (Some(p), _) => {
                    format!("{} {target_rel}:{line}: {}", p.code().as_str(), p.message())
                }
                (None, Err(e)) => e.to_string(),
                (None, Ok(_)) => {
                    format!("no finding: a Fatal line appended to {target_rel} stayed clean")
                }
            },
        });
    }
    out
}

pub use diag::Control;

/// The gate's controls, each a log run through [`verdict`] with `verify` on, exactly as a real
/// run. A neutered negative control is fed its clean twin, so it cannot trip.
pub fn run_controls(neutered: &dyn Fn(&str) -> bool) -> Vec<Control> {
    const ARMED: &str = "[14:22:03] [Linux trace_replay_cl/INFO]: MGPipe: verify armed - 63 fields, 69 verbs, fatal=1\n";
    const WINDOW: &str = "[14:22:12] [Linux trace_replay_cl/INFO]: MGPipe stats: frames=60 window=60 draws=3120 draws/f=52.00 acc=35448 acc/draw=11.36 bytes/f[buf=1.00] tex[emit=0 box=0 rect=0 jobs=0] gates[ers=1/1]\n";
    let fatal = format!("{ARMED}{WINDOW}[14:22:25] [Linux trace_replay_cl/FATAL]: MGPipe: Fatal{{PipeVerifyDiffer, \"GetRenderStateParameters@Clear\", verb=48213, where=read}}\n");
    let logcat_fatal = format!("{ARMED}11-30 10:21:07.114 24410 24452 F MobileGL: [10:21:07] [Android MobileGLTraceRe/FATAL]: MGPipe: Fatal{{UnmigratedSurface, \"AndroidNativeWindow@P12\"}}\n");
    let clean = format!("{ARMED}{WINDOW}");
    let unarmed = WINDOW.to_string();
    let not_fatal = format!(
        "{ARMED}11-30 10:21:07.131 24410 24452 F libc    : Fatal signal 6 (SIGABRT), code -1 (SI_QUEUE) in tid 24452\n[09:14:02] [Linux mgl-srv-apply/WARN]: MGPipe: Admitted{{UnmigratedPipeInput, \"GetProgramForDraw@Clear\"}} [BARRIER-PULLED, UNBARRIERED, retires in P8]\n"
    );
    let runner_failed = "41: -- MGPipe verify: a DirectGLES armed, zero divergences, zero unmigrated reads\n41:   openra-ra-skirmish DirectGLES: 1 MGPipe Fatal(s) under MOBILEGL_PIPE_VERIFY.\n".to_string();
    let runner_clean =
        "41: -- MGPipe verify: a DirectGLES armed, zero divergences, zero unmigrated reads\n"
            .to_string();
    // (control, code that must fire or None for a positive control, bad input, clean twin)
    let cases: Vec<(&str, Option<Code>, String, String)> = vec![
        ("fatal-line", Some(Code::Fat001), fatal, clean.clone()),
        (
            "logcat-fatal",
            Some(Code::Fat001),
            logcat_fatal,
            clean.clone(),
        ),
        ("never-armed", Some(Code::Fat002), unarmed, clean.clone()),
        (
            "runner-failed",
            Some(Code::Fat004),
            runner_failed,
            runner_clean.clone(),
        ),
        ("clean-log", None, clean.clone(), clean.clone()),
        (
            "libc-signal-and-admitted",
            None,
            not_fatal.clone(),
            not_fatal,
        ),
        ("clean-transcript", None, runner_clean.clone(), runner_clean),
    ];
    cases
        .into_iter()
        .map(|(name, code, bad, good)| {
            let expect_trip = code.is_some();
            let text = if expect_trip && neutered(name) {
                good
            } else {
                bad
            };
            let (tripped, detail) = match Log::parse(Path::new("selftest.log"), text.as_bytes()) {
                Ok(log) => {
                    let v = verdict(&log, true);
                    let hit = v
                        .problems
                        .iter()
                        .find(|p| code.is_none_or(|c| p.code() == c));
                    match (hit, code) {
                        (Some(p), _) => (true, format!("{}: {}", p.code().as_str(), p.message())),
                        (None, Some(c)) => (false, format!("no {} finding", c.as_str())),
                        (None, None) => (false, "clean".into()),
                    }
                }
                Err(e) => (true, e.to_string()),
            };
            Control {
                name: name.to_string(),
                expect_trip,
                tripped,
                detail,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_pass_and_a_neutered_one_does_not_trip() {
        let all = run_controls(&|_| false);
        assert!(all.iter().all(|c| c.expect_trip == c.tripped), "{all:?}");
        let n = run_controls(&|c| c == "fatal-line");
        let c = n.iter().find(|c| c.name == "fatal-line");
        assert!(c.is_some_and(|c| !c.tripped), "{n:?}");
    }

    #[test]
    fn a_log_with_fatals_never_passes() {
        let text = b"[01:00:00] [Linux t/INFO]: MGPipe: verify armed - 1 fields, 1 verbs, fatal=1\n[01:00:01] [Linux t/FATAL]: MGPipe: Fatal{X, \"a\xffb\"}\n";
        let log = Log::parse(Path::new("x.log"), text);
        let v = log.map(|l| verdict(&l, true));
        assert!(
            v.as_ref()
                .is_ok_and(|v| v.armed && !v.pass() && v.fatal_lines == 1),
            "{v:?}"
        );
    }
}
