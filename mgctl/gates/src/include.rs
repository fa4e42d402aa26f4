//! Gates `include-probes` (MobileGL's include-closure gate) and `include-layering` (checkdeps-style
//! rules with witness chains). Both read the `[include]` section through
//! `include_graph::Workspace` (as `mgctl include` does) and share one graph per run; the analyses
//! are the library's, this file only maps their outcomes to findings.

use std::sync::Arc;

use include_graph::analysis::Diag;
use include_graph::codes::Code;
use include_graph::controls;
use include_graph::{Graph, Workspace};

use include_graph::cfg::IncludeConfig;

use crate::gate::{CheckCtx, Gate, GateReport, Location};
use crate::section::SectionGate;

pub const PROBES: &str = controls::PROBES_GATE;
pub const LAYERING: &str = controls::LAYERING_GATE;

/// The gate's report: its findings, summary and figures, as the library gives them.
fn report(
    gate: &'static str,
    diags: Vec<Diag>,
    summary: String,
    figures: Vec<(&'static str, usize)>,
    units: Vec<String>,
    ctx: &CheckCtx,
) -> GateReport {
    let fs = diags.into_iter().map(|d| ctx.finding(gate, d)).collect();
    let mut rep = GateReport::from_findings(gate, fs, summary);
    for (name, v) in figures {
        rep = rep.figure(name, v);
    }
    rep.units = units;
    rep.inputs = vec![ctx.root.display().to_string()];
    rep
}

/// Why an include gate could not run: its own analysis failed, or the graph it shares did.
#[derive(Debug, thiserror::Error)]
enum Failed {
    #[error(transparent)]
    Include(#[from] include_graph::Error),
    #[error(transparent)]
    Shared(#[from] Arc<include_graph::Error>),
}

/// The run's workspace inputs, as `mgctl include` assembles them (without command-line flags).
fn workspace(ctx: &CheckCtx, cfg: &IncludeConfig) -> Result<Workspace, Failed> {
    let config_path = ctx.config_path.as_ref().map(|p| ctx.rel(p));
    let text = ctx.config_text.clone();
    Workspace::load(ctx.root.clone(), cfg.clone(), config_path, text, &[], None)
        .map_err(Failed::Include)
}

/// The run's include graph, shared once built. A gate that asks while the other is still
/// building it builds its own instead of waiting: gates run on the rayon pool, and the build's
/// parallel scan may run the asking gate on the building thread, which would wait on itself.
fn graph(ctx: &CheckCtx, ws: &Workspace) -> Result<Arc<Graph>, Failed> {
    if let Some(g) = ctx.include_graph.get() {
        return Ok(g.clone()?);
    }
    let built = ws.graph().map(Arc::new).map_err(Arc::new);
    Ok(ctx.include_graph.get_or_init(|| built).clone()?)
}

pub fn probes() -> impl Gate {
    SectionGate::new(
        PROBES,
        "named headers must not reach forbidden paths through any include chain (MobileGL's include-closure gate)",
        "no [include] section in mgctl.toml",
        |c| c.include.as_ref(),
        |ctx, cfg| {
            let could_not_run = |e: Failed| {
                GateReport::could_not_run(PROBES, Code::Inc014.as_str(), e.to_string(), None)
            };
            workspace(ctx, cfg)
                .and_then(|ws| {
                    let g = graph(ctx, &ws)?;
                    let req = ws.config_request(&ctx.compiler);
                    let o = ws.probes(&g, &req)?;
                    let (diags, summary) = (o.gate_diagnostics(&g), o.summary(&g));
                    Ok(report(PROBES, diags, summary, o.figures(&g), o.units(), ctx))
                })
                .unwrap_or_else(could_not_run)
        },
        controls::run_probe_controls,
    )
    .idle(|_, c| {
        c.probes
            .is_empty()
            .then(|| "[include] has no [[include.probe]]".into())
    })
    .live(|ctx, cfg, n| include_graph::live::live_probe_controls(&ctx.root, cfg, n))
    // Builds the include graph the layering gate then shares (so that one waits for nothing).
    .cost(4)
}

pub fn layering() -> impl Gate {
    SectionGate::new(
        LAYERING,
        "checkdeps-style +/-/! include rules per directory, direct or transitive, with witness chains and stale-rule detection",
        "no [include] section in mgctl.toml",
        |c| c.include.as_ref(),
        |ctx, cfg| {
            let could_not_run = |e: Failed| {
                GateReport::could_not_run(LAYERING, Code::Inc014.as_str(), e.to_string(), None)
            };
            let ws = match workspace(ctx, cfg) {
                Ok(w) => w,
                Err(e) => return could_not_run(e),
            };
            let groups = match ws.rule_groups() {
                Ok(g) => g,
                Err((e, o)) => {
                    let at = Some(Location::at(o.file, o.line as u32, None));
                    let why = format!("invalid rule: {e}");
                    return GateReport::could_not_run(LAYERING, Code::Inc008.as_str(), why, at);
                }
            };
            graph(ctx, &ws)
                .and_then(|g| {
                    let o = ws.layering(&g, &groups)?;
                    let (diags, summary) = (o.gate_diagnostics(&g), o.summary());
                    let units = o.units.clone();
                    Ok(report(LAYERING, diags, summary, o.figures(&g), units, ctx))
                })
                .unwrap_or_else(could_not_run)
        },
        controls::run_layering_controls,
    )
    .idle(|_, c| {
        c.layers
            .is_empty()
            .then(|| "[include] has no [[include.layer]]".into())
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// The graph is shared by the gates of one run, never across runs: a second `check` in the
    /// same process sees the include added since the first (a process-wide cache would not).
    #[test]
    fn each_run_sees_the_files_as_they_are_then() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let write = |rel: &str, text: &str| {
            let p = root.join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        };
        write(
            "mgctl.toml",
            "[include]\ndirs = [\"MobileGL\"]\nscan = [\"MobileGL\"]\n\n[[include.layer]]\ndir = \"MobileGL/MG_Backend\"\ntransitive = true\nrules = [\"-MobileGL/MG_State\"]\n",
        );
        write("MobileGL/MG_State/State.h", "#pragma once\nint state;\n");
        write("MobileGL/MG_Backend/Draw.cpp", "int draw();\n");
        let ctx = || {
            let (config, config_path, config_text) = workspace_config::config::load(&root).unwrap();
            CheckCtx {
                root: root.clone(),
                config: Arc::new(config),
                config_path,
                config_text,
                include_graph: Default::default(),
                compiler: Default::default(),
                no_build: false,
                quiet: true,
            }
        };
        let first = layering().run(&ctx());
        assert_eq!(
            first.verdict,
            crate::gate::Verdict::Pass,
            "{:#?}",
            first.findings
        );
        write(
            "MobileGL/MG_Backend/Draw.cpp",
            "#include \"MG_State/State.h\"\nint draw();\n",
        );
        let second = layering().run(&ctx());
        assert_eq!(
            second.verdict,
            crate::gate::Verdict::Fail,
            "{:#?}",
            second.findings
        );
    }
}
