//! Gate `preproc`: retired preprocessor switches and banned identifiers (upstream
//! `retired_switches.py`, generalised) over the workspace's tracked C/C++ files.

use serde::Deserialize;

use lints::gitread::GitWorkspace;
use lints::preproc::{self, BannedRule, HitKind, RetiredRule, Rules};

use crate::gate::{CheckCtx, Control, Finding, Gate, GateReport, Location, Neutered, SelfTest};

pub const GATE: &str = "preproc";

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PreprocConfig {
    /// File extensions scanned (tracked files only); default: the C/C++ family.
    #[serde(default = "default_extensions")]
    pub extensions: Vec<String>,
    /// Workspace-relative globs never scanned (e.g. `fixtures/**`).
    #[serde(default)]
    pub exclude: Vec<String>,
    #[serde(default)]
    pub retired: Vec<RetiredRule>,
    #[serde(default)]
    pub banned: Vec<BannedRule>,
}

fn default_extensions() -> Vec<String> {
    preproc::DEFAULT_EXTENSIONS
        .iter()
        .map(|s| s.to_string())
        .collect()
}

impl PreprocConfig {
    fn rules(&self) -> Rules {
        Rules {
            retired: self.retired.clone(),
            banned: self.banned.clone(),
        }
    }
}

/// Upstream's rules: P13 W3b and W5 retirements and the `MGB_CTX` ban (comments count).
pub fn mobilegl_profile() -> Option<PreprocConfig> {
    let r = preproc::mobilegl_rules();
    Some(PreprocConfig {
        extensions: default_extensions(),
        exclude: Vec::new(),
        retired: r.retired,
        banned: r.banned,
    })
}

fn code(kind: HitKind) -> &'static str {
    match kind {
        HitKind::Conditional => "PPR001",
        HitKind::Define => "PPR002",
        HitKind::Banned => "PPR003",
    }
}

fn hit_findings(hits: &[preproc::Hit]) -> Vec<Finding> {
    hits.iter()
        .map(|h| {
            let what = match h.kind {
                HitKind::Conditional => format!(
                    "#{} names retired {}",
                    h.directive.as_deref().unwrap_or("if"),
                    h.name
                ),
                HitKind::Define => format!("#define of retired {}", h.name),
                HitKind::Banned => format!("banned identifier {}", h.name),
            };
            Finding::error(
                GATE,
                code(h.kind),
                format!("{what}: {}: {}", h.message, h.text),
            )
            .at(Location::at(
                h.path.clone(),
                h.line as u32,
                Some(h.column as u32),
            ))
            .in_unit(h.path.clone())
            .with_detail(serde_json::json!({ "annotation": h.annotation() }))
        })
        .collect()
}

fn build_globs(globs: &[String]) -> Result<globset::GlobSet, String> {
    let mut b = globset::GlobSetBuilder::new();
    for g in globs {
        b.add(globset::Glob::new(g).map_err(|e| format!("[preproc] exclude '{g}': {e}"))?);
    }
    b.build().map_err(|e| e.to_string())
}

pub struct PreprocGate;

