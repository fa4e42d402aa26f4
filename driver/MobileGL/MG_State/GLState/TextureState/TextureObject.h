// MobileGL driver fixture - MG_State/GLState/TextureState/TextureObject.h
// A texture object as the frontend tracks it: its storage description and its
// sampler parameters. Texel data never lives here; uploads go straight to the
// backend (the upload entry points are immediate publish points).
#pragma once

#include "MG_Pipe/MGPipeValueTypes.h"

namespace MG_State {

constexpr Uint32 kMaxTextureLevels = 14;

struct TextureLevel {
    Uint32 Width = 0;
    Uint32 Height = 0;
    Uint64 UploadCount = 0;
};

struct TextureObject {
    GLuint Name = 0;
    GLenum Target = 0;
    GLenum Format = GL_RGBA8;
    bool Allocated = false;
    bool PendingDeletion = false;
    Uint32 LevelCount = 0;
    TextureLevel Levels[kMaxTextureLevels];
    MG_Pipe::SamplerDesc Params;
};

// What a framebuffer attachment points at: one level of one texture.
struct TextureLevelRef {
    GLuint Texture = 0;
    GLint Level = 0;
};

inline Uint64 LevelBytes(const TextureLevel& level, GLenum format) {
    const Uint64 texel = (format == GL_RGB) ? 3u : 4u;
    return static_cast<Uint64>(level.Width) * level.Height * texel;
}

} // namespace MG_State
