//! `mgctl lint fatal-sites`: renders the fatal census (`lints::fatal_sites`) and records its
//! baseline (`--write-baseline`); `--self-test` goes through `lint`'s shared self-test printer.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;

use lints::fatal_sites;

use super::Outcome;
use crate::settings::Settings;

#[derive(Debug, Args)]
#[command(
    about = "The fatal census: every death under MG_Remote names a Fatal{Family}",
    long_about = "MobileGL's scripts/ci/fatal_census.py (CONTRACT-P6 5.2, exit gate S7), also the `fatal-sites` \
gate of `check`. Scans MobileGL/MG_Remote/**/*.{cpp,h} (paths with an MG_Test component skipped) with comments \
blanked (string literals and line numbers kept): every std::abort() needs a Fatal{Family} marker in the 12 lines \
ending at it (except in the funnel files Transport/WireLog.{cpp,h}), every WireLogFatal( call outside them one in \
the 12 lines starting at it, and every family word must be in scripts/ci/fatal_census_baseline.json (`abort_sites`, \
`families`; the abort count may grow). Prints `fatal census: N abort sites under MG_Remote/, F distinct family \
words, U unmarked`, then one `::error::` line (stderr) per unmarked abort, unnamed funnel call and unrecorded \
family. Paths come from [fatal_sites] in mgctl.toml (MobileGL defaults otherwise). Exit status: 0 clean, 1 any \
error or a self-test failure, 2 bad input (missing root or baseline, bad baseline JSON, nothing scanned).",
    after_help = "Examples:\n  mgctl lint fatal-sites -C driver\n  mgctl lint fatal-sites -C driver --write-baseline\n  mgctl lint fatal-sites -C driver --format json\n  mgctl lint fatal-sites --self-test"
)]
pub struct FatalSitesArgs {
    #[arg(short = 'C', long = "workspace", value_name = "DIR", default_value = ".", help = crate::flags::WORKSPACE_HELP)]
    pub workspace: PathBuf,
    /// Record today's abort count and family words in the baseline JSON, then exit 0.
    #[arg(long)]
    pub write_baseline: bool,
    // The controls: an unmarked abort, a marker 13 lines up, an unnamed funnel call, a new word, …
    #[arg(long, help = crate::flags::SELF_TEST_HELP)]
    pub self_test: bool,
    #[arg(long, value_enum, default_value_t = crate::flags::DataFormat::Human, help = crate::flags::FORMAT_HELP)]
    pub format: crate::flags::DataFormat,
    /// Test hook: neuter a self-test negative control by name.
    #[arg(long, hide = true, value_name = "NAME")]
    pub neuter: Vec<String>,
}

pub fn run(
    args: &FatalSitesArgs,
    settings: &Settings,
    out: &mut dyn Write,
) -> anyhow::Result<Outcome> {
    let ctx = settings.workspace(&settings.discover(&args.workspace))?;
    let cfg = ctx.config.fatal_sites.clone().unwrap_or_default();
    let census = fatal_sites::census(&ctx.root, &cfg, !args.write_baseline)?;
    if args.write_baseline {
        let done = fatal_sites::report::write_baseline(&ctx.root, &cfg, &census)?;
        writeln!(out, "{done}")?;
        return Ok(Outcome::Pass);
    }
    if args.format == crate::flags::DataFormat::Json {
        fatal_sites::report::write_json(&census, out)?;
        return Ok(Outcome::from_pass(census.passed()));
    }
    writeln!(out, "{}", census.headline())?;
    for line in census.error_lines() {
        eprintln!("{line}");
    }
    Ok(Outcome::from_pass(census.passed()))
}
