//! `[build]` (issue 18 item 8, issue 30, issue 29): how a workspace makes the artifacts its gates
//! read, when they are missing or stale, and making them before `check` runs the gates. The
//! config and its validation are pure; only [`Plan::run`] spawns a process (argv, no shell, the
//! workspace as cwd, output captured so stdout keeps carrying only the report), in a process
//! group of its own that a signal to mgctl reaches and that never outlives mgctl (`teardown`).
#![warn(unreachable_pub)]

pub mod base;
pub mod cfg;
pub mod progress;
pub mod stale;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use check_report::text::escape;
use check_report::{Finding, GateReport, Location};
use serde::Serialize;

use cfg::BuildConfig;
use stale::Stale;

diag::codes! {
    /// Finding codes of a build `check` ran for its gates (docs/codes.md).
    pub enum Code: "BLD" {
        Bld001 = "BLD001": "the [build] command failed, so the artifacts this gate reads were not built",
        Bld002 = "BLD002": "the [build] command succeeded but did not make every declared output",
        Bld003 = "BLD003": "an artifact this gate reads is older than its newest [build] input, or was built from other inputs, and --no-build refused to rebuild it",
        Bld004 = "BLD004": "the [build] command ran past its timeout and was stopped, so the artifacts this gate reads were not built",
        Bld005 = "BLD005": "the build of the base revision the gate compares against ([symbols] base) could not be made",
    }
}

/// What a build tells its caller while it runs, so a terminal can show a live display and a
/// log gets plain lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step<'a> {
    /// Long work starts; it runs until the next [`Step::Done`].
    Start(&'a str),
    /// The work ended (done or failed), in one line.
    Done(&'a str),
    /// A line of context: a cached base, a step of the base worktree, a failing build's output.
    Note(&'a str),
}

impl Step<'_> {
    pub fn text(&self) -> &str {
        match self {
            Step::Start(t) | Step::Done(t) | Step::Note(t) => t,
        }
    }
}

/// A `[build]` that cannot be used: names the mgctl.toml position.
#[derive(Debug, thiserror::Error)]
#[error("{at}: [build] {message}")]
pub struct ConfigError {
    pub at: Location,
    pub message: String,
}

/// Why [`Plan::ensure`] could not bring the outputs up to date; one sentence.
#[derive(Debug, thiserror::Error)]
pub enum EnsureError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The build ran and failed: its record's failure sentence.
    #[error("{0}")]
    Failed(String),
    #[error("the build `{command}` did not make {}", .missing.join(", "))]
    Missing {
        command: String,
        missing: Vec<String>,
    },
}

/// A validated `[build]`.
#[derive(Debug, Clone)]
pub struct Plan {
    pub command: Vec<String>,
    pub outputs: Vec<String>,
    /// Globs of the sources (empty: only a missing output is out of date).
    pub inputs: Vec<String>,
    pub timeout: Duration,
    /// Where `outputs` is written in mgctl.toml (findings about them point there).
    outputs_at: Location,
    inputs_at: Location,
}

fn inside(p: &str) -> bool {
    let path = Path::new(p);
    !p.trim().is_empty()
        && !path.is_absolute()
        && !path
            .components()
            .any(|c| c == std::path::Component::ParentDir)
}

/// `[build]` validated; `at` turns a byte offset of mgctl.toml into its location.
pub fn plan(cfg: &BuildConfig, at: &dyn Fn(usize) -> Location) -> Result<Plan, ConfigError> {
    let err = |span: std::ops::Range<usize>, message: String| ConfigError {
        at: at(span.start),
        message,
    };
    let command = cfg.command.get_ref();
    match command.first() {
        None => {
            return Err(err(
                cfg.command.span(),
                "command is empty: give the argv of the build, e.g. [\"bash\", \"build.sh\"]"
                    .into(),
            ))
        }
        Some(p) if p.trim().is_empty() => {
            return Err(err(cfg.command.span(), "command names no program".into()))
        }
        Some(_) => {}
    }
    let outputs = cfg.outputs.get_ref();
    if outputs.is_empty() {
        return Err(err(
            cfg.outputs.span(),
            "outputs is empty: list the files the command makes".into(),
        ));
    }
    if let Some(o) = outputs.iter().find(|o| !inside(o)) {
        return Err(err(
            cfg.outputs.span(),
            format!(
                "output `{}` must be a path inside the workspace (relative, no `..`)",
                escape(o)
            ),
        ));
    }
    let (inputs, inputs_at) = match &cfg.inputs {
        None => (Vec::new(), at(cfg.outputs.span().start)),
        Some(i) if i.get_ref().is_empty() => {
            return Err(err(
                i.span(),
                "inputs is empty: list globs of the sources, or leave the key out".into(),
            ))
        }
        Some(i) => {
            if let Some(g) = i.get_ref().iter().find(|g| !inside(g)) {
                return Err(err(
                    i.span(),
                    format!(
                        "input `{}` must be a glob inside the workspace (relative, no `..`)",
                        escape(g)
                    ),
                ));
            }
            (i.get_ref().clone(), at(i.span().start))
        }
    };
    let timeout = match &cfg.timeout {
        Some(t) if *t.get_ref() == 0 => {
            return Err(err(t.span(), "timeout must be at least 1 second".into()))
        }
        Some(t) => *t.get_ref(),
        None => cfg::DEFAULT_TIMEOUT_S,
    };
    Ok(Plan {
        command: command.clone(),
        outputs: outputs.clone(),
        inputs,
        timeout: Duration::from_secs(timeout),
        outputs_at: at(cfg.outputs.span().start),
        inputs_at,
    })
}

