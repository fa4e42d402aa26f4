// MobileGL driver fixture - MG_Impl/GLImpl/Framebuffer/GL_Framebuffer.cpp
// Framebuffer entry points. glReadPixels is a verb and an immediate publish
// point whose mutation flows the other way: the backend writes the pixels and
// the frontend notes the readback (kReverseChannel). Deleting a framebuffer is
// not published to any backend (kUnpublishedDestroy, a recorded hole: the
// backends drop their attachment views lazily when a name is reused).
#include "MG_Impl/GLImpl/GLEntry.h"
#include "MG_Impl/Pipe/PipeFill.h"
#include "MG_Pipe/BackendFunctions.h"
#include "MG_State/GLState/Core.h"

using namespace MG_Impl::GLImpl;

MG_GLAPI void glGenFramebuffers(GLsizei n, GLuint* framebuffers) {
    if (n < 0) {
        MG_State::pGLContext->RecordError(GL_INVALID_VALUE);
        return;
    }
    MG_State::pGLContext->CreateFramebufferNames(n, framebuffers);
}

MG_GLAPI void glDeleteFramebuffers(GLsizei n, const GLuint* framebuffers) {
    if (n < 0) {
        MG_State::pGLContext->RecordError(GL_INVALID_VALUE);
        return;
    }
    for (GLsizei i = 0; i < n; ++i) {
        if (framebuffers[i] != 0) {
            MG_State::pGLContext->MarkFramebufferForDeletion(framebuffers[i]);
        }
    }
}

MG_GLAPI void glBindFramebuffer(GLenum target, GLuint framebuffer) {
    if (!IsValidFramebufferTarget(target)) {
        MG_State::pGLContext->RecordError(GL_INVALID_ENUM);
        return;
    }
    if (!MG_State::pGLContext->Framebuffers().IsName(framebuffer)) {
        MG_State::pGLContext->RecordError(GL_INVALID_OPERATION);
        return;
    }
    MG_State::pGLContext->BindFramebuffer(target, framebuffer);
}

MG_GLAPI void glFramebufferTexture2D(GLenum target, GLenum attachment, GLenum textarget, GLuint texture,
                                     GLint level) {
    if (!IsValidFramebufferTarget(target) || textarget != GL_TEXTURE_2D) {
        MG_State::pGLContext->RecordError(GL_INVALID_ENUM);
        return;
    }
    const bool isColor = attachment >= GL_COLOR_ATTACHMENT0 &&
                         attachment < GL_COLOR_ATTACHMENT0 + MG_State::kMaxDrawBuffers;
    if (!isColor && attachment != GL_DEPTH_ATTACHMENT) {
        MG_State::pGLContext->RecordError(GL_INVALID_ENUM);
        return;
    }
    const GLuint bound = target == GL_READ_FRAMEBUFFER ? MG_State::pGLContext->Framebuffers().ReadBinding()
                                                       : MG_State::pGLContext->Framebuffers().DrawBinding();
    if (bound == 0) {
        MG_State::pGLContext->RecordError(GL_INVALID_OPERATION);
        return;
    }
    MG_State::pGLContext->SetFramebufferTexture(target, attachment, texture, level);
}

MG_GLAPI GLenum glCheckFramebufferStatus(GLenum target) {
    if (!IsValidFramebufferTarget(target)) {
        MG_State::pGLContext->RecordError(GL_INVALID_ENUM);
        return 0;
    }
    const GLuint bound = target == GL_READ_FRAMEBUFFER ? MG_State::pGLContext->Framebuffers().ReadBinding()
                                                       : MG_State::pGLContext->Framebuffers().DrawBinding();
    const MG_State::FramebufferObject* fbo = MG_State::pGLContext->Framebuffers().Find(bound);
    if (fbo == nullptr) {
        return GL_FRAMEBUFFER_INCOMPLETE_ATTACHMENT;
    }
    if (bound != 0 && !MG_State::HasAnyAttachment(*fbo)) {
        return GL_FRAMEBUFFER_INCOMPLETE_ATTACHMENT;
    }
    return GL_FRAMEBUFFER_COMPLETE;
}

MG_GLAPI void glReadPixels(GLint x, GLint y, GLsizei width, GLsizei height, GLenum format, GLenum type,
                           void* pixels) {
    if (width < 0 || height < 0) {
        MG_State::pGLContext->RecordError(GL_INVALID_VALUE);
        return;
    }
    if (format != GL_RGBA && format != GL_RGB) {
        MG_State::pGLContext->RecordError(GL_INVALID_ENUM);
        return;
    }
    const MG_Pipe::PixelStoreDesc& pack = MG_State::pGLContext->PixelPack();
    const Uint64 rowPixels = pack.RowLength > 0 ? static_cast<Uint64>(pack.RowLength) : static_cast<Uint64>(width);
    const Uint64 alignment = static_cast<Uint64>(pack.Alignment);
    const Uint64 rowBytes = (rowPixels * BytesPerPixel(format, type) + alignment - 1) / alignment * alignment;
    const Uint64 bytes = rowBytes * static_cast<Uint64>(height);
    MGP_FILL(ReadPixels);
    gBackendFunctionsTable.GL.ReadPixels(x, y, width, height, pixels, bytes);
    MG_State::pGLContext->NotifyReadbackComplete(bytes);
}
