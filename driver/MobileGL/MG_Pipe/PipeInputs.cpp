// MobileGL driver fixture - MG_Pipe/PipeInputs.cpp
#include "MG_Pipe/PipeInputs.h"

namespace MG_Pipe {

PipeInputs gPipeInputs;

Uint32 CountVerifiedFields() {
    // Field groups compared by the verify lane: pipeline (blend 8, depth 5,
    // stencil 1 + 2x7, raster 8), dynamic (4 + 4 + 4 + 4 + 2), one view per unit,
    // the vertex layout, the program, both framebuffers and both pixel stores.
    constexpr Uint32 kPipeline = 8 + 5 + 1 + 2 * 7 + 8;
    constexpr Uint32 kDynamic = 4 + 4 + 4 + 4 + 2;
    constexpr Uint32 kBindings = kMaxTextureUnits + 1 + 1 + 2 + 2;
    return kPipeline + kDynamic + kBindings;
}

} // namespace MG_Pipe
