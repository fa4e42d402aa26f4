//! The flag vocabulary several commands share: help texts, value enums, and the argument structs
//! of the commands that live in the binary itself. A leaf: it imports no other module of mgctl,
//! so `cli` (what was typed) and `cmd` (what runs) both take it without importing each other.

use std::path::PathBuf;

use clap::ValueEnum;

pub const WORKSPACE_HELP: &str =
    "The workspace root: holds mgctl.toml (whose sections are read), or is a MobileGL checkout";
/// `--format`, whatever values a command offers (`human` and `json` always).
pub const FORMAT_HELP: &str = "Report format on stdout (or in --output)";
/// `--output FILE` (global: every command that prints a report).
pub const OUTPUT_HELP: &str = "Write the report to FILE instead of stdout, atomically (a FIFO or device is written in place; nothing is written when the command cannot run). With `check`, the human table still goes to stdout";
/// `--no-build` of the gate commands that read `[build]` outputs.
pub const NO_BUILD_HELP: &str = "Never run the [build] command: missing or stale outputs are refused, as `check --no-build` refuses them (by default a stale build is brought up to date first, as `check` does)";
/// `--self-test`.
pub const SELF_TEST_HELP: &str = "Run the negative controls (each must trip) and the positive controls (each must stay clean) instead of the analysis";

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

/// `check --format`: the one list of a check report's formats.
pub use check_report::Format;

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
    /// List every note in the text and Markdown reports (by default each note code is counted
    /// on one line, e.g. the changes symbols.allow admits); JSON, JUnit and SARIF are unchanged.
    #[arg(short, long)]
    pub verbose: bool,
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
