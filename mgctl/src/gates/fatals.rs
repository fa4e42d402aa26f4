//! Gate `fatals`: `mgctl stats fatals --verify` over configured device/test logs — MobileGL's G4
//! (every verify case armed, zero `Fatal{` lines).

use std::path::{Path, PathBuf};

use globset::{Glob, GlobSetBuilder};
use serde::Deserialize;
use serde_json::json;

use stats_viewer::{Log, TranscriptVerify};

use crate::gate::{CheckCtx, Control, Finding, Gate, GateReport, Location, Neutered, SelfTest};

const GATE: &str = "fatals";

/// `[fatals]` in mgctl.toml.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FatalsConfig {
    /// Workspace-relative globs of logs (file sink, logcat captures, role logs, ctest transcripts).
    pub logs: Vec<String>,
    /// G4: every log must also carry the verify arming line (`MGPipe: verify armed`).
    #[serde(default = "default_verify")]
    pub verify: bool,
}

fn default_verify() -> bool {
    true
}

/// A MobileGL checkout commits no logs: device and ctest logs live in build and result directories
/// that differ per lane, so the built-in profile leaves this gate unconfigured (skipped, with the
/// reason) rather than guessing paths.
pub fn mobilegl_profile() -> Option<FatalsConfig> {
    None
}

pub struct FatalsGate;

/// Findings for one parsed log (paths in messages and locations are `rel`).
fn log_findings(log: &Log, rel: &str, verify: bool) -> Vec<Finding> {
    let mut out = Vec::new();
    for f in &log.fatals {
        let text = f.fatal.marker_text();
        out.push(
            Finding::error(GATE, "FAT001", format!("{text} (the run died here)"))
                .at(Location::at(rel, u32::try_from(f.line).unwrap_or(u32::MAX), None))
                .in_unit(rel)
                .with_detail(json!({"kind": f.fatal.kind, "detail": f.fatal.detail, "extras": f.fatal.extras, "tail": f.fatal.tail, "verify_kind": f.fatal.is_verify_kind()})),
        );
    }
    for t in &log.transcript {
        if let TranscriptVerify::Failed {
            case,
            backend,
            fatals,
        } = &t.item
        {
            out.push(
                Finding::error(GATE, "FAT004", format!("the retrace runner failed {case} {backend}: {fatals} MGPipe Fatal(s) under MOBILEGL_PIPE_VERIFY"))
                    .at(Location::at(rel, u32::try_from(t.line).unwrap_or(u32::MAX), None))
                    .in_unit(rel),
            );
        }
    }
    let armed = log.verify_armed();
    if verify && !armed {
        out.push(
            Finding::error(GATE, "FAT002", "verify never armed: no `MGPipe: verify armed` line (a verify run whose log lacks it never armed)")
                .at(Location::file(rel))
                .in_unit(rel),
        );
    }
    out
}

/// Workspace files matching any glob (skipping `.git` and `target`), sorted.
fn matching_logs(root: &Path, globs: &[String]) -> Result<Vec<PathBuf>, String> {
    let mut b = GlobSetBuilder::new();
    for g in globs {
        b.add(Glob::new(g).map_err(|e| format!("[fatals] logs: bad glob {g:?}: {e}"))?);
    }
    let set = b.build().map_err(|e| format!("[fatals] logs: {e}"))?;
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let entries =
            std::fs::read_dir(&dir).map_err(|e| format!("{}: cannot list: {e}", dir.display()))?;
        for e in entries {
            let e = e.map_err(|e| format!("{}: cannot list: {e}", dir.display()))?;
            let p = e.path();
            let name = e.file_name();
            if p.is_dir() {
                if name != ".git" && name != "target" {
                    stack.push(p);
                }
                continue;
            }
            let rel = p
                .strip_prefix(root)
                .unwrap_or(&p)
                .to_string_lossy()
                .replace('\\', "/");
            if set.is_match(&rel) {
                out.push(p);
            }
        }
    }
    out.sort();
    Ok(out)
}

