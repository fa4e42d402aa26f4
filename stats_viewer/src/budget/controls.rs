//! `--self-test` controls of the `budgets` gate, run through [`super::evaluate`] as a real run:
//! a budget exceeded, a missing arm, absent inputs, a budget edited after its data, a T1 over its
//! ceiling; and a budget within bounds that must stay clean.

use super::inputs::InputFile;
use super::{evaluate, BudgetConfig, Code, ControlResult, Pin, PinQuery, SeriesSel};
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
    InputFile {
        rel: rel.into(),
        path: rel.into(),
        bytes,
    }
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
    }
}

pub fn run_controls(neutered: &dyn Fn(&str) -> bool) -> Vec<ControlResult> {
    let pull = || file("runs/c-DirectGLES/pull/benchmark.json", bench(10.0));
    let push = || file("runs/c-DirectGLES/push/benchmark.json", bench(11.0));
    let both = || vec![pull(), push()];
    let pinned = |_: &PinQuery<'_>| Pin::Pinned {
        budget: "aaaaaaa".into(),
        inputs: "bbbbbbb".into(),
    };
    let edited = |_: &PinQuery<'_>| Pin::EditedAfter {
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
        let pin: &dyn Fn(&PinQuery<'_>) -> Pin = if edit { &edited } else { &pinned };
        let (_, fs) = evaluate(&b, Some("mgctl.toml"), (1, 8), &files, pin);
        let hit = fs.iter().find(|f| {
            if expect_trip {
                f.code == code
            } else {
                f.code.is_error()
            }
        });
        out.push(ControlResult::from_hit(
            name,
            expect_trip,
            code.as_str(),
            hit.map(|f| (f.code.as_str(), f.message.as_str())),
        ));
    }
    out
}
