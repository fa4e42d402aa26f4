// MobileGL driver fixture - MG_Backend/DirectGLES/DirectGLES.h
// "Espryt": the GLES-on-GLES backend. It reads MG_Pipe::gPipeInputs at each
// verb and records the GLES calls it would make; three early-out gates skip
// work that did not change (ers, etl, eub in the MGPipe stats line).
#pragma once

#include "MG_Backend/Common/CommandRecorder.h"
#include "MG_Pipe/BackendFunctions.h"

namespace DirectGLES {

void Install(MG_Pipe::BackendFunctionsTable& table);
void Uninstall(MG_Pipe::BackendFunctionsTable& table);

// The recorded stream (for the demo's end-of-run summary and for tests).
const MG_Backend::CommandRecorder& Recorder();

} // namespace DirectGLES
