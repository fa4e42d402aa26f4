//! `mgctl check`: resolve the workspace, run the gates, render the chosen format.

use std::io::Write;
use std::time::Instant;

use anyhow::Context;

use crate::check::{self, Selection};
use crate::cli::{CheckArgs, Format};
use crate::cmd::Outcome;
use crate::gates;
use crate::report::{self, CheckRun, Mode};
use crate::settings::Settings;

pub fn run(args: &CheckArgs, settings: &Settings, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    let all = gates::all();
    if args.list {
        for g in &all {
            writeln!(out, "{:<16} {}", g.name(), g.description())?;
        }
        return Ok(Outcome::Pass);
    }
    let sel = Selection {
        only: args.only.clone(),
        skip: args.skip.clone(),
    };
    sel.validate(&all)?;
    let start = Instant::now();
    let (mode, workspace, config, reports) = if args.self_test {
        // Self-tests use canned inputs only: they do not need (or read) a workspace.
        let neutered = check::neutered(&args.neuter);
        (
            Mode::SelfTest,
            String::from("(canned controls)"),
            String::from("-"),
            check::run_self_tests(&all, &sel, &neutered),
        )
    } else {
        let ctx = settings.workspace(&args.workspace)?;
        let config = ctx.config_path.as_ref().map_or_else(
            || "built-in MobileGL profile".to_string(),
            |p| p.display().to_string(),
        );
        let reports = check::run_gates(&ctx, &all, &sel);
        let workspace = match &ctx.config.workspace.name {
            Some(name) => format!("{} ({name})", ctx.root.display()),
            None => ctx.root.display().to_string(),
        };
        (Mode::Check, workspace, config, reports)
    };
    let run = CheckRun {
        schema: 1,
        tool: "mgctl",
        version: report::VERSION,
        mode,
        workspace,
        config,
        passed: check::passed(&reports),
        wall_ms: start.elapsed().as_secs_f64() * 1000.0,
        gates: reports,
    };
    match &args.output {
        Some(path) => {
            // Render fully before touching the file, so a failure writes nothing half-way.
            let mut buf = Vec::new();
            report::write(args.format, &run, &mut buf, false)?;
            let tmp = path.with_extension("mgctl-tmp");
            std::fs::write(&tmp, &buf)
                .with_context(|| format!("{}: cannot write", tmp.display()))?;
            std::fs::rename(&tmp, path)
                .with_context(|| format!("{}: cannot write", path.display()))?;
            report::write(Format::Human, &run, out, settings.color)?;
        }
        None => report::write(
            args.format,
            &run,
            out,
            settings.color && args.format == Format::Human,
        )?,
    }
    Ok(Outcome::from_pass(run.passed))
}
