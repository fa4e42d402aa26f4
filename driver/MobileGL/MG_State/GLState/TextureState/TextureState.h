// MobileGL driver fixture - MG_State/GLState/TextureState/TextureState.h
// Texture names, objects and the per-unit bindings. m_bindGeneration is the
// field NEW_SAMPLER_VIEWS' shutter reads (MG_Impl/Pipe/Tracker.h).
#pragma once

#include <unordered_map>
#include <vector>

#include "MG_State/GLState/TextureState/TextureObject.h"

namespace MG_State {

// Index of a texture target inside one unit's binding table.
inline Uint32 TextureTargetSlot(GLenum target) {
    if (target == GL_TEXTURE_2D) {
        return 0;
    }
    if (target == GL_TEXTURE_CUBE_MAP) {
        return 1;
    }
    if (target == GL_TEXTURE_2D_ARRAY) {
        return 2;
    }
    return 3;
}

constexpr Uint32 kTextureTargetSlots = 4;

struct TextureUnit {
    GLuint Bound[kTextureTargetSlots] = {0, 0, 0, 0};
    bool Sampled = false;
};

class TextureState {
public:
    TextureState();

    void CreateNames(GLsizei count, GLuint* out);
    bool IsName(GLuint name) const { return m_textures.count(name) != 0; }
    const TextureObject* Find(GLuint name) const;

    void BindTextureToUnit(Uint32 unit, GLenum target, GLuint name);
    void SetParameter(GLuint name, GLenum pname, GLint value);
    void AllocateLevel(GLuint name, GLenum target, GLint level, GLsizei width, GLsizei height, GLenum format);
    void NoteLevelUpload(GLuint name, GLint level);
    void MarkForDeletion(GLuint name);
    void MarkUnitSampled(Uint32 unit);

    GLuint BoundName(Uint32 unit, GLenum target) const;
    Uint64 BindGeneration() const { return m_bindGeneration; }
    Uint32 LiveCount() const { return static_cast<Uint32>(m_textures.size()); }

private:
    std::unordered_map<GLuint, TextureObject> m_textures;
    TextureUnit m_units[MG_Pipe::kMaxTextureUnits];
    GLuint m_nextName = 1;
    Uint64 m_bindGeneration = 0;
    std::vector<GLuint> m_deleted;
};

} // namespace MG_State
