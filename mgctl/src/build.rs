//! `[build]` (issue 18 item 8): how a workspace makes the artifacts its gates read, and making
//! the missing ones before `check` runs the gates. The config and its validation are pure; only
//! [`Plan::run`] spawns a process (argv, no shell, the workspace as cwd, output captured so stdout
//! keeps carrying only the report).

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

use serde::Serialize;

use crate::config::BuildConfig;

use crate::gate::{CheckCtx, Finding, GateReport, Location};

diag::codes! {
    /// Finding codes of a build `check` ran for its gates (docs/codes.md).
    pub enum Code: "BLD" {
        Bld001 = "BLD001": "the [build] command failed, so the artifacts this gate reads were not built",
        Bld002 = "BLD002": "the [build] command succeeded but did not make every declared output",
    }
}

/// A `[build]` that cannot be used: names the mgctl.toml position.
#[derive(Debug, thiserror::Error)]
#[error("{at}: [build] {message}")]
pub struct ConfigError {
    pub at: Location,
    pub message: String,
}

/// A validated `[build]`.
#[derive(Debug, Clone)]
pub struct Plan {
    pub command: Vec<String>,
    pub outputs: Vec<String>,
    /// Where `outputs` is written in mgctl.toml (findings about them point there).
    outputs_at: Location,
}

/// `[build]` validated: `config` reads it (importing no gate or runner), the checks are here.
pub fn plan(cfg: &BuildConfig, ctx: &CheckCtx) -> Result<Plan, ConfigError> {
    let err = |span: std::ops::Range<usize>, message: String| ConfigError {
        at: ctx.config_location(span.start),
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
    for o in outputs {
        let p = Path::new(o);
        if o.trim().is_empty()
            || p.is_absolute()
            || p.components().any(|c| c == std::path::Component::ParentDir)
        {
            return Err(err(
                cfg.outputs.span(),
                format!(
                    "output `{}` must be a path inside the workspace (relative, no `..`)",
                    crate::output::escape(o)
                ),
            ));
        }
    }
    Ok(Plan {
        command: command.clone(),
        outputs: outputs.clone(),
        outputs_at: ctx.config_location(cfg.outputs.span().start),
    })
}

/// What `check` did about `[build]`; the `"build"` object of check's JSON (docs/json.md).
#[derive(Debug, Clone, Serialize)]
pub struct Record {
    pub command: Vec<String>,
    pub outputs: Vec<String>,
    /// Declared outputs missing before the run.
    pub missing_before: Vec<String>,
    pub ran: bool,
    /// Why the build did not run: "up to date", "--no-build given", "no selected gate reads an output".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_run: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ms: Option<f64>,
    /// The exit status; None when it was killed by a signal or could not start.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<i32>,
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

    /// The command as one line, for messages.
    pub fn display(&self) -> String {
        display(&self.command)
    }

    /// The record of a build that did not run.
    pub fn not_run(&self, missing: Vec<String>, why: &str) -> Record {
        Record {
            command: self.command.clone(),
            outputs: self.outputs.clone(),
            missing_before: missing,
            ran: false,
            not_run: Some(why.into()),
            ms: None,
            status: None,
            success: false,
            missing_after: Vec::new(),
            tail: Vec::new(),
            failure: None,
            outputs_at: None,
        }
    }

    /// Runs the build in `root` and waits; `progress` receives the start and end lines.
    pub fn run(&self, root: &Path, missing: Vec<String>, progress: &mut dyn FnMut(&str)) -> Record {
        let name = root.file_name().map_or_else(
            || root.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        let name = crate::output::escape(&name);
        progress(&format!(
            "building {name}: {} ({} output{} missing)",
            self.display(),
            missing.len(),
            if missing.len() == 1 { "" } else { "s" }
        ));
        let start = Instant::now();
        // `./build.sh` names a file of the workspace, not of mgctl's cwd (spawn leaves that open).
        let program = Path::new(&self.command[0]);
        let program = if program.is_relative() && program.components().count() > 1 {
            root.join(program)
        } else {
            program.to_path_buf()
        };
        let result = Command::new(program)
            .args(&self.command[1..])
            .current_dir(root)
            .stdin(Stdio::null())
            .output();
        let ms = start.elapsed().as_secs_f64() * 1000.0;
        let mut rec = self.not_run(missing, "");
        rec.ran = true;
        rec.not_run = None;
        rec.ms = Some(ms);
        rec.outputs_at = Some(self.outputs_at.clone());
        match result {
            Err(e) => {
                rec.failure = Some(format!("could not start `{}`: {e}", self.display()));
            }
            Ok(out) => {
                rec.status = out.status.code();
                rec.success = out.status.success();
                if !rec.success {
                    let text = if out.stderr.iter().all(u8::is_ascii_whitespace) {
                        &out.stdout
                    } else {
                        &out.stderr
                    };
                    rec.tail = tail(&String::from_utf8_lossy(text), TAIL_LINES);
                    rec.failure = Some(format!(
                        "the build `{}` failed ({})",
                        self.display(),
                        status_text(&out.status)
                    ));
                } else {
                    rec.missing_after = self.missing(root);
                }
            }
        }
        let secs = ms / 1000.0;
        progress(&match &rec.failure {
            None if rec.missing_after.is_empty() => format!("building {name}: done in {secs:.1} s"),
            None => format!(
                "building {name}: done in {secs:.1} s, but it did not make {}",
                rec.missing_after.join(", ")
            ),
            Some(f) => format!("building {name}: {f} after {secs:.1} s"),
        });
        if rec.failure.is_some() {
            for l in &rec.tail {
                progress(&format!("  | {l}"));
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
            let a = crate::output::escape(a);
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
            #[cfg(unix)]
            {
                use std::os::unix::process::ExitStatusExt;
                if let Some(sig) = s.signal() {
                    return format!("killed by signal {sig}");
                }
            }
            "no exit status".into()
        }
    }
}

/// The last `n` non-empty lines of `text`, control characters escaped.
fn tail(text: &str, n: usize) -> Vec<String> {
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    lines[lines.len().saturating_sub(n)..]
        .iter()
        .map(|l| crate::output::escape(l.trim_end()))
        .collect()
}

impl Record {
    /// The report that replaces a gate reading `artifacts` (workspace-relative), or None when the
    /// gate runs as usual: a refused build skips the gates whose outputs are missing, a failed
    /// one fails every gate that reads an output, and an output the build did not make fails them too.
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
            let missing: Vec<&str> = reads
                .iter()
                .filter(|a| self.missing_before.contains(a))
                .map(|a| a.as_str())
                .collect();
            return match self.not_run.as_deref() {
                Some(why @ "--no-build given") if !missing.is_empty() => Some(GateReport::skipped(
                    gate,
                    format!("{} not built: {why}", missing.join(" and ")),
                )),
                _ => None,
            };
        }
        if let Some(failure) = &self.failure {
            let mut msg = format!(
                "{failure}, so {} {} not built",
                reads
                    .iter()
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>()
                    .join(" and "),
                if reads.len() == 1 { "was" } else { "were" }
            );
            let quoted = &self.tail[self.tail.len().saturating_sub(MESSAGE_TAIL_LINES)..];
            if !quoted.is_empty() {
                msg.push_str(": ");
                msg.push_str(&quoted.join(" | "));
            }
            let f = Finding::error(gate, Code::Bld001.as_str(), msg).with_detail(
                serde_json::json!({ "command": self.command, "status": self.status, "tail": self.tail }),
            );
            return Some(GateReport::from_findings(gate, vec![f], "build failed"));
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
