// MobileGL driver fixture - MG_Impl/Init.h
#pragma once

#include "MG_Util/Types.h"

namespace MobileGL {

// Creates the context, installs the named backend ("DirectGLES" or
// "DirectVulkan") into gBackendFunctionsTable and starts the pipe counters.
bool Initialize(const char* backendName, Uint32 width, Uint32 height);

// Teardown: the last stats window and dump, the backend, the context. Idempotent.
void Shutdown();

} // namespace MobileGL
