// MobileGL driver fixture - MG_State/GLState/VertexArrayState/VertexArrayState.h
// Vertex array objects and the current one. m_layoutGeneration is what
// NEW_VERTEX_ELEMENTS' shutter reads.
#pragma once

#include <unordered_map>

#include "MG_State/GLState/VertexArrayState/VertexArrayObject.h"

namespace MG_State {

class VertexArrayState {
public:
    VertexArrayState();

    void CreateNames(GLsizei count, GLuint* out);
    bool IsName(GLuint name) const { return m_vaos.count(name) != 0; }
    void BindVertexArrayObject(GLuint name);
    void DefineAttrib(GLuint index, GLint size, GLenum type, bool normalized, GLsizei stride, Uint64 offset,
                      GLuint buffer);
    void EnableAttrib(GLuint index, bool enabled);
    void CaptureElementBuffer(GLuint buffer);

    GLuint Bound() const { return m_boundVao; }
    const VertexArrayObject& Current() const;
    Uint64 LayoutGeneration() const { return m_layoutGeneration; }

private:
    std::unordered_map<GLuint, VertexArrayObject> m_vaos;
    GLuint m_boundVao = 0;
    GLuint m_nextName = 1;
    Uint64 m_layoutGeneration = 0;
};

} // namespace MG_State
