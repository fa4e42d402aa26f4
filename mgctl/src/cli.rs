//! What was typed (clap derive structs, ripgrep's "low args") and the one dispatch from a parsed
//! command line to the command that runs it.

use std::io::Write;
use std::path::PathBuf;

use clap::{Parser, Subcommand};

use crate::cmd::{self, Outcome};
use crate::flags::{CheckArgs, ColorChoice, CompletionsArgs, ManArgs, OUTPUT_HELP};
use crate::settings::Settings;

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
    after_help = "Examples:\n  mgctl check driver\n  mgctl check driver --format sarif --output mgctl.sarif\n  mgctl stats summary driver/MobileGL/MG_Test/runs/*/pull/mobilegl.log",
    propagate_version = true
)]
pub struct Cli {
    /// When to colour human output (never with NO_COLOR set, unless `always`).
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto, global = true)]
    pub color: ColorChoice,
    #[arg(long, value_name = "FILE", global = true, help = OUTPUT_HELP)]
    pub output: Option<PathBuf>,
    /// No progress on stderr (the `[build]` display); the report, warnings and errors still print.
    #[arg(short, long, global = true)]
    pub quiet: bool,
    #[command(subcommand)]
    pub command: Command,
}

// One wording per shared flag, so `--help` reads the same on every command (the clap-tree
// test below holds every occurrence to these).

/// `-C/--workspace DIR`.
#[derive(Debug, Subcommand)]
// Parsed once per process; boxing `symbols diff`'s flags would only move them.
#[allow(clippy::large_enum_variant)]
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

