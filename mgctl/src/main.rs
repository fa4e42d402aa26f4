//! mgctl — audits the MobileGL driver workspace.
//!
//! `main` owns the exit code (0 pass, 1 a gate failed, 2 usage or input error, 3 internal error);
//! everything else returns `anyhow::Result<Outcome>`.

mod check;
mod cli;
mod cmd;
mod config;
mod gate;
mod gates;
mod report;
mod settings;

use std::io::{self, Write};
use std::process::ExitCode;

use crate::cmd::Outcome;

/// An error that is mgctl's own fault, not the input's: exit 3.
#[derive(Debug, thiserror::Error)]
#[error("internal error: {0}")]
pub struct Internal(pub String);

fn main() -> ExitCode {
    let cli = match cli::parse() {
        Ok(c) => c,
        Err(e) => {
            // --help and --version arrive as "errors" that go to stdout with exit 0.
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    // A panic on the main thread is reported once, below, as an internal error (exit 3) without
    // a backtrace; a panic on a worker thread gets one line here (a gate's panic also becomes an
    // INTERNAL finding of that gate).
    std::panic::set_hook(Box::new(|info| {
        if std::thread::current().name() != Some("main") {
            eprintln!("mgctl: internal error in a worker thread (a bug in mgctl): {info}");
        }
    }));
    let settings = settings::Settings::resolve(&cli);
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        cmd::run(&cli, &settings, &mut out)
    }));
    let flushed = out.flush();
    match result {
        Ok(Ok(outcome)) => match flushed {
            Err(e) if e.kind() != io::ErrorKind::BrokenPipe => {
                eprintln!("mgctl: writing output: {e}");
                ExitCode::from(2)
            }
            _ => ExitCode::from(outcome.code()),
        },
        Ok(Err(err)) => {
            if is_broken_pipe(&err) {
                return ExitCode::SUCCESS;
            }
            eprintln!("mgctl: {}", error_text(&err));
            ExitCode::from(if err.chain().any(|c| c.is::<Internal>()) {
                3
            } else {
                2
            })
        }
        Err(panic) => {
            let what = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            eprintln!("mgctl: internal error (a bug in mgctl, please report it): {what}");
            ExitCode::from(Outcome::Internal.code())
        }
    }
}

/// The error and its causes, each cause once: library errors often already quote
/// their source in their own text, and printing it again would read `X: E: E`.
fn error_text(err: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in err.chain() {
        let part = cause.to_string();
        if text.contains(&part) {
            continue;
        }
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(&part);
    }
    text
}

fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|c| {
        c.downcast_ref::<io::Error>()
            .is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
    })
}
