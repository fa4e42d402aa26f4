// MobileGL driver fixture - MG_State/GLState/Core.cpp
// GLContext's mutators. Render-state setters forward to RenderState (whose
// .cpp decides what publishes them); the others change their state object and
// move the generation counter their dirty bit's shutter reads.
#include "MG_State/GLState/Core.h"

namespace MG_State {

GLContext* pGLContext = nullptr;

GLContext::GLContext(Uint32 width, Uint32 height) {
    m_framebufferState.ResizeDefault(width, height);
    m_renderState.SetViewport(0, 0, static_cast<GLsizei>(width), static_cast<GLsizei>(height));
    m_renderState.SetScissor(0, 0, static_cast<GLsizei>(width), static_cast<GLsizei>(height));
    for (MG_Pipe::Color4& attrib : m_currentAttribs) {
        attrib.A = 1.0f;
    }
}

void GLContext::RecordError(GLenum error) {
    // GL keeps the FIRST error until glGetError reads it.
    if (m_lastError == GL_NO_ERROR) {
        m_lastError = error;
    }
}

GLenum GLContext::TakeError() {
    const GLenum error = m_lastError;
    m_lastError = GL_NO_ERROR;
    return error;
}

void GLContext::SetCapability(GLenum cap, bool enabled) { m_renderState.SetCapability(cap, enabled); }
void GLContext::SetBlendFunc(GLenum src, GLenum dst) { m_renderState.SetBlendFunc(src, dst); }
void GLContext::SetBlendFuncSeparate(GLenum srcRGB, GLenum dstRGB, GLenum srcAlpha, GLenum dstAlpha) {
    m_renderState.SetBlendFuncSeparate(srcRGB, dstRGB, srcAlpha, dstAlpha);
}
void GLContext::SetBlendEquation(GLenum mode) { m_renderState.SetBlendEquation(mode); }
void GLContext::SetBlendEquationSeparate(GLenum modeRGB, GLenum modeAlpha) {
    m_renderState.SetBlendEquationSeparate(modeRGB, modeAlpha);
}
void GLContext::SetBlendColor(Float32 r, Float32 g, Float32 b, Float32 a) { m_renderState.SetBlendColor(r, g, b, a); }
void GLContext::SetColorMask(bool r, bool g, bool b, bool a) { m_renderState.SetColorMask(r, g, b, a); }
void GLContext::SetDepthFunc(GLenum func) { m_renderState.SetDepthFunc(func); }
void GLContext::SetDepthMask(bool enabled) { m_renderState.SetDepthMask(enabled); }
void GLContext::SetDepthRange(Float32 nearValue, Float32 farValue) { m_renderState.SetDepthRange(nearValue, farValue); }
void GLContext::SetPolygonOffset(Float32 factor, Float32 units) { m_renderState.SetPolygonOffset(factor, units); }
void GLContext::SetStencilFunc(GLenum face, GLenum func, GLint ref, Uint32 mask) {
    m_renderState.SetStencilFunc(face, func, ref, mask);
}
void GLContext::SetStencilOp(GLenum face, GLenum fail, GLenum depthFail, GLenum pass) {
    m_renderState.SetStencilOp(face, fail, depthFail, pass);
}
void GLContext::SetStencilMask(GLenum face, Uint32 mask) { m_renderState.SetStencilMask(face, mask); }
void GLContext::SetViewport(GLint x, GLint y, GLsizei width, GLsizei height) {
    m_renderState.SetViewport(x, y, width, height);
}
void GLContext::SetScissor(GLint x, GLint y, GLsizei width, GLsizei height) {
    m_renderState.SetScissor(x, y, width, height);
}
void GLContext::SetCullFace(GLenum face) { m_renderState.SetCullFace(face); }
void GLContext::SetFrontFace(GLenum mode) { m_renderState.SetFrontFace(mode); }
void GLContext::SetLineWidth(Float32 width) { m_renderState.SetLineWidth(width); }
void GLContext::SetClearColor(Float32 r, Float32 g, Float32 b, Float32 a) { m_renderState.SetClearColor(r, g, b, a); }
void GLContext::SetClearDepth(Float32 depth) { m_renderState.SetClearDepth(depth); }
void GLContext::SetClearStencil(GLint value) { m_renderState.SetClearStencil(value); }

void GLContext::CreateTextureNames(GLsizei count, GLuint* out) {
    m_textureState.CreateNames(count, out);
}

void GLContext::SetActiveTextureUnit(Uint32 unit) {
    m_activeTextureUnit = unit;
}

void GLContext::BindTexture(GLenum target, GLuint texture) {
    m_textureState.BindTextureToUnit(m_activeTextureUnit, target, texture);
}

void GLContext::SetTextureParameter(GLenum target, GLenum pname, GLint value) {
    const GLuint name = m_textureState.BoundName(m_activeTextureUnit, target);
    m_textureState.SetParameter(name, pname, value);
}

void GLContext::AllocateTextureStorage(GLenum target, GLint level, GLsizei width, GLsizei height, GLenum format) {
    const GLuint name = m_textureState.BoundName(m_activeTextureUnit, target);
    m_textureState.AllocateLevel(name, target, level, width, height, format);
}

void GLContext::TouchTextureLevel(GLenum target, GLint level) {
    const GLuint name = m_textureState.BoundName(m_activeTextureUnit, target);
    m_textureState.NoteLevelUpload(name, level);
}

void GLContext::MarkTextureForDeletion(GLuint texture) {
    m_textureState.MarkForDeletion(texture);
}

void GLContext::CreateBufferNames(GLsizei count, GLuint* out) {
    m_bufferState.CreateNames(count, out);
}

void GLContext::BindBuffer(GLenum target, GLuint buffer) {
    m_bufferState.BindBufferTarget(target, buffer);
    if (target == GL_ELEMENT_ARRAY_BUFFER) {
        m_vertexArrayState.CaptureElementBuffer(buffer);
    }
}

void GLContext::AllocateBufferStorage(GLenum target, Uint64 size, GLenum usage) {
    m_bufferState.DefineStorage(target, size, usage);
}

void GLContext::RecordBufferWrite(GLenum target, Uint64 offset, Uint64 size) {
    m_bufferState.NoteWrite(target, offset, size);
}

void GLContext::MarkBufferForDeletion(GLuint buffer) {
    m_bufferState.MarkForDeletion(buffer);
}

void GLContext::CreateVertexArrayNames(GLsizei count, GLuint* out) {
    m_vertexArrayState.CreateNames(count, out);
}

void GLContext::BindVertexArray(GLuint vao) {
    m_vertexArrayState.BindVertexArrayObject(vao);
}

void GLContext::SetVertexAttribPointer(GLuint index, GLint size, GLenum type, bool normalized, GLsizei stride,
                                       Uint64 offset) {
    // The attribute captures the buffer bound to GL_ARRAY_BUFFER right now.
    const GLuint buffer = m_bufferState.Bound(GL_ARRAY_BUFFER);
    m_vertexArrayState.DefineAttrib(index, size, type, normalized, stride, offset, buffer);
}

void GLContext::SetVertexAttribEnabled(GLuint index, bool enabled) {
    m_vertexArrayState.EnableAttrib(index, enabled);
}

void GLContext::SetCurrentVertexAttrib(GLuint index, Float32 x, Float32 y, Float32 z, Float32 w) {
    m_currentAttribs[index] = MG_Pipe::Color4{x, y, z, w};
    ++m_currentAttribsVersion;
}

void GLContext::CreateFramebufferNames(GLsizei count, GLuint* out) {
    m_framebufferState.CreateNames(count, out);
}

void GLContext::BindFramebuffer(GLenum target, GLuint framebuffer) {
    m_framebufferState.BindFramebufferTarget(target, framebuffer);
}

void GLContext::SetFramebufferTexture(GLenum target, GLenum attachment, GLuint texture, GLint level) {
    Uint32 width = 0;
    Uint32 height = 0;
    const TextureObject* object = m_textureState.Find(texture);
    if (object != nullptr && level >= 0 && static_cast<Uint32>(level) < object->LevelCount) {
        width = object->Levels[level].Width;
        height = object->Levels[level].Height;
    }
    m_framebufferState.AttachTextureLevel(target, attachment, texture, level, width, height);
}

void GLContext::MarkFramebufferForDeletion(GLuint framebuffer) {
    m_framebufferState.MarkForDeletion(framebuffer);
}

GLuint GLContext::CreateProgramObject(Uint32 samplerUnitMask) {
    return m_programState.CreateProgramObject(samplerUnitMask);
}

void GLContext::UseProgram(GLuint program) {
    m_programState.UseProgram(program);
}

void GLContext::SetUniform(GLint location, Float32 x, Float32 y, Float32 z, Float32 w) {
    m_programState.StoreUniform(location, x, y, z, w);
}

void GLContext::MarkProgramForDeletion(GLuint program) {
    m_programState.MarkForDeletion(program);
}

void GLContext::SetPixelStoreParam(GLenum pname, GLint value) {
    // Only the pack side has a shutter (readbacks are verbs); unpack parameters
    // travel with each upload call and are pulled at every transfer verb.
    if (pname == GL_PACK_ALIGNMENT) {
        m_pixelPack.Alignment = value;
        ++m_pixelPackVersion;
    } else if (pname == GL_PACK_ROW_LENGTH) {
        m_pixelPack.RowLength = value;
        ++m_pixelPackVersion;
    } else if (pname == GL_UNPACK_ALIGNMENT) {
        m_pixelUnpack.Alignment = value;
    } else if (pname == GL_UNPACK_ROW_LENGTH) {
        m_pixelUnpack.RowLength = value;
    }
}

void GLContext::NotifyReadbackComplete(Uint64 bytes) {
    m_readbackBytes += bytes;
}

void GLContext::EndFrame() {
    ++m_frameSerial;
}

} // namespace MG_State