/// Where the outputs stand before a run: which are missing, which are stale, and the input
/// digest a build now would be recorded with.
#[derive(Debug, Clone, Default)]
pub struct State {
    pub missing: Vec<String>,
    pub stale: Vec<Stale>,
    digest: Option<String>,
    inputs: usize,
}

impl State {
    /// Missing outputs only, the inputs not read (no selected gate reads an output).
    pub fn unjudged(missing: Vec<String>) -> State {
        State {
            missing,
            ..State::default()
        }
    }

    pub fn up_to_date(&self) -> bool {
        self.missing.is_empty() && self.stale.is_empty()
    }
}

/// What `check` did about `[build]`; the `"build"` object of check's JSON (docs/json.md).
#[derive(Debug, Clone, Serialize)]
pub struct Record {
    pub command: Vec<String>,
    pub outputs: Vec<String>,
    /// Declared outputs missing before the run.
    pub missing_before: Vec<String>,
    /// Declared outputs older than the newest input, or built from other inputs, before the run.
    pub stale_before: Vec<Stale>,
    /// How many files the `inputs` globs matched (0 without `inputs`).
    pub inputs: usize,
    pub timeout_s: u64,
    pub ran: bool,
    /// Why the build did not run: "up to date", "--no-build given", "no selected gate reads an output".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_run: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ms: Option<f64>,
    /// The exit status; None when it was killed by a signal, timed out or could not start.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<i32>,
    pub timed_out: bool,
    pub success: bool,
    /// Declared outputs still missing after a successful run.
    pub missing_after: Vec<String>,
    /// The last lines of the build's stderr (its stdout when stderr is empty), on failure.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tail: Vec<String>,
    #[serde(skip)]
    failure: Option<String>,
    #[serde(skip)]
    outputs_at: Option<Location>,
}

/// Lines of the build's output kept for the report.
const TAIL_LINES: usize = 20;
/// Of those, the lines quoted in a finding's one-line message.
const MESSAGE_TAIL_LINES: usize = 5;

impl Plan {
    pub fn missing(&self, root: &Path) -> Vec<String> {
        self.outputs
            .iter()
            .filter(|o| !root.join(o).exists())
            .cloned()
            .collect()
    }

    /// Missing and stale outputs. An `inputs` glob that matches nothing, or an input that
    /// cannot be read, is a config error at `inputs` (exit 2).
    pub fn state(&self, root: &Path) -> Result<State, ConfigError> {
        let missing = self.missing(root);
        if self.inputs.is_empty() {
            return Ok(State {
                missing,
                ..State::default()
            });
        }
        let err = |e: stale::InputsError| ConfigError {
            at: self.inputs_at.clone(),
            message: escape(&e.to_string()),
        };
        let inputs = stale::expand(root, &self.inputs, &self.outputs).map_err(err)?;
        let digest = stale::digest(root, &self.command, &inputs).map_err(err)?;
        let recorded = stale::recorded_digest(root, &self.outputs);
        let stale = stale::judge(root, &self.outputs, &inputs, recorded.as_deref(), &digest);
        Ok(State {
            missing,
            stale,
            digest: Some(digest),
            inputs: inputs.len(),
        })
    }

