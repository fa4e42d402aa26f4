//! `mgctl lint regions | test-names | commits`: the analysers behind the `regions`,
//! `test-names` and `commits` gates, for a reviewer comparing refs or lists by hand.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use clap::{Args, Subcommand};
use lints::commits::{self, StyleRules};
use lints::regions::{self, Dialect, Side};
use lints::test_names::{self, report::Mode};

use super::Outcome;
use crate::flags::DataFormat;
use crate::settings::Settings;

#[derive(Debug, Args)]
#[command(
    about = "Untouched regions, test names, commit style, the fatal census, ctest expectations, negative controls",
    long_about = "Source-history lints of a MobileGL workspace, each also a `check` gate: untouched \
regions (G5: protected bodies hash the same at a base ref and now), the registered test names (G2: pull and \
push builds register the same ctest names; G14: a phase may add tests but never remove one) and the commit \
style (`[Type] (Scope): description`, one line, no attribution trailers).",
    after_help = "Examples:\n  mgctl lint regions -C driver HEAD~3\n  mgctl lint test-names --ratchet driver/MobileGL/MG_Test/ctest-baseline.txt \\\n      driver/MobileGL/MG_Test/ctest-list.txt\n  mgctl lint commits HEAD~5..HEAD\n  mgctl lint fatal-sites -C driver\n  mgctl lint ctest -C driver\n  mgctl lint controls -C driver"
)]
pub struct LintArgs {
    #[command(subcommand)]
    pub command: LintCommand,
}

#[derive(Debug, Subcommand)]
pub enum LintCommand {
    Regions(RegionsArgs),
    TestNames(TestNamesArgs),
    Commits(CommitsArgs),
    FatalSites(super::fatal_sites::FatalSitesArgs),
    Ctest(super::ctest::CtestArgs),
    Controls(super::controls::ControlsArgs),
}

#[derive(Debug, Args)]
#[command(
    long_about = "Compares the untouched regions configured in the workspace's mgctl.toml \
([[regions.region]]: file, kind function|namespace, name, optional pinned sha256, reason) between BASE and \
HEAD, both read through git (HEAD defaults to the working tree). Each body runs from the start of the line \
holding its name to its closing brace and is hashed with SHA-256, exactly as MobileGL's \
p3a/p4a_untouched_regions.sh do, so their pinned hashes verify; a pinned row's baseline is always its pin. \
Prints the HEAD list (`<sha>  <name>`), then the first region that moved, every later mover and a unified diff \
of each. `--list REF` prints the baseline list at REF. A name defined zero or several times or a missing \
file is \"could not run\" for that region; every other region is still printed and verified. Exit status: \
0 identical, 1 a region moved, 2 could not run (a bad ref, or a region that could not be checked and none moved).",
    after_help = "Examples:\n  mgctl lint regions -C driver HEAD~1\n  mgctl lint regions -C driver main HEAD --format json\n  mgctl lint regions -C driver --list HEAD\n  mgctl lint regions --self-test"
)]
pub struct RegionsArgs {
    /// The baseline git ref.
    pub base: Option<String>,
    /// The subject git ref (default: the working tree, also spelled `WORKTREE`).
    pub head: Option<String>,
    /// Print the baseline `<sha>  <name>` list at REF instead of comparing.
    #[arg(long, value_name = "REF", conflicts_with_all = ["base", "head", "self_test"])]
    pub list: Option<String>,
    // The controls run in a temporary git repository.
    #[arg(long, conflicts_with_all = ["base", "head"], help = crate::flags::SELF_TEST_HELP)]
    pub self_test: bool,
    #[arg(short = 'C', long = "workspace", value_name = "DIR", default_value = ".", help = crate::flags::WORKSPACE_HELP)]
    pub workspace: PathBuf,
    /// Upstream's masker and recognition rules (parity checks; misses the forms upstream misses).
    #[arg(long)]
    pub upstream_compat: bool,
    #[arg(long, value_enum, default_value_t = DataFormat::Human, help = crate::flags::FORMAT_HELP)]
    pub format: DataFormat,
    /// Test hook: neuter a self-test negative control (GATE/CONTROL) so it cannot trip.
    #[arg(long, hide = true, value_name = "GATE/CONTROL")]
    pub neuter: Vec<String>,
}

