//! `mgctl dirty-surface …`: renders the library's outcome — the report (`--summary`, `--format json`,
//! `--compat upstream`, `--call-graph`), the `--check` gate and the hermetic `--self-test`. The
//! benchmark is `cargo bench -p dirty_surface --bench scan` (docs/dirty-surface.md).

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use clap::{Args, ValueEnum};

use dirty_surface::audit::{self, Settings as DsSettings};
use dirty_surface::report;
use dirty_surface::surface::Mode;

use crate::cmd::Outcome;
use crate::settings::Settings;

#[derive(Debug, Args)]
#[command(
    about = "Map every frontend state mutation to what publishes it (DirtySurface.def)",
    long_about = "Lists every frontend mutation the GL entry points make (`pGLContext->Set…(` and the other \
configured prefixes, plus `MGP_NOTE_MUTATION(field)`), says which ones sit in an IMMEDIATE PUBLISH POINT (a function \
that also reaches the backend) and which are DEFERRED to the next verb, and shows what DirtySurface.def says \
publishes each mutator. C++ is read by a real lexer (raw strings, digit separators, continuations), so the counts \
are exact; `--compat upstream` reproduces the upstream scanner's counts bit for bit, and the default report ends \
with the calls it counts differently and why. `--check` is the gate: the def against the scan in both directions, \
the answer vocabulary, the shutter-derived bit answers and the RenderState.cpp-derived render answers, in \
upstream's order and wording. Paths and prefixes come from [dirty_surface] in mgctl.toml (MobileGL defaults \
otherwise). Exit status: 0 report or green check, 1 check problems or self-test failure, 2 bad input.",
    after_help = "Examples:\n  mgctl dirty-surface -C driver --summary\n  mgctl dirty-surface -C driver --check\n  mgctl dirty-surface -C driver --compat upstream --summary\n  mgctl dirty-surface -C driver --call-graph --format json > surface.json\n  mgctl dirty-surface --self-test"
)]
pub struct DirtySurfaceArgs {
    #[arg(short = 'C', long = "workspace", value_name = "DIR", default_value = ".", help = crate::flags::WORKSPACE_HELP)]
    pub workspace: PathBuf,
    /// The one-line summary, then the count lines and the per-mutator table (no per-file section).
    #[arg(long)]
    pub summary: bool,
    // `json`: every call with path:line:column, function, mutator, immediacy, answer.
    #[arg(long, value_enum, default_value_t = SurfaceFormat::Human, help = crate::flags::FORMAT_HELP)]
    pub format: SurfaceFormat,
    // The first spelling of --format json, kept (hidden) for old scripts.
    #[arg(long, hide = true, conflicts_with = "format")]
    pub json: bool,
    /// Reproduce another scanner's counts exactly (blind spots included).
    #[arg(long, value_enum, value_name = "SCANNER")]
    pub compat: Option<Compat>,
    /// Also follow helpers (by name, up to 4 calls deep) that reach the backend; reported separately.
    #[arg(long)]
    pub call_graph: bool,
    /// Run the gate: exit 1 on any problem.
    #[arg(long)]
    pub check: bool,
    #[arg(long, help = crate::flags::SELF_TEST_HELP)]
    pub self_test: bool,
    /// Test hook: neuter a self-test negative control by label.
    #[arg(long, hide = true, value_name = "LABEL")]
    pub neuter: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SurfaceFormat {
    /// Text for people (colour on a terminal).
    Human,
    /// Versioned JSON (`"schema": 1`), documented in docs/.
    Json,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Compat {
    /// MobileGL's scripts/gen_pipe_dirty_surface.py (P5e).
    Upstream,
}

fn ds_settings(settings: &Settings, root: &Path) -> anyhow::Result<DsSettings> {
    let ctx = settings.workspace(root)?;
    let cfg = ctx.config.dirty_surface.clone().unwrap_or_default();
    cfg.settings().map_err(anyhow::Error::msg)
}

pub fn run(
    args: &DirtySurfaceArgs,
    settings: &Settings,
    out: &mut dyn Write,
) -> anyhow::Result<Outcome> {
    if args.self_test {
        let ws = Some(args.workspace.as_path());
        return super::gate_self_test(&["dirty-surface"], ws, settings, &args.neuter, false, out);
    }
    // The nearest workspace at or above -C (as `check`, cargo and git look upwards).
    let workspace = settings.discover(&args.workspace);
    let s = ds_settings(settings, &workspace)?;
    let root = workspace
        .canonicalize()
        .with_context(|| format!("{}: cannot resolve path", workspace.display()))?;
    let mode = if args.compat.is_some() {
        Mode::Upstream
    } else {
        Mode::Accurate
    };
    if args.compat.is_some() && args.call_graph {
        bail!("--call-graph is an mgctl extension; it cannot be combined with --compat upstream");
    }
    let json = args.json || args.format == SurfaceFormat::Json;
    if args.check {
        let run = audit::check(&root, &s, mode)?;
        report::write_check(&run, json, out)?;
        return Ok(Outcome::from_pass(run.passed()));
    }
    let r = audit::report(&root, &s, mode, args.call_graph)?;
    for l in report::notes(&r, &s.def) {
        eprintln!("{l}");
    }
    let opts = report::TextOptions {
        summary: args.summary,
    };
    report::write_report(&r, json, &opts, out)?;
    Ok(Outcome::Pass)
}
