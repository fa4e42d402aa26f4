//! The `controls` gate's own controls. Canned: each verdict reached through the real state
//! machine ([`super::check_with`] → [`super::check::run_control`]) over a scripted sandbox whose
//! "test" reads its files and environment as a real test would. Live: the real runner (a
//! throw-away copy, real processes) on a tiny temp workspace whose test is `grep -c`.

use std::collections::BTreeMap;
use std::sync::atomic::AtomicUsize;
use std::sync::Arc;

use diag::Control;
use serde::Deserialize;

use super::cfg::ControlConfig;
use super::check::{run_control, Error, Exit, RunResult, Sandbox, Spec, TreeDigest};
use super::Code;

#[derive(Deserialize)]
struct Doc {
    control: Vec<ControlConfig>,
}

fn parse(toml_text: &str) -> Vec<ControlConfig> {
    toml::from_str::<Doc>(toml_text).map_or_else(|_| Vec::new(), |d| d.control)
}

const CHUNKS: &str = "MG_Pipe/Chunks.h";
const CLEAN_CHUNKS: &str = "// chunks\nDynamic: BlendColor\nDynamic: Viewport\nPipeline: Blend\n";
const LIB: &str = "build/libMobileGL.so";

/// How the scripted test behaves besides reading its inputs.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Quirk {
    None,
    /// Every run fails (the workspace is already broken).
    AlwaysRed,
    /// The perturbed run fails, but with a crash, not the assertion.
    ForeignRed,
    /// The third run fails (state leaked from the perturbed run).
    ThirdRed,
    /// Each run writes `stray.log` into the tree.
    WritesStray,
    /// The perturbed run hangs.
    Hangs,
    /// Green runs select nothing (`0 tests ran`).
    SelectsNothing,
    /// The program does not exist.
    NotStarted,
}

/// A scripted sandbox: files in memory; the test is red when the chunk table lists BlendColor
/// as Pipeline, when `CORRUPT=1`, or when the library is the pull build.
struct Script {
    files: BTreeMap<String, Vec<u8>>,
    quirk: Quirk,
    runs: usize,
}

impl Sandbox for Script {
    fn read(&self, rel: &str) -> Result<Option<Vec<u8>>, Error> {
        Ok(self.files.get(rel).cloned())
    }
    fn write(&mut self, rel: &str, bytes: Option<&[u8]>) -> Result<(), Error> {
        match bytes {
            Some(b) => self.files.insert(rel.to_string(), b.to_vec()),
            None => self.files.remove(rel),
        };
        Ok(())
    }
    fn digest(&self) -> Result<TreeDigest, Error> {
        use sha2::Digest;
        Ok(self
            .files
            .iter()
            .map(|(k, v)| (k.clone(), sha2::Sha256::digest(v).into()))
            .collect())
    }
    fn run(&mut self, _spec: &Spec, env: &BTreeMap<String, String>) -> RunResult {
        self.runs += 1;
        let r = |exit: Exit, output: &str| RunResult {
            exit,
            output: output.to_string(),
            ms: 1,
        };
        let text =
            String::from_utf8_lossy(self.files.get(CHUNKS).map_or(&[][..], |v| v)).into_owned();
        let broken = text.contains("Pipeline: BlendColor")
            || env.get("CORRUPT").is_some_and(|v| v == "1")
            || self.files.get(LIB).is_some_and(|v| v == b"pull");
        match self.quirk {
            Quirk::NotStarted => {
                return r(
                    Exit::NotStarted("No such file or directory (os error 2)".into()),
                    "",
                )
            }
            Quirk::AlwaysRed => {
                return r(
                    Exit::Code(1),
                    "FAIL SetterConsistency.SetViewport: Viewport is in no chunk",
                )
            }
            Quirk::WritesStray => {
                self.files.insert(
                    "stray.log".into(),
                    format!("run {}", self.runs).into_bytes(),
                );
            }
            Quirk::Hangs if broken => return r(Exit::TimedOut, ""),
            Quirk::ForeignRed if broken => return r(Exit::Signal(11), "Segmentation fault"),
            Quirk::ThirdRed if self.runs >= 3 => {
                return r(
                    Exit::Code(1),
                    "FAIL SetterConsistency.SetBlendColor: stale state",
                )
            }
            _ => {}
        }
        if broken {
            return r(
                Exit::Code(1),
                "[ RUN ] SetterConsistency.SetBlendColor\nFAIL SetterConsistency.SetBlendColor: BlendColor is in kMGPipePipelineChunks but SetBlendColor publishes NEW_RENDER_STATE only\n",
            );
        }
        if self.quirk == Quirk::SelectsNothing {
            return r(Exit::Code(0), "0 tests ran\n");
        }
        r(
            Exit::Code(0),
            "[ RUN ] SetterConsistency.SetBlendColor\n[ OK ] SetterConsistency.SetBlendColor\n",
        )
    }
}

