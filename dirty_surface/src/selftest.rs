//! `--self-test`: hermetic. An in-memory mini workspace (GLImpl entry points, a GLContext, a
//! RenderState.cpp, a Tracker.h and a def that maps it all) that checks green, then one
//! mutation per negative control that must trip, and positive controls that must stay clean.
//! Upstream's labels (1–21) are kept where they apply; the new ones are named.

use std::collections::BTreeMap;
use std::path::Path;

use crate::audit::{run_check, CheckRun, Settings, Workspace};
use crate::nonrender::{self, Claim, Unit, Verdict};
use crate::scan::{scan_file, upstream_prefixes, ScanConfig};
use crate::surface::Mode;
use crate::tree::Source;

const GLIMPL: &str = r#"// fixture: GL entry points
#include "GLEntry.h"

void glEnable(GLenum cap)
{
    pGLContext->SetCapability(cap, true);
    gBackendFunctionsTable.GL.Enable(cap);
}

void glBlendEquation(GLenum mode) { pGLContext->SetBlendEquation(mode); }
void glBlendEquationi(GLuint buf, GLenum mode) { pGLContext->SetBlendEquationIndexed(buf, mode); }
void glBlendFunc(GLenum s, GLenum d) { pGLContext->SetBlendFunc(s, d); }
void glStencilFunc(GLenum f, GLint r, GLuint m) { pGLContext->SetStencilFunc(GL_FRONT_AND_BACK, f); }
void glClearColor(float r, float g, float b, float a) { pGLContext->SetClearColor(r, g, b, a); }
void glPixelStorei(GLenum pname, GLint v) { pGLContext->SetPixelStoreParam(pname, v); }
void glUseProgram(GLuint p) { pGLContext->UseProgram(p); }
void glBindVertexArray(GLuint v) { pGLContext->BindVertexArray(v); }
void glBindProgramPipeline(GLuint p) { pGLContext->BindProgramPipelineObject(p); }
void glBindTransformFeedback(GLenum t, GLuint id) { pGLContext->BindTransformFeedbackObject(id); }
void glTransformFeedbackBufferBase(GLuint x, GLuint i, GLuint b) { pGLContext->SetNamedTransformFeedbackBinding(x, i, b); }
void glBindTexture(GLenum t, GLuint id) { pGLContext->BumpTextureBindGeneration(); }
void glVertexAttribI4i(GLuint i, GLint x, GLint y, GLint z, GLint w) { pGLContext->SetCurrentVertexAttributeInt(i, x); }
GLenum glGetError() { pGLContext->RecordError(GL_NO_ERROR); return 0; }
void glBindBufferBase(GLenum t, GLuint i, GLuint b) { pGLContext->TouchBufferBindingPoint(t, i); }

void glViewport(GLint x, GLint y, GLsizei w, GLsizei h)
{
    const int kMax = 16'384; pGLContext->SetViewport(x, y, w, h); const int kMin = 1'0;
}

void glDebugMessageInsert(const char* msg)
{
    const char* doc = R"doc(call pGLContext->SetFakeFromRawString(1); to fake it)doc";
    Log(doc, msg);
}
"#;

const GLCONTEXT: &str = r#"// fixture: GLContext mutators and the accessors the shutters read
#include "GLContext.h"

void GLContext::SetCapability(GLenum cap, bool on) { m_renderState.SetCapability(cap, on); }
void GLContext::SetBlendEquation(GLenum m) { m_renderState.SetBlendEquation(m); }
void GLContext::SetBlendEquationIndexed(GLuint i, GLenum m) { m_renderState.SetBlendEquationIndexed(i, m); }
void GLContext::SetBlendFunc(GLenum s, GLenum d) { m_renderState.SetBlendFunc(s, d); }
void GLContext::SetStencilFunc(GLenum face, GLenum f) { m_renderState.SetStencilFunc(face, f); }
void GLContext::SetClearColor(float r, float g, float b, float a) { m_renderState.SetClearColor(r, g, b, a); }
void GLContext::SetViewport(GLint x, GLint y, GLsizei w, GLsizei h) { m_renderState.SetViewport(x, y, w, h); }

