// MobileGL driver fixture - MG_Impl/GLImpl/VertexArray/GL_VertexArray.cpp
// Vertex array entry points: all deferred behind NEW_VERTEX_ELEMENTS, except
// the current (generic) attribute values, which NEW_VERTEX_ATTRIB_DEFAULTS' byte
// compare shutter publishes.
#include "MG_Impl/GLImpl/GLEntry.h"
#include "MG_State/GLState/Core.h"

using namespace MG_Impl::GLImpl;

namespace {

bool IsValidAttribType(GLenum type) {
    return type == GL_FLOAT || type == GL_UNSIGNED_BYTE || type == GL_UNSIGNED_SHORT || type == GL_UNSIGNED_INT;
}

} // namespace

MG_GLAPI void glGenVertexArrays(GLsizei n, GLuint* arrays) {
    if (n < 0) {
        MG_State::pGLContext->RecordError(GL_INVALID_VALUE);
        return;
    }
    MG_State::pGLContext->CreateVertexArrayNames(n, arrays);
}

MG_GLAPI void glBindVertexArray(GLuint array) {
    if (!MG_State::pGLContext->VertexArrays().IsName(array)) {
        MG_State::pGLContext->RecordError(GL_INVALID_OPERATION);
        return;
    }
    MG_State::pGLContext->BindVertexArray(array);
}

MG_GLAPI void glVertexAttribPointer(GLuint index, GLint size, GLenum type, GLboolean normalized, GLsizei stride,
                                    const void* pointer) {
    if (index >= MG_Pipe::kMaxVertexAttribs || size < 1 || size > 4 || stride < 0) {
        MG_State::pGLContext->RecordError(GL_INVALID_VALUE);
        return;
    }
    if (!IsValidAttribType(type)) {
        MG_State::pGLContext->RecordError(GL_INVALID_ENUM);
        return;
    }
    // Client-side arrays are not supported by this fixture: a non-zero VAO
    // needs a bound GL_ARRAY_BUFFER and the pointer is an offset into it.
    if (MG_State::pGLContext->VertexArrays().Bound() != 0 &&
        MG_State::pGLContext->Buffers().Bound(GL_ARRAY_BUFFER) == 0) {
        MG_State::pGLContext->RecordError(GL_INVALID_OPERATION);
        return;
    }
    const Uint64 offset = static_cast<Uint64>(reinterpret_cast<std::uintptr_t>(pointer));
    MG_State::pGLContext->SetVertexAttribPointer(index, size, type, normalized != GL_FALSE, stride, offset);
}

MG_GLAPI void glEnableVertexAttribArray(GLuint index) {
    if (index >= MG_Pipe::kMaxVertexAttribs) {
        MG_State::pGLContext->RecordError(GL_INVALID_VALUE);
        return;
    }
    MG_State::pGLContext->SetVertexAttribEnabled(index, true);
}

MG_GLAPI void glDisableVertexAttribArray(GLuint index) {
    if (index >= MG_Pipe::kMaxVertexAttribs) {
        MG_State::pGLContext->RecordError(GL_INVALID_VALUE);
        return;
    }
    MG_State::pGLContext->SetVertexAttribEnabled(index, false);
}

MG_GLAPI void glVertexAttrib4f(GLuint index, GLfloat x, GLfloat y, GLfloat z, GLfloat w) {
    if (index >= MG_Pipe::kMaxVertexAttribs) {
        MG_State::pGLContext->RecordError(GL_INVALID_VALUE);
        return;
    }
    MG_State::pGLContext->SetCurrentVertexAttrib(index, x, y, z, w);
}
