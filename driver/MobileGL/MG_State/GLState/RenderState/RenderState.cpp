// MobileGL driver fixture - MG_State/GLState/RenderState/RenderState.cpp
// Every setter early-outs on a redundant write (allowed by the def's "every
// path that mutates" rule) and publishes on every path that does mutate.
#include "MG_State/GLState/RenderState/RenderState.h"

namespace MG_State {
namespace {

Uint32 FaceFirst(GLenum face) {
    return face == GL_BACK ? 1u : 0u;
}

Uint32 FaceLast(GLenum face) {
    return face == GL_FRONT ? 0u : 1u;
}

bool SameColor(const MG_Pipe::Color4& c, Float32 r, Float32 g, Float32 b, Float32 a) {
    return c.R == r && c.G == g && c.B == b && c.A == a;
}

} // namespace

void RenderState::BumpVersions()
{
    ++m_version;
    ++m_pipelineStateVersion;
}

bool RenderState::IsRenderCapability(GLenum cap) {
    return cap == GL_BLEND || cap == GL_DEPTH_TEST || cap == GL_STENCIL_TEST || cap == GL_CULL_FACE ||
           cap == GL_SCISSOR_TEST || cap == GL_POLYGON_OFFSET_FILL;
}

void RenderState::SetCapability(GLenum cap, bool enabled)
{
    if (IsEnabled(cap) == enabled) {
        return;
    }
    if (cap == GL_BLEND) {
        for (MG_Pipe::BlendDesc& blend : m_parameters.BlendStates) {
            blend.Enabled = enabled;
        }
    } else if (cap == GL_DEPTH_TEST) {
        m_parameters.Depth.TestEnabled = enabled;
    } else if (cap == GL_STENCIL_TEST) {
        m_parameters.StencilEnabled = enabled;
    } else if (cap == GL_CULL_FACE) {
        m_parameters.Raster.CullEnabled = enabled;
    } else if (cap == GL_SCISSOR_TEST) {
        m_parameters.Raster.ScissorEnabled = enabled;
    } else if (cap == GL_POLYGON_OFFSET_FILL) {
        m_parameters.Raster.PolygonOffsetEnabled = enabled;
    }
    BumpVersions();
}

void RenderState::SetBlendFunc(GLenum src, GLenum dst)
{
    SetBlendFuncSeparate(src, dst, src, dst);
}

void RenderState::SetBlendFuncSeparate(GLenum srcRGB, GLenum dstRGB, GLenum srcAlpha, GLenum dstAlpha)
{
    bool changed = false;
    for (MG_Pipe::BlendDesc& blend : m_parameters.BlendStates) {
        changed = changed || blend.SrcRGB != srcRGB || blend.DstRGB != dstRGB || blend.SrcAlpha != srcAlpha ||
                  blend.DstAlpha != dstAlpha;
        blend.SrcRGB = srcRGB;
        blend.DstRGB = dstRGB;
        blend.SrcAlpha = srcAlpha;
        blend.DstAlpha = dstAlpha;
    }
    if (changed) {
        BumpVersions();
    }
}

void RenderState::SetBlendEquation(GLenum mode)
{
    SetBlendEquationSeparate(mode, mode);
}

void RenderState::SetBlendEquationSeparate(GLenum modeRGB, GLenum modeAlpha)
{
    MG_Pipe::BlendDesc& first = m_parameters.BlendStates[0];
    if (first.EquationRGB == modeRGB && first.EquationAlpha == modeAlpha) {
        return;
    }
    for (MG_Pipe::BlendDesc& blend : m_parameters.BlendStates) {
        blend.EquationRGB = modeRGB;
        blend.EquationAlpha = modeAlpha;
    }
    BumpVersions();
}

void RenderState::SetBlendColor(Float32 r, Float32 g, Float32 b, Float32 a)
{
    if (SameColor(m_parameters.BlendColor, r, g, b, a)) {
        return;
    }
    m_parameters.BlendColor = MG_Pipe::Color4{r, g, b, a};
    ++m_version;
}

void RenderState::SetColorMask(bool r, bool g, bool b, bool a)
{
    const Uint8 mask = static_cast<Uint8>((r ? 1 : 0) | (g ? 2 : 0) | (b ? 4 : 0) | (a ? 8 : 0));
    if (m_parameters.BlendStates[0].ColorWriteMask == mask) {
        return;
    }
    for (MG_Pipe::BlendDesc& blend : m_parameters.BlendStates) {
        blend.ColorWriteMask = mask;
    }
    BumpVersions();
}

void RenderState::SetDepthFunc(GLenum func)
{
    if (m_parameters.Depth.Func == func) {
        return;
    }
    m_parameters.Depth.Func = func;
    BumpVersions();
}

void RenderState::SetDepthMask(bool enabled)
{
    if (m_parameters.Depth.WriteEnabled == enabled) {
        return;
    }
    m_parameters.Depth.WriteEnabled = enabled;
    BumpVersions();
}

void RenderState::SetDepthRange(Float32 nearValue, Float32 farValue)
{
    m_parameters.Depth.RangeNear = nearValue;
    m_parameters.Depth.RangeFar = farValue;
    ++m_version;
}

void RenderState::SetPolygonOffset(Float32 factor, Float32 units)
{
    m_parameters.Raster.PolygonOffsetFactor = factor;
    m_parameters.Raster.PolygonOffsetUnits = units;
    ++m_version;
}

void RenderState::SetStencilFunc(GLenum face, GLenum func, GLint ref, Uint32 mask)
{
    for (Uint32 i = FaceFirst(face); i <= FaceLast(face); ++i) {
        MG_Pipe::StencilFaceDesc& stencil = m_parameters.StencilStates[i];
        stencil.Func = func;
        stencil.Ref = ref;
        stencil.ReadMask = mask;
    }
    BumpVersions();
}

void RenderState::SetStencilOp(GLenum face, GLenum fail, GLenum depthFail, GLenum pass)
{
    for (Uint32 i = FaceFirst(face); i <= FaceLast(face); ++i) {
        MG_Pipe::StencilFaceDesc& stencil = m_parameters.StencilStates[i];
        stencil.FailOp = fail;
        stencil.DepthFailOp = depthFail;
        stencil.PassOp = pass;
    }
    BumpVersions();
}

void RenderState::SetStencilMask(GLenum face, Uint32 mask)
{
    for (Uint32 i = FaceFirst(face); i <= FaceLast(face); ++i) {
        MG_Pipe::StencilFaceDesc& state = m_parameters.StencilStates[FaceFirst(i == 0 ? GL_FRONT : GL_BACK)]; // alias through an indexed call, as upstream's setters bind it
        state.WriteMask = mask;
    }
    BumpVersions();
}

void RenderState::SetViewport(GLint x, GLint y, GLsizei width, GLsizei height)
{
    MG_Pipe::Rect& viewport = m_parameters.Viewport;
    if (viewport.X == x && viewport.Y == y && viewport.Width == width && viewport.Height == height) {
        return;
    }
    viewport = MG_Pipe::Rect{x, y, width, height};
    ++m_version;
}

void RenderState::SetScissor(GLint x, GLint y, GLsizei width, GLsizei height)
{
    MG_Pipe::Rect& scissor = m_parameters.Scissor;
    if (scissor.X == x && scissor.Y == y && scissor.Width == width && scissor.Height == height) {
        return;
    }
    scissor = MG_Pipe::Rect{x, y, width, height};
    ++m_version;
}

void RenderState::SetCullFace(GLenum face)
{
    if (m_parameters.Raster.CullFace == face) {
        return;
    }
    m_parameters.Raster.CullFace = face;
    BumpVersions();
}

void RenderState::SetFrontFace(GLenum mode)
{
    if (m_parameters.Raster.FrontFace == mode) {
        return;
    }
    m_parameters.Raster.FrontFace = mode;
    BumpVersions();
}

void RenderState::SetLineWidth(Float32 width)
{
    m_parameters.Raster.LineWidth = width;
    ++m_version;
}

void RenderState::SetClearColor(Float32 r, Float32 g, Float32 b, Float32 a)
{
    if (SameColor(m_parameters.ClearColor, r, g, b, a)) {
        return;
    }
    m_parameters.ClearColor = MG_Pipe::Color4{r, g, b, a};
    ++m_version;
}

void RenderState::SetClearDepth(Float32 depth)
{
    m_parameters.ClearDepth = depth;
    ++m_version;
}

void RenderState::SetClearStencil(GLint value)
{
    m_parameters.ClearStencil = value;
    ++m_version;
}

bool RenderState::IsEnabled(GLenum cap) const
{
    if (cap == GL_BLEND) {
        return m_parameters.BlendStates[0].Enabled;
    }
    if (cap == GL_DEPTH_TEST) {
        return m_parameters.Depth.TestEnabled;
    }
    if (cap == GL_STENCIL_TEST) {
        return m_parameters.StencilEnabled;
    }
    if (cap == GL_CULL_FACE) {
        return m_parameters.Raster.CullEnabled;
    }
    if (cap == GL_SCISSOR_TEST) {
        return m_parameters.Raster.ScissorEnabled;
    }
    if (cap == GL_POLYGON_OFFSET_FILL) {
        return m_parameters.Raster.PolygonOffsetEnabled;
    }
    return false;
}

} // namespace MG_State