#[derive(Debug, Args)]
#[command(
    long_about = "Compares two lists of registered ctest names. Each list is a `ctest -N` transcript (a \
`ctest -V` run transcript works too), `ctest --show-only=json-v1` JSON, or a plain list of names, one per \
line, detected automatically. `--same A B` fails on any difference (G2: the pull and push builds register the \
same tests); `--ratchet BEFORE AFTER` fails when a name vanished and reports `R removed / +N` (G14). Added and \
removed names are grouped by prefix (`DirectGLES.`, `DirectVulkan.`). Exit status: 0 pass, 1 fail, 2 an \
unreadable or malformed list.",
    after_help = "Examples:\n  mgctl lint test-names --ratchet driver/MobileGL/MG_Test/ctest-baseline.txt \\\n      driver/MobileGL/MG_Test/ctest-list.txt\n  mgctl lint test-names --same driver/MobileGL/MG_Test/ctest-baseline.txt \\\n      driver/MobileGL/MG_Test/ctest-list.txt --format json\n  mgctl lint test-names --self-test"
)]
pub struct TestNamesArgs {
    /// G2: both lists must register exactly the same names (`-` for stdin).
    #[arg(long, num_args = 2, value_names = ["A", "B"], conflicts_with = "ratchet")]
    pub same: Option<Vec<PathBuf>>,
    /// G14: AFTER may add names to BEFORE, never remove one (`-` for stdin).
    #[arg(long, num_args = 2, value_names = ["BEFORE", "AFTER"])]
    pub ratchet: Option<Vec<PathBuf>>,
    #[arg(long, conflicts_with_all = ["same", "ratchet"], help = crate::flags::SELF_TEST_HELP)]
    pub self_test: bool,
    #[arg(long, value_enum, default_value_t = DataFormat::Human, help = crate::flags::FORMAT_HELP)]
    pub format: DataFormat,
    #[arg(long, hide = true, value_name = "GATE/CONTROL")]
    pub neuter: Vec<String>,
}

#[derive(Debug, Args)]
#[command(
    long_about = "Checks every commit of RANGE against MobileGL's commit style: a single-line message \
`[Type] (Scope): description` with a known Type (Feat, Fix, Refactor, Test, Docs, Perf, CI by default; \
[commits] in mgctl.toml can change the list) and no attribution trailer such as `Co-Authored-By:`. RANGE is \
`A..B` (the commits reachable from B but not A) or a single revision (that one commit). Each finding names \
the commit and the rule. Exit status: 0 all in style, 1 a commit is off-style, 2 a bad range or a \
repository without commits.",
    after_help = "Examples:\n  mgctl lint commits HEAD~5..HEAD\n  mgctl lint commits origin/main..HEAD --format json\n  mgctl lint commits --self-test"
)]
pub struct CommitsArgs {
    /// `A..B` or one revision; default: `range` of [commits] in mgctl.toml.
    pub range: Option<String>,
    // Any folder inside the repository; its mgctl.toml, if any, supplies [commits].
    #[arg(short = 'C', long = "workspace", value_name = "DIR", default_value = ".", help = crate::flags::WORKSPACE_HELP)]
    pub workspace: PathBuf,
    #[arg(long, conflicts_with = "range", help = crate::flags::SELF_TEST_HELP)]
    pub self_test: bool,
    #[arg(long, value_enum, default_value_t = DataFormat::Human, help = crate::flags::FORMAT_HELP)]
    pub format: DataFormat,
    #[arg(long, hide = true, value_name = "GATE/CONTROL")]
    pub neuter: Vec<String>,
}

pub fn run(args: &LintArgs, settings: &Settings, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    match &args.command {
        LintCommand::Regions(a) => run_regions(a, settings, out),
        LintCommand::TestNames(a) => run_test_names(a, settings, out),
        LintCommand::Commits(a) => run_commits(a, settings, out),
        LintCommand::FatalSites(a) if a.self_test => {
            let json = a.format == DataFormat::Json;
            let ws = Some(a.workspace.as_path());
            super::gate_self_test(
                &[gates::fatal_sites::GATE],
                ws,
                settings,
                &a.neuter,
                json,
                out,
            )
        }
        LintCommand::FatalSites(a) => super::fatal_sites::run(a, settings, out),
        LintCommand::Ctest(a) if a.self_test => {
            let json = a.format == DataFormat::Json;
            let ws = Some(a.workspace.as_path());
            super::gate_self_test(&[gates::ctest::GATE], ws, settings, &a.neuter, json, out)
        }
        LintCommand::Ctest(a) => super::ctest::run(a, settings, out),
        LintCommand::Controls(a) if a.self_test => {
            let json = a.format == DataFormat::Json;
            let ws = Some(a.workspace.as_path());
            super::gate_self_test(&[gates::controls::GATE], ws, settings, &a.neuter, json, out)
        }
        LintCommand::Controls(a) => super::controls::run(a, settings, out),
    }
}

