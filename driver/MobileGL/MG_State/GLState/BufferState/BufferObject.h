// MobileGL driver fixture - MG_State/GLState/BufferState/BufferObject.h
#pragma once

#include "MG_Pipe/MGPipeValueTypes.h"

namespace MG_State {

struct BufferObject {
    GLuint Name = 0;
    Uint64 Size = 0;
    GLenum Usage = GL_STATIC_DRAW;
    bool Allocated = false;
    Uint64 WriteCount = 0;
    Uint64 BytesWritten = 0;
};

// Index of a buffer target in the context's binding table.
inline Uint32 BufferTargetSlot(GLenum target) {
    if (target == GL_ARRAY_BUFFER) {
        return 0;
    }
    if (target == GL_ELEMENT_ARRAY_BUFFER) {
        return 1;
    }
    if (target == GL_UNIFORM_BUFFER) {
        return 2;
    }
    return 3;
}

constexpr Uint32 kBufferTargetSlots = 4;

} // namespace MG_State
