//! The self-test's mini workspace: GL entry points, a GLContext, a RenderState.cpp, a
//! Tracker.h and a def that maps it all, as texts a control edits.

use crate::audit::{run_check, CheckRun, Settings, Workspace};
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

pub(super) const TRACKER: &str = r#"// fixture: Tracker.h
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
pub(super) const DEF_PATH: &str = "MobileGL/MG_Pipe/DirtySurface.def";

pub(super) fn src(rel: &str, text: &str) -> Source {
    Source {
        rel: rel.to_string(),
        text: text.to_string(),
        bad_utf8: None,
    }
}

/// The fixture files, each replaceable by a control.
#[derive(Clone)]
pub(super) struct Fixture {
    pub(super) glimpl: String,
    pub(super) glcontext: String,
    pub(super) render_state: String,
    tracker: String,
    pub(super) def: String,
    pub(super) outside: Vec<Source>,
}

impl Fixture {
    pub(super) fn clean() -> Fixture {
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

    pub(super) fn workspace(&self) -> Workspace {
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

    pub(super) fn with_row(mut self, mutator: &str, answer: &str) -> Fixture {
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

    pub(super) fn check(&self, s: &Settings) -> crate::Result<CheckRun> {
        run_check(&self.workspace(), s, Mode::Accurate)
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

impl Fixture {
    /// A new map row, before `RecordError`'s.
    pub(super) fn with_new_row(mut self, mutator: &str, answer: &str) -> Fixture {
        self.def = self.def.replace(
            "    X(RecordError,",
            &format!("    X({mutator}, {answer}) \\\n    X(RecordError,"),
        );
        self
    }

    /// A new undecided mark, after the fixture's only one.
    pub(super) fn with_mark(mut self, mutator: &str, bit: &str) -> Fixture {
        let last = "    X(UseProgram,                        NEW_SHADER)\n// clang-format on";
        self.def = self.def.replace(last, &format!("    X(UseProgram,                        NEW_SHADER) \\\n    X({mutator}, {bit})\n// clang-format on"));
        self
    }

    pub(super) fn without_row(mut self, mutator: &str) -> Fixture {
        self.def = self
            .def
            .lines()
            .filter(|l| !l.trim_start().starts_with(&format!("X({mutator},")))
            .map(|l| format!("{l}\n"))
            .collect();
        self
    }
}
