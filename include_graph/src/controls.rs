//! Self-test controls of the include gates: canned trees, each run through the same entry
//! point as a real run ([`analysis::probes`], [`analysis::layering`]). A negative control must
//! trip (an error with one of its codes); a neutered one is fed its clean twin.

use std::path::PathBuf;

use crate::analysis::{self, Diag, Mode, ProbeOptions, Severity};
use crate::codes::Code;
use crate::probe::{self, Probe};
use crate::rules::{Origin, Rule, RuleGroup};
use crate::{Graph, GraphOptions};

pub use diag::Control;

/// Writes `files` (root-relative path, text) into a fresh temporary directory, removed when the
/// guard drops: the controls' canned trees (the analyses themselves never write).
fn temp_tree(files: &[(&str, &str)]) -> std::io::Result<tempfile::TempDir> {
    let d = tempfile::tempdir()?;
    for (p, t) in files {
        let full = d.path().join(p);
        if let Some(parent) = full.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(full, t)?;
    }
    Ok(d)
}

type Files = Vec<(&'static str, &'static str)>;

/// Why a control's canned tree could not be written or analysed.
#[derive(Debug, thiserror::Error)]
enum ControlError {
    #[error(transparent)]
    Tree(#[from] std::io::Error),
    #[error(transparent)]
    Analysis(#[from] crate::Error),
}

fn control(
    name: &str,
    expect_trip: bool,
    outcome: Result<Vec<Diag>, ControlError>,
    codes: &[Code],
) -> Control {
    match outcome {
        Err(e) => Control {
            name: name.into(),
            expect_trip,
            tripped: !expect_trip,
            detail: format!("could not build the control: {e}"),
        },
        Ok(ds) => {
            let hit = ds.iter().find(|d| {
                d.severity == Severity::Error && (codes.is_empty() || codes.contains(&d.code))
            });
            Control {
                name: name.into(),
                expect_trip,
                tripped: hit.is_some(),
                detail: hit.map_or_else(
                    || "no finding".to_string(),
                    |d| format!("{} {}", d.code.as_str(), d.message),
                ),
            }
        }
    }
}

/// Builds a canned tree and its graph; the returned guard keeps the tree alive.
fn build(files: &[(&str, &str)], dirs: &[&str]) -> Result<(Graph, impl Sized), ControlError> {
    let d = temp_tree(files)?;
    let mut o = GraphOptions::new(d.path());
    o.search.user = dirs.iter().map(PathBuf::from).collect();
    let g = Graph::build(&o)?;
    Ok((g, d))
}

fn layer(dir: &str, transitive: bool, rules: &[&str], known: &[&str]) -> RuleGroup {
    RuleGroup {
        dir: dir.into(),
        transitive,
        rules: rules
            .iter()
            .enumerate()
            .filter_map(|(i, r)| {
                Rule::parse(
                    r,
                    Origin {
                        file: "self-test.toml".into(),
                        line: i + 1,
                    },
                )
                .ok()
            })
            .collect(),
        known_uses: known.iter().map(|s| s.to_string()).collect(),
        origin: Origin {
            file: "self-test.toml".into(),
            line: 0,
        },
    }
}

fn layering_run(
    files: &[(&str, &str)],
    dirs: &[&str],
    groups: &[RuleGroup],
) -> Result<Vec<Diag>, ControlError> {
    let (g, _guard) = build(files, dirs)?;
    Ok(analysis::layering(&g, groups).diagnostics())
}

const TEX: (&str, &str) = ("State/GLState/Tex.h", "#pragma once\n");
const PUBLIC: (&str, &str) = ("State/GLState/Public.h", "#pragma once\n");

/// The include-layering controls (names as `include-layering/<name>` in `--neuter`).
pub fn run_layering_controls(neutered: &dyn Fn(&str) -> bool) -> Vec<Control> {
    let fence = || {
        vec![layer(
            "Backend",
            false,
            &["-State/GLState", "+State/GLState/Public.h"],
            &[],
        )]
    };
    let fence_t = || {
        vec![layer(
            "Backend",
            true,
            &["-State/GLState", "+State/GLState/Public.h"],
            &[],
        )]
    };
    let temp = |known: &[&str]| {
        vec![layer(
            "Backend",
            false,
            &["-State/GLState", "+State/GLState/Public.h", "!Impl"],
            known,
        )]
    };
    let base: Files = vec![
        TEX,
        PUBLIC,
        (
            "Backend/Uses.cpp",
            "#include \"../State/GLState/Public.h\"\n",
        ),
    ];
    let with = |extra: Files| -> Files { base.iter().copied().chain(extra).collect() };
    let hops = |last: &'static str| -> Files {
        with(vec![
            ("Backend/Draw.cpp", "#include <Pipe/Handles.h>\n"),
            ("Pipe/Handles.h", "#include \"Values.h\"\n"),
            ("Pipe/Values.h", last),
        ])
    };
    let glue = || {
        with(vec![
            ("Backend/Glue.cpp", "#include \"../Impl/Legacy.h\"\n"),
            ("Impl/Legacy.h", ""),
        ])
    };
    let bridge = |draw: &'static str| -> Files {
        // "Bridge.h" resolves next to the includer first (Backend/Bridge.h, dirty), not in Clean/.
        with(vec![
            ("Backend/Draw.cpp", draw),
            ("Backend/Bridge.h", "#include \"../State/GLState/Tex.h\"\n"),
            ("Clean/Bridge.h", "// clean\n"),
        ])
    };
    // (name, negative?, (bad files, rules), (clean twin files, rules), search dirs, codes that count)
    type Input = (Files, Vec<RuleGroup>);
    type Case = (
        &'static str,
        bool,
        Input,
        Input,
        Vec<&'static str>,
        Vec<Code>,
    );
    let cases: Vec<Case> = vec![
        (
            "direct-forbidden-include",
            true,
            (with(vec![("Backend/Draw.cpp", "#include \"../State/GLState/Tex.h\"\n")]), fence()),
            (with(vec![("Backend/Draw.cpp", "#include \"../State/GLState/Public.h\"\n")]), fence()),
            vec![],
            vec![Code::Inc005],
        ),
        (
            "three-hop-transitive",
            true,
            (hops("#include \"../State/GLState/Tex.h\"\n"), fence_t()),
            (hops("// no state here\n"), fence_t()),
            vec!["."],
            vec![Code::Inc005],
        ),
        ("new-use-of-temporary-rule", true, (glue(), temp(&[])), (glue(), temp(&["Backend/Glue.cpp -> Impl/Legacy.h"])), vec![], vec![Code::Inc006]),
        (
            "stale-rule",
            true,
            (with(vec![]), vec![layer("Backend", false, &["-State/GLState", "+State/GLState/Public.h", "+State/GLState/Gone.h"], &[])]),
            (with(vec![]), fence()),
            vec![],
            vec![Code::Inc008],
        ),
        (
            "forbidden-behind-quoted-relative",
            true,
            (bridge("#include \"Bridge.h\"\n"), vec![layer("Backend/Draw.cpp", true, &["-State/GLState"], &[])]),
            (bridge("#include <Bridge.h>\n"), vec![layer("Backend/Draw.cpp", true, &["-State/GLState"], &[])]),
            vec!["Clean"],
            vec![Code::Inc005],
        ),
        (
            "hidden-by-if0-comment-and-string",
            false,
            (
                with(vec![(
                    "Backend/Draw.cpp",
                    "#if 0\n#include \"../State/GLState/Tex.h\"\n#endif\n/*\n#include \"../State/GLState/Tex.h\"\n*/\nconst char* s = \"#include \\\"../State/GLState/Tex.h\\\"\";\n",
                )]),
                fence_t(),
            ),
            (vec![], vec![]),
            vec![],
            vec![],
        ),
        (
            "allowed-by-more-specific-rule",
            false,
            (with(vec![("Backend/Draw.cpp", "#include \"../State/GLState/Public.h\"\n")]), fence_t()),
            (vec![], vec![]),
            vec![],
            vec![],
        ),
        ("known-temporary-use-only-warns", false, (glue(), temp(&["Backend/Glue.cpp -> Impl/Legacy.h"])), (vec![], vec![]), vec![], vec![]),
    ];
    cases
        .into_iter()
        .map(|(name, negative, bad, clean, dirs, codes)| {
            let (files, groups) = if negative && neutered(name) {
                clean
            } else {
                bad
            };
            control(name, negative, layering_run(&files, &dirs, &groups), &codes)
        })
        .collect()
}

