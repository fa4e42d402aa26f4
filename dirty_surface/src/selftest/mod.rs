//! `--self-test`: hermetic. An in-memory mini workspace (GLImpl entry points, a GLContext, a
//! RenderState.cpp, a Tracker.h and a def that maps it all) that checks green, then one
//! mutation per negative control that must trip, and positive controls that must stay clean.
//! Upstream's labels (1–21) are kept where they apply; the new ones are named.

use std::collections::BTreeMap;
use std::path::Path;

use crate::audit::{CheckRun, Settings};
use crate::nonrender::{self, Claim, Unit, Verdict};
use crate::scan::{scan_file, upstream_prefixes, ScanConfig};

mod fixture;

use fixture::{src, Fixture, DEF_PATH, TRACKER};

fn settings() -> Settings {
    Settings::mobilegl()
}

pub use diag::Control;

fn texts(r: &crate::Result<CheckRun>) -> Vec<String> {
    match r {
        Ok(run) => {
            let mut v: Vec<String> = run
                .issues
                .iter()
                .map(|i| format!("{}:{}: {}", i.path, i.line, i.message))
                .collect();
            v.extend(run.result.problems.iter().map(|p| p.text.clone()));
            v
        }
        Err(e) => vec![e.to_string()],
    }
}

fn first_or(v: &[String], f: impl Fn(&String) -> bool) -> (bool, String) {
    match v.iter().find(|t| f(t)) {
        Some(t) => (true, t.clone()),
        None => (
            false,
            format!(
                "no such problem among {} problem(s){}",
                v.len(),
                v.first()
                    .map(|t| format!("; first: {t}"))
                    .unwrap_or_default()
            ),
        ),
    }
}

fn verdict_of(r: &crate::Result<CheckRun>, m: &str, bit: &str) -> Option<Verdict> {
    r.as_ref()
        .ok()?
        .verdicts
        .pairs
        .get(&(m.to_string(), bit.to_string()))
        .cloned()
}

