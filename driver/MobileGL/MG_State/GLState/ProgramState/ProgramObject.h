// MobileGL driver fixture - MG_State/GLState/ProgramState/ProgramObject.h
// A linked program as the frontend sees it: its uniform slots and how often
// it was made current. Shader sources are out of scope for this fixture; the
// demo's programs are identified by name and a sampler-unit mask.
#pragma once

#include "MG_Pipe/MGPipeValueTypes.h"

namespace MG_State {

struct ProgramObject {
    GLuint Name = 0;
    Uint32 SamplerUnitMask = 0x1;
    Uint64 UseCount = 0;
    bool PendingDeletion = false;

    void NoteUse() { ++UseCount; }
};

} // namespace MG_State
