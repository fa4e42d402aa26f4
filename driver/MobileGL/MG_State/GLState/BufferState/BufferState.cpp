// MobileGL driver fixture - MG_State/GLState/BufferState/BufferState.cpp
#include "MG_State/GLState/BufferState/BufferState.h"

namespace MG_State {

void BufferState::CreateNames(GLsizei count, GLuint* out) {
    for (GLsizei i = 0; i < count; ++i) {
        const GLuint name = m_nextName;
        ++m_nextName;
        m_buffers.emplace(name, BufferObject{});
        out[i] = name;
    }
}

void BufferState::BindBufferTarget(GLenum target, GLuint name) {
    const Uint32 slot = BufferTargetSlot(target);
    if (m_bindings[slot] == name) {
        return;
    }
    m_bindings[slot] = name;
    ++m_bindingGeneration;
}

void BufferState::DefineStorage(GLenum target, Uint64 size, GLenum usage) {
    const GLuint name = m_bindings[BufferTargetSlot(target)];
    BufferObject& buffer = m_buffers[name];
    buffer.Name = name;
    buffer.Size = size;
    buffer.Usage = usage;
    buffer.Allocated = true;
}

void BufferState::NoteWrite(GLenum target, Uint64 offset, Uint64 size) {
    const GLuint name = m_bindings[BufferTargetSlot(target)];
    BufferObject& buffer = m_buffers[name];
    ++buffer.WriteCount;
    buffer.BytesWritten += size;
    if (offset + size > buffer.Size) {
        buffer.Size = offset + size;
    }
}

void BufferState::MarkForDeletion(GLuint name) {
    for (GLuint& binding : m_bindings) {
        if (binding == name) {
            binding = 0;
            ++m_bindingGeneration;
        }
    }
    m_buffers.erase(name);
}

const BufferObject* BufferState::Find(GLuint name) const {
    const auto found = m_buffers.find(name);
    return found == m_buffers.end() ? nullptr : &found->second;
}

} // namespace MG_State