void GLContext::SetPixelStoreParam(GLenum pname, GLint v)
{
    if (pname == GL_PACK_ALIGNMENT) {
        m_pixelStore.PackAlignment = v;
    } else {
        m_pixelStore.UnpackAlignment = v;
    }
}

void GLContext::UseProgram(GLuint p)
{
    m_program = p;
    g_lastProgramSwitch = p;
}

void GLContext::BindVertexArray(GLuint v) { m_vertexArrayBinding = v; }
void GLContext::BindProgramPipelineObject(GLuint p) { m_pipelineObject = p; }
void GLContext::BindTransformFeedbackObject(GLuint id) { m_transformFeedbackObject = id; }
void GLContext::SetNamedTransformFeedbackBinding(GLuint xfb, GLuint index, GLuint buffer) { m_transformFeedback.Targets[index] = buffer; }
void GLContext::BumpTextureBindGeneration() { ++m_textureBindGeneration; }

void GLContext::SetCurrentVertexAttributeInt(GLuint index, GLint x)
{
    m_currentAttribs[index].Int[0] = x;
    ++m_currentAttribsVersion;
}

void GLContext::RecordError(GLenum e) { if (m_error == GL_NO_ERROR) m_error = e; }
void GLContext::TouchBufferBindingPoint(GLenum target, GLuint index) { m_bufferPoints[index].Touched = true; }

void GLContext::NoteUnitTouched(GLuint unit)
{
    MGP_NOTE_MUTATION(m_units);
    ++m_textureBindGeneration;
}

void GLContext::ActiveTexture(GLuint unit) { NoteUnitTouched(unit); }

Uint64 GLContext::RenderStateVersion() const { return m_renderState.Version(); }
Uint64 GLContext::PipelineStateVersion() const { return m_renderState.PipelineVersion(); }
const PixelStore& GLContext::PixelPackState() const { return m_pixelStore; }
GLuint GLContext::VertexArrayBinding() const { return m_vertexArrayBinding; }
GLuint GLContext::ProgramBinding() const { return m_program; }
Uint64 GLContext::TextureBindGeneration() const { return m_textureBindGeneration; }
const Targets& GLContext::TransformFeedbackTargets() const { return m_transformFeedback.Targets; }
int GLContext::PatchState() const { return m_renderState.PatchVertices(); }
const Block& GLContext::GlobalConstants() const { return m_globalConstants.Block; }
Uint64 GLContext::CurrentAttribsVersion() const { return m_currentAttribsVersion; }
const Params& GLContext::RenderParameters() const { return m_renderState.Parameters(); }
"#;

const RENDER_STATE: &str = r#"// fixture: RenderState.cpp
#include "RenderState.h"

void RenderState::BumpVersions() { ++m_version; ++m_pipelineStateVersion; }

void RenderState::SetCapability(GLenum cap, bool on)
{
    m_caps[cap] = on;
    ++m_version;
}

void RenderState::SetBlendEquation(GLenum m)
{
    for (auto& b : m_parameters.BlendStates) {
        b.Equation = m;
    }
    BumpVersions();
}

void RenderState::SetBlendEquationIndexed(GLuint i, GLenum m) { SetBlendEquation(m); }

void RenderState::SetBlendFunc(GLenum s, GLenum d)
{
    for (auto& b : m_parameters.BlendStates) {
        b.Src = s;
        b.Dst = d;
    }
    BumpVersions();
}

void RenderState::SetStencilFunc(GLenum face, GLenum f)
{
    StencilState& s = m_parameters.StencilStates[GetStencilFaceIndex(face)];
    s.Func = f;
    BumpVersions();
}

void RenderState::SetClearColor(float r, float g, float b, float a)
{
    m_parameters.ClearColor = Color{r, g, b, a};
    ++m_version;
}

