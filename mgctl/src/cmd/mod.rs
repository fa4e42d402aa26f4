//! One module per command; each takes its args, `&Settings` and the stdout writer.

pub mod ab;
pub mod bench;
mod check;
pub mod cite;
mod completions;
pub mod dirty_surface;
pub mod fatal_sites;
pub mod include;
pub mod lint;
pub mod stats;
pub mod symbols;
pub mod watch;

use std::io::Write;

use crate::cli::{Cli, Command};
use crate::settings::Settings;

/// What a command concluded; `main` turns it into the exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Pass,
    Fail,
    Internal,
}

impl Outcome {
    pub fn code(self) -> u8 {
        match self {
            Outcome::Pass => 0,
            Outcome::Fail => 1,
            Outcome::Internal => 3,
        }
    }
    pub fn from_pass(pass: bool) -> Outcome {
        if pass {
            Outcome::Pass
        } else {
            Outcome::Fail
        }
    }
}

pub fn run(cli: &Cli, settings: &Settings, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    match &cli.command {
        Command::Check(args) => check::run(args, settings, out),
        Command::Cite(args) => cite::run(args, settings, out),
        Command::Include(args) => include::run(args, settings, out),
        Command::DirtySurface(args) => dirty_surface::run(args, settings, out),
        Command::Completions(args) => completions::run(args, out),
        Command::Man(args) => completions::man(args, out),
        Command::Stats(args) => stats::run(args, settings, out),
        Command::Bench(args) => bench::run(args, settings, out),
        Command::Lint(args) => lint::run(args, settings, out),
        Command::Symbols(args) => symbols::run(args, settings, out),
    }
}
