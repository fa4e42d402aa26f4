// MobileGL driver fixture - MG_State/GLState/Core.h
// GLContext: the whole frontend GL state of one context. GL entry points
// (MG_Impl/GLImpl) mutate it only through its Set/Bind/Use/Mark/Record/...
// methods via MG_State::pGLContext; MG_Impl/Pipe reads it through the const
// accessors below to fill MG_Pipe::gPipeInputs. Backends never see it.
#pragma once

#include "MG_State/GLState/BufferState/BufferState.h"
#include "MG_State/GLState/FramebufferState/FramebufferState.h"
#include "MG_State/GLState/ProgramState/ProgramState.h"
#include "MG_State/GLState/RenderState/RenderState.h"
#include "MG_State/GLState/TextureState/TextureState.h"
#include "MG_State/GLState/VertexArrayState/VertexArrayState.h"

namespace MG_State {

class GLContext {
public:
    GLContext(Uint32 width, Uint32 height);

    // ---- errors (glGetError) ----------------------------------------------
    void RecordError(GLenum error);
    GLenum TakeError();

    // ---- render state: forwards to RenderState -----------------------------
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

    // ---- textures ------------------------------------------------------------
    void CreateTextureNames(GLsizei count, GLuint* out);
    void SetActiveTextureUnit(Uint32 unit);
    void BindTexture(GLenum target, GLuint texture);
    void SetTextureParameter(GLenum target, GLenum pname, GLint value);
    void AllocateTextureStorage(GLenum target, GLint level, GLsizei width, GLsizei height, GLenum format);
    void TouchTextureLevel(GLenum target, GLint level);
    void MarkTextureForDeletion(GLuint texture);

    // ---- buffers -------------------------------------------------------------
    void CreateBufferNames(GLsizei count, GLuint* out);
    void BindBuffer(GLenum target, GLuint buffer);
    void AllocateBufferStorage(GLenum target, Uint64 size, GLenum usage);
    void RecordBufferWrite(GLenum target, Uint64 offset, Uint64 size);
    void MarkBufferForDeletion(GLuint buffer);

    // ---- vertex arrays -------------------------------------------------------
    void CreateVertexArrayNames(GLsizei count, GLuint* out);
    void BindVertexArray(GLuint vao);
    void SetVertexAttribPointer(GLuint index, GLint size, GLenum type, bool normalized, GLsizei stride,
                                Uint64 offset);
    void SetVertexAttribEnabled(GLuint index, bool enabled);
    void SetCurrentVertexAttrib(GLuint index, Float32 x, Float32 y, Float32 z, Float32 w);

    // ---- framebuffers --------------------------------------------------------
    void CreateFramebufferNames(GLsizei count, GLuint* out);
    void BindFramebuffer(GLenum target, GLuint framebuffer);
    void SetFramebufferTexture(GLenum target, GLenum attachment, GLuint texture, GLint level);
    void MarkFramebufferForDeletion(GLuint framebuffer);

    // ---- programs ------------------------------------------------------------
    GLuint CreateProgramObject(Uint32 samplerUnitMask);
    void UseProgram(GLuint program);
    void SetUniform(GLint location, Float32 x, Float32 y, Float32 z, Float32 w);
    void MarkProgramForDeletion(GLuint program);

    // ---- pixel store, readback, frames -----------------------------------------
    void SetPixelStoreParam(GLenum pname, GLint value);
    void NotifyReadbackComplete(Uint64 bytes);
    void EndFrame();

    // ---- const accessors: what MG_Impl/Pipe reads ------------------------------
    const RenderState& Render() const { return m_renderState; }
    const TextureState& Textures() const { return m_textureState; }
    TextureState& TexturesForFill() { return m_textureState; }
    const BufferState& Buffers() const { return m_bufferState; }
    const VertexArrayState& VertexArrays() const { return m_vertexArrayState; }
    const FramebufferState& Framebuffers() const { return m_framebufferState; }
    const ProgramState& Programs() const { return m_programState; }
    Uint32 ActiveTextureUnit() const { return m_activeTextureUnit; }
    const MG_Pipe::PixelStoreDesc& PixelPack() const { return m_pixelPack; }
    const MG_Pipe::PixelStoreDesc& PixelUnpack() const { return m_pixelUnpack; }
    const MG_Pipe::Color4& CurrentVertexAttrib(Uint32 index) const { return m_currentAttribs[index]; }
    Uint64 FrameSerial() const { return m_frameSerial; }
    Uint64 ReadbackBytes() const { return m_readbackBytes; }

    // Shutter accessors: each returns the one counter a dirty bit's shutter
    // compares (MG_Impl/Pipe/Tracker.h, MGPipeTracker::Update).
    Uint64 RenderStateVersion() const { return m_renderState.Version(); }
    Uint64 PipelineStateVersion() const { return m_renderState.PipelineVersion(); }
    Uint64 TextureBindGeneration() const { return m_textureState.BindGeneration(); }
    Uint64 BufferBindingGeneration() const { return m_bufferState.BindingGeneration(); }
    Uint64 VertexLayoutGeneration() const { return m_vertexArrayState.LayoutGeneration(); }
    Uint64 FramebufferGeneration() const { return m_framebufferState.FboGeneration(); }
    Uint64 ProgramGeneration() const { return m_programState.Generation(); }
    Uint64 ConstantsGeneration() const { return m_programState.UniformGeneration(); }
    Uint64 PixelPackVersion() const { return m_pixelPackVersion; }
    Uint64 CurrentVertexAttribsVersion() const { return m_currentAttribsVersion; }

private:
    RenderState m_renderState;
    TextureState m_textureState;
    BufferState m_bufferState;
    VertexArrayState m_vertexArrayState;
    FramebufferState m_framebufferState;
    ProgramState m_programState;
    GLenum m_lastError = GL_NO_ERROR;
    Uint32 m_activeTextureUnit = 0;
    MG_Pipe::PixelStoreDesc m_pixelPack;
    MG_Pipe::PixelStoreDesc m_pixelUnpack;
    Uint64 m_pixelPackVersion = 0;
    MG_Pipe::Color4 m_currentAttribs[MG_Pipe::kMaxVertexAttribs];
    Uint64 m_currentAttribsVersion = 0;
    Uint64 m_frameSerial = 0;
    Uint64 m_readbackBytes = 0;
};

// The current context. Set by MobileGL::Initialize(), cleared by Shutdown().
extern GLContext* pGLContext;

} // namespace MG_State
