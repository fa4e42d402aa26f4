//! `mgctl cite`: check (and `--fix`) the `path:line` citations of design documents;
//! `mgctl cite --self-test` (the benchmark is `cargo bench -p lints --bench cite`).

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::{Args, Subcommand, ValueEnum};

use lints::cite::{self, controls, expand_docs, fix, report, run_check};

use super::Outcome;
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
warnings only, without --strict), 1 problems, 2 unusable input (missing or non-UTF-8 document, bad \
revision, unreadable file).",
    after_help = "Examples:\n  cd driver && mgctl cite docs/Disaggregated/*.md\n  mgctl cite -C driver --rev HEAD --strict driver/docs/Disaggregated/*.md\n  mgctl cite -C driver --fix\n  mgctl cite --self-test"
)]
pub struct CiteArgs {
    #[command(subcommand)]
    pub command: Option<CiteCommand>,
    /// Markdown documents to check (default: `docs` of [cite] in the workspace's mgctl.toml).
    pub docs: Vec<PathBuf>,
    // `--root` was this flag's first spelling; scripts still use it.
    #[arg(short = 'C', long = "workspace", alias = "root", value_name = "DIR", default_value = ".", help = crate::cli::WORKSPACE_HELP)]
    pub root: PathBuf,
    /// Check against this git revision (a commit, a tag, `HEAD`); default: the working tree
    /// (also `WORKTREE`).
    #[arg(long, value_name = "REV")]
    pub rev: Option<String>,
    /// Warnings (moved, changed, orphan continuations) fail too.
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
    #[arg(long, value_enum, default_value_t = CiteFormat::Human, help = crate::cli::FORMAT_HELP)]
    pub format: CiteFormat,
    #[arg(long, help = crate::cli::SELF_TEST_HELP)]
    pub self_test: bool,
    /// Test hook: feed this negative control its clean document (proves the self-test can fail).
    #[arg(long, hide = true, value_name = "CONTROL")]
    pub neuter: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CiteFormat {
    /// Text for people (colour on a terminal).
    Human,
    /// Versioned JSON (`"schema": 1`), documented in docs/.
    Json,
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
        Some(CiteCommand::SelfTest(a)) => self_test(&a.neuter, out),
        None if args.self_test => self_test(&args.neuter, out),
        None => check_cmd(args, settings, out),
    }
}

/// Resolved inputs: documents, excludes, revision, slack, strictness (flags over [cite]).
struct Inputs {
    docs: Vec<PathBuf>,
    exclude: Vec<String>,
    rev: Option<String>,
    slack: u64,
    strict: bool,
}

fn inputs(args: &CiteArgs, settings: &Settings, root: &Path) -> anyhow::Result<Inputs> {
    let cfg = if root.join(crate::config::FILE_NAME).is_file() {
        settings.config(root)?.cite.clone()
    } else {
        None
    };
    let docs = if !args.docs.is_empty() {
        args.docs.clone()
    } else {
        match &cfg {
            Some(c) => expand_docs(root, &c.docs)?,
            None => anyhow::bail!(
                "{}: no documents given and no [cite] section in {}/{}",
                root.display(),
                root.display(),
                crate::config::FILE_NAME
            ),
        }
    };
    let mut exclude = cfg.as_ref().map(|c| c.exclude.clone()).unwrap_or_default();
    exclude.extend(args.exclude.iter().cloned());
    Ok(Inputs {
        docs,
        exclude,
        rev: args
            .rev
            .clone()
            .or_else(|| cfg.as_ref().and_then(|c| c.rev.clone())),
        slack: args.slack.or(cfg.as_ref().map(|c| c.slack)).unwrap_or(0),
        strict: args.strict,
    })
}

fn check_cmd(args: &CiteArgs, settings: &Settings, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    let root = &args.root;
    if !root.is_dir() {
        anyhow::bail!(
            "{}: not a directory (-C/--workspace takes the workspace root)",
            root.display()
        );
    }
    let inp = inputs(args, settings, root)?;
    let mut report = run_check(root, &inp.docs, &inp.exclude, inp.rev.as_deref(), inp.slack)?;
    if args.fix {
        let mut total = 0;
        let mut touched = 0;
        let mut lines = Vec::new();
        for (d, path) in inp.docs.iter().enumerate() {
            let edits = fix::plan(&report, d);
            if edits.is_empty() {
                continue;
            }
            let text = cite::read_doc(path)?;
            let (new, dropped) = fix::apply(&text, &edits);
            for e in &dropped {
                lines.push(format!(
                    "  skipped {}:{}: `{}` (the document changed under us)",
                    e.doc, e.line, e.from
                ));
            }
            if new != text {
                crate::output::write_file(path, new.as_bytes())?;
                touched += 1;
            }
            for e in edits.iter().filter(|e| !dropped.contains(e)) {
                total += 1;
                lines.push(format!(
                    "  {}:{}: `{}` -> `{}`",
                    e.doc, e.line, e.from, e.to
                ));
            }
        }
        if args.format == CiteFormat::Human {
            writeln!(
                out,
                "cite --fix: rewrote {total} citation(s) in {touched} document(s)"
            )?;
            for l in &lines {
                writeln!(out, "{l}")?;
            }
            writeln!(out)?;
        } else {
            for l in &lines {
                eprintln!("cite --fix:{l}");
            }
        }
        if total > 0 {
            report = run_check(root, &inp.docs, &inp.exclude, inp.rev.as_deref(), inp.slack)?;
        }
    }
    match args.format {
        CiteFormat::Human => report::write_human(&report, args.verbose, out)?,
        CiteFormat::Json => report::write_json(&report, out)?,
    }
    let errors = report.count_level(cite::Level::Error);
    let warnings = report.count_level(cite::Level::Warning);
    Ok(Outcome::from_pass(
        errors == 0 && (!inp.strict || warnings == 0),
    ))
}

fn self_test(neuter: &[String], out: &mut dyn Write) -> anyhow::Result<Outcome> {
    let all = controls::controls();
    for n in neuter {
        if !all.iter().any(|c| c.name == n) {
            anyhow::bail!("--neuter {n}: no such control");
        }
    }
    let mut ok = true;
    let mut trips = 0;
    for c in &all {
        let o = controls::run(c, neuter.iter().any(|n| n == c.name));
        let kind = if o.expect_trip {
            "negative"
        } else {
            "positive"
        };
        let verdict = if o.ok() { "ok  " } else { "FAIL" };
        let what = if o.tripped { "tripped" } else { "clean" };
        writeln!(out, "{verdict} {kind} {:<32} {what}: {}", o.name, o.detail)?;
        ok &= o.ok();
        trips += usize::from(o.expect_trip && o.tripped);
    }
    let negatives = all.iter().filter(|c| c.expect.is_some()).count();
    writeln!(
        out,
        "cite self-test: {trips} of {negatives} negative controls tripped, {} positive control(s) clean",
        all.len() - negatives
    )?;
    Ok(Outcome::from_pass(ok && trips > 0))
}
