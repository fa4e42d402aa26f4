// MobileGL driver fixture - MG_Impl/GLImpl/GLEntry.h
// The exported GL ES entry points of libMobileGL.so. Each one validates its
// arguments, records errors through MG_State::pGLContext->RecordError(...),
// mutates state through the context's mutators and - for verbs - fills the
// pipe (MGP_FILL) and reaches the backend through gBackendFunctionsTable.GL.
#pragma once

#include "MG_Util/GLDefs.h"

#define MG_GLAPI extern "C" __attribute__((visibility("default")))

// capabilities
MG_GLAPI void glEnable(GLenum cap);
MG_GLAPI void glDisable(GLenum cap);
MG_GLAPI GLboolean glIsEnabled(GLenum cap);
// blend
MG_GLAPI void glBlendFunc(GLenum sfactor, GLenum dfactor);
MG_GLAPI void glBlendFuncSeparate(GLenum srcRGB, GLenum dstRGB, GLenum srcAlpha, GLenum dstAlpha);
MG_GLAPI void glBlendEquation(GLenum mode);
MG_GLAPI void glBlendEquationSeparate(GLenum modeRGB, GLenum modeAlpha);
MG_GLAPI void glBlendColor(GLfloat red, GLfloat green, GLfloat blue, GLfloat alpha);
MG_GLAPI void glColorMask(GLboolean red, GLboolean green, GLboolean blue, GLboolean alpha);
// depth
MG_GLAPI void glDepthFunc(GLenum func);
MG_GLAPI void glDepthMask(GLboolean flag);
MG_GLAPI void glDepthRangef(GLfloat n, GLfloat f);
MG_GLAPI void glPolygonOffset(GLfloat factor, GLfloat units);
// stencil
MG_GLAPI void glStencilFunc(GLenum func, GLint ref, GLuint mask);
MG_GLAPI void glStencilFuncSeparate(GLenum face, GLenum func, GLint ref, GLuint mask);
MG_GLAPI void glStencilOp(GLenum fail, GLenum zfail, GLenum zpass);
MG_GLAPI void glStencilMask(GLuint mask);
// viewport and rasterizer
MG_GLAPI void glViewport(GLint x, GLint y, GLsizei width, GLsizei height);
MG_GLAPI void glScissor(GLint x, GLint y, GLsizei width, GLsizei height);
MG_GLAPI void glCullFace(GLenum mode);
MG_GLAPI void glFrontFace(GLenum mode);
MG_GLAPI void glLineWidth(GLfloat width);
// textures
MG_GLAPI void glGenTextures(GLsizei n, GLuint* textures);
MG_GLAPI void glDeleteTextures(GLsizei n, const GLuint* textures);
MG_GLAPI void glActiveTexture(GLenum texture);
MG_GLAPI void glBindTexture(GLenum target, GLuint texture);
MG_GLAPI void glTexParameteri(GLenum target, GLenum pname, GLint param);
MG_GLAPI void glTexImage2D(GLenum target, GLint level, GLint internalformat, GLsizei width, GLsizei height,
                           GLint border, GLenum format, GLenum type, const void* pixels);
MG_GLAPI void glTexSubImage2D(GLenum target, GLint level, GLint xoffset, GLint yoffset, GLsizei width,
                              GLsizei height, GLenum format, GLenum type, const void* pixels);
MG_GLAPI void glPixelStorei(GLenum pname, GLint param);
// buffers
MG_GLAPI void glGenBuffers(GLsizei n, GLuint* buffers);
MG_GLAPI void glDeleteBuffers(GLsizei n, const GLuint* buffers);
MG_GLAPI void glBindBuffer(GLenum target, GLuint buffer);
MG_GLAPI void glBufferData(GLenum target, GLsizeiptr size, const void* data, GLenum usage);
MG_GLAPI void glBufferSubData(GLenum target, GLintptr offset, GLsizeiptr size, const void* data);
// vertex arrays
MG_GLAPI void glGenVertexArrays(GLsizei n, GLuint* arrays);
MG_GLAPI void glBindVertexArray(GLuint array);
MG_GLAPI void glVertexAttribPointer(GLuint index, GLint size, GLenum type, GLboolean normalized, GLsizei stride,
                                    const void* pointer);
