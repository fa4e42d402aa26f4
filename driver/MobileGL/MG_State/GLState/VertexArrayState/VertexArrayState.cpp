// MobileGL driver fixture - MG_State/GLState/VertexArrayState/VertexArrayState.cpp
#include "MG_State/GLState/VertexArrayState/VertexArrayState.h"

namespace MG_State {

VertexArrayState::VertexArrayState() {
    m_vaos.emplace(0u, VertexArrayObject{});
}

void VertexArrayState::CreateNames(GLsizei count, GLuint* out) {
    for (GLsizei i = 0; i < count; ++i) {
        const GLuint name = m_nextName;
        ++m_nextName;
        m_vaos.emplace(name, VertexArrayObject{});
        out[i] = name;
    }
}

void VertexArrayState::BindVertexArrayObject(GLuint name) {
    if (m_boundVao == name) {
        return;
    }
    m_boundVao = name;
    VertexArrayObject& vao = m_vaos[name];
    vao.Name = name;
    ++m_layoutGeneration;
}

void VertexArrayState::DefineAttrib(GLuint index, GLint size, GLenum type, bool normalized, GLsizei stride,
                                    Uint64 offset, GLuint buffer) {
    VertexArrayObject& vao = m_vaos[m_boundVao];
    MG_Pipe::VertexAttribDesc& attrib = vao.Attribs[index];
    attrib.Size = size;
    attrib.Type = type;
    attrib.Normalized = normalized;
    attrib.Stride = stride;
    attrib.Offset = offset;
    attrib.Buffer = buffer;
    ++m_layoutGeneration;
}

void VertexArrayState::EnableAttrib(GLuint index, bool enabled) {
    VertexArrayObject& vao = m_vaos[m_boundVao];
    if (vao.Attribs[index].Enabled == enabled) {
        return;
    }
    vao.Attribs[index].Enabled = enabled;
    ++m_layoutGeneration;
}

void VertexArrayState::CaptureElementBuffer(GLuint buffer) {
    // The element binding is vertex-array state in GLES 3: binding an element
    // buffer while a VAO is bound changes that VAO.
    VertexArrayObject& vao = m_vaos[m_boundVao];
    if (vao.ElementBuffer == buffer) {
        return;
    }
    vao.ElementBuffer = buffer;
    ++m_layoutGeneration;
}

const VertexArrayObject& VertexArrayState::Current() const {
    const auto found = m_vaos.find(m_boundVao);
    return found->second;
}

} // namespace MG_State
