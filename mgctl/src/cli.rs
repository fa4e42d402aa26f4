//! What was typed: clap derive structs only, no behaviour (ripgrep's "low args").

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};

const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (commit ",
    env!("MGCTL_GIT_COMMIT"),
    ")"
);

#[derive(Debug, Parser)]
#[command(
    name = "mgctl",
    version = VERSION,
    about = "Audits the MobileGL driver workspace: CI gates, symbol diffs, include closure, dirty surface, doc citations, device counters",
    long_about = "mgctl audits a MobileGL driver workspace. `mgctl check` runs every configured gate \
(forbidden tokens, include closure and layering, dirty surface, doc citations, untouched regions, test \
names, symbol diffs) in one pass for CI; the other commands are the analysers behind those gates, for a \
reviewer before a merge or an engineer reading device logs.",
    after_help = "Examples:\n  mgctl check driver\n  mgctl check . --format github --output report.json\n  mgctl completions bash > /etc/bash_completion.d/mgctl",
    propagate_version = true
)]
pub struct Cli {
    /// When to colour human output (never with NO_COLOR set, unless `always`).
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto, global = true)]
    pub color: ColorChoice,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    Check(CheckArgs),
    Cite(crate::cmd::cite::CiteArgs),
    Include(crate::cmd::include::IncludeArgs),
    DirtySurface(crate::cmd::dirty_surface::DirtySurfaceArgs),
    Completions(CompletionsArgs),
    Man(ManArgs),
    Stats(crate::cmd::stats::StatsArgs),
    Bench(crate::cmd::bench::BenchArgs),
    Lint(crate::cmd::lint::LintArgs),
    Symbols(crate::cmd::symbols::SymbolsArgs),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// A table for people (colour on a terminal).
    Human,
    /// Versioned JSON (`"schema": 1`), see docs/json.md.
    Json,
    /// JUnit XML: one <testsuite> per gate, one <testcase> per checked unit.
    Junit,
    /// GitHub workflow annotations (`::error file=…,line=…::`) followed by the full text report.
    Github,
    /// Markdown for a pull-request comment.
    Markdown,
    /// SARIF 2.1.0 for GitHub code scanning: one run, rules from the finding codes.
    Sarif,
    /// One self-contained HTML page (gate table, timing bars, findings); use with --output.
    Html,
}

#[derive(Debug, clap::Args)]
#[command(
    about = "Run every configured gate of a workspace (the CI entry point)",
    long_about = "Runs every gate configured for a workspace and prints one row per gate: verdict, \
finding counts, headline figure and wall time. The workspace's mgctl.toml says which gates run; a \
MobileGL checkout without one gets the built-in MobileGL profile (the upstream scripts' defaults). \
Gates run in parallel. Exit status: 0 all gates pass, 1 a gate failed, 2 usage, config or input error, \
3 internal error.",
    after_help = "Examples:\n  mgctl check driver\n  mgctl check ~/MobileGL --only tokens --format github\n  mgctl check driver --self-test\n  mgctl check driver --format junit --output junit.xml"
)]
pub struct CheckArgs {
    /// The workspace root (holds mgctl.toml, or is a MobileGL checkout).
    #[arg(default_value = ".")]
    pub workspace: PathBuf,
    /// Run only these gates (repeatable, or comma-separated).
    #[arg(long, value_delimiter = ',', num_args = 1..)]
    pub only: Vec<String>,
    /// Skip these gates; they are listed as skipped, with the reason.
    #[arg(long, value_delimiter = ',', num_args = 1..)]
    pub skip: Vec<String>,
    /// Run every gate's negative and positive controls instead of the gates themselves.
    #[arg(long)]
    pub self_test: bool,
    /// List the gates this build offers and exit.
    #[arg(long)]
    pub list: bool,
    /// Output format on stdout (or in --output).
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
    /// Write the chosen format to FILE and print the human summary on stdout.
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Test hook: neuter a self-test negative control (GATE/CONTROL) so it cannot trip.
    #[arg(long, hide = true, value_name = "GATE/CONTROL")]
    pub neuter: Vec<String>,
}

