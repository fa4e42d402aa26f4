// MobileGL driver fixture - MG_Impl/GLImpl/Buffer/GL_Buffer.cpp
// Buffer entry points. Data definition and updates are immediate publish
// points (the backend receives the bytes in the same call); bindings are
// deferred behind NEW_VERTEX_BUFFERS.
#include "MG_Impl/GLImpl/GLEntry.h"
#include "MG_Impl/Pipe/PipeFill.h"
#include "MG_Pipe/BackendFunctions.h"
#include "MG_State/GLState/Core.h"

using namespace MG_Impl::GLImpl;

MG_GLAPI void glGenBuffers(GLsizei n, GLuint* buffers) {
    if (n < 0) {
        MG_State::pGLContext->RecordError(GL_INVALID_VALUE);
        return;
    }
    MG_State::pGLContext->CreateBufferNames(n, buffers);
}

MG_GLAPI void glDeleteBuffers(GLsizei n, const GLuint* buffers) {
    if (n < 0) {
        MG_State::pGLContext->RecordError(GL_INVALID_VALUE);
        return;
    }
    for (GLsizei i = 0; i < n; ++i) {
        const GLuint name = buffers[i];
        if (name == 0 || MG_State::pGLContext->Buffers().Find(name) == nullptr) {
            continue;
        }
        MG_State::pGLContext->MarkBufferForDeletion(name);
        gBackendFunctionsTable.GL.DestroyBuffer(name);
    }
}

MG_GLAPI void glBindBuffer(GLenum target, GLuint buffer) {
    if (!IsValidBufferTarget(target)) {
        MG_State::pGLContext->RecordError(GL_INVALID_ENUM);
        return;
    }
    if (!MG_State::pGLContext->Buffers().IsName(buffer)) {
        MG_State::pGLContext->RecordError(GL_INVALID_OPERATION);
        return;
    }
    MG_State::pGLContext->BindBuffer(target, buffer);
}

MG_GLAPI void glBufferData(GLenum target, GLsizeiptr size, const void* data, GLenum usage) {
    if (!IsValidBufferTarget(target) ||
        (usage != GL_STREAM_DRAW && usage != GL_STATIC_DRAW && usage != GL_DYNAMIC_DRAW)) {
        MG_State::pGLContext->RecordError(GL_INVALID_ENUM);
        return;
    }
    if (size < 0) {
        MG_State::pGLContext->RecordError(GL_INVALID_VALUE);
        return;
    }
    const GLuint buffer = MG_State::pGLContext->Buffers().Bound(target);
    if (buffer == 0) {
        MG_State::pGLContext->RecordError(GL_INVALID_OPERATION);
        return;
    }
    MG_State::pGLContext->AllocateBufferStorage(target, static_cast<Uint64>(size), usage);
    MGP_FILL(BufferData);
    gBackendFunctionsTable.GL.CreateBufferStorage(buffer, static_cast<Uint64>(size), usage);
    if (data != nullptr) {
        gBackendFunctionsTable.GL.UploadBuffer(buffer, 0, data, static_cast<Uint64>(size));
    }
}

MG_GLAPI void glBufferSubData(GLenum target, GLintptr offset, GLsizeiptr size, const void* data) {
    if (!IsValidBufferTarget(target)) {
        MG_State::pGLContext->RecordError(GL_INVALID_ENUM);
        return;
    }
    const GLuint buffer = MG_State::pGLContext->Buffers().Bound(target);
    const MG_State::BufferObject* object = MG_State::pGLContext->Buffers().Find(buffer);
    if (buffer == 0 || object == nullptr) {
        MG_State::pGLContext->RecordError(GL_INVALID_OPERATION);
        return;
    }
    if (offset < 0 || size < 0 || static_cast<Uint64>(offset + size) > object->Size) {
        MG_State::pGLContext->RecordError(GL_INVALID_VALUE);
        return;
    }
    MG_State::pGLContext->RecordBufferWrite(target, static_cast<Uint64>(offset), static_cast<Uint64>(size));
    MGP_FILL(BufferSubData);
    gBackendFunctionsTable.GL.UploadBuffer(buffer, static_cast<Uint64>(offset), data, static_cast<Uint64>(size));
}
