// MobileGL driver fixture - MG_Impl/GLImpl/Stencil/GL_Stencil.cpp
#include "MG_Impl/GLImpl/GLEntry.h"
#include "MG_State/GLState/Core.h"

using namespace MG_Impl::GLImpl;

namespace {

bool IsValidStencilOp(GLenum op) {
    return op == GL_KEEP || op == GL_ZERO || op == GL_REPLACE || op == GL_INCR || op == GL_DECR || op == GL_INVERT;
}

} // namespace

MG_GLAPI void glStencilFunc(GLenum func, GLint ref, GLuint mask) {
    glStencilFuncSeparate(GL_FRONT_AND_BACK, func, ref, mask);
}

MG_GLAPI void glStencilFuncSeparate(GLenum face, GLenum func, GLint ref, GLuint mask) {
    if (!IsValidFace(face) || !IsValidCompareFunc(func)) {
        MG_State::pGLContext->RecordError(GL_INVALID_ENUM);
        return;
    }
    MG_State::pGLContext->SetStencilFunc(face, func, ref, mask);
}

MG_GLAPI void glStencilOp(GLenum fail, GLenum zfail, GLenum zpass) {
    if (!IsValidStencilOp(fail) || !IsValidStencilOp(zfail) || !IsValidStencilOp(zpass)) {
        MG_State::pGLContext->RecordError(GL_INVALID_ENUM);
        return;
    }
    MG_State::pGLContext->SetStencilOp(GL_FRONT_AND_BACK, fail, zfail, zpass);
}

MG_GLAPI void glStencilMask(GLuint mask) {
    MG_State::pGLContext->SetStencilMask(GL_FRONT_AND_BACK, mask);
}