void RenderState::SetViewport(GLint x, GLint y, GLsizei w, GLsizei h)
{
    m_parameters.Viewport = Rect{x, y, w, h};
    BumpVersions();
}

Uint64 RenderState::Version() const { return m_version; }
Uint64 RenderState::PipelineVersion() const { return m_pipelineStateVersion; }
int RenderState::PatchVertices() const { return m_parameters.PatchVertices; }
const Params& RenderState::Parameters() const { return m_parameters; }
"#;

const TRACKER: &str = r#"// fixture: Tracker.h
#pragma once

enum class MGPipeDirty : Uint32 {
    RenderState,
    PipelineState,
    PixelPack,
    VertexElements,
    Shader,
    SamplerViews,
    SoTargets,
    Patch,
    GlobalConstants,
    VertexAttribDefaults,
    Blend,
    Stencil,
    Count
};

inline constexpr const char* kMGPipeDirtyNames[] = {
    "NEW_RENDER_STATE",
    "NEW_PIPELINE_STATE",
    "NEW_PIXEL_PACK",
    "NEW_VERTEX_ELEMENTS",
    "NEW_SHADER",
    "NEW_SAMPLER_VIEWS",
    "NEW_SO_TARGETS",
    "NEW_PATCH_STATE",
    "NEW_GLOBAL_CONSTANTS",
    "NEW_VERTEX_ATTRIB_DEFAULTS",
    "NEW_BLEND_STATE",
    "NEW_STENCIL_STATE",
};

class MGPipeTracker {
public:
    Uint32 Update(const GLContext& ctx)
    {
        Uint64 now[kCount] = {};
        Uint32 dirty = 0;
        now[Index(MGPipeDirty::RenderState)] = ctx.RenderStateVersion();
        now[Index(MGPipeDirty::PipelineState)] = ctx.PipelineStateVersion();
        now[Index(MGPipeDirty::PixelPack)] = ctx.PixelPackState().PackAlignment;
        now[Index(MGPipeDirty::VertexElements)] = ctx.VertexArrayBinding();
        now[Index(MGPipeDirty::Shader)] = ctx.ProgramBinding();
        now[Index(MGPipeDirty::SamplerViews)] = ctx.TextureBindGeneration();
        now[Index(MGPipeDirty::SoTargets)] = HashBytes(ctx.TransformFeedbackTargets());
        now[Index(MGPipeDirty::Patch)] = ctx.PatchState();
        now[Index(MGPipeDirty::GlobalConstants)] = HashBytes(ctx.GlobalConstants());
        const auto& params = ctx.RenderParameters();
        now[Index(MGPipeDirty::Blend)] = HashBytes(params.BlendStates);
        now[Index(MGPipeDirty::Stencil)] = HashBytes(params.StencilStates);
        for (Uint32 i = 0; i < kCount; ++i) {
            if (now[i] != m_seen[i]) {
                m_seen[i] = now[i];
                dirty |= 1u << i;
            }
        }
        const Uint64 attribs = ctx.CurrentAttribsVersion();
        if (attribs != m_attribsSeen) {
            m_attribsSeen = attribs;
            dirty |= MGPipeDirtyBit(MGPipeDirty::VertexAttribDefaults);
        }
        return dirty;
    }
};
"#;

