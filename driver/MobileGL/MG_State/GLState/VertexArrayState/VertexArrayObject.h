// MobileGL driver fixture - MG_State/GLState/VertexArrayState/VertexArrayObject.h
#pragma once

#include "MG_Pipe/MGPipeValueTypes.h"

namespace MG_State {

struct VertexArrayObject {
    GLuint Name = 0;
    MG_Pipe::VertexAttribDesc Attribs[MG_Pipe::kMaxVertexAttribs];
    GLuint ElementBuffer = 0;
};

inline Uint32 EnabledAttribCount(const VertexArrayObject& vao) {
    Uint32 count = 0;
    for (const MG_Pipe::VertexAttribDesc& attrib : vao.Attribs) {
        count += attrib.Enabled ? 1u : 0u;
    }
    return count;
}

} // namespace MG_State
