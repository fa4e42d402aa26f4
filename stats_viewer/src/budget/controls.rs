//! `--self-test` controls of the `budgets` gate, run through [`super::evaluate`] as a real run:
//! a budget exceeded, a missing arm, absent inputs, a budget edited after its data, a T1 over its
//! ceiling; a budget on a session arm that was left out; and a budget within bounds that must
//! stay clean.

use super::inputs::InputFile;
use super::{
    evaluate, BudgetConfig, BudgetPin, Code, Control, PinCheck, PinQuery, SeriesSel, SessionRuns,
};
use crate::counters::WindowSel;

fn bench(cpu_ms: f64) -> Vec<u8> {
    let frames: Vec<String> = (0..8)
        .map(|i| format!("{:.3}", cpu_ms + i as f64 * 0.1))
        .collect();
    format!(
        "{{\"tracePath\": \"t/selftest.trace\", \"backend\": \"DirectGLES\", \"benchmarkFinish\": true, \"tailFrames\": 8, \"meanFrameMs\": 10.0, \"frameTimesMs\": [{0}], \"frameCpuTimesMs\": [{0}]}}",
        frames.join(", ")
    )
    .into_bytes()
}

fn file(rel: &str, bytes: Vec<u8>) -> InputFile {
    InputFile::new(rel.into(), rel.into(), bytes)
}

fn driverbench(ns: f64) -> Vec<u8> {
    format!("case,frames,ops_per_frame,median_frame_ms,ns_per_op,fps\nmc_vanilla_draw,240,5495,1.0,{ns},1.0\n")
        .into_bytes()
}

fn budget(metric: &str, max: f64, arm: Option<&str>, case: Option<&str>) -> BudgetConfig {
    BudgetConfig {
        name: toml::Spanned::new(0..0, "selftest".into()),
        metric: metric.into(),
        inputs: vec!["runs/**".into()],
        case: case.map(str::to_string),
        arm: arm.map(str::to_string),
        base: None,
        run: None,
        series: SeriesSel::Cpu,
        window: WindowSel::LastComplete,
        steady: None,
        max: Some(max),
        min: None,
        unit: "ms".into(),
        why: "self-test".into(),
        optional: false,
        produced_by: None,
        session: None,
    }
}

pub fn run_controls(neutered: &dyn Fn(&str) -> bool) -> Vec<Control> {
    let pull = || file("runs/c-DirectGLES/pull/benchmark.json", bench(10.0));
    let push = || file("runs/c-DirectGLES/push/benchmark.json", bench(11.0));
    let both = || vec![pull(), push()];
    let pinned = |_: &PinQuery<'_>| BudgetPin::Pinned {
        budget: "aaaaaaa".into(),
        inputs: "bbbbbbb".into(),
    };
    let edited = |_: &PinQuery<'_>| BudgetPin::EditedAfter {
        budget: "bbbbbbb".into(),
        inputs: "aaaaaaa".into(),
    };
    type Case<'a> = (
        &'a str,
        bool,
        Code,
        BudgetConfig,
        Vec<InputFile>,
        bool,
        BudgetConfig,
        Vec<InputFile>,
    );
    // (name, expect trip, code, budget, files, edited pin?, clean budget, clean files)
    let cases: Vec<Case<'_>> = vec![
        (
            "budget-exceeded",
            true,
            Code::Bud001,
            budget("p99-delta", 0.5, None, None),
            both(),
            false,
            budget("p99-delta", 2.0, None, None),
            both(),
        ),
        (
            "missing-arm",
            true,
            Code::Bud003,
            budget("p50-delta", 2.0, None, None),
            vec![pull()],
            false,
            budget("p50-delta", 2.0, None, None),
            both(),
        ),
        (
            "absent-inputs",
            true,
            Code::Bud002,
            budget("p50", 20.0, Some("push"), None),
            Vec::new(),
            false,
            budget("p50", 20.0, Some("push"), None),
            both(),
        ),
        (
            "edited-after-data",
            true,
            Code::Bud006,
            budget("p50", 20.0, Some("push"), None),
            both(),
            true,
            budget("p50", 20.0, Some("push"), None),
            both(),
        ),
        (
            "t1-over-ceiling",
            true,
            Code::Bud001,
            budget("T1", 45.0, None, Some("mc_vanilla_draw")),
            vec![
                file("runs/db/driverbench-A-espryt-pull.csv", driverbench(5136.1)),
                file("runs/db/driverbench-B-espryt-push.txt", driverbench(5439.1)),
            ],
            false,
            budget("T1", 400.0, None, Some("mc_vanilla_draw")),
            vec![
                file("runs/db/driverbench-A-espryt-pull.csv", driverbench(5136.1)),
                file("runs/db/driverbench-B-espryt-push.txt", driverbench(5439.1)),
            ],
        ),
        (
            "within-budget",
            false,
            Code::Bud001,
            budget("p99-delta-pct", 50.0, None, None),
            both(),
            false,
            budget("p99-delta-pct", 50.0, None, None),
            both(),
        ),
    ];
    let mut out = Vec::new();
    for (name, expect_trip, code, b, files, edit, clean_b, clean_files) in cases {
        let neuter = expect_trip && neutered(name);
        let (b, files, edit) = if neuter {
            (clean_b, clean_files, false)
        } else {
            (b, files, edit)
        };
        let pin: &dyn Fn(&PinQuery<'_>) -> BudgetPin = if edit { &edited } else { &pinned };
        let (_, fs) = evaluate(&b, Some("mgctl.toml"), (1, 8), &files, None, pin);
        let hit = fs.iter().find(|f| {
            if expect_trip {
                f.code == code
            } else {
                f.code.is_error()
            }
        });
        out.push(super::control_from_hit(
            name,
            expect_trip,
            code.as_str(),
            hit.map(|f| (f.code.as_str(), f.message.as_str())),
        ));
    }
    out.push(session_control(neutered, &pinned));
    out
}

