// MobileGL driver fixture - MG_Impl/Pipe/Tracker.h
// The push path's dirty bits and their shutters (built with MOBILEGL_PIPE_PUSH=1).
//
// A shutter is the one counter (or byte image) of GLContext that a dirty bit
// watches: MGPipeTracker::Update reads every shutter at a verb and sets the bit
// of each one that moved since the previous verb. A mutator "publishes" bit B
// exactly when it moves B's shutter - which is what MG_Pipe/DirtySurface.def
// claims row by row and what the dirty-surface gate checks against this file.
//
// The enumerators of MGPipeDirty and the names of kMGPipeDirtyNames pair by
// position; keep them in the same order.
#pragma once

#include "MG_Pipe/PipeInputs.h"
#include "MG_State/GLState/Core.h"

namespace MG_Impl::Pipe {

enum class MGPipeDirty : Uint32 {
    RenderState,
    PipelineState,
    PixelPack,
    VertexBuffers,
    VertexElements,
    Shader,
    SamplerViews,
    Framebuffer,
    VertexAttribDefaults,
    ConstantBuffers,
    Count
};

inline constexpr const char* kMGPipeDirtyNames[] = {
    "NEW_RENDER_STATE",
    "NEW_PIPELINE_STATE",
    "NEW_PIXEL_PACK",
    "NEW_VERTEX_BUFFERS",
    "NEW_VERTEX_ELEMENTS",
    "NEW_SHADER",
    "NEW_SAMPLER_VIEWS",
    "NEW_FRAMEBUFFER",
    "NEW_VERTEX_ATTRIB_DEFAULTS",
    "NEW_CONSTANT_BUFFERS",
};

constexpr Uint32 kMGPipeDirtyCount = static_cast<Uint32>(MGPipeDirty::Count);
static_assert(sizeof(kMGPipeDirtyNames) / sizeof(kMGPipeDirtyNames[0]) == kMGPipeDirtyCount,
              "MGPipeDirty and kMGPipeDirtyNames drifted apart");

constexpr Uint32 Index(MGPipeDirty bit) {
    return static_cast<Uint32>(bit);
}

constexpr Uint32 MGPipeDirtyBit(MGPipeDirty bit) {
    return 1u << Index(bit);
}

static_assert(MGPipeDirtyBit(MGPipeDirty::PipelineState) == MG_Pipe::DirtyBits::kPipelineState, "bit drift");
static_assert(MGPipeDirtyBit(MGPipeDirty::SamplerViews) == MG_Pipe::DirtyBits::kSamplerViews, "bit drift");
static_assert(MGPipeDirtyBit(MGPipeDirty::Framebuffer) == MG_Pipe::DirtyBits::kFramebuffer, "bit drift");
static_assert(MGPipeDirtyBit(MGPipeDirty::ConstantBuffers) == MG_Pipe::DirtyBits::kConstantBuffers, "bit drift");

class MGPipeTracker {
public:
    // Reads every shutter; returns the bits whose shutter moved since the last call.
    Uint32 Update(const MG_State::GLContext& ctx)
    {
        Uint64 now[kMGPipeDirtyCount] = {};
        Uint32 dirty = 0;
        now[Index(MGPipeDirty::RenderState)] = ctx.RenderStateVersion();
        now[Index(MGPipeDirty::PipelineState)] = ctx.PipelineStateVersion();
        now[Index(MGPipeDirty::PixelPack)] = ctx.PixelPackVersion();
        now[Index(MGPipeDirty::VertexBuffers)] = ctx.BufferBindingGeneration();
        now[Index(MGPipeDirty::VertexElements)] = ctx.VertexLayoutGeneration();
        now[Index(MGPipeDirty::Shader)] = ctx.ProgramGeneration();
        now[Index(MGPipeDirty::SamplerViews)] = ctx.TextureBindGeneration();
        now[Index(MGPipeDirty::Framebuffer)] = ctx.FramebufferGeneration();
        now[Index(MGPipeDirty::ConstantBuffers)] = ctx.ConstantsGeneration();
        for (Uint32 i = 0; i < kMGPipeDirtyCount; ++i) {
            if (now[i] != m_seen[i]) {
                m_seen[i] = now[i];
                dirty |= 1u << i;
            }
        }
        // The current vertex attribute values have no generation of their own in
        // the slot table above; their shutter is the attribute image's version,
        // compared on its own.
        const Uint64 attribDefaults = ctx.CurrentVertexAttribsVersion();
        if (attribDefaults != m_attribDefaultsSeen) {
            m_attribDefaultsSeen = attribDefaults;
            dirty |= MGPipeDirtyBit(MGPipeDirty::VertexAttribDefaults);
        }
        return dirty;
    }

    void Reset() {
        for (Uint64& seen : m_seen) {
            seen = ~Uint64{0};
        }
        m_attribDefaultsSeen = ~Uint64{0};
    }

private:
    Uint64 m_seen[kMGPipeDirtyCount] = {};
    Uint64 m_attribDefaultsSeen = 0;
};

} // namespace MG_Impl::Pipe
