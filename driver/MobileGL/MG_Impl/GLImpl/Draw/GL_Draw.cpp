// MobileGL driver fixture - MG_Impl/GLImpl/Draw/GL_Draw.cpp
// The verbs. Each validates, fills the pipe (MGP_FILL - in a push build this is
// where the tracker's shutters publish every deferred mutation since the last
// verb) and reaches the backend. The clear values are deferred dynamic state.
#include "MG_Impl/GLImpl/GLEntry.h"
#include "MG_Impl/Pipe/PipeFill.h"
#include "MG_Pipe/BackendFunctions.h"
#include "MG_State/GLState/Core.h"

using namespace MG_Impl::GLImpl;

MG_GLAPI void glClearColor(GLfloat red, GLfloat green, GLfloat blue, GLfloat alpha) {
    MG_State::pGLContext->SetClearColor(red, green, blue, alpha);
}

MG_GLAPI void glClearDepthf(GLfloat d) {
    MG_State::pGLContext->SetClearDepth(d < 0.0f ? 0.0f : (d > 1.0f ? 1.0f : d));
}

MG_GLAPI void glClearStencil(GLint s) {
    MG_State::pGLContext->SetClearStencil(s);
}

MG_GLAPI void glClear(GLbitfield mask) {
    constexpr GLbitfield kValid = GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT | GL_STENCIL_BUFFER_BIT;
    if ((mask & ~kValid) != 0) {
        MG_State::pGLContext->RecordError(GL_INVALID_VALUE);
        return;
    }
    MGP_FILL(Clear);
    gBackendFunctionsTable.GL.Clear(mask);
}

MG_GLAPI void glDrawArrays(GLenum mode, GLint first, GLsizei count) {
    if (!IsValidPrimitive(mode)) {
        MG_State::pGLContext->RecordError(GL_INVALID_ENUM);
        return;
    }
    if (first < 0 || count < 0) {
        MG_State::pGLContext->RecordError(GL_INVALID_VALUE);
        return;
    }
    if (count == 0) {
        return;
    }
    MG_Impl::Pipe::StageDraw(MG_Pipe::DrawParams{mode, first, count, GL_UNSIGNED_SHORT, 0, false});
    MGP_FILL(DrawArrays);
    gBackendFunctionsTable.GL.DrawArrays(mode, first, count);
}

MG_GLAPI void glDrawElements(GLenum mode, GLsizei count, GLenum type, const void* indices) {
    if (!IsValidPrimitive(mode) || (type != GL_UNSIGNED_SHORT && type != GL_UNSIGNED_INT && type != GL_UNSIGNED_BYTE)) {
        MG_State::pGLContext->RecordError(GL_INVALID_ENUM);
        return;
    }
    if (count < 0) {
        MG_State::pGLContext->RecordError(GL_INVALID_VALUE);
        return;
    }
    if (MG_State::pGLContext->VertexArrays().Current().ElementBuffer == 0) {
        MG_State::pGLContext->RecordError(GL_INVALID_OPERATION);
        return;
    }
    const Uint64 offset = static_cast<Uint64>(reinterpret_cast<std::uintptr_t>(indices));
    MG_Impl::Pipe::StageDraw(MG_Pipe::DrawParams{mode, 0, count, type, offset, true});
    MGP_FILL(DrawElements);
    gBackendFunctionsTable.GL.DrawElements(mode, count, type, offset);
}

MG_GLAPI void glFlush() {
    MGP_FILL(Flush);
    gBackendFunctionsTable.GL.Flush();
}

MG_GLAPI void glFinish() {
    MGP_FILL(Flush);
    gBackendFunctionsTable.GL.Finish();
}
