//! Gate `dirty-surface`: every frontend mutator the GL entry points call is mapped in
//! `DirtySurface.def` to what publishes it, and the derivable answers are the derived ones
//! (library: `dirty_surface`; upstream: `scripts/gen_pipe_dirty_surface.py --check`).

use serde::Deserialize;

use dirty_surface::audit::{self, CheckRun, Settings};
use dirty_surface::check::ProblemKind;
use dirty_surface::scan::upstream_prefixes;
use dirty_surface::selftest;
use dirty_surface::surface::Mode;

use crate::gate::{CheckCtx, Control, Finding, Gate, GateReport, Location, Neutered, SelfTest};

const GATE: &str = "dirty-surface";

/// `[dirty_surface]` in mgctl.toml. Every key has the MobileGL default.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DirtySurfaceConfig {
    /// Directories scanned for mutator calls (recursive, `.cpp`/`.h`).
    #[serde(default = "default_scan_roots")]
    pub scan_roots: Vec<String>,
    /// Mutator name prefixes; exclusive with `prefix_set`.
    pub prefixes: Option<Vec<String>>,
    /// An upstream prefix set by version: P0, P1, P2, P3a (10 words), P4a (12), P5e (13).
    pub prefix_set: Option<String>,
    #[serde(default = "default_def")]
    pub def: String,
    #[serde(default = "default_render_state")]
    pub render_state: String,
    #[serde(default = "default_tracker")]
    pub tracker: String,
    #[serde(default = "default_write_roots")]
    pub write_roots: Vec<String>,
    #[serde(default = "default_containment_root")]
    pub containment_root: String,
}

fn default_scan_roots() -> Vec<String> {
    Settings::mobilegl().scan_roots
}
fn default_def() -> String {
    Settings::mobilegl().def
}
fn default_render_state() -> String {
    Settings::mobilegl().render_state
}
fn default_tracker() -> String {
    Settings::mobilegl().tracker
}
fn default_write_roots() -> Vec<String> {
    Settings::mobilegl().write_roots
}
fn default_containment_root() -> String {
    Settings::mobilegl().containment_root
}

impl Default for DirtySurfaceConfig {
    fn default() -> Self {
        DirtySurfaceConfig {
            scan_roots: default_scan_roots(),
            prefixes: None,
            prefix_set: None,
            def: default_def(),
            render_state: default_render_state(),
            tracker: default_tracker(),
            write_roots: default_write_roots(),
            containment_root: default_containment_root(),
        }
    }
}

impl DirtySurfaceConfig {
    /// The library settings; a bad prefix choice is a one-line error.
    pub fn settings(&self) -> Result<Settings, String> {
        let prefixes = match (&self.prefixes, &self.prefix_set) {
            (Some(_), Some(_)) => return Err("[dirty_surface]: set `prefixes` or `prefix_set`, not both".into()),
            (Some(p), None) => p.clone(),
            (None, Some(v)) => upstream_prefixes(v).ok_or_else(|| format!("[dirty_surface]: unknown prefix_set `{v}` (expected P0, P1, P2, P3a, P4a or P5e)"))?,
            (None, None) => Settings::mobilegl().prefixes,
        };
        Ok(Settings {
            scan_roots: self.scan_roots.clone(),
            prefixes,
            def: self.def.clone(),
            render_state: self.render_state.clone(),
            tracker: self.tracker.clone(),
            write_roots: self.write_roots.clone(),
            containment_root: self.containment_root.clone(),
        })
    }
}

/// Upstream's fixed paths and the newest (P5e) prefix set.
pub fn mobilegl_profile() -> Option<DirtySurfaceConfig> {
    Some(DirtySurfaceConfig::default())
}

fn code(kind: ProblemKind) -> &'static str {
    match kind {
        ProblemKind::Unmapped => "DSF001",
        ProblemKind::StaleRow => "DSF002",
        ProblemKind::Duplicate => "DSF003",
        ProblemKind::BadAnswer => "DSF004",
        ProblemKind::Undecided => "DSF005",
        ProblemKind::UnderFiringBit => "DSF006",
        ProblemKind::StaleMark => "DSF007",
        ProblemKind::Unverifiable => "DSF008",
        ProblemKind::MissingPublisher => "DSF009",
        ProblemKind::UnderFiringRender => "DSF010",
    }
}