/// Runs what was typed; `--output` renders the whole report before the file is touched.
pub fn run(cli: &Cli, settings: &Settings, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    if let Command::Check(args) = &cli.command {
        // `check --output` writes the chosen format and still prints the table.
        return cmd::check::run(args, cli.output.as_deref(), settings, out);
    }
    let Some(path) = &cli.output else {
        return dispatch(cli, settings, out);
    };
    if let Command::Stats(cmd::stats::StatsArgs {
        command: cmd::stats::StatsCommand::Watch(w),
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

fn dispatch(cli: &Cli, settings: &Settings, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    match &cli.command {
        Command::Check(args) => cmd::check::run(args, None, settings, out),
        Command::Cite(args) => cmd::cite::run(args, settings, out),
        Command::Include(args) => cmd::include::run(args, settings, out),
        Command::DirtySurface(args) => cmd::dirty_surface::run(args, settings, out),
        Command::Completions(args) => cmd::completions::run(args, command(), out),
        Command::Man(args) => cmd::completions::man(args, command(), out),
        Command::Stats(args) => cmd::stats::run(args, settings, out),
        Command::Bench(args) => cmd::bench::run(args, settings, out),
        Command::Lint(args) => cmd::lint::run(args, settings, out),
        Command::Symbols(args) => cmd::symbols::run(args, settings, out),
    }
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

    /// Issue 17 item 9: clap wraps help at the terminal's width, so an example longer than an
    /// 80-column line (less its indent) would be cut mid-command and could not be copied.
    #[test]
    fn examples_fit_an_80_column_terminal() {
        let mut bad = Vec::new();
        for (path, cmd) in all_commands() {
            let help = cmd
                .get_after_help()
                .map(|h| h.to_string())
                .unwrap_or_default();
            for l in help
                .lines()
                .skip_while(|l| !l.starts_with("Examples:"))
                .skip(1)
            {
                if l.chars().count() > 78 || !l.starts_with("  ") {
                    bad.push(format!("{path}: {l:?}"));
                }
            }
        }
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

    /// Every command of the tree (globals propagated), with its path: `mgctl include why`.
    fn all_commands() -> Vec<(String, clap::Command)> {
        fn walk(cmd: &clap::Command, path: String, all: &mut Vec<(String, clap::Command)>) {
            all.push((path.clone(), cmd.clone()));
            for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
                walk(sub, format!("{path} {}", sub.get_name()), all);
            }
        }
        let mut root = super::command();
        root.build();
        let mut all = Vec::new();
        walk(&root, "mgctl".into(), &mut all);
        all
    }

    fn help_of(a: &clap::Arg) -> String {
        a.get_help().map(|h| h.to_string()).unwrap_or_default()
    }

    /// Issue 17 item 7: the shared flags are spelled, valued and explained the same everywhere.
    #[test]
    fn shared_flags_are_one_grammar() {
        use std::collections::BTreeMap;
        let mut bad = Vec::new();
        let mut value_help: BTreeMap<String, (String, String)> = BTreeMap::new();
        for (path, cmd) in all_commands() {
            for a in cmd.get_arguments().filter(|a| !a.is_hide_set()) {
                let Some(long) = a.get_long() else { continue };
                let names: Vec<String> = a
                    .get_value_names()
                    .map(|v| v.iter().map(|s| s.to_string()).collect())
                    .unwrap_or_default();
                let mut expect = |what: &str, ok: bool| {
                    if !ok {
                        bad.push(format!("{path} --{long}: {what}"));
                    }
                };
                match long {
                    "workspace" => {
                        expect("short -C", a.get_short() == Some('C'));
                        expect("help", help_of(a) == crate::flags::WORKSPACE_HELP);
                        expect("value name DIR", names == ["DIR"]);
                    }
                    "format" => {
                        expect("help", help_of(a) == crate::flags::FORMAT_HELP);
                        let values: Vec<_> = a
                            .get_possible_values()
                            .into_iter()
                            .filter(|v| !v.is_hide_set())
                            .collect();
                        let has = |n: &str| values.iter().any(|v| v.get_name() == n);
                        // A graph export is DOT or JSON: it has no human report.
                        let core: &[&str] = if path == "mgctl include graph" {
                            &["json"]
                        } else {
                            &["human", "json"]
                        };
                        for c in core {
                            expect(&format!("offers `{c}`"), has(c));
                        }
                        for v in values {
                            let h = v.get_help().map(|h| h.to_string()).unwrap_or_default();
                            let first = value_help
                                .entry(v.get_name().to_string())
                                .or_insert_with(|| (path.clone(), h.clone()));
                            if first.1 != h {
                                bad.push(format!(
                                    "{path} --format {}: help {h:?} differs from {}'s {:?}",
                                    v.get_name(),
                                    first.0,
                                    first.1
                                ));
                            }
                        }
                    }
                    "output" => {
                        expect("help", help_of(a) == crate::flags::OUTPUT_HELP);
                        expect("value name FILE", names == ["FILE"]);
                        expect("no short", a.get_short().is_none());
                    }
                    "self-test" => {
                        expect("help", help_of(a) == crate::flags::SELF_TEST_HELP);
                        expect("a switch", !a.get_action().takes_values());
                    }
                    "color" => expect("global", a.is_global_set()),
                    // The old spellings stay accepted, but hidden.
                    "json" | "markdown" | "root" => expect("hidden (an old spelling)", false),
                    _ => {}
                }
            }
            for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
                if sub.get_name() == "self-test" {
                    bad.push(format!(
                        "{path} self-test: visible (the form is --self-test)"
                    ));
                }
            }
        }
        assert!(bad.is_empty(), "{bad:#?}");
    }

    /// Every command that reads a workspace takes `-C/--workspace`; every command with a
    /// report takes `--format` and `--output` (the exceptions are named).
    #[test]
    fn workspace_format_and_output_reach_every_command() {
        let reads_workspace = [
            "mgctl check",
            "mgctl cite",
            "mgctl include",
            "mgctl include why",
            "mgctl include closure",
            "mgctl include graph",
            "mgctl include cycles",
            "mgctl include probes",
            "mgctl include rules",
            "mgctl dirty-surface",
            "mgctl lint regions",
            "mgctl lint commits",
            "mgctl lint fatal-sites",
            "mgctl lint ctest",
            "mgctl lint controls",
            "mgctl symbols ratchet",
            // With --base, the workspace whose [build] makes the base revision's library.
            "mgctl symbols diff",
            // The workspace whose [link_ratchet] it measures (and whose baseline it re-records).
        ];
        // Leaves whose output is not a report, or is only one form.
        let no_format = ["mgctl completions", "mgctl man"];
        let mut bad = Vec::new();
        for (path, cmd) in all_commands().into_iter().filter(|(_, c)| !c.is_hide_set()) {
            let has = |long: &str| {
                cmd.get_arguments()
                    .any(|a| !a.is_hide_set() && a.get_long() == Some(long))
            };
            if reads_workspace.contains(&path.as_str()) != has("workspace") {
                bad.push(format!(
                    "{path}: --workspace where it reads a workspace, only there"
                ));
            }
            if !has("output") {
                bad.push(format!("{path}: no --output"));
            }
            let leaf = cmd
                .get_subcommands()
                .all(|s| s.is_hide_set() || s.get_name() == "help");
            if leaf && path != "mgctl" && no_format.contains(&path.as_str()) == has("format") {
                bad.push(format!(
                    "{path}: --format on every report command (see no_format)"
                ));
            }
        }
        assert!(bad.is_empty(), "{bad:#?}");
    }

    #[test]
    fn cli_definition_is_consistent() {
        super::Cli::command().debug_assert();
    }
}
