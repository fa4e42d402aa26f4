// MobileGL driver fixture - MG_Impl/GLImpl/Blend/GL_Blend.cpp
// Blend state entry points. All deferred: the draw that follows publishes them.
#include "MG_Impl/GLImpl/GLEntry.h"
#include "MG_State/GLState/Core.h"

using namespace MG_Impl::GLImpl;

namespace {

bool IsValidBlendFactor(GLenum factor) {
    return factor == GL_ZERO || factor == GL_ONE || (factor >= GL_SRC_COLOR && factor <= GL_ONE_MINUS_DST_COLOR);
}

bool IsValidBlendEquation(GLenum mode) {
    return mode == GL_FUNC_ADD || mode == GL_FUNC_SUBTRACT || mode == GL_FUNC_REVERSE_SUBTRACT || mode == GL_MIN ||
           mode == GL_MAX;
}

} // namespace

MG_GLAPI void glBlendFunc(GLenum sfactor, GLenum dfactor) {
    if (!IsValidBlendFactor(sfactor) || !IsValidBlendFactor(dfactor)) {
        MG_State::pGLContext->RecordError(GL_INVALID_ENUM);
        return;
    }
    MG_State::pGLContext->SetBlendFunc(sfactor, dfactor);
}

MG_GLAPI void glBlendFuncSeparate(GLenum srcRGB, GLenum dstRGB, GLenum srcAlpha, GLenum dstAlpha) {
    if (!IsValidBlendFactor(srcRGB) || !IsValidBlendFactor(dstRGB) || !IsValidBlendFactor(srcAlpha) ||
        !IsValidBlendFactor(dstAlpha)) {
        MG_State::pGLContext->RecordError(GL_INVALID_ENUM);
        return;
    }
    MG_State::pGLContext->SetBlendFuncSeparate(srcRGB, dstRGB, srcAlpha, dstAlpha);
}

MG_GLAPI void glBlendEquation(GLenum mode) {
    if (!IsValidBlendEquation(mode)) {
        MG_State::pGLContext->RecordError(GL_INVALID_ENUM);
        return;
    }
    MG_State::pGLContext->SetBlendEquation(mode);
}

MG_GLAPI void glBlendEquationSeparate(GLenum modeRGB, GLenum modeAlpha) {
    if (!IsValidBlendEquation(modeRGB) || !IsValidBlendEquation(modeAlpha)) {
        MG_State::pGLContext->RecordError(GL_INVALID_ENUM);
        return;
    }
    MG_State::pGLContext->SetBlendEquationSeparate(modeRGB, modeAlpha);
}

MG_GLAPI void glBlendColor(GLfloat red, GLfloat green, GLfloat blue, GLfloat alpha) {
    MG_State::pGLContext->SetBlendColor(red, green, blue, alpha);
}

MG_GLAPI void glColorMask(GLboolean red, GLboolean green, GLboolean blue, GLboolean alpha) {
    MG_State::pGLContext->SetColorMask(red != GL_FALSE, green != GL_FALSE, blue != GL_FALSE, alpha != GL_FALSE);
}
