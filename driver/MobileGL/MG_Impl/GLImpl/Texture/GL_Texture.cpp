// MobileGL driver fixture - MG_Impl/GLImpl/Texture/GL_Texture.cpp
// Texture entry points. Binding and parameters are deferred (NEW_SAMPLER_VIEWS
// moves, or the sampler is pulled at the next draw); storage definition,
// uploads and deletion are immediate publish points: the same body mutates the
// frontend object and hands the backend its part.
#include "MG_Impl/GLImpl/GLEntry.h"
#include "MG_Impl/Pipe/PipeFill.h"
#include "MG_Pipe/BackendFunctions.h"
#include "MG_State/GLState/Core.h"

using namespace MG_Impl::GLImpl;

MG_GLAPI void glGenTextures(GLsizei n, GLuint* textures) {
    if (n < 0) {
        MG_State::pGLContext->RecordError(GL_INVALID_VALUE);
        return;
    }
    MG_State::pGLContext->CreateTextureNames(n, textures);
}

MG_GLAPI void glDeleteTextures(GLsizei n, const GLuint* textures) {
    if (n < 0) {
        MG_State::pGLContext->RecordError(GL_INVALID_VALUE);
        return;
    }
    for (GLsizei i = 0; i < n; ++i) {
        const GLuint name = textures[i];
        if (name == 0 || !MG_State::pGLContext->Textures().IsName(name)) {
            continue; // silently ignored, as GL specifies
        }
        MG_State::pGLContext->MarkTextureForDeletion(name);
        gBackendFunctionsTable.GL.DestroyTexture(name);
    }
}

MG_GLAPI void glActiveTexture(GLenum texture) {
    if (texture < GL_TEXTURE0 || texture >= GL_TEXTURE0 + MG_Pipe::kMaxTextureUnits) {
        MG_State::pGLContext->RecordError(GL_INVALID_ENUM);
        return;
    }
    MG_State::pGLContext->SetActiveTextureUnit(texture - GL_TEXTURE0);
}

MG_GLAPI void glBindTexture(GLenum target, GLuint texture) {
    if (!IsValidTextureTarget(target)) {
        MG_State::pGLContext->RecordError(GL_INVALID_ENUM);
        return;
    }
    const MG_State::TextureObject* object = MG_State::pGLContext->Textures().Find(texture);
    if (object == nullptr) {
        MG_State::pGLContext->RecordError(GL_INVALID_OPERATION);
        return;
    }
    if (object->Target != 0 && object->Target != target) {
        MG_State::pGLContext->RecordError(GL_INVALID_OPERATION);
        return;
    }
    MG_State::pGLContext->BindTexture(target, texture);
}

MG_GLAPI void glTexParameteri(GLenum target, GLenum pname, GLint param) {
    if (!IsValidTextureTarget(target)) {
        MG_State::pGLContext->RecordError(GL_INVALID_ENUM);
        return;
    }
    if ((pname == GL_TEXTURE_BASE_LEVEL || pname == GL_TEXTURE_MAX_LEVEL) && param < 0) {
        MG_State::pGLContext->RecordError(GL_INVALID_VALUE);
        return;
    }
    MG_State::pGLContext->SetTextureParameter(target, pname, param);
}

MG_GLAPI void glTexImage2D(GLenum target, GLint level, GLint internalformat, GLsizei width, GLsizei height,
                           GLint border, GLenum format, GLenum type, const void* pixels) {
    if (!IsValidTextureTarget(target)) {
        MG_State::pGLContext->RecordError(GL_INVALID_ENUM);
        return;
    }
    if (level < 0 || level >= static_cast<GLint>(MG_State::kMaxTextureLevels) || width < 0 || height < 0 ||
        border != 0) {
        MG_State::pGLContext->RecordError(GL_INVALID_VALUE);
        return;
    }
    const GLuint texture = MG_State::pGLContext->Textures().BoundName(MG_State::pGLContext->ActiveTextureUnit(), target);
    const GLenum storage = internalformat == static_cast<GLint>(GL_RGB) ? GL_RGB : GL_RGBA8;
    MG_State::pGLContext->AllocateTextureStorage(target, level, width, height, storage);
    MGP_FILL(TexImage);
    gBackendFunctionsTable.GL.CreateTextureStorage(texture, target, width, height, storage);
    if (pixels != nullptr) {
        const Uint64 bytes = static_cast<Uint64>(width) * static_cast<Uint64>(height) * BytesPerPixel(format, type);
        gBackendFunctionsTable.GL.UploadTexture(texture, level, MG_Pipe::Rect{0, 0, width, height}, pixels, bytes);
    }
}

MG_GLAPI void glTexSubImage2D(GLenum target, GLint level, GLint xoffset, GLint yoffset, GLsizei width,
                              GLsizei height, GLenum format, GLenum type, const void* pixels) {
    if (!IsValidTextureTarget(target)) {
        MG_State::pGLContext->RecordError(GL_INVALID_ENUM);
        return;
    }
    const GLuint texture = MG_State::pGLContext->Textures().BoundName(MG_State::pGLContext->ActiveTextureUnit(), target);
    const MG_State::TextureObject* object = MG_State::pGLContext->Textures().Find(texture);
    if (object == nullptr || level < 0 || static_cast<Uint32>(level) >= object->LevelCount) {
        MG_State::pGLContext->RecordError(GL_INVALID_OPERATION);
        return;
    }
    const MG_State::TextureLevel& image = object->Levels[level];
    if (xoffset < 0 || yoffset < 0 || static_cast<Uint32>(xoffset + width) > image.Width ||
        static_cast<Uint32>(yoffset + height) > image.Height) {
        MG_State::pGLContext->RecordError(GL_INVALID_VALUE);
        return;
    }
    MG_State::pGLContext->TouchTextureLevel(target, level);
    MGP_FILL(TexSubImage);
    const Uint64 bytes = static_cast<Uint64>(width) * static_cast<Uint64>(height) * BytesPerPixel(format, type);
    gBackendFunctionsTable.GL.UploadTexture(texture, level, MG_Pipe::Rect{xoffset, yoffset, width, height}, pixels,
                                            bytes);
}

MG_GLAPI void glPixelStorei(GLenum pname, GLint param) {
    if (pname != GL_PACK_ALIGNMENT && pname != GL_UNPACK_ALIGNMENT && pname != GL_PACK_ROW_LENGTH &&
        pname != GL_UNPACK_ROW_LENGTH) {
        MG_State::pGLContext->RecordError(GL_INVALID_ENUM);
        return;
    }
    const bool isAlignment = pname == GL_PACK_ALIGNMENT || pname == GL_UNPACK_ALIGNMENT;
    if (isAlignment && param != 1 && param != 2 && param != 4 && param != 8) {
        MG_State::pGLContext->RecordError(GL_INVALID_VALUE);
        return;
    }
    MG_State::pGLContext->SetPixelStoreParam(pname, param);
}
