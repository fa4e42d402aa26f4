// MobileGL driver fixture - MG_State/GLState/BufferState/BufferState.h
// Buffer names, objects and the non-VAO bindings. m_bindingGeneration is what
// NEW_VERTEX_BUFFERS' shutter reads.
#pragma once

#include <unordered_map>

#include "MG_State/GLState/BufferState/BufferObject.h"

namespace MG_State {

class BufferState {
public:
    BufferState() = default;

    void CreateNames(GLsizei count, GLuint* out);
    bool IsName(GLuint name) const { return name == 0 || m_buffers.count(name) != 0; }
    void BindBufferTarget(GLenum target, GLuint name);
    void DefineStorage(GLenum target, Uint64 size, GLenum usage);
    void NoteWrite(GLenum target, Uint64 offset, Uint64 size);
    void MarkForDeletion(GLuint name);

    GLuint Bound(GLenum target) const { return m_bindings[BufferTargetSlot(target)]; }
    const BufferObject* Find(GLuint name) const;
    Uint64 BindingGeneration() const { return m_bindingGeneration; }

private:
    std::unordered_map<GLuint, BufferObject> m_buffers;
    GLuint m_bindings[kBufferTargetSlots] = {0, 0, 0, 0};
    GLuint m_nextName = 1;
    Uint64 m_bindingGeneration = 0;
};

} // namespace MG_State
