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
    after_help = "Examples:\n  mgctl check driver\n  mgctl check driver --format sarif --output mgctl.sarif\n  mgctl stats summary pull/mobilegl.log",
    propagate_version = true
)]
pub struct Cli {
    /// When to colour human output (never with NO_COLOR set, unless `always`).
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto, global = true)]
    pub color: ColorChoice,
    #[arg(long, value_name = "FILE", global = true, help = OUTPUT_HELP)]
    pub output: Option<PathBuf>,
    #[command(subcommand)]
    pub command: Command,
}

// One wording per shared flag, so `--help` reads the same on every command (the clap-tree
// test below holds every occurrence to these).

/// `-C/--workspace DIR`.
pub const WORKSPACE_HELP: &str =
    "The workspace root: holds mgctl.toml (whose sections are read), or is a MobileGL checkout";
/// `--format`, whatever values a command offers (`human` and `json` always).
pub const FORMAT_HELP: &str = "Report format on stdout (or in --output)";
/// `--output FILE` (global: every command that prints a report).
pub const OUTPUT_HELP: &str = "Write the report to FILE instead of stdout, atomically (a FIFO or device is written in place); `check` still prints its table";
/// `--self-test`.
pub const SELF_TEST_HELP: &str = "Run the negative controls (each must trip) and the positive controls (each must stay clean) instead of the analysis";

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
    /// Text for people (colour on a terminal).
    Human,
    /// Versioned JSON (`"schema": 1`), documented in docs/.
    Json,
    /// JUnit XML: one <testsuite> per gate, one <testcase> per checked unit.
    Junit,
    /// GitHub workflow annotations (`::error …::`) with the text report.
    Github,
    /// Markdown, for a pull-request comment or MEASUREMENTS.md.
    Markdown,
    /// SARIF 2.1.0 for GitHub code scanning: one run, rules from the finding codes.
    Sarif,
    /// One self-contained HTML page (gate table, timing bars, findings); use with --output.
    Html,
}

/// `--format` of the commands that print text, JSON or Markdown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ReportFormat {
    /// Text for people (colour on a terminal).
    Human,
    /// Versioned JSON (`"schema": 1`), documented in docs/.
    Json,
    /// Markdown, for a pull-request comment or MEASUREMENTS.md.
    Markdown,
}

impl ReportFormat {
    /// `--format`, unless an old hidden `--json` / `--markdown` switch was given.
    pub fn or_switches(self, json: bool, markdown: bool) -> ReportFormat {
        if json {
            ReportFormat::Json
        } else if markdown {
            ReportFormat::Markdown
        } else {
            self
        }
    }
}

/// `--format` of the commands that print text or JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DataFormat {
    /// Text for people (colour on a terminal).
    Human,
    /// Versioned JSON (`"schema": 1`), documented in docs/.
    Json,
}

impl DataFormat {
    /// `--format`, unless the old hidden `--json` switch was given.
    pub fn or_json(self, json: bool) -> DataFormat {
        if json {
            DataFormat::Json
        } else {
            self
        }
    }
}

#[derive(Debug, clap::Args)]
#[command(
    about = "Run every configured gate of a workspace (the CI entry point)",
    long_about = "Runs every gate configured for a workspace and prints one row per gate: verdict, \
finding counts, headline figure and wall time. The workspace's mgctl.toml says which gates run; a \
MobileGL checkout without one gets the built-in MobileGL profile (the upstream scripts' defaults). \
Gates run in parallel. When the workspace's [build] declares outputs that are missing and a selected \
gate reads one, check first runs the build command (one progress line on stderr; its output captured); \
--no-build refuses, and those gates are skipped saying so. With --output the chosen format goes to the \
file and the human table still to stdout. Exit status: 0 all gates pass, 1 a gate failed (a failed \
build fails the gates that need it), 2 usage, config or input error, 3 internal error.",
    after_help = "Examples:\n  mgctl check driver\n  mgctl check driver --no-build\n  mgctl check -C driver --only tokens --format github\n  mgctl check driver --self-test\n  mgctl check driver --format junit --output junit.xml"
)]
pub struct CheckArgs {
    /// The workspace root, as -C/--workspace (default: the nearest workspace at or above `.`).
    #[arg(value_name = "WORKSPACE")]
    pub workspace: Option<PathBuf>,
    #[arg(short = 'C', long = "workspace", value_name = "DIR", conflicts_with = "workspace", help = WORKSPACE_HELP)]
    pub workspace_flag: Option<PathBuf>,
    /// Run only these gates (repeatable, or comma-separated).
    #[arg(long, value_delimiter = ',', num_args = 1..)]
    pub only: Vec<String>,
    /// Skip these gates; they are listed as skipped, with the reason.
    #[arg(long, value_delimiter = ',', num_args = 1..)]
    pub skip: Vec<String>,
    #[arg(long, help = SELF_TEST_HELP)]
    pub self_test: bool,
    /// List the gates this build offers and exit.
    #[arg(long)]
    pub list: bool,
    #[arg(long, value_enum, default_value_t = Format::Human, help = FORMAT_HELP)]
    pub format: Format,
    /// Test hook: neuter a self-test negative control (GATE/CONTROL) so it cannot trip.
    #[arg(long, hide = true, value_name = "GATE/CONTROL")]
    pub neuter: Vec<String>,
    /// Never run the [build] command; gates whose artifacts are missing are skipped.
    #[arg(long)]
    pub no_build: bool,
}

impl CheckArgs {
    /// The workspace as typed, positional or -C (`.` when neither).
    pub fn root(&self) -> PathBuf {
        self.workspace_flag
            .clone()
            .or_else(|| self.workspace.clone())
            .unwrap_or_else(|| PathBuf::from("."))
    }
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
    after_help = "Examples:\n  mgctl man target/man\n  mgctl man ~/.local/share/man/man1"
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
                        expect("help", help_of(a) == super::WORKSPACE_HELP);
                        expect("value name DIR", names == ["DIR"]);
                    }
                    "format" => {
                        expect("help", help_of(a) == super::FORMAT_HELP);
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
                        expect("help", help_of(a) == super::OUTPUT_HELP);
                        expect("value name FILE", names == ["FILE"]);
                        expect("no short", a.get_short().is_none());
                    }
                    "self-test" => {
                        expect("help", help_of(a) == super::SELF_TEST_HELP);
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
