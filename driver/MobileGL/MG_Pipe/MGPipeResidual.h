// MobileGL driver fixture - MG_Pipe/MGPipeResidual.h
// The residual value block (P2 brief, D9): what the push path still carries by
// value once RenderState retired to the CSO, Pack to set_pixel_pack_state and
// the patch quintet to set_patch_state. A compiler checks the size; the layout
// gate (mgctl.toml [layout], G10) checks what it cannot: every member below has
// its offsetof assertion, and MGL_RESIDUAL_BLOCK_SIZE only ever goes down.
#pragma once

#include <cstddef>

#include "MG_Util/Types.h"

// Ratchet: 1248 before P2 (RenderState 1168 + Pack 28 + patch quintet 52), 8
// since. Lower it when a member retires; never raise it (the layout gate fails
// above its max and above its value at the base ref).
#define MGL_RESIDUAL_BLOCK_SIZE 8

namespace MG_Pipe {

// The capability set, redundant on purpose: the working render state answers
// every bit too, and a bit the two disagree about is the tripwire.
struct ResidualValueBlock {
    Uint64 CapabilityBits = 0;
};

static_assert(sizeof(ResidualValueBlock) == MGL_RESIDUAL_BLOCK_SIZE,
              "a member was added or retired without moving MGL_RESIDUAL_BLOCK_SIZE");
static_assert(offsetof(ResidualValueBlock, CapabilityBits) == 0, "CapabilityBits");

} // namespace MG_Pipe
