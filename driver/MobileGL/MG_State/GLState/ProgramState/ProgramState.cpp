// MobileGL driver fixture - MG_State/GLState/ProgramState/ProgramState.cpp
#include "MG_State/GLState/ProgramState/ProgramState.h"

namespace MG_State {

GLuint ProgramState::CreateProgramObject(Uint32 samplerUnitMask) {
    const GLuint name = m_nextName;
    ++m_nextName;
    ProgramObject& program = m_programs[name];
    program.Name = name;
    program.SamplerUnitMask = samplerUnitMask;
    return name;
}

ProgramObject* ProgramState::FindProgram(GLuint name) {
    const auto found = m_programs.find(name);
    return found == m_programs.end() ? nullptr : &found->second;
}

void ProgramState::UseProgram(GLuint program) {
    ProgramObject* object = FindProgram(program);
    if (m_current == program) {
        return;
    }
    m_current = program;
    // Uniform values belong to the program; a switch starts from its defaults.
    m_uniformCount = 0;
    ++m_programGeneration;
    ++m_uniformGeneration;
    if (object != nullptr) {
        object->NoteUse();
    }
}

void ProgramState::StoreUniform(GLint location, Float32 x, Float32 y, Float32 z, Float32 w) {
    Uint32 index = 0;
    while (index < m_uniformCount && m_uniforms[index].Location != location) {
        ++index;
    }
    if (index == MG_Pipe::kMaxUniformSlots) {
        return;
    }
    UniformSlot& slot = m_uniforms[index];
    slot.Location = location;
    slot.Value[0] = x;
    slot.Value[1] = y;
    slot.Value[2] = z;
    slot.Value[3] = w;
    if (index == m_uniformCount) {
        ++m_uniformCount;
    }
    ++m_uniformGeneration;
}

void ProgramState::MarkForDeletion(GLuint name) {
    // A current program is only flagged; it dies when it stops being current.
    if (m_current == name) {
        ProgramObject& program = m_programs[name];
        program.PendingDeletion = true;
        return;
    }
    m_programs.erase(name);
}

Uint32 ProgramState::CurrentSamplerMask() const {
    const auto found = m_programs.find(m_current);
    return found == m_programs.end() ? 0u : found->second.SamplerUnitMask;
}

} // namespace MG_State