const HEAD: &str = "[[control]]\nname = \"c\"\ncommand = [\"./setter_consistency\"]\nevidence = 'FAIL SetterConsistency\\.SetBlendColor'\nselection = '^\\[ OK \\]'\n";
const REPLACE: &str = "replace = { file = \"MG_Pipe/Chunks.h\", from = \"Dynamic: BlendColor\", to = \"Pipeline: BlendColor\" }\n";
const PATCH_FILE: &str = "controls/blend-color.diff";
const PATCH: &str = "--- a/MG_Pipe/Chunks.h\n+++ b/MG_Pipe/Chunks.h\n@@ -1,3 +1,3 @@\n // chunks\n-Dynamic: BlendColor\n+Pipeline: BlendColor\n Dynamic: Viewport\n";
const ROTTED: &str = "--- a/MG_Pipe/Chunks.h\n+++ b/MG_Pipe/Chunks.h\n@@ -1,3 +1,3 @@\n // chunks\n-Dynamic: BlendColour\n+Pipeline: BlendColour\n Dynamic: Viewport\n";

/// A canned case's mgctl.toml text, its workspace files and its test's quirk.
type Built = (String, Vec<(&'static str, String)>, Quirk);

/// One canned case: its name, whether it must trip and with which code, and how to build it
/// (clean twin when neutered).
struct Case {
    name: &'static str,
    want: Option<Code>,
    build: fn(neutered: bool) -> Built,
}

fn healthy(extra: &str) -> Built {
    (
        format!("{HEAD}{extra}"),
        vec![(CHUNKS, CLEAN_CHUNKS.to_string())],
        Quirk::None,
    )
}

fn quirk(neutered: bool, q: Quirk) -> Built {
    let (t, f, _) = healthy(REPLACE);
    (t, f, if neutered { Quirk::None } else { q })
}

const CASES: &[Case] = &[
    Case {
        name: "replace-holds",
        want: None,
        build: |_| healthy(REPLACE),
    },
    Case {
        name: "patch-holds",
        want: None,
        build: |_| {
            let (t, mut f, q) = healthy(&format!("patch = \"{PATCH_FILE}\"\n"));
            f.push((PATCH_FILE, PATCH.to_string()));
            (t, f, q)
        },
    },
    Case {
        name: "env-holds",
        want: None,
        build: |_| healthy("env = { CORRUPT = \"1\" }\n"),
    },
    Case {
        name: "swap-holds",
        want: None,
        build: |_| {
            let (t, mut f, q) = healthy(
                "swap = { artifact = \"build/libMobileGL.so\", with = \"build/pull.so\" }\n",
            );
            f.push((LIB, "push".into()));
            f.push(("build/pull.so", "pull".into()));
            (t, f, q)
        },
    },
    Case {
        name: "baseline-red",
        want: Some(Code::Ctl001),
        build: |n| quirk(n, Quirk::AlwaysRed),
    },
    Case {
        name: "patch-rotted",
        want: Some(Code::Ctl002),
        build: |n| {
            let (t, mut f, q) = healthy(&format!("patch = \"{PATCH_FILE}\"\n"));
            f.push((PATCH_FILE, if n { PATCH } else { ROTTED }.to_string()));
            (t, f, q)
        },
    },
    Case {
        name: "replace-from-twice",
        want: Some(Code::Ctl002),
        build: |n| {
            let (t, mut f, q) = healthy(REPLACE);
            if !n {
                f[0].1.push_str("// was: Dynamic: BlendColor\n");
            }
            (t, f, q)
        },
    },
    Case {
        name: "swap-target-missing",
        want: Some(Code::Ctl002),
        build: |n| {
            let (t, mut f, q) = healthy(
                "swap = { artifact = \"build/libMobileGL.so\", with = \"build/pull.so\" }\n",
            );
            f.push((LIB, "push".into()));
            if n {
                f.push(("build/pull.so", "pull".into()));
            }
            (t, f, q)
        },
    },
    Case {
        name: "perturbed-stays-green",
        want: Some(Code::Ctl003),
        build: |n| {
            let to = if n {
                "Pipeline: BlendColor"
            } else {
                "// chunks, moved"
            };
            let from = if n {
                "Dynamic: BlendColor"
            } else {
                "// chunks"
            };
            healthy(&format!(
                "replace = {{ file = \"MG_Pipe/Chunks.h\", from = \"{from}\", to = \"{to}\" }}\n"
            ))
        },
    },
    Case {
        name: "red-for-another-reason",
        want: Some(Code::Ctl004),
        build: |n| quirk(n, Quirk::ForeignRed),
    },
    Case {
        name: "restored-not-green",
        want: Some(Code::Ctl005),
        build: |n| quirk(n, Quirk::ThirdRed),
    },
    Case {
        name: "tree-left-changed",
        want: Some(Code::Ctl006),
        build: |n| quirk(n, Quirk::WritesStray),
    },
    Case {
        name: "perturbed-times-out",
        want: Some(Code::Ctl007),
        build: |n| quirk(n, Quirk::Hangs),
    },
    Case {
        name: "selection-empty",
        want: Some(Code::Ctl008),
        build: |n| quirk(n, Quirk::SelectsNothing),
    },
    Case {
        name: "cannot-start",
        want: Some(Code::Ctl009),
        build: |n| quirk(n, Quirk::NotStarted),
    },
    Case {
        name: "required-artifact-missing",
        want: Some(Code::Ctl009),
        build: |n| {
            let (t, mut f, q) = healthy(&format!("requires = [\"{LIB}\"]\n{REPLACE}"));
            if n {
                f.push((LIB, "push".into()));
            }
            (t, f, q)
        },
    },
    Case {
        name: "two-perturbations",
        want: Some(Code::Ctl010),
        build: |n| {
            healthy(if n {
                REPLACE
            } else {
                "replace = { file = \"MG_Pipe/Chunks.h\", from = \"Dynamic: BlendColor\", to = \"Pipeline: BlendColor\" }\nenv = { CORRUPT = \"1\" }\n"
            })
        },
    },
];

/// Runs every canned control; `neutered(name)` feeds that negative control its clean twin.
pub fn run_controls(neutered: &dyn Fn(&str) -> bool) -> Vec<Control> {
    CASES
        .iter()
        .map(|c| {
            let (text, files, quirk) = (c.build)(c.want.is_some() && neutered(c.name));
            let cfgs = parse(&text);
            let files: BTreeMap<String, Vec<u8>> = files
                .into_iter()
                .map(|(k, v)| (k.to_string(), v.into_bytes()))
                .collect();
            let o = super::check_with(&cfgs, None, &mut |spec| {
                let mut sb = Script {
                    files: files.clone(),
                    quirk,
                    runs: 0,
                };
                Ok(run_control(spec, &mut sb))
            });
            Control::from_diags(
                c.name,
                c.want.is_some(),
                c.want.unwrap_or(Code::Ctl012),
                &o.diags,
            )
        })
        .collect()
}

/// The live controls: the real runner (copy, processes, digest) on a temp workspace holding
/// `probe.txt`, tested by `grep -c ok probe.txt`. `live-holds` must hold; `live-stays-green`
/// (a replacement grep does not notice) and `live-cannot-start` (no such program) must trip.
pub fn live_controls(neutered: &dyn Fn(&str) -> bool) -> Vec<Control> {
    let fail = |name: &str, why: String| Control {
        name: name.into(),
        expect_trip: true,
        tripped: false,
        detail: why,
    };
    let dir = match tempfile::tempdir() {
        Ok(d) => d,
        Err(e) => return vec![fail("live", format!("cannot make a temp workspace: {e}"))],
    };
    if let Err(e) = std::fs::write(dir.path().join("probe.txt"), "ok\n") {
        return vec![fail(
            "live",
            format!("cannot write the temp workspace: {e}"),
        )];
    }
    let control = |name: &str, program: &str, to: &str| {
        format!(
            "[[control]]\nname = \"{name}\"\ncommand = [\"{program}\", \"-c\", \"ok\", \"probe.txt\"]\ntimeout = 20\nevidence = '^0$'\nselection = '^[1-9]'\nreplace = {{ file = \"probe.txt\", from = \"ok\", to = \"{to}\" }}\n"
        )
    };
    let cases: [(&str, Option<Code>, String); 3] = [
        ("live-holds", None, control("live-holds", "grep", "no")),
        (
            "live-stays-green",
            Some(Code::Ctl003),
            control(
                "live-stays-green",
                "grep",
                if neutered("live-stays-green") {
                    "no"
                } else {
                    "ok!"
                },
            ),
        ),
        (
            "live-cannot-start",
            Some(Code::Ctl009),
            control(
                "live-cannot-start",
                if neutered("live-cannot-start") {
                    "grep"
                } else {
                    "./mgctl-no-such-test"
                },
                "no",
            ),
        ),
    ];
    let cancel = Arc::new(AtomicUsize::new(0));
    cases
        .into_iter()
        .map(|(name, want, text)| {
            let cfgs = parse(&text);
            let o = super::check_with(&cfgs, None, &mut |spec| {
                let mut copy = super::run::TempCopy::new(dir.path(), cancel.clone())?;
                Ok(run_control(spec, &mut copy))
            });
            Control::from_diags(name, want.is_some(), want.unwrap_or(Code::Ctl012), &o.diags)
        })
        .collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn every_canned_control_behaves_and_neutering_breaks_each() {
        let all = run_controls(&|_| false);
        assert!(all.iter().all(|c| c.ok()), "{all:#?}");
        assert_eq!(all.len(), CASES.len());
        let proven = diag::controls_can_fail(&|n| run_controls(n));
        assert_eq!(proven, Ok(13));
    }

    #[test]
    fn every_code_but_the_copy_failure_is_reached_by_a_canned_control() {
        let reached: std::collections::BTreeSet<Code> =
            CASES.iter().filter_map(|c| c.want).collect();
        for c in Code::ALL {
            if !matches!(c, Code::Ctl011 | Code::Ctl012) {
                assert!(reached.contains(c), "{c} has no canned control");
            }
        }
    }

    #[test]
    fn live_controls_run_real_processes_and_can_fail() {
        let all = live_controls(&|_| false);
        assert!(all.iter().all(|c| c.ok()), "{all:#?}");
        let proven = diag::controls_can_fail(&|n| live_controls(n));
        assert_eq!(proven, Ok(2));
    }
}
