//! Benchmark files grouped into A/B runs: a runs directory's `<run>/<arm>/benchmark*.json`, or a
//! device session's proven arms by transport; and the value of a benchmark metric on one run.

use std::path::Path;

use super::inputs::InputFile;
use super::{ab, arm_files, base_name, parent, BudgetConfig, Code, Stat};
use crate::bench_report::RunGroup;

/// One A/B run: its arms' repeat groups (arm = the directory holding the benchmark files).
pub struct RunArms {
    pub label: String,
    pub arms: Vec<(String, RunGroup)>,
}

impl RunArms {
    pub fn arm(&self, name: &str) -> Option<&RunGroup> {
        self.arms.iter().find(|(n, _)| n == name).map(|(_, g)| g)
    }
}

/// A device session read as A/B runs for the budgets: one `RunArms` per `<case>-<backend>`, arms
/// named by transport (proven arms only), the arms left out with why, and the benchmark files'
/// workspace-relative paths (what the pin looks up).
#[derive(Default)]
pub struct SessionRuns {
    pub dir: String,
    pub runs: Vec<RunArms>,
    pub left_out: Vec<String>,
    pub rels: Vec<String>,
}

/// Why a device session cannot be read as A/B runs.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error(transparent)]
    Load(#[from] crate::Error),
    #[error(transparent)]
    Analyse(#[from] crate::devsession::AnalyseError),
}

/// Reads `root/dir` as a device session; the error names what could not be read.
pub fn session_runs(root: &Path, dir: &str) -> Result<SessionRuns, SessionError> {
    let input = crate::devsession::load(&root.join(dir))?;
    let report = crate::devsession::analyse(&input, &crate::devsession::Options::default())?;
    let (runs, left_out) = ab::from_session(&input, &report);
    let rels = input
        .arms
        .iter()
        .flat_map(|a| a.runs.iter().map(|b| format!("{dir}/{}", b.shown)))
        .collect();
    Ok(SessionRuns {
        dir: dir.to_string(),
        runs: runs
            .into_iter()
            .map(|r| RunArms {
                label: format!("{dir}/{}", r.dir),
                arms: r.arms.into_iter().map(|a| (a.name, a.group)).collect(),
            })
            .collect(),
        left_out,
        rels,
    })
}

/// The value of a benchmark metric on one run, or why it has none (code, message).
pub fn frames_value(
    b: &BudgetConfig,
    stat: Stat,
    delta: Option<bool>,
    run: &RunArms,
) -> Result<f64, (Code, String)> {
    let series = b.series.series();
    let arm_stat = |arm: &str| -> Result<f64, (Code, String)> {
        let g = run.arm(arm).ok_or_else(|| {
            (
                Code::Bud003,
                format!(
                    "arm {arm:?} is missing in {} (arms: {})",
                    run.label,
                    run.arms
                        .iter()
                        .map(|a| a.0.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )
        })?;
        let best = g
            .best()
            .ok_or_else(|| (Code::Bud003, format!("arm {arm:?} has no runs")))?;
        let (_, _, st) = g.stats(best, series).ok_or_else(|| {
            (
                Code::Bud003,
                format!(
                    "arm {arm:?} in {}: the {} series is empty",
                    run.label,
                    series.name()
                ),
            )
        })?;
        Ok(stat.of(&st))
    };
    let arm = b.arm.as_deref().unwrap_or("push");
    match delta {
        None => arm_stat(arm),
        Some(pct) => {
            let a = arm_stat(b.base.as_deref().unwrap_or("pull"))?;
            let v = arm_stat(arm)?;
            if !pct {
                Ok(v - a)
            } else if a == 0.0 {
                Err((Code::Bud003, "the base arm's value is 0: no %".into()))
            } else {
                Ok(100.0 * (v - a) / a)
            }
        }
    }
}

/// Groups benchmark files into runs (grandparent directory) and arms (parent directory).
pub(super) fn frame_runs(files: &[InputFile]) -> Result<Vec<RunArms>, (Code, String)> {
    let mut dirs: Vec<(&str, Vec<&InputFile>)> = Vec::new();
    for f in files {
        let d = parent(&f.rel);
        match dirs.iter_mut().find(|(n, _)| *n == d) {
            Some((_, v)) => v.push(f),
            None => dirs.push((d, vec![f])),
        }
    }
    let mut runs: Vec<RunArms> = Vec::new();
    for (dir, fs) in dirs {
        let mut group = Vec::new();
        for f in arm_files(&fs) {
            group.push(
                f.benchmark()
                    .map_err(|e| (Code::Bud004, e.to_string()))?
                    .clone(),
            );
        }
        let run = parent(dir);
        let arm = RunGroup {
            label: dir.to_string(),
            runs: group,
            tail: None,
        };
        let entry = (base_name(dir).to_string(), arm);
        match runs.iter_mut().find(|r| r.label == run) {
            Some(r) => r.arms.push(entry),
            None => runs.push(RunArms {
                label: run.to_string(),
                arms: vec![entry],
            }),
        }
    }
    Ok(runs)
}