/// Run every control. `neutered(label)` makes that negative control run on the clean input.
pub fn run_controls(neutered: &dyn Fn(&str) -> bool) -> Vec<Control> {
    let s = settings();
    let mut out = Vec::new();
    let mut neg = |label: &str, f: &dyn Fn(bool) -> (bool, String)| {
        let (ok, detail) = f(!neutered(label));
        out.push(Control {
            name: label.to_string(),
            expect_trip: true,
            tripped: ok,
            detail,
        });
    };
    let clean = Fixture::clean;
    let has =
        |r: &crate::Result<CheckRun>, needle: &str| first_or(&texts(r), |t| t.contains(needle));

    neg("1", &|on| {
        let mut f = clean();
        if on {
            f.def = "#define MGP_DIRTY_SURFACE_LIST(X) \\\n    X(RecordError, kReverseChannel)\n"
                .into();
        }
        has(&f.check(&s), "UNMAPPED mutator")
    });
    neg("2", &|on| {
        let mut f = clean();
        if on {
            f = f.with_new_row("SetSomethingThatDoesNotExist", "kImmediate");
        }
        has(&f.check(&s), "STALE row SetSomethingThatDoesNotExist")
    });
    let row_control = |m: &'static str, a: &'static str, needle: &'static str| {
        let s = s.clone();
        move |on: bool| {
            let f = if on { clean().with_row(m, a) } else { clean() };
            has(&f.check(&s), needle)
        }
    };
    neg(
        "3",
        &row_control(
            "RecordError",
            "NEW_TYPO_THAT_IS_NOT_A_BIT",
            "BAD answer NEW_TYPO_THAT_IS_NOT_A_BIT for RecordError",
        ),
    );
    neg(
        "4",
        &row_control(
            "SetCapability",
            "NEW_PIPELINE_STATE",
            "UNDER-FIRING answer NEW_PIPELINE_STATE for SetCapability",
        ),
    );
    neg(
        "5",
        &row_control(
            "SetBlendEquation",
            "NEW_RENDER_STATE",
            "MISSING publisher NEW_PIPELINE_STATE for SetBlendEquation",
        ),
    );
    neg("6", &|on| {
        let f = if on {
            clean().with_row("SetNamedTransformFeedbackBinding", "NEW_VERTEX_ELEMENTS")
        } else {
            clean()
        };
        let r = f.check(&s);
        let (hit, d) = first_or(&texts(&r), |t| {
            (t.starts_with("UNDER-FIRING") || t.starts_with("UNDECIDED"))
                && t.contains("NEW_VERTEX_ELEMENTS for SetNamedTransformFeedbackBinding")
        });
        let v = verdict_of(
            &r,
            "SetNamedTransformFeedbackBinding",
            "NEW_VERTEX_ELEMENTS",
        );
        (hit && v.is_some_and(|v| v != Verdict::Supported), d)
    });
    neg(
        "6b",
        &row_control(
            "BumpTextureBindGeneration",
            "NEW_GLOBAL_CONSTANTS",
            "UNDER-FIRING answer NEW_GLOBAL_CONSTANTS for BumpTextureBindGeneration",
        ),
    );
    neg(
        "7",
        &row_control(
            "SetCurrentVertexAttributeInt",
            "NEW_PIXEL_PACK",
            "UNDER-FIRING answer NEW_PIXEL_PACK for SetCurrentVertexAttributeInt",
        ),
    );
    neg(
        "8",
        &row_control(
            "SetPixelStoreParam",
            "kPulledPartialShutter",
            "has to NAME the bits",
        ),
    );

    // 9a-c: control 7 plus a write the analysis cannot attribute (through a reference parameter).
    let tainted = |on: bool, marked: bool| {
        let mut f = clean().with_row("SetCurrentVertexAttributeInt", "NEW_PIXEL_PACK");
        if on {
            f.glcontext = f.glcontext.replace(
                "void GLContext::RecordError(",
                "void GLContext::SetCurrentVertexAttributeInt(GLuint index, GLint& out) { out = 1; }\nvoid GLContext::RecordError(",
            );
        }
        if marked {
            f = f.with_mark("SetCurrentVertexAttributeInt", "NEW_PIXEL_PACK");
        }
        f.check(&s)
    };
    neg("9a", &|on| {
        let r = tainted(on, false);
        let v = verdict_of(&r, "SetCurrentVertexAttributeInt", "NEW_PIXEL_PACK");
        (
            matches!(v, Some(Verdict::Undecided(_))),
            format!("verdict {v:?}"),
        )
    });
    neg("9b", &|on| {
        let r = tainted(on, false);
        let t = texts(&r);
        let (hit, d) = first_or(&t, |x| {
            x.starts_with("UNDECIDED answer NEW_PIXEL_PACK for SetCurrentVertexAttributeInt")
        });
        (
            hit && !t.iter().any(|x| {
                x.starts_with("UNDER-FIRING answer NEW_PIXEL_PACK for SetCurrentVertexAttributeInt")
            }),
            d,
        )
    });
    neg("9c", &|on| {
        let r = tainted(on, true);
        let t = texts(&r);
        let quiet = !t
            .iter()
            .any(|x| x.contains("for SetCurrentVertexAttributeInt"));
        let line = r.as_ref().ok().is_some_and(|run| {
            run.verdicts
                .pairs
                .get(&(
                    "SetCurrentVertexAttributeInt".into(),
                    "NEW_PIXEL_PACK".into(),
                ))
                .is_some_and(|v| matches!(v, Verdict::Undecided(_)))
        });
        (
            quiet && line,
            format!(
                "{} problem(s) mention it",
                t.iter()
                    .filter(|x| x.contains("for SetCurrentVertexAttributeInt"))
                    .count()
            ),
        )
    });
    neg("10", &|on| {
        let mut f = clean().with_row("SetCurrentVertexAttributeInt", "NEW_PIXEL_PACK");
        if on {
            f.outside.push(src("MobileGL/MG_Backend/Rogue.cpp", "void Rogue(GLContext& c) { c.m_pixelStore.PackAlignment = 4; }\nvoid Rogue2() { m_pixelStore.PackAlignment = 4; }\n"));
        }
        let v = verdict_of(
            &f.check(&s),
            "SetCurrentVertexAttributeInt",
            "NEW_PIXEL_PACK",
        );
        (
            matches!(&v, Some(Verdict::Undecided(d)) if d.contains("outside the analysed roots")),
            format!("verdict {v:?}"),
        )
    });
    // 11-14, 17: synthetic bodies against the fixture's shutters.
    let synthetic = |body: &str,
                     m: &str,
                     bit: &str,
                     en: &str,
                     tracker: &str|
     -> (Option<Verdict>, nonrender::TokenSet) {
        let ws = clean().workspace();
        let mut units: Vec<Unit<'_>> = nonrender::units(&ws.write_units);
        units.push(Unit {
            rel: "MobileGL/MG_State/GLState/Synthetic.cpp",
            text: body,
        });
        let w = nonrender::writers(&units);
        let claims = [Claim {
            mutator: m.into(),
            bit: bit.into(),
            enumerator: en.into(),
        }];
        let v = nonrender::derive(
            tracker,
            &crate::lex::parse(tracker),
            &w,
            &BTreeMap::new(),
            &claims,
            "roots",
        )
        .and_then(|p| p.into_values().next());
        (v, w.tokens(m).unwrap_or_default())
    };
    neg("11", &|on| {
        let body = if on {
            "void SynthClear(float r) { m_parameters.ClearColor = r; }\n"
        } else {
            "void SynthClear(float r) { m_parameters.PatchVertices = 3; }\n"
        };
        let (v, t) = synthetic(body, "SynthClear", "NEW_PATCH_STATE", "Patch", TRACKER);
        let ok = t.contains("FIELD:m_parameters.ClearColor")
            && !t.iter().any(|x| x.starts_with("TAINT:"))
            && matches!(v, Some(Verdict::UnderFiring(_)));
        (ok, format!("verdict {v:?}, tokens {t:?}"))
    });
    neg("12", &|on| {
        let body = if on {
            "void SynthBlend(GLenum s) { for (auto& b : m_parameters.BlendStates) { b.Src = s; } }\nvoid SynthStencil(GLenum f, int face) { StencilState& st = m_parameters.StencilStates[face]; st.Func = f; }\n"
        } else {
            "void SynthBlend(GLenum s) { m_other = s; }\nvoid SynthStencil(GLenum f, int face) { m_other = f; }\n"
        };
        let (vb, tb) = synthetic(body, "SynthBlend", "NEW_BLEND_STATE", "Blend", TRACKER);
        let (vbp, _) = synthetic(body, "SynthBlend", "NEW_PATCH_STATE", "Patch", TRACKER);
        let (vs, ts) = synthetic(
            body,
            "SynthStencil",
            "NEW_STENCIL_STATE",
            "Stencil",
            TRACKER,
        );
        let (vsp, _) = synthetic(body, "SynthStencil", "NEW_PATCH_STATE", "Patch", TRACKER);
        let ok = tb.contains("FIELD:m_parameters.BlendStates")
            && ts.contains("FIELD:m_parameters.StencilStates")
            && vb == Some(Verdict::Supported)
            && vs == Some(Verdict::Supported)
            && matches!(vbp, Some(Verdict::UnderFiring(_)))
            && matches!(vsp, Some(Verdict::UnderFiring(_)));
        (ok, format!("blend {vb:?}/{vbp:?}, stencil {vs:?}/{vsp:?}"))
    });
    neg("13", &|on| {
        let body = if on {
            "void SynthCall(int i) { auto& e = Lookup(i); e.x = 1; }\nvoid SynthRef(int& out) { out = 2; }\n"
        } else {
            "void SynthCall(int i) { m_parameters.PatchVertices = i; }\nvoid SynthRef(int out) { m_parameters.PatchVertices = out; }\n"
        };
        let (a, _) = synthetic(body, "SynthCall", "NEW_PATCH_STATE", "Patch", TRACKER);
        let (b, _) = synthetic(body, "SynthRef", "NEW_PATCH_STATE", "Patch", TRACKER);
        (
            matches!(a, Some(Verdict::Undecided(_))) && matches!(b, Some(Verdict::Undecided(_))),
            format!("{a:?} / {b:?}"),
        )
    });
    neg("14", &|on| {
        let body = if on {
            "void SynthAll(const Params& fresh) { m_parameters = fresh; }\n"
        } else {
            "void SynthAll(const Params& fresh) { m_unrelated = fresh; }\n"
        };
        let (v, t) = synthetic(body, "SynthAll", "NEW_PATCH_STATE", "Patch", TRACKER);
        (
            t.contains("FIELD:m_parameters.*") && v == Some(Verdict::Supported),
            format!("verdict {v:?}"),
        )
    });
    neg("15", &|on| {
        // Every write of the setter exists only after token pasting; the pasted fields must be
        // read at field level (never a macro parameter as a field, never a silent UNDER-FIRING).
        let mut f = clean();
        if on {
            f.glcontext = f
                .glcontext
                .replace(
                    "        m_pixelStore.PackAlignment = v;",
                    "        MG_SET_PIXEL_STORE(Pack, Alignment, v);",
                )
                .replace(
                    "        m_pixelStore.UnpackAlignment = v;",
                    "        MG_SET_PIXEL_STORE(Unpack, Alignment, v);",
                );
            f.glcontext = format!(
                "#define MG_SET_PIXEL_STORE(dir, paramNameTail, v) m_pixelStore.dir##paramNameTail = v\n{}",
                f.glcontext
            );
        }
        let ws = f.workspace();
        let w = nonrender::writers(&nonrender::units(&ws.write_units));
        let t = w.tokens("SetPixelStoreParam").unwrap_or_default();
        let v = verdict_of(&f.check(&s), "SetPixelStoreParam", "NEW_PIXEL_PACK");
        let pasted = t.contains("FIELD:m_pixelStore.PackAlignment")
            && t.contains("FIELD:m_pixelStore.UnpackAlignment");
        let leaked = t
            .iter()
            .any(|x| x.contains("paramNameTail") || x.starts_with("TAINT:"));
        (
            on && pasted && !leaked && v == Some(Verdict::Supported),
            format!("verdict {v:?}, tokens {t:?}"),
        )
    });
    neg(
        "16",
        &row_control(
            "SetClearColor",
            "NEW_RENDER_STATE|NEW_PATCH_STATE",
            "UNDER-FIRING answer NEW_PATCH_STATE for SetClearColor",
        ),
    );
    neg("17", &|on| {
        let mut f = clean().with_row("SetClearColor", "NEW_RENDER_STATE|NEW_PATCH_STATE");
        if on {
            f.render_state = f.render_state.replace(
                "return m_parameters.PatchVertices;",
                "return HashOf(m_parameters);",
            );
        }
        let r = f.check(&s);
        let v = verdict_of(&r, "SetClearColor", "NEW_PATCH_STATE");
        let quiet = !texts(&r).iter().any(|t| t.contains("for SetClearColor"));
        (
            matches!(v, Some(Verdict::Coarse(_))) && quiet,
            format!("verdict {v:?}"),
        )
    });
    neg("18", &|on| {
        let mut f = clean();
        if on {
            f = f.with_mark("SetPixelStoreParam", "NEW_PIXEL_PACK");
        }
        has(
            &f.check(&s),
            "STALE undecided mark NEW_PIXEL_PACK for SetPixelStoreParam",
        )
    });
    neg("19", &|on| {
        let sample = "void f() {\n pGLContext->UseProgram(1);\n pGLContext->BindVertexArray(2);\n pGLContext->BindProgramPipelineObject(3);\n pGLContext->BindTransformFeedbackObject(4);\n}\n";
        let old = ScanConfig {
            prefixes: upstream_prefixes(if on { "P3a" } else { "P5e" }).unwrap_or_default(),
        };
        let new = ScanConfig {
            prefixes: upstream_prefixes("P5e").unwrap_or_default(),
        };
        let (a, _) = scan_file(sample, &old);
        let (b, _) = scan_file(sample, &new);
        (
            a.calls.is_empty() && b.calls.len() == 4,
            format!(
                "10-word set finds {}, current set finds {}",
                a.calls.len(),
                b.calls.len()
            ),
        )
    });
    for (label, m) in [
        ("20a", "UseProgram"),
        ("20b", "BindVertexArray"),
        ("20c", "BindProgramPipelineObject"),
        ("20d", "BindTransformFeedbackObject"),
    ] {
        neg(label, &|on| {
            let mut f = clean();
            if on {
                f.glimpl = f
                    .glimpl
                    .replace(&format!("pGLContext->{m}("), &format!("Forward{m}("));
            }
            let t = texts(&f.check(&s));
            let stale: Vec<&String> = t.iter().filter(|x| x.starts_with("STALE row")).collect();
            (
                stale.len() == 1 && stale[0].contains(m),
                format!("{} STALE row problem(s)", stale.len()),
            )
        });
    }
    neg("21", &|on| {
        let mut f = clean();
        let marks = crate::def::parse(&f.def, Path::new(DEF_PATH))
            .map(|d| d.marks.len())
            .unwrap_or(0);
        if on {
            f.def = f.def.replace(
                "    X(UseProgram,                        NEW_SHADER)\n// clang-format on",
                "// clang-format on",
            );
        }
        let t = texts(&f.check(&s));
        let n = t
            .iter()
            .filter(|x| x.starts_with("UNDECIDED answer"))
            .count();
        (
            marks >= 1
                && n == marks
                && t.iter()
                    .any(|x| x.starts_with("UNDECIDED answer NEW_SHADER for UseProgram")),
            format!("{n} UNDECIDED problem(s) for {marks} mark(s)"),
        )
    });
    // New controls.
    neg("touch-prefix", &|on| {
        let s4 = Settings {
            prefixes: upstream_prefixes(if on { "P4a" } else { "P5e" }).unwrap_or_default(),
            ..s.clone()
        };
        has(&clean().check(&s4), "STALE row TouchBufferBindingPoint")
    });
    neg("digit-separator", &|on| {
        let f = if on {
            clean().without_row("SetViewport")
        } else {
            clean()
        };
        has(&f.check(&s), "UNMAPPED mutator SetViewport")
    });
    neg("raw-string", &|on| {
        let mut f = clean();
        if on {
            f = f.with_new_row("SetFakeFromRawString", "kImmediate");
        }
        has(&f.check(&s), "STALE row SetFakeFromRawString")
    });
    neg("note-mutation", &|on| {
        let f = if on {
            clean().without_row("NoteUnitTouched")
        } else {
            clean()
        };
        has(&f.check(&s), "UNMAPPED mutator NoteUnitTouched")
    });
    neg("unterminated-literal", &|on| {
        let mut f = clean();
        if on {
            f.glimpl.push_str("void glBroken() { Log(\"oops); }\n");
        }
        has(&f.check(&s), "unterminated string literal")
    });
    neg("unbalanced-braces", &|on| {
        let mut f = clean();
        if on {
            f.glimpl.push_str("void glOpen() {\n  if (x) {\n}\n");
        }
        has(&f.check(&s), "unbalanced braces")
    });
    neg("bad-def-row", &|on| {
        let mut f = clean();
        if on {
            f.def = f.def.replace(
                "    X(RecordError,                       kReverseChannel)",
                "    X(RecordError kReverseChannel)",
            );
        }
        has(&f.check(&s), "malformed row: expected")
    });

    // Positive controls.
    let clean_run = clean().check(&s);
    let t = texts(&clean_run);
    out.push(Control {
        name: "clean fixture is green".into(),
        expect_trip: false,
        tripped: !clean_run.as_ref().is_ok_and(|r| r.passed()),
        detail: t.first().cloned().unwrap_or_else(|| "green".into()),
    });
    let pix = t.iter().find(|x| x.contains("for SetPixelStoreParam"));
    out.push(Control {
        name: "SetPixelStoreParam = NEW_PIXEL_PACK with no mark stays clean".into(),
        expect_trip: false,
        tripped: !(pix.is_none()
            && verdict_of(&clean_run, "SetPixelStoreParam", "NEW_PIXEL_PACK")
                == Some(Verdict::Supported)),
        detail: pix.cloned().unwrap_or_else(|| "clean".into()),
    });
    let ws = clean().workspace();
    let units: Vec<Unit<'_>> = nonrender::units(&ws.write_units);
    let w = nonrender::writers(&units);
    let mut bad = Vec::new();
    for (m, field) in [
        ("SetBlendEquation", "BlendStates"),
        ("SetBlendFunc", "BlendStates"),
        ("SetStencilFunc", "StencilStates"),
    ] {
        let t = w.tokens(m).unwrap_or_default();
        if !t.contains("MEM:m_parameters")
            || !t.contains(&format!("FIELD:m_parameters.{field}"))
            || t.iter().any(|x| x.starts_with("TAINT:"))
        {
            bad.push(format!("{m}: {t:?}"));
        }
    }
    out.push(Control {
        name: "reference-alias setters resolve to m_parameters' fields".into(),
        expect_trip: false,
        tripped: !bad.is_empty(),
        detail: if bad.is_empty() {
            "resolved".into()
        } else {
            bad.join("; ")
        },
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_control_behaves() {
        let r = run_controls(&|_| false);
        let bad: Vec<&Control> = r.iter().filter(|c| !c.ok()).collect();
        assert!(bad.is_empty(), "{bad:#?}");
        assert!(r.iter().filter(|c| c.expect_trip).count() >= 33);
    }

    #[test]
    fn a_neutered_control_fails_the_self_test() {
        let r = run_controls(&|l| l == "7");
        assert!(!diag::self_test_passed(&r));
        let bad: Vec<&str> = r
            .iter()
            .filter(|c| !c.ok())
            .map(|c| c.name.as_str())
            .collect();
        assert_eq!(bad, ["7"]);
    }
}
