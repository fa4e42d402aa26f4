// MobileGL driver fixture - MG_State/GLState/FramebufferState/FramebufferState.h
// Framebuffer names, objects and the draw/read bindings. m_fboGeneration is
// what NEW_FRAMEBUFFER's shutter reads.
#pragma once

#include <unordered_map>

#include "MG_State/GLState/FramebufferState/FramebufferObject.h"

namespace MG_State {

class FramebufferState {
public:
    FramebufferState();

    void CreateNames(GLsizei count, GLuint* out);
    bool IsName(GLuint name) const { return m_framebuffers.count(name) != 0; }
    void BindFramebufferTarget(GLenum target, GLuint name);
    void AttachTextureLevel(GLenum target, GLenum attachment, GLuint texture, GLint level, Uint32 width,
                            Uint32 height);
    void MarkForDeletion(GLuint name);
    void ResizeDefault(Uint32 width, Uint32 height);

    GLuint DrawBinding() const { return m_drawBinding; }
    GLuint ReadBinding() const { return m_readBinding; }
    const FramebufferObject* Find(GLuint name) const;
    Uint64 FboGeneration() const { return m_fboGeneration; }

private:
    std::unordered_map<GLuint, FramebufferObject> m_framebuffers;
    GLuint m_drawBinding = 0;
    GLuint m_readBinding = 0;
    GLuint m_nextName = 1;
    Uint64 m_fboGeneration = 0;
};

} // namespace MG_State
