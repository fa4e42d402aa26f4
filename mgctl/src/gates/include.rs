//! Gates `include-probes` (MobileGL's include-closure gate) and `include-layering` (checkdeps-style
//! rules with witness chains). Both read the `[include]` section and share one graph per run; the
//! analyses are `include_graph::analysis`, this file only maps their outcomes to findings.

use std::sync::Arc;

use include_graph::analysis::{self, Diag, Mode, ProbeOptions};
use include_graph::cfg::{ConfigSource, Inputs};
use include_graph::codes::Code;
use include_graph::controls::{self};
use include_graph::Graph;

pub use include_graph::cfg::{mobilegl_profile, IncludeConfig, ProbeMode};

use crate::gate::{
    CheckCtx, Control, Finding, Gate, GateReport, Location, Neutered, SelfTest, Severity,
};

pub const PROBES: &str = "include-probes";
pub const LAYERING: &str = "include-layering";

/// The compiler for compiler mode: an explicit one, else `$CXX`, else the first of `c++`,
/// `g++`, `clang++` on PATH (the environment is read here, never in the library).
pub fn pick_compiler(explicit: Option<&str>) -> Option<String> {
    if let Some(c) = explicit {
        return Some(c.to_string());
    }
    if let Ok(c) = std::env::var("CXX") {
        if !c.trim().is_empty() {
            return Some(c);
        }
    }
    let path = std::env::var_os("PATH")?;
    ["c++", "g++", "clang++"]
        .into_iter()
        .find(|name| std::env::split_paths(&path).any(|d| d.join(name).is_file()))
        .map(str::to_string)
}

/// A library fact as a finding of `gate`.
pub fn finding(gate: &'static str, d: Diag) -> Finding {
    let sev = match d.severity {
        analysis::Severity::Error => Severity::Error,
        analysis::Severity::Warning => Severity::Warning,
        analysis::Severity::Note => Severity::Note,
    };
    let mut f = Finding::new(gate, d.code.as_str(), sev, d.message);
    f.location = d.path.map(|p| Location {
        path: p,
        line: d.line,
        column: d.column,
    });
    f.unit = d.unit;
    f.detail = d.detail;
    f
}

/// The run's analysis inputs and include graph: built by whichever include gate asks first
/// (the other waits for it), then shared.
fn shared_graph(ctx: &CheckCtx, cfg: &IncludeConfig) -> Result<Arc<Graph>, String> {
    ctx.include_graph
        .get_or_init(|| {
            let inputs = Inputs::load(&ctx.root, cfg, None).map_err(|e| e.to_string())?;
            Ok(Arc::new(
                Graph::build(&inputs.options).map_err(|e| e.to_string())?,
            ))
        })
        .clone()
}

fn config_source(ctx: &CheckCtx) -> ConfigSource<'_> {
    ConfigSource {
        path: ctx.config_path.as_ref().map(|p| ctx.rel(p)),
        text: &ctx.config_text,
    }
}

/// The options a run of `include-probes` (and `include probes` without flags) uses.
pub fn probe_mode(cfg: &IncludeConfig) -> Mode {
    match cfg.mode {
        ProbeMode::Text => Mode::Text,
        ProbeMode::Both => Mode::Both,
    }
}

pub struct IncludeProbesGate;
pub struct IncludeLayeringGate;

impl Gate for IncludeProbesGate {
    fn name(&self) -> &'static str {
        PROBES
    }
    fn description(&self) -> &'static str {
        "named headers must not reach forbidden paths through any include chain (MobileGL's include-closure gate)"
    }
    fn skip_reason(&self, ctx: &CheckCtx) -> Option<String> {
        match &ctx.config.include {
            None => Some("no [include] section in mgctl.toml".into()),
            Some(c) if c.probes.is_empty() => Some("[include] has no [[include.probe]]".into()),
            Some(_) => None,
        }
    }
    fn run(&self, ctx: &CheckCtx) -> GateReport {
        let Some(cfg) = &ctx.config.include else {
            return GateReport::skipped(PROBES, "no [include] section in mgctl.toml");
        };
        let g = match shared_graph(ctx, cfg) {
            Ok(g) => g,
            Err(e) => return GateReport::could_not_run(PROBES, Code::Inc014.as_str(), e, None),
        };
        let g = &*g;
        // The compile database again (the shared graph keeps only what it was built from);
        // its flags are the compiler mode's, as for `include probes`.
        let inputs = match Inputs::load(&ctx.root, cfg, None) {
            Ok(i) => i,
            Err(e) => {
                return GateReport::could_not_run(
                    PROBES,
                    Code::Inc014.as_str(),
                    e.to_string(),
                    None,
                )
            }
        };
        let probes = cfg.probes();
        let mode = probe_mode(cfg);
        let cxx = match mode {
            Mode::Text => None,
            _ => pick_compiler(cfg.compiler.as_deref()),
        };
        let opts = ProbeOptions {
            probes: &probes,
            only: &[],
            require_all: cfg.require_all,
            expect_probes: cfg.expect_probes,
            mode,
            compiler: cxx.as_deref(),
            compiler_flags: &cfg.compiler_flags,
            compile_db: inputs.compile_db.as_ref(),
        };
        let o = match analysis::probes(g, &opts) {
            Ok(o) => o,
            Err(e) => {
                return GateReport::could_not_run(
                    PROBES,
                    Code::Inc014.as_str(),
                    e.to_string(),
                    None,
                )
            }
        };
        let mut fs: Vec<Finding> = o
            .diagnostics()
            .into_iter()
            .map(|d| finding(PROBES, d))
            .collect();
        fs.extend(
            analysis::graph_diagnostics(g, false)
                .into_iter()
                .map(|d| finding(PROBES, d)),
        );
        let mut rep = GateReport::from_findings(
            PROBES,
            fs,
            format!(
                "{} probes / {} ran / {} forbidden / {} files graphed",
                o.selected(),
                o.ran(),
                o.forbidden(),
                g.scanned_count()
            ),
        )
        .figure("probes", o.selected())
        .figure("ran", o.ran())
        .figure("skipped", o.skipped())
        .figure("forbidden", o.forbidden())
        .figure("files", g.scanned_count())
        .figure("edges", g.edge_count());
        rep.units = o.results.iter().map(|r| r.probe.name.clone()).collect();
        rep.inputs = vec![ctx.root.display().to_string()];
        rep
    }
    fn self_test(&self, neutered: &Neutered) -> SelfTest {
        crate::gate::self_test(controls::run_probe_controls(&|c| {
            neutered.contains(PROBES, c)
        }))
    }
    fn live_controls(&self, ctx: &CheckCtx, neutered: &Neutered) -> Vec<Control> {
        let Some(cfg) = ctx.config.include.as_ref().filter(|c| !c.probes.is_empty()) else {
            return vec![Control::not_configured()];
        };
        include_graph::live::live_probe_controls(&ctx.root, cfg, &|c| neutered.contains(PROBES, c))
            .into_iter()
            .map(crate::gate::IntoControl::into_control)
            .collect()
    }
}