MG_GLAPI void glEnableVertexAttribArray(GLuint index);
MG_GLAPI void glDisableVertexAttribArray(GLuint index);
MG_GLAPI void glVertexAttrib4f(GLuint index, GLfloat x, GLfloat y, GLfloat z, GLfloat w);
// framebuffers
MG_GLAPI void glGenFramebuffers(GLsizei n, GLuint* framebuffers);
MG_GLAPI void glDeleteFramebuffers(GLsizei n, const GLuint* framebuffers);
MG_GLAPI void glBindFramebuffer(GLenum target, GLuint framebuffer);
MG_GLAPI void glFramebufferTexture2D(GLenum target, GLenum attachment, GLenum textarget, GLuint texture,
                                     GLint level);
MG_GLAPI GLenum glCheckFramebufferStatus(GLenum target);
MG_GLAPI void glReadPixels(GLint x, GLint y, GLsizei width, GLsizei height, GLenum format, GLenum type,
                           void* pixels);
// programs (the fixture has no shader compiler: a program is created linked,
// with the mask of texture units its samplers read)
MG_GLAPI GLuint mglCreateLinkedProgram(GLuint samplerUnitMask);
MG_GLAPI void glUseProgram(GLuint program);
MG_GLAPI void glDeleteProgram(GLuint program);
MG_GLAPI void glUniform4f(GLint location, GLfloat v0, GLfloat v1, GLfloat v2, GLfloat v3);
// verbs
MG_GLAPI void glClearColor(GLfloat red, GLfloat green, GLfloat blue, GLfloat alpha);
MG_GLAPI void glClearDepthf(GLfloat d);
MG_GLAPI void glClearStencil(GLint s);
MG_GLAPI void glClear(GLbitfield mask);
MG_GLAPI void glDrawArrays(GLenum mode, GLint first, GLsizei count);
MG_GLAPI void glDrawElements(GLenum mode, GLsizei count, GLenum type, const void* indices);
MG_GLAPI void glFlush();
MG_GLAPI void glFinish();
// queries
MG_GLAPI GLenum glGetError();
MG_GLAPI void glGetIntegerv(GLenum pname, GLint* data);
// window system glue (the fixture's EGL stand-in)
MG_GLAPI int mglInitialize(const char* backendName, GLuint width, GLuint height);
MG_GLAPI void mglSwapBuffers();
MG_GLAPI void mglShutdown();

// Shared validation helpers of the entry points.
namespace MG_Impl::GLImpl {

inline bool IsValidFace(GLenum face) {
    return face == GL_FRONT || face == GL_BACK || face == GL_FRONT_AND_BACK;
}

inline bool IsValidCompareFunc(GLenum func) {
    return func >= GL_NEVER && func <= GL_ALWAYS;
}

inline bool IsValidPrimitive(GLenum mode) {
    return mode <= GL_TRIANGLE_FAN;
}

inline bool IsValidTextureTarget(GLenum target) {
    return target == GL_TEXTURE_2D || target == GL_TEXTURE_CUBE_MAP || target == GL_TEXTURE_2D_ARRAY ||
           target == GL_TEXTURE_3D;
}

inline bool IsValidBufferTarget(GLenum target) {
    return target == GL_ARRAY_BUFFER || target == GL_ELEMENT_ARRAY_BUFFER || target == GL_UNIFORM_BUFFER ||
           target == GL_PIXEL_PACK_BUFFER;
}

inline bool IsValidFramebufferTarget(GLenum target) {
    return target == GL_FRAMEBUFFER || target == GL_DRAW_FRAMEBUFFER || target == GL_READ_FRAMEBUFFER;
}

inline Uint64 BytesPerPixel(GLenum format, GLenum type) {
    const Uint64 channels = (format == GL_RGB) ? 3u : (format == GL_DEPTH_COMPONENT ? 1u : 4u);
    const Uint64 size = (type == GL_FLOAT || type == GL_UNSIGNED_INT) ? 4u : (type == GL_UNSIGNED_SHORT ? 2u : 1u);
    return channels * size;
}

} // namespace MG_Impl::GLImpl
