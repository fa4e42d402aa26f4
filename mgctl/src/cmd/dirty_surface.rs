//! `mgctl dirty-surface …`: the dirty-surface report (`--summary`, `--json`, `--compat upstream`,
//! `--call-graph`), the `--check` gate, the hermetic `--self-test`, and `bench`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Context};
use clap::{Args, Subcommand, ValueEnum};

use dirty_surface::audit::{self, Settings as DsSettings};
use dirty_surface::surface::{Mode, Options};
use dirty_surface::{bench, report, selftest};

use crate::cmd::Outcome;
use crate::settings::Settings;

#[derive(Debug, Args)]
#[command(
    args_conflicts_with_subcommands = true,
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
    after_help = "Examples:\n  mgctl dirty-surface -C driver --summary\n  mgctl dirty-surface -C driver --check\n  mgctl dirty-surface -C ~/MobileGL --compat upstream --summary\n  mgctl dirty-surface -C driver --call-graph --json > surface.json\n  mgctl dirty-surface --self-test\n  mgctl dirty-surface bench"
)]
pub struct DirtySurfaceArgs {
    /// The workspace root (its mgctl.toml [dirty_surface] section is read when present).
    #[arg(short = 'C', long = "workspace", default_value = ".")]
    pub workspace: PathBuf,
    /// The one-line summary, then the count lines and the per-mutator table (no per-file section).
    #[arg(long)]
    pub summary: bool,
    /// JSON (`"schema": 1`): every call with path:line:column, function, mutator, immediacy, answer.
    #[arg(long)]
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
    /// Run the hermetic negative and positive controls (beats --check).
    #[arg(long)]
    pub self_test: bool,
    /// Test hook: neuter a self-test negative control by label.
    #[arg(long, hide = true, value_name = "LABEL")]
    pub neuter: Vec<String>,
    #[command(subcommand)]
    pub command: Option<DirtySurfaceCommand>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Compat {
    /// MobileGL's scripts/gen_pipe_dirty_surface.py (P5e).
    Upstream,
}

#[derive(Debug, Subcommand)]
pub enum DirtySurfaceCommand {
    Bench(BenchArgs),
}

#[derive(Debug, Args)]
#[command(
    about = "Times the scan against the ≤ 100 ms per 100,000 lines and ≥ 10× targets",
    long_about = "Times the scan. Without ROOT it generates a MobileGL-shaped tree of --lines lines (default \
100,000) in a temporary directory; with ROOT it scans that workspace's configured roots. It prints mgctl's \
accurate scan and its upstream-compatible scan (read + lex + bodies + calls, best of --runs) against the \
≤ 100 ms per 100,000 lines target, and, when python3 is on PATH, the Python port of upstream's scanner loop \
(dirty_surface/bench/upstream_scan.py, written from the spec) on the same files, with the speed-up against the \
≥ 10× target and whether both count the same.",
    after_help = "Examples:\n  mgctl dirty-surface bench\n  mgctl dirty-surface bench --lines 500000\n  mgctl dirty-surface bench driver"
)]
pub struct BenchArgs {
    /// A workspace to scan instead of a generated tree.
    pub root: Option<PathBuf>,
    /// Lines of the generated tree.
    #[arg(long, default_value_t = 100_000)]
    pub lines: usize,
    /// Timed runs per scanner (the best is reported).
    #[arg(long, default_value_t = 5)]
    pub runs: usize,
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
    if let Some(DirtySurfaceCommand::Bench(b)) = &args.command {
        return run_bench(b, settings, out);
    }
    if args.self_test {
        let results = selftest::run(&|label| {
            args.neuter
                .iter()
                .any(|n| n == label || n == &format!("dirty-surface/{label}"))
        });
        let (pass, lines) = selftest::lines(&results);
        for l in lines {
            writeln!(out, "{l}")?;
        }
        return Ok(Outcome::from_pass(pass));
    }
    let s = ds_settings(settings, &args.workspace)?;
    let root = args
        .workspace
        .canonicalize()
        .with_context(|| format!("{}: cannot resolve path", args.workspace.display()))?;
    let mode = if args.compat.is_some() {
        Mode::Upstream
    } else {
        Mode::Accurate
    };
    if args.compat.is_some() && args.call_graph {
        bail!("--call-graph is an mgctl extension; it cannot be combined with --compat upstream");
    }
    let ws = audit::load(&root, &s, args.check)?;
    if args.check {
        let run = audit::run_check(&ws, &s, mode)?;
        if args.json {
            report::check_json(&run, out)?;
        } else {
            report::check_text(&run, out)?;
        }
        return Ok(Outcome::from_pass(run.passed()));
    }
    let def = audit::parse_def(&ws, mode)?;
    let surface = audit::surface(
        &ws,
        &s,
        Options {
            mode,
            call_graph: args.call_graph,
            explain: mode == Mode::Accurate,
        },
    )?;
    for i in &surface.issues {
        eprintln!(
            "mgctl: warning: {}:{}:{}: {}",
            i.path, i.line, i.column, i.message
        );
    }
    let answers = report::answers(&def, mode);
    if args.json {
        report::json(&surface, &answers, out)?;
    } else {
        report::text(
            &surface,
            &answers,
            &report::TextOptions {
                summary: args.summary,
            },
            out,
        )?;
    }
    Ok(Outcome::Pass)
}

/// Best wall time of `runs` calls, in milliseconds.
fn best_ms<T>(runs: usize, mut f: impl FnMut() -> anyhow::Result<T>) -> anyhow::Result<(f64, T)> {
    let mut best = f64::INFINITY;
    let mut last = None;
    for _ in 0..runs.max(1) {
        let t = Instant::now();
        let v = f()?;
        best = best.min(t.elapsed().as_secs_f64() * 1e3);
        last = Some(v);
    }
    match last {
        Some(v) => Ok((best, v)),
        None => bail!("no benchmark run"),
    }
}