    /// Makes the outputs up to date, building when one is missing or stale (for a command that
    /// reads them outside `check`); the reason as one sentence when that fails.
    pub fn ensure(
        &self,
        root: &Path,
        progress: &mut dyn FnMut(Step<'_>),
    ) -> Result<(), EnsureError> {
        let state = self.state(root)?;
        if state.up_to_date() {
            return Ok(());
        }
        let rec = self.run(root, &state, progress);
        match rec.failure {
            Some(f) => Err(EnsureError::Failed(f)),
            None if !rec.missing_after.is_empty() => Err(EnsureError::Missing {
                command: self.display(),
                missing: rec.missing_after,
            }),
            None => Ok(()),
        }
    }

    /// The command as one line, for messages.
    pub fn display(&self) -> String {
        display(&self.command)
    }

    /// The record of a build that did not run.
    pub fn not_run(&self, state: &State, why: &str) -> Record {
        Record {
            command: self.command.clone(),
            outputs: self.outputs.clone(),
            missing_before: state.missing.clone(),
            stale_before: state.stale.clone(),
            inputs: state.inputs,
            timeout_s: self.timeout.as_secs(),
            ran: false,
            not_run: Some(why.into()),
            ms: None,
            status: None,
            timed_out: false,
            success: false,
            missing_after: Vec::new(),
            tail: Vec::new(),
            failure: None,
            outputs_at: None,
        }
    }

    /// Why a build runs, for the progress line: `2 outputs missing` or `build/a.so is older
    /// than src/a.cpp`.
    fn cause(state: &State) -> String {
        let n = state.missing.len();
        let mut parts = Vec::new();
        if n > 0 {
            parts.push(format!(
                "{n} output{} missing",
                if n == 1 { "" } else { "s" }
            ));
        }
        if let Some(s) = state.stale.first() {
            let more = state.stale.len() - 1;
            parts.push(if more > 0 {
                format!("{} and {more} more stale", s.phrase())
            } else {
                s.phrase()
            });
        }
        parts.join("; ")
    }

    /// Runs the build in `root` and waits (at most `timeout`); `progress` receives the start and
    /// end lines. A successful build with every output is recorded in `.mgctl-build.json`.
    pub fn run(&self, root: &Path, state: &State, progress: &mut dyn FnMut(Step<'_>)) -> Record {
        let name = root.file_name().map_or_else(
            || root.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        let name = escape(&name);
        progress(Step::Start(&format!(
            "building {name}: {} ({})",
            self.display(),
            Self::cause(state)
        )));
        let start = Instant::now();
        // `./build.sh` names a file of the workspace, not of mgctl's cwd (spawn leaves that open).
        let program = Path::new(&self.command[0]);
        let program = if program.is_relative() && program.components().count() > 1 {
            root.join(program)
        } else {
            program.to_path_buf()
        };
        let result = teardown::run_captured(
            Command::new(program)
                .args(&self.command[1..])
                .current_dir(root)
                .stdin(Stdio::null()),
            Some(self.timeout),
        );
        let ms = start.elapsed().as_secs_f64() * 1000.0;
        let mut rec = self.not_run(state, "");
        rec.ran = true;
        rec.not_run = None;
        rec.ms = Some(ms);
        rec.outputs_at = Some(self.outputs_at.clone());
        match result {
            Err(e) => {
                rec.failure = Some(format!("could not start `{}`: {e}", self.display()));
            }
            Ok(out) => {
                let text = if out.stderr.iter().all(u8::is_ascii_whitespace) {
                    &out.stdout
                } else {
                    &out.stderr
                };
                match out.status {
                    None => {
                        rec.timed_out = true;
                        rec.tail = tail(&String::from_utf8_lossy(text), TAIL_LINES);
                        rec.failure = Some(format!(
                            "the build `{}` did not finish within its timeout of {} s and was stopped",
                            self.display(),
                            self.timeout.as_secs()
                        ));
                    }
                    Some(status) if !status.success() => {
                        rec.status = status.code();
                        rec.tail = tail(&String::from_utf8_lossy(text), TAIL_LINES);
                        rec.failure = Some(format!(
                            "the build `{}` failed ({})",
                            self.display(),
                            status_text(&status)
                        ));
                    }
                    Some(status) => {
                        rec.status = status.code();
                        rec.success = true;
                        rec.missing_after = self.missing(root);
                        if let (true, Some(digest)) = (rec.missing_after.is_empty(), &state.digest)
                        {
                            stale::write_record(
                                root,
                                &stale::Record {
                                    schema: 1,
                                    command: self.command.clone(),
                                    outputs: self.outputs.clone(),
                                    inputs: state.inputs,
                                    inputs_digest: digest.clone(),
                                },
                            );
                        }
                    }
                }
            }
        }
        let secs = ms / 1000.0;
        progress(Step::Done(&match &rec.failure {
            None if rec.missing_after.is_empty() => format!("building {name}: done in {secs:.1} s"),
            None => format!(
                "building {name}: done in {secs:.1} s, but it did not make {}",
                rec.missing_after.join(", ")
            ),
            Some(f) => format!("building {name}: {f} after {secs:.1} s"),
        }));
        if rec.failure.is_some() {
            for l in &rec.tail {
                progress(Step::Note(&format!("  | {l}")));
            }
        }
        rec
    }
}

/// argv as one line: control characters escaped, arguments with blanks quoted.
fn display(command: &[String]) -> String {
    command
        .iter()
        .map(|a| {
            let a = escape(a);
            if a.is_empty() || a.contains(char::is_whitespace) {
                format!("'{a}'")
            } else {
                a
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn status_text(s: &std::process::ExitStatus) -> String {
    match s.code() {
        Some(c) => format!("exit status {c}"),
        None => {
            use std::os::unix::process::ExitStatusExt;
            match s.signal() {
                Some(sig) => format!("killed by signal {sig}"),
                None => "no exit status".into(),
            }
        }
    }
}

/// The last `n` non-empty lines of `text`, control characters escaped.
fn tail(text: &str, n: usize) -> Vec<String> {
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    lines[lines.len().saturating_sub(n)..]
        .iter()
        .map(|l| escape(l.trim_end()))
        .collect()
}

fn and_list<'a>(items: impl IntoIterator<Item = &'a str>) -> String {
    items.into_iter().collect::<Vec<_>>().join(" and ")
}

impl Record {
    /// The report that replaces a gate reading `artifacts` (workspace-relative), or None when the
    /// gate runs as usual: a refused build skips the gates whose outputs are missing and fails
    /// those whose outputs are stale; a failed or timed-out one fails every gate that reads an
    /// output, and an output the build did not make fails them too.
    pub fn gate_override(&self, gate: &'static str, artifacts: &[String]) -> Option<GateReport> {
        let mut reads: Vec<&String> = artifacts
            .iter()
            .filter(|a| self.outputs.contains(a))
            .collect();
        reads.sort();
        reads.dedup();
        if reads.is_empty() {
            return None;
        }
        if !self.ran {
            if self.not_run.as_deref() != Some("--no-build given") {
                return None;
            }
            let missing: Vec<&str> = reads
                .iter()
                .filter(|a| self.missing_before.contains(a))
                .map(|a| a.as_str())
                .collect();
            if !missing.is_empty() {
                return Some(GateReport::skipped(
                    gate,
                    format!("{} not built: --no-build given", and_list(missing)),
                ));
            }
            let findings: Vec<Finding> = self
                .stale_before
                .iter()
                .filter(|s| reads.contains(&&s.output))
                .map(|s| {
                    Finding::error(
                        gate,
                        Code::Bld003.as_str(),
                        format!(
                            "{}: this gate would read a stale build, and --no-build refused to rebuild it",
                            s.phrase()
                        ),
                    )
                    .at(Location::file(s.output.clone()))
                    .with_detail(serde_json::json!({
                        "output": s.output, "newest_input": s.newest_input, "why": s.why,
                    }))
                })
                .collect();
            return (!findings.is_empty())
                .then(|| GateReport::from_findings(gate, findings, "stale build"));
        }
        if let Some(failure) = &self.failure {
            let mut msg = format!(
                "{failure}, so {} {} not built",
                and_list(reads.iter().map(|s| s.as_str())),
                if reads.len() == 1 { "was" } else { "were" }
            );
            let quoted = &self.tail[self.tail.len().saturating_sub(MESSAGE_TAIL_LINES)..];
            if !quoted.is_empty() {
                msg.push_str(": ");
                msg.push_str(&quoted.join(" | "));
            }
            let code = if self.timed_out {
                Code::Bld004
            } else {
                Code::Bld001
            };
            let f = Finding::error(gate, code.as_str(), msg).with_detail(
                serde_json::json!({ "command": self.command, "status": self.status, "timed_out": self.timed_out, "tail": self.tail }),
            );
            let headline = if self.timed_out {
                "build timed out"
            } else {
                "build failed"
            };
            return Some(GateReport::from_findings(gate, vec![f], headline));
        }
        if !self.missing_after.is_empty() {
            let mut f = Finding::error(
                gate,
                Code::Bld002.as_str(),
                format!(
                    "the build `{}` succeeded but did not make {} (declared in [build] outputs)",
                    display(&self.command),
                    self.missing_after.join(", ")
                ),
            )
            .with_detail(serde_json::json!({ "missing": self.missing_after }));
            f.location = self.outputs_at.clone();
            return Some(GateReport::from_findings(gate, vec![f], "build incomplete"));
        }
        None
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn tail_keeps_the_last_lines_escaped() {
        assert_eq!(tail("a\n\nb\x1b[1m\nc\n", 2), vec!["b\\x1b[1m", "c"]);
    }
}