const DEF: &str = r#"// fixture: DirtySurface.def
// clang-format off
#define MGP_DIRTY_SURFACE_LIST(X) \
    X(SetCapability,                     NEW_RENDER_STATE) \
    X(SetBlendEquation,                  NEW_RENDER_STATE|NEW_PIPELINE_STATE) \
    X(SetBlendEquationIndexed,           NEW_RENDER_STATE|NEW_PIPELINE_STATE) \
    X(SetBlendFunc,                      NEW_RENDER_STATE|NEW_PIPELINE_STATE) \
    X(SetStencilFunc,                    NEW_RENDER_STATE|NEW_PIPELINE_STATE) \
    X(SetClearColor,                     NEW_RENDER_STATE) \
    X(SetViewport,                       NEW_RENDER_STATE|NEW_PIPELINE_STATE) \
    X(SetPixelStoreParam,                NEW_PIXEL_PACK) \
    X(UseProgram,                        NEW_SHADER) \
    X(BindVertexArray,                   NEW_VERTEX_ELEMENTS) \
    X(BindProgramPipelineObject,         kPulledEveryVerb) \
    X(BindTransformFeedbackObject,       kPulledEveryVerb) \
    X(SetNamedTransformFeedbackBinding,  kPulledPartialShutter|NEW_SO_TARGETS) \
    X(BumpTextureBindGeneration,         NEW_SAMPLER_VIEWS) \
    X(SetCurrentVertexAttributeInt,      NEW_VERTEX_ATTRIB_DEFAULTS) \
    X(RecordError,                       kReverseChannel) \
    X(TouchBufferBindingPoint,           kPulledEveryVerb) \
    X(NoteUnitTouched,                   kPulledPartialShutter|NEW_SAMPLER_VIEWS)

// X(Mutator, Bit) - the derivation cannot decide these (UseProgram writes a global).
#define MGP_DIRTY_SURFACE_UNDECIDED_LIST(X) \
    X(UseProgram,                        NEW_SHADER)
// clang-format on
"#;

const GLIMPL_PATH: &str = "MobileGL/MG_Impl/GLImpl/GL_Fixture.cpp";
const GLCONTEXT_PATH: &str = "MobileGL/MG_State/GLState/GLContext.cpp";
const RS_PATH: &str = "MobileGL/MG_State/GLState/RenderState/RenderState.cpp";
const TRACKER_PATH: &str = "MobileGL/MG_Impl/Pipe/Tracker.h";
const DEF_PATH: &str = "MobileGL/MG_Pipe/DirtySurface.def";

fn src(rel: &str, text: &str) -> Source {
    Source {
        rel: rel.to_string(),
        text: text.to_string(),
        bad_utf8: None,
    }
}

/// The fixture files, each replaceable by a control.
#[derive(Clone)]
struct Fixture {
    glimpl: String,
    glcontext: String,
    render_state: String,
    tracker: String,
    def: String,
    outside: Vec<Source>,
}

impl Fixture {
    fn clean() -> Fixture {
        Fixture {
            glimpl: GLIMPL.into(),
            glcontext: GLCONTEXT.into(),
            render_state: RENDER_STATE.into(),
            tracker: TRACKER.into(),
            def: DEF.into(),
            outside: vec![src(
                "MobileGL/MG_Backend/Backend.cpp",
                "void Draw() { m_backendOnly = 1; }\n",
            )],
        }
    }

    fn workspace(&self) -> Workspace {
        let state = vec![
            src(GLCONTEXT_PATH, &self.glcontext),
            src(RS_PATH, &self.render_state),
        ];
        let mut sources = vec![src(GLIMPL_PATH, &self.glimpl)];
        sources.extend(state.iter().cloned());
        let mut write_units = state;
        write_units.push(src(TRACKER_PATH, &self.tracker));
        Workspace {
            sources,
            def: Some(src(DEF_PATH, &self.def)),
            render_state: Some(src(RS_PATH, &self.render_state)),
            tracker: Some(src(TRACKER_PATH, &self.tracker)),
            write_units,
            outside_units: self.outside.clone(),
        }
    }

    fn with_row(mut self, mutator: &str, answer: &str) -> Fixture {
        let lines: Vec<String> = self
            .def
            .lines()
            .map(|l| {
                let t = l.trim_start();
                if t.starts_with(&format!("X({mutator},")) {
                    let cont = if l.trim_end().ends_with('\\') {
                        " \\"
                    } else {
                        ""
                    };
                    format!("    X({mutator}, {answer}){cont}")
                } else {
                    l.to_string()
                }
            })
            .collect();
        self.def = fix_marks_section(&self.def, lines);
        self
    }

