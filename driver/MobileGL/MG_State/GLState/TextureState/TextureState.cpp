// MobileGL driver fixture - MG_State/GLState/TextureState/TextureState.cpp
#include "MG_State/GLState/TextureState/TextureState.h"

#include "MG_Pipe/PipeMutation.h"

namespace MG_State {

TextureState::TextureState() {
    // Name 0 is the default texture of every target; it always exists.
    m_textures.emplace(0u, TextureObject{});
}

void TextureState::CreateNames(GLsizei count, GLuint* out) {
    for (GLsizei i = 0; i < count; ++i) {
        const GLuint name = m_nextName;
        ++m_nextName;
        m_textures.emplace(name, TextureObject{});
        out[i] = name;
    }
}

const TextureObject* TextureState::Find(GLuint name) const {
    const auto found = m_textures.find(name);
    return found == m_textures.end() ? nullptr : &found->second;
}

void TextureState::BindTextureToUnit(Uint32 unit, GLenum target, GLuint name) {
    TextureUnit& slot = m_units[unit];
    const Uint32 index = TextureTargetSlot(target);
    if (slot.Bound[index] == name) {
        return;
    }
    slot.Bound[index] = name;
    slot.Sampled = false;
    TextureObject& object = m_textures[name];
    object.Name = name;
    object.Target = target;
    ++m_bindGeneration;
}

void TextureState::SetParameter(GLuint name, GLenum pname, GLint value) {
    TextureObject& object = m_textures[name];
    const GLenum asEnum = static_cast<GLenum>(value);
    if (pname == GL_TEXTURE_MIN_FILTER) {
        object.Params.MinFilter = asEnum;
    } else if (pname == GL_TEXTURE_MAG_FILTER) {
        object.Params.MagFilter = asEnum;
    } else if (pname == GL_TEXTURE_WRAP_S) {
        object.Params.WrapS = asEnum;
    } else if (pname == GL_TEXTURE_WRAP_T) {
        object.Params.WrapT = asEnum;
    } else if (pname == GL_TEXTURE_BASE_LEVEL) {
        // The level range changes which image a view covers: views move.
        object.Params.BaseLevel = value;
        ++m_bindGeneration;
    } else if (pname == GL_TEXTURE_MAX_LEVEL) {
        object.Params.MaxLevel = value;
        ++m_bindGeneration;
    }
}

void TextureState::AllocateLevel(GLuint name, GLenum target, GLint level, GLsizei width, GLsizei height,
                                 GLenum format) {
    TextureObject& object = m_textures[name];
    object.Name = name;
    object.Target = target;
    object.Format = format;
    object.Allocated = true;
    TextureLevel& image = object.Levels[level];
    image.Width = static_cast<Uint32>(width);
    image.Height = static_cast<Uint32>(height);
    if (static_cast<Uint32>(level) + 1 > object.LevelCount) {
        object.LevelCount = static_cast<Uint32>(level) + 1;
    }
}

void TextureState::NoteLevelUpload(GLuint name, GLint level) {
    TextureObject& object = m_textures[name];
    TextureLevel& image = object.Levels[level];
    ++image.UploadCount;
}

void TextureState::MarkForDeletion(GLuint name) {
    // Unbind from every unit first, as GL requires, then drop the object.
    for (Uint32 unit = 0; unit < MG_Pipe::kMaxTextureUnits; ++unit) {
        for (Uint32 slot = 0; slot < kTextureTargetSlots; ++slot) {
            if (m_units[unit].Bound[slot] == name) {
                m_units[unit].Bound[slot] = 0;
                ++m_bindGeneration;
            }
        }
    }
    m_textures.erase(name);
    m_deleted.push_back(name);
}

void TextureState::MarkUnitSampled(Uint32 unit) {
    // Called by the fill for every unit a draw samples. The first sample after
    // a bind re-publishes the unit's view with its sampler; later ones do not.
    MGP_NOTE_MUTATION(m_units);
    if (m_units[unit].Sampled) {
        return;
    }
    m_units[unit].Sampled = true;
    ++m_bindGeneration;
}

GLuint TextureState::BoundName(Uint32 unit, GLenum target) const {
    if (unit >= MG_Pipe::kMaxTextureUnits) {
        return 0;
    }
    return m_units[unit].Bound[TextureTargetSlot(target)];
}

} // namespace MG_State
