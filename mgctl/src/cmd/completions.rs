//! `mgctl completions` and `mgctl man`: generated from the clap definitions, so they cannot drift.

use std::io::Write;

use anyhow::Context;
use clap::builder::PossibleValuesParser;

use crate::cmd::Outcome;
use crate::flags::{CompletionsArgs, ManArgs, Shell};

/// `cli` is the whole command tree (`crate::cli::command()`), passed in so this module does not
/// import the one that dispatches to it.
pub fn run(
    args: &CompletionsArgs,
    cli: clap::Command,
    out: &mut dyn Write,
) -> anyhow::Result<Outcome> {
    // Parsing keeps its own check of gate names (with the list of offered gates in the error);
    // for completion, --only/--skip offer the gate names instead of file names.
    let names: Vec<&'static str> = gates::all().iter().map(|g| g.name()).collect();
    let mut cmd = cli.mut_subcommand("check", |c| {
        c.mut_arg("only", |a| {
            a.value_parser(PossibleValuesParser::new(names.clone()))
        })
        .mut_arg("skip", |a| {
            a.value_parser(PossibleValuesParser::new(names.clone()))
        })
    });
    let shell = match args.shell {
        Shell::Bash => clap_complete::Shell::Bash,
        Shell::Zsh => clap_complete::Shell::Zsh,
        Shell::Fish => clap_complete::Shell::Fish,
    };
    // Rendered first: clap_complete panics on a write error, and a full disk is not a bug.
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut cmd, "mgctl", &mut script);
    out.write_all(&script).context("stdout: cannot write")?;
    Ok(Outcome::Pass)
}

pub fn man(args: &ManArgs, cli: clap::Command, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    std::fs::create_dir_all(&args.out_dir)
        .with_context(|| format!("{}: cannot create directory", args.out_dir.display()))?;
    let mut cmd = cli.disable_help_subcommand(true);
    cmd.build();
    let mut pages = Vec::new();
    collect(&cmd, &mut pages);
    for page in &pages {
        let man = clap_mangen::Man::new(page.clone());
        let mut buf = Vec::new();
        man.render(&mut buf)?;
        let path = args.out_dir.join(man.get_filename());
        crate::output::write_file(&path, &buf)?;
    }
    writeln!(
        out,
        "wrote {} man pages to {}",
        pages.len(),
        args.out_dir.display()
    )?;
    Ok(Outcome::Pass)
}

fn collect(cmd: &clap::Command, pages: &mut Vec<clap::Command>) {
    pages.push(cmd.clone());
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        collect(sub, pages);
    }
}