impl Gate for FatalsGate {
    fn name(&self) -> &'static str {
        GATE
    }

    fn description(&self) -> &'static str {
        "device/test logs: zero Fatal{…} lines, and every log armed verify (MobileGL G4)"
    }

    fn skip_reason(&self, ctx: &CheckCtx) -> Option<String> {
        ctx.config
            .fatals
            .is_none()
            .then(|| "no [fatals] section in mgctl.toml".to_string())
    }

    fn run(&self, ctx: &CheckCtx) -> GateReport {
        let Some(cfg) = &ctx.config.fatals else {
            return GateReport::skipped(GATE, "no [fatals] section in mgctl.toml");
        };
        let paths = match matching_logs(&ctx.root, &cfg.logs) {
            Ok(p) => p,
            Err(e) => return GateReport::could_not_run(GATE, "FAT003", e, None),
        };
        if paths.is_empty() {
            return GateReport::could_not_run(
                GATE,
                "FAT005",
                format!(
                    "no log matches [fatals] logs = {:?}: nothing was checked",
                    cfg.logs
                ),
                None,
            );
        }
        let mut findings = Vec::new();
        let mut units = Vec::new();
        let (mut fatal_lines, mut armed, mut windows) = (0usize, 0usize, 0usize);
        for p in &paths {
            let rel = ctx.rel(p);
            units.push(rel.clone());
            let log = match std::fs::File::open(p)
                .map_err(|e| e.to_string())
                .and_then(|f| Log::from_reader(p, f).map_err(|e| e.to_string()))
            {
                Ok(l) => l,
                Err(e) => {
                    findings.push(
                        Finding::error(
                            GATE,
                            "FAT003",
                            format!(
                                "unreadable log: {}",
                                e.replace(&p.display().to_string(), &rel)
                            ),
                        )
                        .at(Location::file(&rel))
                        .in_unit(&rel),
                    );
                    continue;
                }
            };
            fatal_lines += log.fatals.len();
            windows += log.window_count();
            if log.verify_armed() {
                armed += 1;
            }
            findings.extend(log_findings(&log, &rel, cfg.verify));
        }
        let mut r = GateReport::from_findings(
            GATE,
            findings,
            format!(
                "{} logs / {windows} windows / {fatal_lines} Fatal lines / armed {armed}/{}",
                paths.len(),
                paths.len()
            ),
        )
        .figure("logs", paths.len())
        .figure("windows", windows)
        .figure("fatal_lines", fatal_lines)
        .figure("armed", armed);
        r.units = units.clone();
        r.inputs = units;
        r
    }

    fn self_test(&self, neutered: &Neutered) -> SelfTest {
        const ARMED: &str = "[14:22:03] [Linux trace_replay_cl/INFO]: MGPipe: verify armed - 63 fields, 69 verbs, fatal=1\n";
        const WINDOW: &str = "[14:22:12] [Linux trace_replay_cl/INFO]: MGPipe stats: frames=60 window=60 draws=3120 draws/f=52.00 acc=35448 acc/draw=11.36 bytes/f[buf=1.00] tex[emit=0 box=0 rect=0 jobs=0] gates[ers=1/1]\n";
        let fatal = format!("{ARMED}{WINDOW}[14:22:25] [Linux trace_replay_cl/FATAL]: MGPipe: Fatal{{PipeVerifyDiffer, \"GetRenderStateParameters@Clear\", verb=48213, where=read}}\n");
        let logcat_fatal = format!("{ARMED}11-30 10:21:07.114 24410 24452 F MobileGL: [10:21:07] [Android MobileGLTraceRe/FATAL]: MGPipe: Fatal{{UnmigratedSurface, \"AndroidNativeWindow@P12\"}}\n");
        let clean = format!("{ARMED}{WINDOW}");
        let unarmed = WINDOW.to_string();
        let not_fatal = format!(
            "{ARMED}11-30 10:21:07.131 24410 24452 F libc    : Fatal signal 6 (SIGABRT), code -1 (SI_QUEUE) in tid 24452\n[09:14:02] [Linux mgl-srv-apply/WARN]: MGPipe: Admitted{{UnmigratedPipeInput, \"GetProgramForDraw@Clear\"}} [BARRIER-PULLED, UNBARRIERED, retires in P8]\n"
        );
        let runner_failed = "41: -- MGPipe verify: a DirectGLES armed, zero divergences, zero unmigrated reads\n41:   openra-ra-skirmish DirectGLES: 1 MGPipe Fatal(s) under MOBILEGL_PIPE_VERIFY.\n".to_string();
        let runner_clean =
            "41: -- MGPipe verify: a DirectGLES armed, zero divergences, zero unmigrated reads\n"
                .to_string();
        // (control, expect trip, code that must fire, bad input, clean twin)
        let cases: Vec<(&str, bool, &str, String, String)> = vec![
            ("fatal-line", true, "FAT001", fatal, clean.clone()),
            ("logcat-fatal", true, "FAT001", logcat_fatal, clean.clone()),
            ("never-armed", true, "FAT002", unarmed, clean.clone()),
            (
                "runner-failed",
                true,
                "FAT004",
                runner_failed,
                runner_clean.clone(),
            ),
            ("clean-log", false, "", clean.clone(), clean.clone()),
            (
                "libc-signal-and-admitted",
                false,
                "",
                not_fatal.clone(),
                not_fatal,
            ),
            (
                "clean-transcript",
                false,
                "",
                runner_clean.clone(),
                runner_clean,
            ),
        ];
        let mut controls = Vec::new();
        for (name, expect, code, bad, good) in cases {
            let text = if expect && neutered.contains(GATE, name) {
                good
            } else {
                bad
            };
            let path = Path::new("selftest.log");
            let (tripped, detail) = match Log::parse(path, text.as_bytes()) {
                Ok(log) => {
                    let fs = log_findings(&log, "selftest.log", true);
                    let hit = fs.iter().find(|f| {
                        if expect {
                            f.code == code
                        } else {
                            f.severity == crate::gate::Severity::Error
                        }
                    });
                    match hit {
                        Some(f) => (true, format!("{}: {}", f.code, f.message)),
                        None => (
                            false,
                            if expect {
                                format!("no {code} finding")
                            } else {
                                "clean".into()
                            },
                        ),
                    }
                }
                Err(e) => (true, e.to_string()),
            };
            controls.push(Control {
                name: name.into(),
                expect_trip: expect,
                tripped,
                detail,
            });
        }
        SelfTest::from_controls(controls)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn self_test_passes_and_can_fail() {
        let st = FatalsGate.self_test(&Neutered::default());
        assert!(st.passed(), "{st:?}");
        let mut n = Neutered::default();
        n.0.insert("fatals/fatal-line".into());
        assert!(!FatalsGate.self_test(&n).passed());
    }
}
