//! mgctl — audits the MobileGL driver workspace.
//!
//! `main` owns the exit code (0 pass, 1 a gate failed, 2 usage or input error, 3 internal error);
//! everything else returns `anyhow::Result<Outcome>`.

mod check;
mod cli;
mod cmd;
mod flags;
mod output;
mod report;
mod settings;

use std::io::{self, Write};
use std::process::ExitCode;

use crate::cmd::Outcome;

/// Keep 16 MiB free above the heap's top when glibc's malloc grows or trims it (`M_TOP_PAD`).
/// A run is short and allocates in phases; by default the heap is trimmed after a phase and
/// grown again by the next, and every page of it faults in anew: the libLLVM-14 → 15 symbol diff
/// took 13,500 page faults and 63–65 ms, with the pad 10,900 and 57–59 ms (docs/performance.md,
/// "Session 26"). Pad that is never touched is address space, not resident memory.
#[allow(unsafe_code)]
fn keep_heap_pad() {
    // SAFETY: `mallopt` only sets one of the allocator's parameters, under the allocator's own
    // lock; it is called first thing in `main`, before any other thread exists. A refusal (0)
    // leaves the default, which is correct, only slower.
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    unsafe {
        libc::mallopt(libc::M_TOP_PAD, 16 << 20)
    };
}

/// An error that is mgctl's own fault, not the input's: exit 3.
#[derive(Debug, thiserror::Error)]
#[error("internal error: {0}")]
pub struct Internal(pub String);

fn main() -> ExitCode {
    keep_heap_pad();
    let cli = match cli::parse() {
        Ok(c) => c,
        Err(e) => {
            // --help and --version arrive as "errors" that go to stdout with exit 0.
            if !e.use_stderr() {
                let _ = e.print();
                return ExitCode::SUCCESS;
            }
            // Bare `mgctl` (or a command group without its subcommand): the whole help, as
            // clap lays it out, on stderr, and the usage exit code.
            if e.kind() == clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
                let _ = e.print();
                return ExitCode::from(2);
            }
            eprintln!("mgctl: {}", clap_error_line(&e));
            return ExitCode::from(2);
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
    let settings = settings::Settings::resolve(cli.color, cli.quiet);
    let stdout = io::stdout();
    // A closed stdout is absorbed below the buffer, so no command sees it as an error and the
    // verdict alone decides the exit code.
    let mut out = io::BufWriter::new(output::Stdout::new(stdout.lock(), !settings.color));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        cli::run(&cli, &settings, &mut out)
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
            // Error text names files and echoes input: escaped, so it cannot act on the terminal.
            eprintln!("mgctl: {}", diag::escape::line(&error_text(&err)));
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

/// A usage error in one line, like every other mgctl error: clap's message, its tips and the
/// usage line joined (clap spreads them over five).
fn clap_error_line(e: &clap::Error) -> String {
    let text = e.render().to_string();
    let mut parts: Vec<String> = Vec::new();
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if line.starts_with("For more information") {
            continue;
        }
        let line = line.strip_prefix("error: ").unwrap_or(line);
        match line.strip_prefix("Usage: ") {
            Some(usage) => parts.push(format!("usage: {usage}")),
            None => parts.push(line.to_string()),
        }
    }
    output::escape(&parts.join("; "))
}
