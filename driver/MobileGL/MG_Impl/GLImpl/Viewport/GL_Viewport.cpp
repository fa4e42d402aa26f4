// MobileGL driver fixture - MG_Impl/GLImpl/Viewport/GL_Viewport.cpp
// Viewport, scissor and rasterizer entry points (dynamic state: NEW_RENDER_STATE
// only, except cull and front face, which are baked into pipelines).
#include "MG_Impl/GLImpl/GLEntry.h"
#include "MG_State/GLState/Core.h"

using namespace MG_Impl::GLImpl;

MG_GLAPI void glViewport(GLint x, GLint y, GLsizei width, GLsizei height) {
    if (width < 0 || height < 0) {
        MG_State::pGLContext->RecordError(GL_INVALID_VALUE);
        return;
    }
    MG_State::pGLContext->SetViewport(x, y, width, height);
}

MG_GLAPI void glScissor(GLint x, GLint y, GLsizei width, GLsizei height) {
    if (width < 0 || height < 0) {
        MG_State::pGLContext->RecordError(GL_INVALID_VALUE);
        return;
    }
    MG_State::pGLContext->SetScissor(x, y, width, height);
}

MG_GLAPI void glCullFace(GLenum mode) {
    if (!IsValidFace(mode)) {
        MG_State::pGLContext->RecordError(GL_INVALID_ENUM);
        return;
    }
    MG_State::pGLContext->SetCullFace(mode);
}

MG_GLAPI void glFrontFace(GLenum mode) {
    if (mode != GL_CW && mode != GL_CCW) {
        MG_State::pGLContext->RecordError(GL_INVALID_ENUM);
        return;
    }
    MG_State::pGLContext->SetFrontFace(mode);
}

MG_GLAPI void glLineWidth(GLfloat width) {
    if (width <= 0.0f) {
        MG_State::pGLContext->RecordError(GL_INVALID_VALUE);
        return;
    }
    MG_State::pGLContext->SetLineWidth(width);
}
