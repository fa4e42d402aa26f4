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

use std::io::{Read, Write};
use std::path::Path;

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
    if let Command::Check(args) = &cli.command {
        // `check --output` writes the chosen format and still prints the table.
        return check::run(args, cli.output.as_deref(), settings, out);
    }
    let Some(path) = &cli.output else {
        return dispatch(cli, settings, out);
    };
    if let Command::Stats(stats::StatsArgs {
        command: stats::StatsCommand::Watch(w),
    }) = &cli.command
    {
        if !w.once {
            anyhow::bail!("--output writes a report: the live view has none (add --once)");
        }
    }
    // Rendered fully before the file is touched: a failed command writes nothing.
    let mut buf = Vec::new();
    let outcome = dispatch(cli, settings, &mut buf)?;
    crate::output::write_file(path, &buf)?;
    Ok(outcome)
}

/// The bytes of an input file, or of standard input for `-` (which a command reads once).
pub fn read_input(path: &Path) -> anyhow::Result<Vec<u8>> {
    use anyhow::Context;
    if path.as_os_str() == "-" {
        let mut bytes = Vec::new();
        std::io::stdin()
            .lock()
            .read_to_end(&mut bytes)
            .context("<stdin>: cannot read")?;
        return Ok(bytes);
    }
    if path.is_dir() {
        anyhow::bail!("{}: is a directory", path.display());
    }
    std::fs::read(path).with_context(|| format!("{}: cannot read", path.display()))
}

/// How an input is named in reports: `<stdin>` for `-`.
pub fn input_name(path: &Path) -> &Path {
    if path.as_os_str() == "-" {
        Path::new("<stdin>")
    } else {
        path
    }
}

/// Standard input can be read once: `-` may stand for at most one of `paths`.
pub fn one_stdin<'a>(paths: impl IntoIterator<Item = &'a Path>) -> anyhow::Result<()> {
    if paths.into_iter().filter(|p| p.as_os_str() == "-").count() > 1 {
        anyhow::bail!("`-` (standard input) can be read once; give it for one input only");
    }
    Ok(())
}

fn dispatch(cli: &Cli, settings: &Settings, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    match &cli.command {
        Command::Check(args) => check::run(args, None, settings, out),
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
