// MobileGL driver fixture - MG_State/GLState/RenderState/RenderState.h
// Fixed-function render state. Two version counters publish it:
//   m_version               moves on EVERY render-state change  -> NEW_RENDER_STATE
//   m_pipelineStateVersion  moves only when a pipeline input changes -> NEW_PIPELINE_STATE
// A setter of pipeline state calls BumpVersions() (both move); a setter of
// dynamic state only does ++m_version. MG_Pipe/DirtySurface.def must say which
// is which, and the dirty-surface gate derives it from this file's .cpp.
#pragma once

#include "MG_State/GLState/FramebufferState/FramebufferObject.h"

namespace MG_State {

struct RenderStateParameters {
    MG_Pipe::BlendDesc BlendStates[kMaxDrawBuffers];
    MG_Pipe::DepthDesc Depth;
    bool StencilEnabled = false;
    MG_Pipe::StencilFaceDesc StencilStates[2]; // [0] front, [1] back
    MG_Pipe::RasterDesc Raster;
    MG_Pipe::Rect Viewport;
    MG_Pipe::Rect Scissor;
    MG_Pipe::Color4 BlendColor;
    MG_Pipe::Color4 ClearColor;
    Float32 ClearDepth = 1.0f;
    GLint ClearStencil = 0;
};

class RenderState {
public:
    // Returns false for a capability this state does not own (the entry point
    // records GL_INVALID_ENUM).
    static bool IsRenderCapability(GLenum cap);

    void SetCapability(GLenum cap, bool enabled);
    void SetBlendFunc(GLenum src, GLenum dst);
    void SetBlendFuncSeparate(GLenum srcRGB, GLenum dstRGB, GLenum srcAlpha, GLenum dstAlpha);
    void SetBlendEquation(GLenum mode);
    void SetBlendEquationSeparate(GLenum modeRGB, GLenum modeAlpha);
    void SetBlendColor(Float32 r, Float32 g, Float32 b, Float32 a);
    void SetColorMask(bool r, bool g, bool b, bool a);
    void SetDepthFunc(GLenum func);
    void SetDepthMask(bool enabled);
    void SetDepthRange(Float32 nearValue, Float32 farValue);
    void SetPolygonOffset(Float32 factor, Float32 units);
    void SetStencilFunc(GLenum face, GLenum func, GLint ref, Uint32 mask);
    void SetStencilOp(GLenum face, GLenum fail, GLenum depthFail, GLenum pass);
    void SetStencilMask(GLenum face, Uint32 mask);
    void SetViewport(GLint x, GLint y, GLsizei width, GLsizei height);
    void SetScissor(GLint x, GLint y, GLsizei width, GLsizei height);
    void SetCullFace(GLenum face);
    void SetFrontFace(GLenum mode);
    void SetLineWidth(Float32 width);
    void SetClearColor(Float32 r, Float32 g, Float32 b, Float32 a);
    void SetClearDepth(Float32 depth);
    void SetClearStencil(GLint value);

    bool IsEnabled(GLenum cap) const;
    const RenderStateParameters& Parameters() const { return m_parameters; }
    Uint64 Version() const { return m_version; }
    Uint64 PipelineVersion() const { return m_pipelineStateVersion; }

private:
    void BumpVersions();

    RenderStateParameters m_parameters;
    Uint64 m_version = 1;
    Uint64 m_pipelineStateVersion = 1;
};

} // namespace MG_State