/// A budget over a device session names a transport; an arm the session left out (a spawn arm
/// that fell back) is no measurement: the budget fails, saying why the arm is out.
fn session_control(neutered: &dyn Fn(&str) -> bool, pin: PinCheck<'_>) -> Control {
    let name = "session-voided-arm-trips";
    let runs = super::frame_runs(&[
        file("s/mc-DirectGLES/monolith/benchmark-run1.json", bench(10.0)),
        file("s/mc-DirectGLES/inproc/benchmark-run1.json", bench(10.5)),
    ])
    .unwrap_or_default();
    let session = SessionRuns {
        dir: "s".into(),
        runs,
        left_out: vec!["03-mc-DirectGLES-spawn-r2 UNPROVEN: no `spawn ARMED` line".into()],
        rels: vec!["s/01/benchmark-run1.json".into()],
    };
    let mut b = budget(
        "p50-delta",
        5.0,
        Some(if neutered(name) { "inproc" } else { "spawn" }),
        None,
    );
    b.base = Some("monolith".into());
    b.inputs.clear();
    b.session = Some("s".into());
    let (_, fs) = evaluate(&b, Some("mgctl.toml"), (1, 8), &[], Some(&session), pin);
    let hit = fs
        .iter()
        .find(|f| f.code == Code::Bud003 && f.message.contains("left out of the session"));
    super::control_from_hit(
        name,
        true,
        Code::Bud003.as_str(),
        hit.map(|f| (f.code.as_str(), f.message.as_str())),
    )
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::benchmark::BenchmarkFile;

    /// Budgets evaluated one after another over one shared list of inputs (each file parsed
    /// once, on first use, and kept) report exactly what each reports over a fresh list of its
    /// own, on generated runs: several run directories and arms, numbered repeats or a single
    /// `benchmark.json`, broken JSON, missing or empty series. The kept parse is the parse, its
    /// error text (which names the file by its relative path) included.
    #[test]
    fn shared_inputs_evaluate_like_fresh_ones() {
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let metrics = [
            "p50",
            "p95",
            "p99",
            "mean",
            "p50-delta",
            "p99-delta",
            "p95-delta-pct",
            "p99-delta-pct",
        ];
        let pinned = |_: &PinQuery<'_>| BudgetPin::Pinned {
            budget: "a".into(),
            inputs: "b".into(),
        };
        for round in 0..40 {
            let mut inputs: Vec<(String, Vec<u8>)> = Vec::new();
            for run in 0..1 + next() % 3 {
                for arm in ["pull", "push", "push7f"] {
                    let numbered = next() % 3 != 0;
                    for rep in 1..=1 + next() % 3 {
                        let name = if numbered {
                            format!("benchmark-run{rep}.json")
                        } else if rep == 1 {
                            "benchmark.json".to_string()
                        } else {
                            continue;
                        };
                        let cpu = 5.0 + (next() % 100) as f64 / 10.0;
                        let bytes = match next() % 10 {
                            0 => b"{\"frameTimesMs\": [1.0,".to_vec(),
                            1 => b"{\"frameTimesMs\": [], \"frameCpuTimesMs\": []}".to_vec(),
                            2 => b"{\"frameTimesMs\": [2.5, 3.5]}".to_vec(),
                            _ => bench(cpu),
                        };
                        inputs.push((format!("runs/r{run}-DirectGLES/{arm}/{name}"), bytes));
                    }
                }
            }
            // A real input's path is absolute, its name in messages the relative path.
            let fresh = || -> Vec<InputFile> {
                inputs
                    .iter()
                    .map(|(rel, b)| {
                        InputFile::new(rel.clone(), Path::new("/ws").join(rel), b.clone())
                    })
                    .collect()
            };
            let shared = fresh();
            for _ in 0..12 {
                let metric = metrics[(next() % metrics.len() as u64) as usize];
                let arm = ["push", "pull", "push7f"][(next() % 3) as usize];
                let mut b = budget(metric, (next() % 40) as f64 / 10.0, Some(arm), None);
                if next() % 2 == 0 {
                    b.series = SeriesSel::Wall;
                }
                if next() % 4 == 0 {
                    b.run = Some(format!("r{}-DirectGLES", next() % 3));
                }
                let got = evaluate(&b, Some("mgctl.toml"), (1, 8), &shared, None, &pinned);
                let want = evaluate(&b, Some("mgctl.toml"), (1, 8), &fresh(), None, &pinned);
                assert_eq!(got, want, "round {round}, {metric} {arm}: {inputs:?}");
            }
            for f in &shared {
                let want =
                    BenchmarkFile::parse(Path::new(&f.rel), &f.bytes).map_err(|e| e.to_string());
                let got = f.benchmark().cloned().map_err(|e| e.to_string());
                assert_eq!(got, want);
            }
        }
    }
}
