//! `mgctl check`: resolve the workspace, run the gates, render the chosen format.

use std::io::Write;
use std::time::Instant;

use anyhow::Context;

use crate::check::{self, Selection};
use crate::cmd::Outcome;
use crate::flags::{CheckArgs, Format};
use crate::output;
use crate::report::{self, CheckRun, Mode, View};
use crate::settings::Settings;
use gates::gate::Verdict;

pub fn run(
    args: &CheckArgs,
    output: Option<&std::path::Path>,
    settings: &Settings,
    out: &mut dyn Write,
) -> anyhow::Result<Outcome> {
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
    let mut repo_prefix = String::new();
    let mut root = std::path::PathBuf::new();
    let mut build = None;
    let (mode, workspace, config, reports) = if args.self_test {
        // Canned controls need no workspace; when one resolves, the live controls also mutate
        // an in-memory overlay of it (never written).
        let neutered = check::neutered(&args.neuter);
        match settings.workspace(&args.root()) {
            Ok(ctx) => (
                Mode::SelfTest,
                format!("{} (canned and live controls)", ctx.root.display()),
                ctx.config_path
                    .as_ref()
                    .map_or_else(|| "-".to_string(), |p| p.display().to_string()),
                check::run_self_tests(Some(&ctx), &all, &sel, &neutered),
            ),
            // A workspace whose mgctl.toml cannot be read is an error, not a quiet fall back to
            // the canned controls; only a directory that is no workspace at all runs them alone.
            Err(e) if args.root().join(workspace_config::FILE_NAME).is_file() => return Err(e),
            Err(_) => (
                Mode::SelfTest,
                String::from("(canned controls)"),
                String::from("-"),
                check::run_self_tests(None, &all, &sel, &neutered),
            ),
        }
    } else {
        let mut ctx = settings.workspace(&settings.discover(&args.root()))?;
        ctx.no_build = args.no_build;
        let config = ctx.config_path.as_ref().map_or_else(
            || "built-in MobileGL profile".to_string(),
            |p| p.display().to_string(),
        );
        let reads = |outputs: &[String]| {
            all.iter().any(|g| {
                sel.selects(g.name()) && g.artifacts(&ctx).iter().any(|a| outputs.contains(a))
            })
        };
        build = check::prepare_build(&ctx, &reads, args.no_build)?;
        let reports = check::run_gates_with(&ctx, &all, &sel, &|g| {
            build
                .as_ref()
                .and_then(|b| b.gate_override(g.name(), &g.artifacts(&ctx)))
        });
        let workspace = match &ctx.config.workspace.name {
            Some(name) => format!("{} ({name})", ctx.root.display()),
            None => ctx.root.display().to_string(),
        };
        repo_prefix = repo_prefix_of(settings, &ctx.root);
        root.clone_from(&ctx.root);
        (Mode::Check, workspace, config, reports)
    };
    // A run that checked nothing is not a pass: it is a usage or config error (exit 2).
    let ran = reports
        .iter()
        .filter(|r| !matches!(r.verdict, Verdict::Skipped { .. }))
        .count();
    let run = CheckRun {
        schema: 1,
        tool: "mgctl",
        version: report::VERSION,
        mode,
        workspace,
        config,
        passed: check::passed(&reports) && ran > 0,
        wall_ms: start.elapsed().as_secs_f64() * 1000.0,
        gates: reports,
        build: build.as_ref().map(serde_json::to_value).transpose()?,
        view: View {
            repo_prefix,
            columns: settings.columns,
            verbose: args.verbose,
            root: std::path::absolute(&root).unwrap_or(root),
            cwd: std::env::current_dir().ok(),
        },
    };
    if let Some(summary) = &settings.step_summary {
        append_step_summary(summary, &run)?;
    }
    match output {
        Some(path) => {
            // Render fully before touching the file, so a failure writes nothing half-way.
            let mut buf = Vec::new();
            report::write(args.format, &run, &mut buf, false)?;
            output::write_file(path, &buf)?;
            report::write(Format::Human, &run, out, settings.color)?;
        }
        None => report::write(
            args.format,
            &run,
            out,
            settings.color && args.format == Format::Human,
        )?,
    }
    if ran == 0 {
        anyhow::bail!(
            "no gate ran: all {} gates were skipped ({}); a check that checks nothing cannot pass",
            run.gates.len(),
            run.skip_causes()
        );
    }
    Ok(Outcome::from_pass(run.passed))
}

/// The workspace's path from the repository top level, with a trailing `/` (empty at the top).
fn repo_prefix_of(settings: &Settings, root: &std::path::Path) -> String {
    let Some(top) = settings.repo_top(root) else {
        return String::new();
    };
    match root.strip_prefix(&top) {
        Ok(rel) if !rel.as_os_str().is_empty() => {
            format!("{}/", rel.to_string_lossy().replace('\\', "/"))
        }
        _ => String::new(),
    }
}

/// GitHub shows `$GITHUB_STEP_SUMMARY` on the run's page; every step appends to it.
fn append_step_summary(path: &std::path::Path, run: &CheckRun) -> anyhow::Result<()> {
    let mut buf = Vec::new();
    report::write(Format::Markdown, run, &mut buf, false)?;
    buf.push(b'\n');
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .and_then(|mut f| f.write_all(&buf))
        .with_context(|| format!("{}: cannot append the step summary", path.display()))
}
