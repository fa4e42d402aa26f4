// MobileGL driver fixture - MG_Impl/GLImpl/Capability/GL_Capability.cpp
// glEnable/glDisable: deferred mutators - the next verb publishes them through
// NEW_RENDER_STATE|NEW_PIPELINE_STATE (RenderState::SetCapability).
#include "MG_Impl/GLImpl/GLEntry.h"
#include "MG_State/GLState/Core.h"

using namespace MG_Impl::GLImpl;

MG_GLAPI void glEnable(GLenum cap) {
    if (!MG_State::RenderState::IsRenderCapability(cap)) {
        MG_State::pGLContext->RecordError(GL_INVALID_ENUM);
        return;
    }
    MG_State::pGLContext->SetCapability(cap, true);
}

MG_GLAPI void glDisable(GLenum cap) {
    if (!MG_State::RenderState::IsRenderCapability(cap)) {
        MG_State::pGLContext->RecordError(GL_INVALID_ENUM);
        return;
    }
    MG_State::pGLContext->SetCapability(cap, false);
}

MG_GLAPI GLboolean glIsEnabled(GLenum cap) {
    if (!MG_State::RenderState::IsRenderCapability(cap)) {
        MG_State::pGLContext->RecordError(GL_INVALID_ENUM);
        return GL_FALSE;
    }
    return MG_State::pGLContext->Render().IsEnabled(cap) ? GL_TRUE : GL_FALSE;
}
