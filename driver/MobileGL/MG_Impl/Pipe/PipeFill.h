// MobileGL driver fixture - MG_Impl/Pipe/PipeFill.h
// MGP_FILL(Verb): publish the frontend state a verb needs into
// MG_Pipe::gPipeInputs before the entry point reaches the backend.
//   pull build: copy every section the verb's class reads (FillPoints.def);
//   push build: copy only the sections whose dirty bits moved (Tracker.h).
#pragma once

#include "MG_Pipe/PipeInputs.h"

namespace MG_Impl::Pipe {

// Draw parameters of the verb about to be filled.
void StageDraw(const MG_Pipe::DrawParams& params);

void Fill(MG_Pipe::Verb verb);

// Teardown: the ERROR summary of divergences a non-fatal verify run survived.
void ReportVerifySummary();

// Forget everything published; the next fill of each section is a full copy.
void ResetFill();

} // namespace MG_Impl::Pipe

#define MGP_FILL(verb) ::MG_Impl::Pipe::Fill(::MG_Pipe::Verb::verb)
