// MobileGL driver fixture - MG_Impl/GLImpl/Depth/GL_Depth.cpp
#include "MG_Impl/GLImpl/GLEntry.h"
#include "MG_State/GLState/Core.h"

using namespace MG_Impl::GLImpl;

namespace {

GLfloat Clamp01(GLfloat value) {
    return value < 0.0f ? 0.0f : (value > 1.0f ? 1.0f : value);
}

} // namespace

MG_GLAPI void glDepthFunc(GLenum func) {
    if (!IsValidCompareFunc(func)) {
        MG_State::pGLContext->RecordError(GL_INVALID_ENUM);
        return;
    }
    MG_State::pGLContext->SetDepthFunc(func);
}

MG_GLAPI void glDepthMask(GLboolean flag) {
    MG_State::pGLContext->SetDepthMask(flag != GL_FALSE);
}

MG_GLAPI void glDepthRangef(GLfloat n, GLfloat f) {
    MG_State::pGLContext->SetDepthRange(Clamp01(n), Clamp01(f));
}

MG_GLAPI void glPolygonOffset(GLfloat factor, GLfloat units) {
    MG_State::pGLContext->SetPolygonOffset(factor, units);
}