#[derive(Debug, clap::Args)]
#[command(
    about = "Print a shell completion script (bash, zsh, fish)",
    long_about = "Prints a shell completion script for mgctl to stdout. Install it where your shell \
looks for completions.",
    after_help = "Examples:\n  mgctl completions bash > ~/.local/share/bash-completion/completions/mgctl\n  mgctl completions zsh > ~/.zfunc/_mgctl\n  mgctl completions fish > ~/.config/fish/completions/mgctl.fish"
)]
pub struct CompletionsArgs {
    #[arg(value_enum)]
    pub shell: Shell,
}

#[derive(Debug, clap::Args)]
#[command(
    about = "Write man pages for mgctl and every subcommand (roff, one file each)",
    long_about = "Writes a man page for mgctl and one for every subcommand (mgctl.1, mgctl-check.1, \
mgctl-symbols-diff.1, …) into OUT_DIR, from the same definitions as --help.",
    after_help = "Examples:\n  mgctl man target/man\n  mgctl man ~/.local/share/man/man1 && man mgctl-check"
)]
pub struct ManArgs {
    /// Directory to write the pages into (created if missing).
    #[arg(value_name = "OUT_DIR")]
    pub out_dir: PathBuf,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum Shell {
    Bash,
    Zsh,
    Fish,
}

/// The clap command with a short `about` for every subcommand that only has a paragraph, so
/// listings show one line per command while `--help` of the command shows the whole paragraph.
pub fn command() -> clap::Command {
    use clap::CommandFactory;
    short_abouts(Cli::command())
}

/// Parses the process arguments through [`command`].
pub fn parse() -> Result<Cli, clap::Error> {
    use clap::FromArgMatches;
    let matches = command().try_get_matches()?;
    Cli::from_arg_matches(&matches)
}

fn short_abouts(mut cmd: clap::Command) -> clap::Command {
    let names: Vec<String> = cmd
        .get_subcommands()
        .map(|s| s.get_name().to_string())
        .collect();
    for name in names {
        cmd = cmd.mut_subcommand(&name, |sub| {
            let sub = short_abouts(sub);
            match (sub.get_about(), sub.get_long_about()) {
                (None, Some(long)) => {
                    let about = first_sentence(&long.to_string());
                    sub.about(about)
                }
                _ => sub,
            }
        });
    }
    cmd
}

/// The first sentence of a paragraph, shortened at a clause boundary (or a word) when long.
fn first_sentence(text: &str) -> String {
    const MAX: usize = 72;
    let mut s = text
        .split(". ")
        .next()
        .unwrap_or(text)
        .trim_end_matches('.')
        .to_string();
    while s.chars().count() > MAX {
        let head: String = s.chars().take(MAX).collect();
        // An opening parenthesis first, so a cut never lands inside one.
        let clause = [" (", "; ", ": ", ", "]
            .iter()
            .find_map(|sep| head.find(sep).filter(|&at| at >= 20));
        match clause {
            Some(at) => s = head[..at].to_string(),
            None => {
                let at = head.rfind(' ').unwrap_or(head.len());
                return format!("{}…", &head[..at]);
            }
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    /// Every command, however deep, documents itself with a paragraph and at least one example.
    #[test]
    fn every_command_has_a_description_and_an_example() {
        fn walk(cmd: &clap::Command, path: String, bad: &mut Vec<String>) {
            for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
                let p = format!("{path} {}", sub.get_name());
                if sub.get_long_about().is_none() && sub.get_about().is_none() {
                    bad.push(format!("{p}: no description"));
                }
                let examples = sub
                    .get_after_help()
                    .map(|h| h.to_string())
                    .unwrap_or_default();
                if !examples.contains("Examples:") || !examples.contains("mgctl ") {
                    bad.push(format!("{p}: no example"));
                }
                walk(sub, p, bad);
            }
        }
        let mut bad = Vec::new();
        walk(&super::command(), "mgctl".into(), &mut bad);
        assert!(bad.is_empty(), "{bad:#?}");
    }

    #[test]
    fn listings_are_one_line() {
        for sub in super::command().get_subcommands() {
            let about = sub.get_about().map(|a| a.to_string()).unwrap_or_default();
            assert!(
                !about.is_empty() && about.chars().count() <= 100,
                "{}: {about}",
                sub.get_name()
            );
        }
        assert_eq!(
            super::first_sentence("Prints a chain. More text."),
            "Prints a chain"
        );
    }

    #[test]
    fn cli_definition_is_consistent() {
        super::Cli::command().debug_assert();
    }
}
