// MobileGL driver fixture - MG_State/GLState/ProgramState/ProgramState.h
// Programs, the current program and the default-uniform-block values.
// m_programGeneration feeds NEW_SHADER's shutter, m_uniformGeneration feeds
// NEW_CONSTANT_BUFFERS'.
#pragma once

#include <unordered_map>

#include "MG_State/GLState/ProgramState/ProgramObject.h"

namespace MG_State {

struct UniformSlot {
    GLint Location = -1;
    Float32 Value[4] = {0.0f, 0.0f, 0.0f, 0.0f};
};

class ProgramState {
public:
    GLuint CreateProgramObject(Uint32 samplerUnitMask);
    bool IsProgram(GLuint name) const { return m_programs.count(name) != 0; }
    void UseProgram(GLuint program);
    void StoreUniform(GLint location, Float32 x, Float32 y, Float32 z, Float32 w);
    void MarkForDeletion(GLuint name);

    GLuint Current() const { return m_current; }
    Uint32 CurrentSamplerMask() const;
    Uint32 UniformCount() const { return m_uniformCount; }
    const UniformSlot& Uniform(Uint32 index) const { return m_uniforms[index]; }
    Uint64 Generation() const { return m_programGeneration; }
    Uint64 UniformGeneration() const { return m_uniformGeneration; }

private:
    ProgramObject* FindProgram(GLuint name);

    std::unordered_map<GLuint, ProgramObject> m_programs;
    GLuint m_current = 0;
    GLuint m_nextName = 1;
    UniformSlot m_uniforms[MG_Pipe::kMaxUniformSlots];
    Uint32 m_uniformCount = 0;
    Uint64 m_programGeneration = 0;
    Uint64 m_uniformGeneration = 0;
};

} // namespace MG_State
