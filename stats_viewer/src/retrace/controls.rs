//! The `retrace` self-test: canned inputs through [`analyse`], exactly as a real run. Each
//! negative control must raise its own code; neutered, it is fed the clean corpus and cannot.

use std::collections::BTreeMap;
use std::time::{Duration, SystemTime};

use diag::Control;

use super::{analyse, cases, results, Code, Exclusion, Input, ResultFile, RetraceConfig};
use crate::lfs::{Fixture, FixtureState, Preflight};

const CASES: &str = r#"{
  "defaults": { "trace_file": "trace.trace", "width": 854, "height": 480, "ssim_threshold": 0.99 },
  "cases": [
    { "name": "OpenRA", "trace_archive": "openra.tgz", "golden": "openra.0000031249.png", "target_call": 31249, "width": 640 },
    { "name": "minecraft-1.21.4-in-world", "trace_archive": "minecraft-1.21.4-in-world.tgz", "golden": "minecraft-1.21.4-in-world.0000280000.png", "target_call": 280000 }
  ]
}"#;

const POINTER_SIZE: u64 = 131;

fn config() -> RetraceConfig {
    RetraceConfig {
        results: "results".into(),
        cases: "trace_cases.json".into(),
        fixtures: "fixtures".into(),
        exclude: vec![Exclusion {
            case: "OpenRA".into(),
            backend: Some("DirectVulkan".into()),
        }],
        ..RetraceConfig::mobilegl()
    }
}

fn result(case: &str, backend: &str, ssim: &str, call: u64) -> String {
    format!(
        r#"{{"passed": true, "statusCode": 0, "message": "", "backend": "{backend}", "ssim": {ssim}, "ssimThreshold": 0.99, "targetCall": {call}, "goldenPath": "/w/fixtures/{case}.png"}}"#
    )
}

fn file(case: &str, backend: &str, text: &str, mtime: SystemTime) -> ResultFile {
    let safe = cases::safe_case(case);
    let rel = format!("results/{safe}-{backend}/result.json");
    ResultFile {
        parsed: results::parse(&rel, text.as_bytes()).map_err(|e| e.to_string()),
        rel,
        id: Some((case.to_string(), backend.to_string())),
        mtime: Some(mtime),
        golden_copy_differs: Some(false),
    }
}

/// The clean corpus: 2 cases × 2 backends minus OpenRA × DirectVulkan, every ssim above 0.99,
/// results written after their sources.
fn clean() -> Input {
    let t0 = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
    let later = t0 + Duration::from_secs(60);
    let cases = cases::parse("trace_cases.json", CASES).unwrap_or_default();
    let mc = "minecraft-1.21.4-in-world";
    let results = vec![
        file(
            "OpenRA",
            "DirectGLES",
            &result("openra.0000031249", "DirectGLES", "0.9987", 31249),
            later,
        ),
        file(
            mc,
            "DirectGLES",
            &result(
                "minecraft-1.21.4-in-world.0000280000",
                "DirectGLES",
                "0.9951",
                280000,
            ),
            later,
        ),
        file(
            mc,
            "DirectVulkan",
            &result(
                "minecraft-1.21.4-in-world.0000280000",
                "DirectVulkan",
                "0.9934",
                280000,
            ),
            later,
        ),
    ];
    let fixtures: Vec<Fixture> = [
        "fixtures/openra.tgz",
        "fixtures/openra.0000031249.png",
        "fixtures/minecraft-1.21.4-in-world.tgz",
        "fixtures/minecraft-1.21.4-in-world.0000280000.png",
    ]
    .iter()
    .map(|r| Fixture {
        rel: r.to_string(),
        state: FixtureState::Present { size: 4096 },
    })
    .collect();
    let fixture_mtimes: BTreeMap<String, SystemTime> =
        fixtures.iter().map(|f| (f.rel.clone(), t0)).collect();
    Input {
        cases_rel: "trace_cases.json".into(),
        cases,
        cases_mtime: Some(t0),
        results_rel: "results".into(),
        results_dir_exists: true,
        results,
        fixtures_rel: "fixtures".into(),
        preflight: Preflight { fixtures },
        fixture_mtimes,
    }
}

/// (control, code it must raise, how the clean corpus is broken)
type Mutation = fn(&mut Input);