/// Findings of a check run: scan problems (DSF011) first, then the problems in upstream order.
pub fn findings(run: &CheckRun) -> Vec<Finding> {
    let mut out = Vec::new();
    for i in &run.issues {
        out.push(
            Finding::error(GATE, "DSF011", i.message.clone())
                .at(Location::at(i.path.clone(), i.line, Some(i.column)))
                .in_unit(i.path.clone()),
        );
    }
    for p in &run.result.problems {
        let loc = match (p.kind, p.def_line) {
            (ProblemKind::Unmapped, _) => run
                .first_site
                .get(&p.mutator)
                .map(|(f, l, c)| Location::at(f.clone(), *l, Some(*c))),
            (_, Some(l)) => Some(Location::at(run.def_path.clone(), l as u32, None)),
            _ => Some(Location::file(run.def_path.clone())),
        };
        let mut f = Finding::error(GATE, code(p.kind), p.text.clone())
            .in_unit(p.mutator.clone())
            .with_detail(serde_json::json!({ "kind": p.kind, "mutator": p.mutator }));
        f.location = loc;
        out.push(f);
    }
    out
}

pub struct DirtySurfaceGate;

impl Gate for DirtySurfaceGate {
    fn name(&self) -> &'static str {
        GATE
    }

    fn description(&self) -> &'static str {
        "every frontend mutator mapped in DirtySurface.def to what publishes it; render and shutter answers derived"
    }

    fn skip_reason(&self, ctx: &CheckCtx) -> Option<String> {
        ctx.config
            .dirty_surface
            .is_none()
            .then(|| "no [dirty_surface] section in mgctl.toml".to_string())
    }

    fn run(&self, ctx: &CheckCtx) -> GateReport {
        let Some(cfg) = &ctx.config.dirty_surface else {
            return GateReport::skipped(GATE, "no [dirty_surface] section in mgctl.toml");
        };
        let settings = match cfg.settings() {
            Ok(s) => s,
            Err(e) => {
                return GateReport::could_not_run(
                    GATE,
                    "DSF012",
                    e,
                    ctx.config_path.as_ref().map(|p| Location::file(ctx.rel(p))),
                )
            }
        };
        let run = audit::load(&ctx.root, &settings, true)
            .and_then(|ws| audit::run_check(&ws, &settings, Mode::Accurate).map(|r| (ws, r)));
        let (ws, run) = match run {
            Ok(x) => x,
            Err(e) => return GateReport::could_not_run(GATE, "DSF012", e.to_string(), None),
        };
        let c = &run.counts;
        let v = &run.verdicts.pairs;
        let count =
            |f: fn(&dirty_surface::nonrender::Verdict) -> bool| v.values().filter(|x| f(x)).count();
        use dirty_surface::nonrender::Verdict as V;
        let mut gr = GateReport::from_findings(GATE, findings(&run), run.summary.clone())
            .figure("files", c.files)
            .figure("mutator_calls", c.calls)
            .figure("distinct_mutators", c.distinct)
            .figure("immediate_calls", c.immediate_calls)
            .figure("immediate_publish_points", c.points)
            .figure("deferred", c.deferred)
            .figure(
                "bit_answers_supported",
                count(|x| matches!(x, V::Supported)),
            )
            .figure("bit_answers_coarse", count(|x| matches!(x, V::Coarse(_))))
            .figure(
                "bit_answers_undecided",
                count(|x| matches!(x, V::Undecided(_))),
            );
        gr.units = run.first_site.keys().cloned().collect();
        gr.inputs = ws.sources.iter().map(|s| s.rel.clone()).collect();
        gr.inputs.push(ws.def.rel.clone());
        gr.inputs.extend(
            ws.render_state
                .iter()
                .chain(ws.tracker.iter())
                .map(|s| s.rel.clone()),
        );
        gr
    }

    fn self_test(&self, neutered: &Neutered) -> SelfTest {
        let results = selftest::run(&|label| neutered.contains(GATE, label));
        SelfTest {
            controls: results
                .into_iter()
                .map(|r| Control {
                    name: r.label,
                    expect_trip: r.negative,
                    tripped: if r.negative { r.ok } else { !r.ok },
                    detail: r.detail,
                })
                .collect(),
        }
    }
}
