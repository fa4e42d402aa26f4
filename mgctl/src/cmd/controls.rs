//! `mgctl lint controls`: runs the `controls` gate's analysis (`lints::control`), all controls
//! or `--only NAME`; `--self-test` goes through `lint`'s shared self-test printer.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;

use super::Outcome;
use crate::settings::Settings;

#[derive(Debug, Args)]
#[command(
    about = "Negative controls: baseline green, perturbed red with its evidence, restored green",
    long_about = "MobileGL's g7_negative_control.sh and split_negative_controls.sh (G7/G12) as one runner, also \
the `controls` gate of `check`. Each [[control]] of mgctl.toml runs its command (argv, no shell) in a throw-away \
copy of the workspace three times: unperturbed (must pass and select tests), perturbed by its patch, replace, env \
or swap (must fail with its evidence regex in the output), and restored (must pass again, the copy's digest \
unchanged). Prints the headline, then one line per finding. It does not run [build]: `mgctl check` does. `--format json` prints the headline and findings as one document. Exit \
status: 0 every control held, 1 a control failed, 2 a control cannot run (bad entry, program not found, a required \
artifact not built).",
    after_help = "Examples:\n  mgctl lint controls -C driver\n  mgctl lint controls -C driver --only verify-corrupt-pipeline\n  mgctl lint controls --self-test"
)]
pub struct ControlsArgs {
    #[arg(short = 'C', long = "workspace", value_name = "DIR", default_value = ".", help = crate::flags::WORKSPACE_HELP)]
    pub workspace: PathBuf,
    /// Run only the [[control]] with this name.
    #[arg(long, value_name = "NAME")]
    pub only: Option<String>,
    #[arg(long, help = crate::flags::NO_BUILD_HELP)]
    pub no_build: bool,
    // The controls: a rotted patch, a test that stays green, a red for another reason, …
    #[arg(long, conflicts_with = "only", help = crate::flags::SELF_TEST_HELP)]
    pub self_test: bool,
    #[arg(long, value_enum, default_value_t = crate::flags::DataFormat::Human, help = crate::flags::FORMAT_HELP)]
    pub format: crate::flags::DataFormat,
    /// Test hook: neuter a self-test negative control by name.
    #[arg(long, hide = true, value_name = "GATE/CONTROL")]
    pub neuter: Vec<String>,
}

pub fn run(
    args: &ControlsArgs,
    settings: &Settings,
    out: &mut dyn Write,
) -> anyhow::Result<Outcome> {
    let ctx = settings.workspace(&settings.discover(&args.workspace))?;
    if ctx.config.control.is_empty() {
        anyhow::bail!(
            "{}: no [[control]] in mgctl.toml (see docs/controls.md)",
            ctx.root.display()
        );
    }
    let json = args.format == crate::flags::DataFormat::Json;
    let reads = lints::control::cfg::artifacts(&ctx.config.control, args.only.as_deref());
    let gate = gates::controls::GATE;
    if let Some(done) = super::build_first(&ctx, gate, &reads, (args.no_build, json), out)? {
        return Ok(done);
    }
    let o = lints::control::check(&ctx.root, &ctx.config.control, args.only.as_deref());
    let passed = o.passed();
    use lints::control::Code;
    let cannot_run = o
        .diags
        .iter()
        .filter(|d| matches!(d.code, Code::Ctl009 | Code::Ctl010))
        .count();
    let findings: Vec<_> = o
        .diags
        .into_iter()
        .map(|d| ctx.finding(gates::controls::GATE, d))
        .collect();
    if args.format == crate::flags::DataFormat::Json {
        let doc = serde_json::json!({
            "schema": 1,
            "passed": passed,
            "headline": o.headline,
            "controls": o.units,
            "findings": findings.iter().map(|f| serde_json::json!({
                "code": f.code,
                "severity": f.severity.to_string(),
                "control": f.unit,
                "message": f.message,
                "location": f.location.as_ref().map(|l| l.to_string()),
            })).collect::<Vec<_>>(),
        });
        writeln!(out, "{}", lints::diag::pretty_json(&doc)?)?;
    } else {
        writeln!(out, "controls: {}", diag::escape::terminal(&o.headline))?;
        super::write_findings(&findings, &crate::output::shown(&ctx.root), out)?;
    }
    if cannot_run > 0 {
        anyhow::bail!("{cannot_run} control(s) cannot run (CTL009/CTL010 above)");
    }
    Ok(Outcome::from_pass(passed))
}
