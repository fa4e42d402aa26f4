// MobileGL driver fixture - MG_State/GLState/FramebufferState/FramebufferState.cpp
#include "MG_State/GLState/FramebufferState/FramebufferState.h"

namespace MG_State {

FramebufferState::FramebufferState() {
    m_framebuffers.emplace(0u, FramebufferObject{});
}

void FramebufferState::CreateNames(GLsizei count, GLuint* out) {
    for (GLsizei i = 0; i < count; ++i) {
        const GLuint name = m_nextName;
        ++m_nextName;
        m_framebuffers.emplace(name, FramebufferObject{});
        out[i] = name;
    }
}

void FramebufferState::BindFramebufferTarget(GLenum target, GLuint name) {
    const bool drawSame = m_drawBinding == name || target == GL_READ_FRAMEBUFFER;
    const bool readSame = m_readBinding == name || target == GL_DRAW_FRAMEBUFFER;
    if (drawSame && readSame) {
        return;
    }
    if (target == GL_FRAMEBUFFER || target == GL_DRAW_FRAMEBUFFER) {
        m_drawBinding = name;
    }
    if (target == GL_FRAMEBUFFER || target == GL_READ_FRAMEBUFFER) {
        m_readBinding = name;
    }
    FramebufferObject& fbo = m_framebuffers[name];
    fbo.Name = name;
    ++m_fboGeneration;
}

void FramebufferState::AttachTextureLevel(GLenum target, GLenum attachment, GLuint texture, GLint level,
                                          Uint32 width, Uint32 height) {
    const GLuint bound = (target == GL_READ_FRAMEBUFFER) ? m_readBinding : m_drawBinding;
    FramebufferObject& fbo = m_framebuffers[bound];
    if (attachment == GL_DEPTH_ATTACHMENT) {
        fbo.Depth.Texture = texture;
        fbo.Depth.Level = level;
    } else {
        const Uint32 slot = attachment - GL_COLOR_ATTACHMENT0;
        fbo.Color[slot].Texture = texture;
        fbo.Color[slot].Level = level;
    }
    fbo.Width = width;
    fbo.Height = height;
    ++m_fboGeneration;
}

void FramebufferState::MarkForDeletion(GLuint name) {
    // Deleting a bound framebuffer reverts that binding to the default one.
    if (m_drawBinding == name) {
        m_drawBinding = 0;
    }
    if (m_readBinding == name) {
        m_readBinding = 0;
    }
    m_framebuffers.erase(name);
}

void FramebufferState::ResizeDefault(Uint32 width, Uint32 height) {
    FramebufferObject& window = m_framebuffers[0];
    window.Width = width;
    window.Height = height;
    ++m_fboGeneration;
}

const FramebufferObject* FramebufferState::Find(GLuint name) const {
    const auto found = m_framebuffers.find(name);
    return found == m_framebuffers.end() ? nullptr : &found->second;
}

} // namespace MG_State
