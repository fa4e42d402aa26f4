use std::io::Write;

use crate::cli::{CompletionsArgs, Shell};
use crate::cmd::Outcome;

pub fn run(args: &CompletionsArgs, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    let mut cmd = crate::cli::command();
    let shell = match args.shell {
        Shell::Bash => clap_complete::Shell::Bash,
        Shell::Zsh => clap_complete::Shell::Zsh,
        Shell::Fish => clap_complete::Shell::Fish,
    };
    clap_complete::generate(shell, &mut cmd, "mgctl", out);
    Ok(Outcome::Pass)
}
