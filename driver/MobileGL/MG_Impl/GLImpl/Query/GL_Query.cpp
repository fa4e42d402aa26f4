// MobileGL driver fixture - MG_Impl/GLImpl/Query/GL_Query.cpp
// State queries. TakeError() resets the error flag but is not a published
// mutation: no backend reads the error state, and "Take" is deliberately not a
// mutator prefix of the dirty-surface scan.
#include "MG_Impl/GLImpl/GLEntry.h"
#include "MG_State/GLState/Core.h"

MG_GLAPI GLenum glGetError() {
    return MG_State::pGLContext->TakeError();
}

MG_GLAPI void glGetIntegerv(GLenum pname, GLint* data) {
    const MG_State::GLContext& ctx = *MG_State::pGLContext;
    if (pname == GL_TEXTURE0) {
        data[0] = static_cast<GLint>(GL_TEXTURE0 + ctx.ActiveTextureUnit());
    } else if (pname == GL_PACK_ALIGNMENT) {
        data[0] = ctx.PixelPack().Alignment;
    } else if (pname == GL_UNPACK_ALIGNMENT) {
        data[0] = ctx.PixelUnpack().Alignment;
    } else if (pname == GL_FRAMEBUFFER) {
        data[0] = static_cast<GLint>(ctx.Framebuffers().DrawBinding());
    } else if (pname == GL_ARRAY_BUFFER) {
        data[0] = static_cast<GLint>(ctx.Buffers().Bound(GL_ARRAY_BUFFER));
    } else {
        MG_State::pGLContext->RecordError(GL_INVALID_ENUM);
    }
}
