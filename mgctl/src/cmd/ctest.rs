//! `mgctl lint ctest`: renders the `ctest` gate's analysis (`lints::ctest`) and re-records its
//! status baseline on purpose (`--write-baseline`); `--self-test` goes through `lint`'s shared
//! self-test printer.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;

use super::Outcome;
use crate::settings::Settings;

#[derive(Debug, Args)]
#[command(
    about = "ctest expectations and the skip ratchet over each lane's JUnit",
    long_about = "MobileGL's scripts/ci/junit_tally.py, skip_census.py and junit_annotate.py (G6/G8), also the \
`ctest` gate of `check`. Reads each [[ctest.lane]]'s `ctest --output-junit` file and the `ctest -N` listing it \
claims to cover (every listed name needs an entry, no entry may be unlisted, and with `mtimes` the JUnit may not be \
older than the listing); each [[ctest.expect]] name or glob must match at least one entry and every entry it matches \
must have its outcome (a skip is never a pass); every other failed entry is an error at the source line its output \
names; and against the status baseline (per lane and name) a new skip, a pass -> skip, a vanished name or a missing \
lane is red. Prints the headline, then one line per finding. `--write-baseline` records today's lanes (names and \
skips) at [ctest] baseline, on purpose. Exit status: 0 clean, 1 any error or a self-test failure, 2 bad input.",
    after_help = "Examples:\n  mgctl lint ctest -C driver\n  mgctl lint ctest -C driver --write-baseline\n  mgctl lint ctest -C driver --format json\n  mgctl lint ctest --self-test"
)]
pub struct CtestArgs {
    #[arg(short = 'C', long = "workspace", value_name = "DIR", default_value = ".", help = crate::flags::WORKSPACE_HELP)]
    pub workspace: PathBuf,
    /// Record today's lanes (every name, every skip) in the status baseline, then exit 0.
    #[arg(long)]
    pub write_baseline: bool,
    // The controls: an expected pass that failed, a glob matching nothing, a new skip, a vanished name, …
    #[arg(long, help = crate::flags::SELF_TEST_HELP)]
    pub self_test: bool,
    #[arg(long, value_enum, default_value_t = crate::flags::DataFormat::Human, help = crate::flags::FORMAT_HELP)]
    pub format: crate::flags::DataFormat,
    /// Test hook: neuter a self-test negative control by name.
    #[arg(long, hide = true, value_name = "NAME")]
    pub neuter: Vec<String>,
}

pub fn run(args: &CtestArgs, settings: &Settings, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    let ctx = settings.workspace(&settings.discover(&args.workspace))?;
    let Some(cfg) = ctx.config.ctest.clone() else {
        anyhow::bail!(
            "{}: no [ctest] section in mgctl.toml (see docs/ctest.md)",
            ctx.root.display()
        );
    };
    if args.write_baseline {
        let done = lints::ctest::write_baseline(&ctx.root, &cfg)?;
        writeln!(out, "{done}")?;
        return Ok(Outcome::Pass);
    }
    let o = lints::ctest::check(&ctx.root, &cfg);
    let passed = o.passed();
    // Placed as the gate places them (a diagnostic about the config at its mgctl.toml line).
    let findings: Vec<_> = o
        .diags
        .into_iter()
        .map(|d| ctx.finding(gates::ctest::GATE, d))
        .collect();
    if args.format == crate::flags::DataFormat::Json {
        let doc = super::gate_doc(passed, &o.headline, &o.inputs, &findings);
        writeln!(out, "{}", lints::diag::pretty_json(&doc)?)?;
        return Ok(Outcome::from_pass(passed));
    }
    writeln!(out, "ctest: {}", diag::escape::terminal(&o.headline))?;
    super::write_findings(&findings, &crate::output::shown(&ctx.root), out)?;
    Ok(Outcome::from_pass(passed))
}