fn mutations() -> Vec<(&'static str, Code, Mutation)> {
    vec![
        ("below-threshold", Code::Rtr005, |i| {
            i.results[2] = file(
                "minecraft-1.21.4-in-world",
                "DirectVulkan",
                &result(
                    "minecraft-1.21.4-in-world.0000280000",
                    "DirectVulkan",
                    "0.9712",
                    280000,
                ),
                i.results[2].mtime.unwrap_or(SystemTime::UNIX_EPOCH),
            );
        }),
        ("missing-case", Code::Rtr003, |i| {
            i.results.remove(1);
        }),
        ("zero-selected", Code::Rtr002, |i| {
            i.results.clear();
        }),
        ("ssim-none", Code::Rtr006, |i| {
            i.results[1] = file(
                "minecraft-1.21.4-in-world",
                "DirectGLES",
                r#"{"passed": false, "backend": "DirectGLES", "ssim": null, "message": "replay produced no frame"}"#,
                i.results[1].mtime.unwrap_or(SystemTime::UNIX_EPOCH),
            );
        }),
        ("lfs-pointers", Code::Rtr001, |i| {
            for f in &mut i.preflight.fixtures {
                if f.rel.contains("minecraft") {
                    f.state = FixtureState::Pointer { size: POINTER_SIZE };
                }
            }
            for r in &mut i.results[1..] {
                let b = r.id.as_ref().map(|x| x.1.clone()).unwrap_or_default();
                *r = file(
                    "minecraft-1.21.4-in-world",
                    &b,
                    &format!(
                        r#"{{"passed": false, "statusCode": 2, "message": "SKIPPED_LFS_POINTER: trace archive is missing or still an LFS pointer", "backend": "{b}", "ssim": -1}}"#
                    ),
                    r.mtime.unwrap_or(SystemTime::UNIX_EPOCH),
                );
            }
        }),
        ("duplicate-result", Code::Rtr004, |i| {
            let mut dup = i.results[0].clone();
            dup.rel = "results/old/OpenRA-DirectGLES/result.json".into();
            i.results.push(dup);
        }),
        ("stale-case-list", Code::Rtr009, |i| {
            i.results[0] = file(
                "OpenRA",
                "DirectGLES",
                &result("openra.0000031249", "DirectGLES", "0.9987", 31250),
                i.results[0].mtime.unwrap_or(SystemTime::UNIX_EPOCH),
            );
        }),
        ("older-than-fixtures", Code::Rtr009, |i| {
            i.results[0].mtime = Some(SystemTime::UNIX_EPOCH);
        }),
    ]
}

/// The controls: each negative control a broken copy of the clean corpus that must raise its
/// code; `clean-corpus` a positive control that must stay clean.
pub fn run_controls(neutered: &dyn Fn(&str) -> bool) -> Vec<Control> {
    let cfg = config();
    let mut out: Vec<Control> = mutations()
        .into_iter()
        .map(|(name, code, mutate)| {
            let mut input = clean();
            if !neutered(name) {
                mutate(&mut input);
            }
            let (diags, _) = analyse(&input, &cfg);
            Control::from_diags(name, true, code, &diags)
        })
        .collect();
    let (diags, _) = analyse(&clean(), &cfg);
    out.push(Control::from_diags(
        "clean-corpus",
        false,
        Code::Rtr005,
        &diags,
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_pass_and_a_neutered_one_does_not_trip() {
        let all = run_controls(&|_| false);
        assert!(diag::self_test_passed(&all), "{all:#?}");
        for (name, _, _) in mutations() {
            let n = run_controls(&|c| c == name);
            assert!(!diag::self_test_passed(&n), "{name}");
        }
    }

    #[test]
    fn the_clean_corpus_reads_passed_3_of_3() {
        let (diags, t) = analyse(&clean(), &config());
        assert!(diags.is_empty(), "{diags:#?}");
        assert_eq!(t.headline(), "passed 3 / 3");
    }

    #[test]
    fn lfs_is_said_first_and_counted_not_run_not_failed() {
        let mut i = clean();
        (mutations()[4].2)(&mut i);
        let (diags, t) = analyse(&i, &config());
        assert_eq!(diags[0].code, Code::Rtr001, "{diags:#?}");
        assert!(
            diags[0].message.contains("git lfs pull"),
            "{}",
            diags[0].message
        );
        assert!(
            diags
                .iter()
                .all(|d| !matches!(d.code, Code::Rtr005 | Code::Rtr006 | Code::Rtr007)),
            "{diags:#?}"
        );
        assert_eq!(
            t.headline(),
            "LFS pointers: 2 not run (git lfs pull); passed 1 / 3"
        );
    }

    #[test]
    fn zero_selected_reads_against_the_expected_set() {
        let mut i = clean();
        i.results.clear();
        let (diags, t) = analyse(&i, &config());
        assert!(
            diags
                .iter()
                .any(|d| d.code == Code::Rtr002 && d.message.contains("passed 0 / 3")),
            "{diags:#?}"
        );
        assert_eq!(t.headline(), "passed 0 / 3, 3 missing");
    }

    #[test]
    fn none_names_the_case() {
        let mut i = clean();
        (mutations()[3].2)(&mut i);
        let (diags, _) = analyse(&i, &config());
        let d = diags.iter().find(|d| d.code == Code::Rtr006);
        assert!(
            d.is_some_and(|d| d
                .message
                .starts_with("minecraft-1.21.4-in-world × DirectGLES: ssim=None")),
            "{diags:#?}"
        );
    }
}