/// A generated tree in a temporary directory, removed on drop.
struct TempTree(PathBuf);

impl Drop for TempTree {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn run_bench(b: &BenchArgs, settings: &Settings, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    let mut _tmp = None;
    let (root, s) = match &b.root {
        Some(r) => (
            r.canonicalize()
                .with_context(|| format!("{}: cannot resolve path", r.display()))?,
            ds_settings(settings, r)?,
        ),
        None => {
            let dir = std::env::temp_dir()
                .join(format!("mgctl-dirty-surface-bench-{}", std::process::id()));
            for (rel, text) in bench::generate(b.lines) {
                let p = dir.join(&rel);
                if let Some(parent) = p.parent() {
                    std::fs::create_dir_all(parent)
                        .with_context(|| format!("{}: cannot create", parent.display()))?;
                }
                std::fs::write(&p, text)
                    .with_context(|| format!("{}: cannot write", p.display()))?;
            }
            _tmp = Some(TempTree(dir.clone()));
            (dir, DsSettings::mobilegl())
        }
    };
    let scan = |mode: Mode| -> anyhow::Result<dirty_surface::surface::Surface> {
        let list = dirty_surface::tree::list(&root, &s.scan_roots)?;
        let sources: Vec<_> = {
            use rayon::prelude::*;
            list.into_par_iter()
                .map(|(rel, p)| dirty_surface::tree::read(&p, rel))
                .collect::<Result<_, _>>()?
        };
        Ok(dirty_surface::surface::analyse(
            &sources,
            &s.scan_roots,
            &s.scan_config(),
            Options {
                mode,
                call_graph: false,
                explain: false,
            },
        )?)
    };
    let (acc_ms, acc) = best_ms(b.runs, || scan(Mode::Accurate))?;
    let (up_ms, up) = best_ms(b.runs, || scan(Mode::Upstream))?;
    let lines: usize = {
        let list = dirty_surface::tree::list(&root, &s.scan_roots)?;
        let mut n = 0;
        for (_, p) in &list {
            n += std::fs::read(p)
                .with_context(|| format!("{}: cannot read", p.display()))?
                .iter()
                .filter(|&&c| c == b'\n')
                .count();
        }
        n
    };
    let per_100k = |ms: f64| ms * 100_000.0 / lines.max(1) as f64;
    writeln!(
        out,
        "mgctl dirty-surface bench: {} ({} files, {lines} lines; best of {} runs; {} threads)",
        root.display(),
        acc.files.len(),
        b.runs.max(1),
        rayon::current_num_threads()
    )?;
    writeln!(out, "  mgctl accurate scan           {acc_ms:>9.1} ms  = {:>6.1} ms per 100,000 lines (target <= 100 ms: {})", per_100k(acc_ms), if per_100k(acc_ms) <= 100.0 { "met" } else { "MISSED" })?;
    writeln!(
        out,
        "  mgctl --compat upstream scan  {up_ms:>9.1} ms  = {:>6.1} ms per 100,000 lines",
        per_100k(up_ms)
    )?;
    writeln!(out, "  accurate:  {}", report::summary_line(&acc))?;
    writeln!(out, "  upstream:  {}", report::summary_line(&up))?;
    // The Python port of upstream's loop, on the same files.
    let py = std::env::temp_dir().join(format!("mgctl-upstream-scan-{}.py", std::process::id()));
    std::fs::write(&py, bench::UPSTREAM_PY)
        .with_context(|| format!("{}: cannot write", py.display()))?;
    let t = Instant::now();
    let res = std::process::Command::new("python3")
        .arg(&py)
        .arg(&root)
        .arg(s.prefixes.join(","))
        .args(&s.scan_roots)
        .output();
    let wall = t.elapsed().as_secs_f64() * 1e3;
    let _ = std::fs::remove_file(&py);
    match res {
        Ok(o) if o.status.success() => {
            let v: serde_json::Value =
                serde_json::from_slice(&o.stdout).context("python3 port: unreadable output")?;
            let py_ms = v["seconds"].as_f64().unwrap_or(0.0) * 1e3;
            let speedup = py_ms / acc_ms.max(1e-9);
            let c = up.counts();
            let same = v["calls"] == c.calls
                && v["distinct"] == c.distinct
                && v["immediate_calls"] == c.immediate_calls
                && v["points"] == c.points;
            writeln!(out, "  python3 upstream-loop port    {py_ms:>9.1} ms  (scan loop; {wall:.0} ms with interpreter start) - dirty_surface/bench/upstream_scan.py")?;
            writeln!(out, "  speed-up of mgctl's accurate scan over the Python port: {speedup:.1}x (target >= 10x: {})", if speedup >= 10.0 { "met" } else { "MISSED" })?;
            writeln!(
                out,
                "  python port counts {} {} calls / {} distinct / {} in {} points - {}",
                v["files"],
                v["calls"],
                v["distinct"],
                v["immediate_calls"],
                v["points"],
                if same {
                    "identical to mgctl --compat upstream"
                } else {
                    "DIFFERENT from mgctl --compat upstream"
                }
            )?;
        }
        Ok(o) => writeln!(
            out,
            "  python3 upstream-loop port: failed ({}): {}",
            o.status,
            String::from_utf8_lossy(&o.stderr)
                .lines()
                .last()
                .unwrap_or("")
        )?,
        Err(e) => writeln!(out, "  python3 upstream-loop port: not run (python3: {e})")?,
    }
    Ok(Outcome::Pass)
}
