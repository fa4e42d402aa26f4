// MobileGL driver fixture - MG_State/GLState/FramebufferState/FramebufferObject.h
// A framebuffer object: which texture levels its attachments point at.
// Name 0 is the window-system framebuffer whose size the context sets.
#pragma once

#include "MG_State/GLState/TextureState/TextureObject.h"

namespace MG_State {

constexpr Uint32 kMaxDrawBuffers = MG_Pipe::kMaxColorAttachments;

struct FramebufferObject {
    GLuint Name = 0;
    TextureLevelRef Color[kMaxDrawBuffers];
    TextureLevelRef Depth;
    Uint32 Width = 0;
    Uint32 Height = 0;
    bool PendingDeletion = false;
};

inline bool HasAnyAttachment(const FramebufferObject& fbo) {
    for (const TextureLevelRef& ref : fbo.Color) {
        if (ref.Texture != 0) {
            return true;
        }
    }
    return fbo.Depth.Texture != 0;
}

} // namespace MG_State