fn run_regions(
    args: &RegionsArgs,
    settings: &Settings,
    out: &mut dyn Write,
) -> anyhow::Result<Outcome> {
    let json = args.format == DataFormat::Json;
    if args.self_test {
        let ws = Some(args.workspace.as_path());
        return super::gate_self_test(
            &[gates::regions::GATE],
            ws,
            settings,
            &args.neuter,
            json,
            out,
        );
    }
    let ctx = settings.workspace(&settings.discover(&args.workspace))?;
    let config = ctx.config_path.as_ref().map_or_else(
        || "the built-in MobileGL profile".to_string(),
        |p| p.display().to_string(),
    );
    let Some(cfg) = ctx
        .config
        .regions
        .as_ref()
        .filter(|c| !c.regions.is_empty())
    else {
        bail!("{config}: no [[regions.region]] rows: nothing to compare");
    };
    let dialect = Dialect::new(args.upstream_compat);
    let repo = regions::open_repo(&ctx.root)?;
    let could_not_run =
        |e: regions::Error| anyhow::anyhow!("{e}").context(format!("regions of {config}"));
    if let Some(rev) = &args.list {
        let side = Side::commit_at(&repo, rev)?;
        let rows = regions::baseline_list(&side, &cfg.regions, dialect).map_err(could_not_run)?;
        regions::report::write_list_as(rev, &side, &rows, json, out)?;
        return Ok(Outcome::Pass);
    }
    let Some(base_rev) = &args.base else {
        bail!("give BASE [HEAD], --list REF or --self-test (see mgctl lint regions --help)");
    };
    let base = Side::commit_at(&repo, base_rev)?;
    let head = Side::subject_at(&repo, &ctx.root, args.head.as_deref())?;
    let c = regions::compare(Some(&base), &head, &cfg.regions, dialect).map_err(could_not_run)?;
    regions::report::write(&c, json, &crate::output::shown(&ctx.root), out)?;
    // every comparable row was verified and printed; rows that could not be are "could not
    // run" (exit 2) unless a region really moved (exit 1)
    if c.could_not_run() {
        return Err(could_not_run(regions::Error::CouldNotRun(c.problems)));
    }
    Ok(Outcome::from_pass(c.passed()))
}

fn run_test_names(
    args: &TestNamesArgs,
    settings: &Settings,
    out: &mut dyn Write,
) -> anyhow::Result<Outcome> {
    let json = args.format == DataFormat::Json;
    if args.self_test {
        let ws = Some(Path::new("."));
        return super::gate_self_test(
            &[gates::test_names::GATE],
            ws,
            settings,
            &args.neuter,
            json,
            out,
        );
    }
    let (mode, pair) = match (&args.same, &args.ratchet) {
        (Some(p), None) => (Mode::Same, p),
        (None, Some(p)) => (Mode::Ratchet, p),
        _ => bail!("give --same A B or --ratchet BEFORE AFTER (see mgctl lint test-names --help)"),
    };
    let [a, b] = pair.as_slice() else {
        bail!("expected two lists")
    };
    super::one_stdin([a.as_path(), b.as_path()])?;
    let read = |p: &Path| -> anyhow::Result<test_names::TestList> {
        if p.as_os_str() == "-" {
            Ok(test_names::parse(
                &super::read_input(p)?,
                super::input_name(p),
            )?)
        } else {
            Ok(test_names::read(p)?)
        }
    };
    let la = read(a)?;
    let lb = read(b)?;
    let d = test_names::delta(&la, &lb);
    test_names::report::write(mode, &la, &lb, &d, json, out)?;
    Ok(Outcome::from_pass(mode.passed(&d)))
}

/// [commits] of the workspace's mgctl.toml when there is one, else the default rules.
fn commit_config(settings: &Settings, root: &Path) -> anyhow::Result<(StyleRules, Option<String>)> {
    if !root.join(workspace_config::FILE_NAME).is_file() {
        return Ok(commits::gate::rules_and_range(None));
    }
    let ctx = settings.workspace(root)?;
    Ok(commits::gate::rules_and_range(ctx.config.commits.as_ref()))
}

fn run_commits(
    args: &CommitsArgs,
    settings: &Settings,
    out: &mut dyn Write,
) -> anyhow::Result<Outcome> {
    let json = args.format == DataFormat::Json;
    if args.self_test {
        let ws = Some(args.workspace.as_path());
        return super::gate_self_test(
            &[gates::commits::GATE],
            ws,
            settings,
            &args.neuter,
            json,
            out,
        );
    }
    let workspace = settings.discover(&args.workspace);
    let (rules, configured) = commit_config(settings, &workspace)?;
    let Some(range) = args.range.clone().or(configured) else {
        bail!("give a RANGE such as HEAD~5..HEAD (or set `range` in [commits] of mgctl.toml)");
    };
    let checked = commits::gate::check_range(&workspace, &range, &rules)
        .with_context(|| format!("reading commits {range}"))?;
    checked.write(&range, &rules, json, out)?;
    Ok(Outcome::from_pass(checked.passed()))
}