    fn check(&self, s: &Settings) -> Result<CheckRun, String> {
        run_check(&self.workspace(), s, Mode::Accurate).map_err(|e| e.to_string())
    }
}

/// Rebuild the def from edited lines, but keep the undecided list untouched.
fn fix_marks_section(original: &str, edited: Vec<String>) -> String {
    let mut out = Vec::new();
    let mut in_marks = false;
    for (o, e) in original.lines().zip(edited) {
        if o.contains("MGP_DIRTY_SURFACE_UNDECIDED_LIST(X)") {
            in_marks = true;
        }
        out.push(if in_marks { o.to_string() } else { e });
    }
    out.join("\n") + "\n"
}

fn settings() -> Settings {
    Settings::mobilegl()
}

pub use diag::Control;

fn texts(r: &Result<CheckRun, String>) -> Vec<String> {
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
        Err(e) => vec![e.clone()],
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

fn verdict_of(r: &Result<CheckRun, String>, m: &str, bit: &str) -> Option<Verdict> {
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
        |r: &Result<CheckRun, String>, needle: &str| first_or(&texts(r), |t| t.contains(needle));

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

impl Fixture {
    /// A new map row, before `RecordError`'s.
    fn with_new_row(mut self, mutator: &str, answer: &str) -> Fixture {
        self.def = self.def.replace(
            "    X(RecordError,",
            &format!("    X({mutator}, {answer}) \\\n    X(RecordError,"),
        );
        self
    }

    /// A new undecided mark, after the fixture's only one.
    fn with_mark(mut self, mutator: &str, bit: &str) -> Fixture {
        let last = "    X(UseProgram,                        NEW_SHADER)\n// clang-format on";
        self.def = self.def.replace(last, &format!("    X(UseProgram,                        NEW_SHADER) \\\n    X({mutator}, {bit})\n// clang-format on"));
        self
    }

    fn without_row(mut self, mutator: &str) -> Fixture {
        self.def = self
            .def
            .lines()
            .filter(|l| !l.trim_start().starts_with(&format!("X({mutator},")))
            .map(|l| format!("{l}\n"))
            .collect();
        self
    }
}

/// `dirty-surface --self-test`: every control, `neuter` naming the ones fed their clean twin
/// (by label, or as `dirty-surface/LABEL`), and upstream's summary lines.
pub fn self_test(neuter: &[String]) -> (bool, Vec<String>) {
    let results = run_controls(&|label| {
        neuter
            .iter()
            .any(|n| n == label || n.strip_prefix("dirty-surface/") == Some(label))
    });
    lines(&results)
}

/// Upstream's summary lines for a self-test run.
pub fn lines(results: &[Control]) -> (bool, Vec<String>) {
    let mut out = Vec::new();
    let negatives = results.iter().filter(|r| r.expect_trip).count();
    let tripped = results
        .iter()
        .filter(|r| r.expect_trip && r.tripped)
        .count();
    for r in results.iter().filter(|r| !r.ok()) {
        if r.expect_trip {
            out.push(format!(
                "dirty-surface self-test: negative control {} did NOT trip ({})",
                r.name, r.detail
            ));
        } else {
            out.push(format!(
                "dirty-surface self-test: positive control FAILED: {} ({})",
                r.name, r.detail
            ));
        }
    }
    if tripped == 0 {
        out.push("dirty-surface self-test: NOTHING tripped - the gate cannot fail, which is worse than a red gate".into());
        return (false, out);
    }
    let pass = results.iter().all(Control::ok);
    if pass {
        out.push(format!(
            "dirty-surface self-test: {negatives} negative controls, all tripped; positive controls OK (the fixture checks green, SetPixelStoreParam's field-level writes are read at field level, and the reference-alias setters of RenderState.cpp resolve to m_parameters' fields)"
        ));
    }
    (pass, out)
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
        let (pass, lines) = super::lines(&r);
        assert!(!pass);
        assert!(
            lines[0].starts_with("dirty-surface self-test: negative control 7 did NOT trip"),
            "{lines:?}"
        );
    }
}