fn probe_run(
    files: &[(&str, &str)],
    probes: &[Probe],
    require_all: bool,
) -> Result<Vec<Diag>, ControlError> {
    let (g, _guard) = build(files, &["MobileGL", "MobileGL/MG_Pipe"])?;
    let opts = ProbeOptions {
        probes,
        only: &[],
        require_all,
        expect_probes: None,
        mode: Mode::Text,
        compiler: None,
        compiler_flags: &[],
        compile_db: None,
    };
    let outcome = analysis::probes(&g, &opts)?;
    Ok(outcome.diagnostics())
}

/// The include-probes controls, run through [`analysis::probes`] in text mode.
pub fn run_probe_controls(neutered: &dyn Fn(&str) -> bool) -> Vec<Control> {
    let all = probe::mobilegl_probes();
    let value = vec![all[0].clone()];
    let artifacts = vec![all[1].clone()];
    let clean_value: Files = vec![
        (
            "MobileGL/MG_Pipe/MGPipeValueTypes.h",
            "#pragma once\n#include <MG_Pipe/MGPipeHandles.h>\n",
        ),
        (
            "MobileGL/MG_Pipe/MGPipeHandles.h",
            "#pragma once\n#include \"Includes.h\"\n",
        ),
        ("MobileGL/Includes.h", "#pragma once\n"),
        (
            "MobileGL/MG_State/GLState/RenderState/RenderState.h",
            "#pragma once\n",
        ),
    ];
    let dirty_value: Files = vec![
        ("MobileGL/MG_Pipe/MGPipeValueTypes.h", "#pragma once\n#include <MG_Pipe/MGPipeHandles.h>\n"),
        ("MobileGL/MG_Pipe/MGPipeHandles.h", "#pragma once\n#include \"Includes.h\"\n"),
        ("MobileGL/Includes.h", "#pragma once\n#include \"MG_State/GLState/TextureState/../RenderState/RenderState.h\"\n"),
        ("MobileGL/MG_State/GLState/RenderState/RenderState.h", "#pragma once\n"),
    ];
    let hidden_value: Files = vec![
        ("MobileGL/MG_Pipe/MGPipeValueTypes.h", "#pragma once\n#if 0\n#include <MG_State/GLState/RenderState/RenderState.h>\n#endif\n// #include <MG_State/GLState/RenderState/RenderState.h>\n"),
        ("MobileGL/MG_State/GLState/RenderState/RenderState.h", "#pragma once\n"),
    ];
    let art3 = "#pragma once\n// glslang::A\n// glslang::B\n// glslang::C\n";
    let art2 = "#pragma once\n// glslang::A\n// glslang::B\n";
    type Case = (
        &'static str,
        bool,
        Files,
        Files,
        Vec<Probe>,
        bool,
        Vec<Code>,
    );
    let cases: Vec<Case> = vec![
        (
            "value-header-reaches-state",
            true,
            dirty_value,
            clean_value.clone(),
            value.clone(),
            false,
            vec![Code::Inc001],
        ),
        (
            "artifacts-text-limit",
            true,
            vec![(
                "MobileGL/MG_State/GLState/ProgramState/ProgramArtifacts.h",
                art3,
            )],
            vec![(
                "MobileGL/MG_State/GLState/ProgramState/ProgramArtifacts.h",
                art2,
            )],
            artifacts.clone(),
            false,
            vec![Code::Inc002],
        ),
        (
            "missing-header-under-require-all",
            true,
            vec![("MobileGL/Other.h", "")],
            clean_value.clone(),
            value.clone(),
            true,
            vec![Code::Inc003],
        ),
        (
            "clean-value-header",
            false,
            clean_value.clone(),
            vec![],
            value.clone(),
            true,
            vec![],
        ),
        (
            "value-header-hidden-by-if0",
            false,
            hidden_value,
            vec![],
            value.clone(),
            true,
            vec![],
        ),
        (
            "missing-header-skips-without-require-all",
            false,
            vec![("MobileGL/Other.h", "")],
            vec![],
            value,
            false,
            vec![],
        ),
    ];
    cases
        .into_iter()
        .map(|(name, negative, bad, clean, probes, require_all, codes)| {
            let files = if negative && neutered(name) {
                clean
            } else {
                bad
            };
            control(
                name,
                negative,
                probe_run(&files, &probes, require_all),
                &codes,
            )
        })
        .collect()
}

/// The include gates' names, as `mgctl check` and `--neuter GATE/CONTROL` spell them.
pub const PROBES_GATE: &str = "include-probes";
pub const LAYERING_GATE: &str = "include-layering";

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn controls_pass_and_each_neutered_control_fails() {
        for (gate, run) in [
            (
                "include-layering",
                run_layering_controls as fn(&dyn Fn(&str) -> bool) -> Vec<Control>,
            ),
            ("include-probes", run_probe_controls),
        ] {
            let r = run(&|_| false);
            assert!(
                r.iter().all(|c| c.expect_trip == c.tripped),
                "{gate}: {r:#?}"
            );
            for c in r.iter().filter(|c| c.expect_trip) {
                let r2 = run(&|n| n == c.name);
                let c2 = r2.iter().find(|x| x.name == c.name).unwrap();
                assert!(
                    !c2.tripped,
                    "{gate}/{} still trips when neutered: {}",
                    c.name, c2.detail
                );
            }
        }
    }
}
