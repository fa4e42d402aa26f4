//! `mgctl cite`: check (and `--fix`) the `path:line` citations of design documents;
//! `mgctl cite --self-test` (the benchmark is `cargo bench -p lints --bench cite`).

use std::io::Write;
use std::path::PathBuf;

use clap::{Args, Subcommand};

use lints::cite::{cfg::Request, fix, report};

use super::Outcome;
use crate::flags::DataFormat;
use crate::settings::Settings;

#[derive(Debug, Args)]
#[command(
    args_conflicts_with_subcommands = true,
    about = "Check that every path:line citation of design docs still points at the code it names",
    long_about = "Checks every `path:line` citation in the given Markdown documents: the file resolves \
(exact workspace-relative path, the document's folder, or a unique `/`-anchored suffix; ambiguous names and \
wrong directories are findings), the range is inside it (`:0`, reversed and past-the-end are findings), and \
the identifiers the citing sentence puts in backticks still sit at the cited lines: ok, moved (new range \
printed), changed or gone, with a one-line excerpt of what is there now. Every form counts: ranges with `-` \
and `–`, comma lists (every member), `:N` continuations inheriting the last file of their paragraph or \
table cell; URLs, times and § references are skipped, and a per-form breakdown prints the denominators. \
Without documents, the [cite] section of the workspace's mgctl.toml says which. Exit status: 0 clean (or \
warnings only, unless --strict or `[cite] strict`), 1 problems, 2 unusable input (missing or non-UTF-8 document, bad \
revision, unreadable file).",
    after_help = "Examples:\n  cd driver && mgctl cite docs/Disaggregated/*.md\n  mgctl cite -C driver --rev HEAD --strict driver/docs/Disaggregated/*.md\n  mgctl cite -C driver --fix\n  mgctl cite --self-test"
)]
pub struct CiteArgs {
    #[command(subcommand)]
    pub command: Option<CiteCommand>,
    /// Markdown documents to check (default: `docs` of [cite] in the workspace's mgctl.toml).
    pub docs: Vec<PathBuf>,
    // `--root` was this flag's first spelling; scripts still use it.
    #[arg(short = 'C', long = "workspace", alias = "root", value_name = "DIR", default_value = ".", help = crate::flags::WORKSPACE_HELP)]
    pub root: PathBuf,
    /// Check against this git revision (a commit, a tag, `HEAD`); default: the working tree
    /// (also `WORKTREE`).
    #[arg(long, value_name = "REV")]
    pub rev: Option<String>,
    /// Warnings (moved, changed, orphan continuations) fail too; without it, `[cite] strict` of
    /// the workspace's mgctl.toml decides (true by default), as in `mgctl check`.
    #[arg(long)]
    pub strict: bool,
    /// Rewrite the citations whose new place is certain (a unique move); everything else in the
    /// documents stays byte for byte. Prints what it changed, then the report of the fixed docs.
    #[arg(long)]
    pub fix: bool,
    /// Lines of tolerance around a cited range when looking for its anchors.
    #[arg(long, value_name = "N")]
    pub slack: Option<u64>,
    /// Workspace-relative globs that are never citation targets (repeatable).
    #[arg(long, value_name = "GLOB")]
    pub exclude: Vec<String>,
    /// Also list uncheckable citations (home, absolute or outside paths).
    #[arg(long, short)]
    pub verbose: bool,
    #[arg(long, value_enum, default_value_t = DataFormat::Human, help = crate::flags::FORMAT_HELP)]
    pub format: DataFormat,
    #[arg(long, help = crate::flags::SELF_TEST_HELP)]
    pub self_test: bool,
    /// Test hook: feed this negative control its clean document (proves the self-test can fail).
    #[arg(long, hide = true, value_name = "CONTROL")]
    pub neuter: Vec<String>,
}

#[derive(Debug, Subcommand)]
pub enum CiteCommand {
    // The first spelling of --self-test, kept (hidden) for old scripts.
    #[command(hide = true)]
    SelfTest(SelfTestArgs),
}

#[derive(Debug, Args)]
#[command(
    about = "Run the citation checker's negative and positive controls",
    long_about = "Runs the citation checker's canned controls against an in-memory tree: one negative \
control per class (past end of file, missing file, ambiguous name, wrong directory, moved, changed, a \
continuation inheriting the wrong file, a comma-list member out of range, `:0`, a reversed range), each of \
which must trip with its own code, and a positive control citing in every form that must stay clean. Exit 1 \
when any control misbehaves or nothing trips.",
    after_help = "Examples:\n  mgctl cite --self-test"
)]
pub struct SelfTestArgs {
    /// Test hook: feed this negative control its clean document (proves the self-test can fail).
    #[arg(long, hide = true, value_name = "CONTROL")]
    pub neuter: Vec<String>,
}

pub fn run(args: &CiteArgs, settings: &Settings, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    match &args.command {
        Some(CiteCommand::SelfTest(a)) => self_test(args, &a.neuter, settings, out),
        None if args.self_test => self_test(args, &args.neuter, settings, out),
        None => check_cmd(args, settings, out),
    }
}

fn check_cmd(args: &CiteArgs, settings: &Settings, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    // The nearest workspace at or above -C (as `check`, cargo and git look upwards).
    let root = &settings.discover(&args.root);
    if !root.is_dir() {
        anyhow::bail!(
            "{}: not a directory (-C/--workspace takes the workspace root)",
            root.display()
        );
    }
    let cfg = if root.join(workspace_config::FILE_NAME).is_file() {
        settings.config(root)?.cite.clone()
    } else {
        None
    };
    let request = Request {
        docs: args.docs.clone(),
        exclude: args.exclude.clone(),
        rev: args.rev.clone(),
        slack: args.slack,
        strict: args.strict.then_some(true),
    }
    .resolve(root, workspace_config::FILE_NAME, cfg.as_ref())?;
    let mut report = request.check(root)?;
    if args.fix {
        let run = fix::fix_docs(&report, &request.docs)?;
        for (path, text) in &run.rewrites {
            crate::output::write_file(path, text.as_bytes())?;
        }
        if args.format == DataFormat::Human {
            run.write_human(out)?;
        } else {
            for l in &run.lines {
                eprintln!("cite --fix:{l}");
            }
        }
        if run.total > 0 {
            report = request.check(root)?;
        }
    }
    match args.format {
        DataFormat::Human => {
            report::write_human(&report, args.verbose, &crate::output::shown(root), out)?
        }
        DataFormat::Json => report::write_json(&report, out)?,
    }
    // The gate's verdict rule: an error diagnostic fails (a warning too under strict).
    let diags = lints::cite::diags(&report, request.is_strict());
    Ok(Outcome::from_pass(!diags.iter().any(diag::Diag::is_error)))
}

fn self_test(
    args: &CiteArgs,
    neuter: &[String],
    settings: &Settings,
    out: &mut dyn Write,
) -> anyhow::Result<Outcome> {
    let ws = Some(args.root.as_path());
    super::gate_self_test(&["cite"], ws, settings, neuter, false, out)
}
