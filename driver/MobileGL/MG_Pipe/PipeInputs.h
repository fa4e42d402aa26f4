// MobileGL driver fixture - MG_Pipe/PipeInputs.h
// The frontend's published view of GL state. MG_Impl/Pipe/PipeFill.cpp writes it
// at every verb (pull) or the dirty sections of it (push); backends read only
// this, never MG_State/GLState. That is the seam the include gate guards.
#pragma once

#include "MG_Pipe/MGPipeValueTypes.h"
#include "MG_Pipe/PipeVerbs.h"

namespace MG_Pipe {

// Bit values of PipeInputs::DirtyMask. They mirror MG_Impl/Pipe/Tracker.h's
// MGPipeDirty positions (static_asserts there keep the two in step) so that a
// backend can read the mask without seeing the tracker.
namespace DirtyBits {
constexpr Uint32 kRenderState = 1u << 0;
constexpr Uint32 kPipelineState = 1u << 1;
constexpr Uint32 kPixelPack = 1u << 2;
constexpr Uint32 kVertexBuffers = 1u << 3;
constexpr Uint32 kVertexElements = 1u << 4;
constexpr Uint32 kShader = 1u << 5;
constexpr Uint32 kSamplerViews = 1u << 6;
constexpr Uint32 kFramebuffer = 1u << 7;
constexpr Uint32 kVertexAttribDefaults = 1u << 8;
constexpr Uint32 kConstantBuffers = 1u << 9;
} // namespace DirtyBits

struct PipeInputs {
    PipelineDesc Pipeline;
    DynamicDesc Dynamic;
    TextureUnitView Units[kMaxTextureUnits];
    VertexLayoutDesc Layout;
    ProgramDesc Program;
    FramebufferDesc DrawFramebuffer;
    FramebufferDesc ReadFramebuffer;
    PixelStoreDesc Pack;
    PixelStoreDesc Unpack;
    DrawParams Draw;
    Verb CurrentVerb = Verb::Present;
    Uint64 VerbSerial = 0;
    // Versions the backends use as early-out keys (the "gates" of PipeStats).
    Uint64 RenderStateVersion = 0;
    Uint64 PipelineStateVersion = 0;
    Uint64 UnitBindingsEpoch = 0;
    // Push builds set the dirty mask of this fill; pull builds leave it all-ones.
    Uint32 DirtyMask = 0xFFFFFFFFu;
};

extern PipeInputs gPipeInputs;

// Number of scalar fields a verify run compares; printed on the verify armed line.
Uint32 CountVerifiedFields();

} // namespace MG_Pipe