impl Gate for IncludeLayeringGate {
    fn name(&self) -> &'static str {
        LAYERING
    }
    fn description(&self) -> &'static str {
        "checkdeps-style +/-/! include rules per directory, direct or transitive, with witness chains and stale-rule detection"
    }
    fn skip_reason(&self, ctx: &CheckCtx) -> Option<String> {
        match &ctx.config.include {
            None => Some("no [include] section in mgctl.toml".into()),
            Some(c) if c.layers.is_empty() => Some("[include] has no [[include.layer]]".into()),
            Some(_) => None,
        }
    }
    fn run(&self, ctx: &CheckCtx) -> GateReport {
        let Some(cfg) = &ctx.config.include else {
            return GateReport::skipped(LAYERING, "no [include] section in mgctl.toml");
        };
        let groups = match include_graph::cfg::rule_groups(cfg, &config_source(ctx)) {
            Ok(g) => g,
            Err((e, o)) => {
                return GateReport::could_not_run(
                    LAYERING,
                    Code::Inc008.as_str(),
                    format!("invalid rule: {e}"),
                    Some(Location::at(o.file, o.line as u32, None)),
                )
            }
        };
        let g = match shared_graph(ctx, cfg) {
            Ok(g) => g,
            Err(e) => return GateReport::could_not_run(LAYERING, Code::Inc014.as_str(), e, None),
        };
        let g = &*g;
        let o = analysis::layering(g, &groups);
        let mut fs: Vec<Finding> = o
            .diagnostics()
            .into_iter()
            .map(|d| finding(LAYERING, d))
            .collect();
        // Input problems first after the rules' own findings, then cycles (as before).
        let cycles_at = fs
            .iter()
            .position(|f| f.code == Code::Inc013.as_str())
            .unwrap_or(fs.len());
        let inputs: Vec<Finding> = analysis::graph_diagnostics(g, true)
            .into_iter()
            .map(|d| finding(LAYERING, d))
            .collect();
        fs.splice(cycles_at..cycles_at, inputs);
        let rep = &o.report;
        let mut r = GateReport::from_findings(
            LAYERING,
            fs,
            format!(
                "{} layers, {} rules / {} files checked / {} violations, {} temporary uses",
                o.layers,
                o.rules,
                rep.files_checked,
                rep.violations.len(),
                rep.temporary.len()
            ),
        )
        .figure("layers", o.layers)
        .figure("rules", o.rules)
        .figure("files_checked", rep.files_checked)
        .figure("violations", rep.violations.len())
        .figure("temporary_uses", rep.temporary.len())
        .figure("stale", rep.stale.len())
        .figure("files", g.scanned_count())
        .figure("edges", g.edge_count());
        r.units = groups.iter().map(|g| g.dir.clone()).collect();
        r.inputs = vec![ctx.root.display().to_string()];
        r
    }
    fn self_test(&self, neutered: &Neutered) -> SelfTest {
        crate::gate::self_test(controls::run_layering_controls(&|c| {
            neutered.contains(LAYERING, c)
        }))
    }
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
            let (config, config_path, config_text) = crate::config::load(&root).unwrap();
            CheckCtx {
                root: root.clone(),
                config: Arc::new(config),
                config_path,
                config_text,
                include_graph: Default::default(),
            }
        };
        let first = IncludeLayeringGate.run(&ctx());
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
        let second = IncludeLayeringGate.run(&ctx());
        assert_eq!(
            second.verdict,
            crate::gate::Verdict::Fail,
            "{:#?}",
            second.findings
        );
    }
}