impl Gate for PreprocGate {
    fn name(&self) -> &'static str {
        GATE
    }

    fn description(&self) -> &'static str {
        "retired preprocessor switches stay retired; banned identifiers stay out (tracked files)"
    }

    fn skip_reason(&self, ctx: &CheckCtx) -> Option<String> {
        match &ctx.config.preproc {
            None => Some("no [preproc] section in mgctl.toml".into()),
            Some(c) if c.retired.is_empty() && c.banned.is_empty() => {
                Some("[preproc] has no rules".into())
            }
            Some(_) => None,
        }
    }

    fn run(&self, ctx: &CheckCtx) -> GateReport {
        let Some(cfg) = &ctx.config.preproc else {
            return GateReport::skipped(GATE, "no [preproc] section in mgctl.toml");
        };
        let exclude = match build_globs(&cfg.exclude) {
            Ok(g) => g,
            Err(e) => return GateReport::could_not_run(GATE, "PPR006", e, None),
        };
        let mut findings = Vec::new();
        // Tracked files only; outside a git repository (a copied tree) every file is scanned
        // and the report says so.
        let (listed, source) = match GitWorkspace::discover(&ctx.root) {
            Ok(ws) => match ws.tracked_files() {
                Ok(t) => (
                    t,
                    format!(
                        "git index of {} (workspace prefix '{}')",
                        ws.workdir().display(),
                        ws.prefix()
                    ),
                ),
                Err(e) => return GateReport::could_not_run(GATE, "PPR006", e.to_string(), None),
            },
            Err(e) => match preproc::walk_files(&ctx.root) {
                Ok(all) => {
                    findings.push(Finding::warning(
                        GATE,
                        "PPR004",
                        format!("{e}: scanned every file under the workspace instead of the tracked files"),
                    ));
                    (
                        all,
                        format!(
                            "every file under {} (not a git repository)",
                            ctx.root.display()
                        ),
                    )
                }
                Err(w) => return GateReport::could_not_run(GATE, "PPR006", w, None),
            },
        };
        let files: Vec<String> = listed
            .into_iter()
            .filter(|p| {
                let ext = p.rsplit_once('.').map(|(_, e)| e).unwrap_or("");
                cfg.extensions.iter().any(|e| e.eq_ignore_ascii_case(ext)) && !exclude.is_match(p)
            })
            .collect();
        let rules = cfg.rules();
        let mut scanned = Vec::new();
        for rel in &files {
            match std::fs::read(ctx.root.join(rel)) {
                Ok(bytes) => {
                    findings.extend(hit_findings(&preproc::scan(&bytes, rel, &rules)));
                    scanned.push(rel.clone());
                }
                Err(e) => findings.push(
                    Finding::warning(GATE, "PPR005", format!("tracked but not scanned: {e}"))
                        .at(Location::file(rel.clone()))
                        .in_unit(rel.clone()),
                ),
            }
        }
        let errors = findings
            .iter()
            .filter(|f| f.severity == crate::gate::Severity::Error)
            .count();
        let mut r = GateReport::from_findings(
            GATE,
            findings,
            format!(
                "{} files / {} retired macros / {} banned identifiers / {errors} hits",
                scanned.len(),
                rules.retired.iter().map(|r| r.macros.len()).sum::<usize>(),
                rules
                    .banned
                    .iter()
                    .map(|r| r.identifiers.len())
                    .sum::<usize>()
            ),
        )
        .figure("files", scanned.len())
        .figure("hits", errors);
        r.units = scanned;
        r.inputs = vec![source];
        r
    }

    fn self_test(&self, neutered: &Neutered) -> SelfTest {
        let rules = preproc::mobilegl_rules();
        // Negative controls: upstream's six planted lines plus its blind spots; each must trip
        // with its own code. Positive controls: upstream's four clean lines plus two more.
        let cases: [(&str, bool, &str, &str); 15] = [
            ("if-push", true, "#if MOBILEGL_PIPE_PUSH\n", "PPR001"),
            (
                "ifdef-legacy-memos",
                true,
                "#ifdef MOBILEGL_PIPE_LEGACY_MEMOS\n",
                "PPR001",
            ),
            (
                "elif-defined-push",
                true,
                "#elif defined(MOBILEGL_PIPE_PUSH)\n",
                "PPR001",
            ),
            ("mgb-ctx", true, "auto* c = MGB_CTX;\n", "PPR003"),
            ("mgb-ctx-live", true, "MGB_CTX_LIVE(x);\n", "PPR003"),
            (
                "ifndef-record-arm",
                true,
                "#ifndef MOBILEGL_BUILD_RECORD_ARM\n",
                "PPR001",
            ),
            (
                "continued-conditional",
                true,
                "#if defined(A) && \\\n    defined(MOBILEGL_PIPE_PUSH)\n",
                "PPR001",
            ),
            (
                "elifdef",
                true,
                "#elifdef MOBILEGL_PIPE_LEGACY_MEMOS\n",
                "PPR001",
            ),
            ("redefine", true, "#define MOBILEGL_PIPE_PUSH 1\n", "PPR002"),
            (
                "env-var-query",
                false,
                "const char* e = getenv(\"MOBILEGL_PIPE_PUSH\");\n",
                "",
            ),
            (
                "comment-mention",
                false,
                "// MOBILEGL_PIPE_PUSH retired at P13 W3b\n",
                "",
            ),
            (
                "pipe-inputs-use",
                false,
                "auto& in = MG_Pipe::gPipeInputs;\n",
                "",
            ),
            (
                "comment-names-record-arm",
                false,
                "// MOBILEGL_BUILD_RECORD_ARM folded away\n",
                "",
            ),
            (
                "comment-after-directive",
                false,
                "#if MOBILEGL_BUILD_DISAGGREGATED // not MOBILEGL_PIPE_PUSH\n",
                "",
            ),
            (
                "longer-identifier",
                false,
                "#ifdef MOBILEGL_PIPE_PUSHED\nint MGB_CTXS;\n",
                "",
            ),
        ];
        let controls: Vec<Control> = cases
            .iter()
            .map(|&(name, expect_trip, src, want)| {
                let src = if expect_trip && neutered.contains(GATE, name) {
                    "int clean;\n"
                } else {
                    src
                };
                let fs = hit_findings(&preproc::scan(src.as_bytes(), "control.cpp", &rules));
                let first = fs.iter().find(|f| !expect_trip || f.code == want);
                Control {
                    name: name.to_string(),
                    expect_trip,
                    tripped: first.is_some(),
                    detail: first.map_or_else(|| "no finding".to_string(), |f| f.message.clone()),
                }
            })
            .collect();
        SelfTest::from_controls(controls)
    }
}
