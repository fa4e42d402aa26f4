// MobileGL driver fixture - MG_Backend/DirectGLES/DirectGLES.cpp
#include "MG_Backend/DirectGLES/DirectGLES.h"

#include <cstring>
#include <unordered_map>

#include "MG_Backend/DirectGLES/Managers.h"
#include "MG_Pipe/PipeInputs.h"
#include "MG_Util/Debug/Log.h"
#include "MG_Util/Metrics/PipeStats.h"

namespace DirectGLES {
namespace {

using MG_Backend::CommandOp;
using MG_Util::PipeStats::Gate;

struct BackendTexture {
    GLenum Target = GL_TEXTURE_2D;
    Uint32 Width = 0;
    Uint32 Height = 0;
    GLenum Format = GL_RGBA8;
    Uint64 UploadedBytes = 0;
};

struct BackendBuffer {
    PooledBlock Block;
    GLenum Usage = GL_STATIC_DRAW;
    bool Pooled = false;
};

struct SyncedUnit {
    GLuint Texture = 0;
    MG_Pipe::SamplerDesc Sampler;
};

struct Espryt {
    MG_Backend::CommandRecorder recorder;
    std::unordered_map<GLuint, BackendTexture> textures;
    std::unordered_map<GLuint, BackendBuffer> buffers;
    BufferPool pool;
    StreamRing ring;
    Uint64 frame = 0;
    // gate keys
    Uint64 syncedRenderStateVersion = 0;
    Uint64 syncedTextureKey = 0;
    Uint64 syncedUnitEpoch = 0;
    GLuint syncedProgram = 0;
    Uint64 uniformKeyThisFrame = 0;
    SyncedUnit units[MG_Pipe::kMaxTextureUnits];
#if MOBILEGL_PIPE_PUSH
    // Open-addressed CSO key table; 0 marks an empty slot.
    Uint64 csoKeys[512] = {};
    Uint32 csoCount = 0;
    SyncedUnit emittedSamplers[MG_Pipe::kMaxTextureUnits];
#endif
};

Espryt* g_espryt = nullptr;

constexpr Uint64 kRingCapacity = 4u << 20;
constexpr Uint64 kUploadAlignment = 256;

// ers: re-record the fixed-function state only when its version moved.
void SyncRenderState(const MG_Pipe::PipeInputs& in) {
    if (in.RenderStateVersion == g_espryt->syncedRenderStateVersion) {
        MG_Util::PipeStats::GateHit(Gate::EsprytRenderState);
        return;
    }
    MG_Util::PipeStats::GateMiss(Gate::EsprytRenderState);
    g_espryt->syncedRenderStateVersion = in.RenderStateVersion;
    const Uint64 pipelineKey = MG_Pipe::HashBytes(&in.Pipeline, sizeof in.Pipeline);
    g_espryt->recorder.Record(CommandOp::GlesBindPipelineState, static_cast<Uint32>(pipelineKey),
                              static_cast<Uint32>(pipelineKey >> 32), 0, sizeof in.Pipeline);
    g_espryt->recorder.Record(CommandOp::GlesSetDynamicState, static_cast<Uint32>(in.Dynamic.Viewport.Width),
                              static_cast<Uint32>(in.Dynamic.Viewport.Height), 0, sizeof in.Dynamic);
}

// eub + etl: the unit bindings epoch short-circuits everything; otherwise the
// key of the sampled units decides whether any bind has to be recorded.
void SyncNecessaryTextures(const MG_Pipe::PipeInputs& in) {
    if (in.UnitBindingsEpoch == g_espryt->syncedUnitEpoch && in.Program.Program == g_espryt->syncedProgram) {
        MG_Util::PipeStats::GateHit(Gate::EsprytUnitBindingsEpoch);
        return;
    }
    MG_Util::PipeStats::GateMiss(Gate::EsprytUnitBindingsEpoch);
    g_espryt->syncedUnitEpoch = in.UnitBindingsEpoch;
    g_espryt->syncedProgram = in.Program.Program;

    Uint64 key = 0x9e3779b97f4a7c15ull;
    for (Uint32 unit = 0; unit < MG_Pipe::kMaxTextureUnits; ++unit) {
        key = MG_Pipe::HashBytes(&in.Units[unit].Texture, sizeof in.Units[unit].Texture, key);
        key = MG_Pipe::HashBytes(&in.Units[unit].Sampler, sizeof in.Units[unit].Sampler, key);
    }
    if (key == g_espryt->syncedTextureKey) {
        MG_Util::PipeStats::GateHit(Gate::EsprytTextureSyncList);
        return;
    }
    MG_Util::PipeStats::GateMiss(Gate::EsprytTextureSyncList);
    g_espryt->syncedTextureKey = key;
    for (Uint32 unit = 0; unit < MG_Pipe::kMaxTextureUnits; ++unit) {
        const MG_Pipe::TextureUnitView& view = in.Units[unit];
        SyncedUnit& synced = g_espryt->units[unit];
        if (synced.Texture != view.Texture) {
            synced.Texture = view.Texture;
            g_espryt->recorder.Record(CommandOp::GlesBindTexture, unit, view.Texture, view.Target);
        }
        if (std::memcmp(&synced.Sampler, &view.Sampler, sizeof view.Sampler) != 0) {
            synced.Sampler = view.Sampler;
            g_espryt->recorder.Record(CommandOp::GlesBindSampler, unit, view.Sampler.MinFilter, view.Sampler.MagFilter);
        }
    }
}

// The default uniform block travels at most once per program per frame.
void SyncUniforms(const MG_Pipe::PipeInputs& in) {
    const Uint64 key = (static_cast<Uint64>(in.Program.Program) << 32) ^ g_espryt->frame;
    if (key == g_espryt->uniformKeyThisFrame) {
        return;
    }
    g_espryt->uniformKeyThisFrame = key;
    const Uint64 bytes = static_cast<Uint64>(in.Program.UniformCount) * sizeof(MG_Pipe::UniformValue);
    g_espryt->recorder.Record(CommandOp::GlesUseProgram, in.Program.Program);
    if (bytes != 0) {
        g_espryt->recorder.Record(CommandOp::GlesUploadUniforms, in.Program.Program, in.Program.UniformCount, 0, bytes);
        MG_Util::PipeStats::AddBytes(MG_Util::PipeStats::Bytes::UboGlobal, bytes);
    }
}

#if MOBILEGL_PIPE_PUSH
// Push only: what the dirty mask says moved becomes emissions - a
// render-state CSO (minted once per distinct pipeline, bound when it changes),
// a framebuffer record, sampler views and the sampler states that differ.
void EmitPushedState(const MG_Pipe::PipeInputs& in) {
    if (in.DirtyMask & MG_Pipe::DirtyBits::kPipelineState) {
        const Uint64 key = MG_Pipe::HashBytes(&in.Pipeline, sizeof in.Pipeline) | 1u;
        constexpr Uint32 kSlots = sizeof(g_espryt->csoKeys) / sizeof(g_espryt->csoKeys[0]);
        Uint32 slot = static_cast<Uint32>(key % kSlots);
        while (g_espryt->csoKeys[slot] != 0 && g_espryt->csoKeys[slot] != key) {
            slot = (slot + 1) % kSlots;
        }
        if (g_espryt->csoKeys[slot] == 0 && g_espryt->csoCount + 1 < kSlots) {
            g_espryt->csoKeys[slot] = key;
            ++g_espryt->csoCount;
            MG_Util::PipeStats::OnCsoMint();
            MG_Util::PipeStats::AddCsoBlobBytes(sizeof in.Pipeline);
        }
        MG_Util::PipeStats::OnCsoBind();
    }
    if (in.DirtyMask & MG_Pipe::DirtyBits::kFramebuffer) {
        MG_Util::PipeStats::AddEmission(MG_Util::PipeStats::Emission::Framebuffer);
    }
    if (in.DirtyMask & MG_Pipe::DirtyBits::kSamplerViews) {
        for (Uint32 unit = 0; unit < MG_Pipe::kMaxTextureUnits; ++unit) {
            if (in.Units[unit].Texture != 0) {
                MG_Util::PipeStats::AddEmission(MG_Util::PipeStats::Emission::SamplerView);
            }
        }
    }
    for (Uint32 unit = 0; unit < MG_Pipe::kMaxTextureUnits; ++unit) {
        SyncedUnit& emitted = g_espryt->emittedSamplers[unit];
        if (std::memcmp(&emitted.Sampler, &in.Units[unit].Sampler, sizeof emitted.Sampler) != 0) {
            emitted.Sampler = in.Units[unit].Sampler;
            MG_Util::PipeStats::AddEmission(MG_Util::PipeStats::Emission::SamplerState);
        }
    }
}
#endif

void PrepareForDraw(const MG_Pipe::PipeInputs& in) {
    MG_Util::PipeStats::AddDraws(1);
#if MOBILEGL_PIPE_PUSH
    EmitPushedState(in);
#endif
    SyncRenderState(in);
    SyncNecessaryTextures(in);
    SyncUniforms(in);
    g_espryt->recorder.Record(CommandOp::GlesBindVertexLayout, in.Layout.ElementBuffer);
    if (in.DrawFramebuffer.Name != 0) {
        g_espryt->recorder.Record(CommandOp::GlesBindFramebuffer, in.DrawFramebuffer.Name);
    }
}

void DrawArrays(GLenum mode, GLint first, GLsizei count) {
    const MG_Pipe::PipeInputs& in = MG_Pipe::gPipeInputs;
    PrepareForDraw(in);
    g_espryt->recorder.Record(CommandOp::GlesDraw, mode, static_cast<Uint32>(first), static_cast<Uint32>(count));
    MG_Util::PipeStats::SampleDrawCommandBytes(sizeof(MG_Backend::Command));
}

void DrawElements(GLenum mode, GLsizei count, GLenum type, Uint64 offset) {
    const MG_Pipe::PipeInputs& in = MG_Pipe::gPipeInputs;
    PrepareForDraw(in);
    g_espryt->recorder.Record(CommandOp::GlesDrawIndexed, mode, static_cast<Uint32>(count), type, offset);
    MG_Util::PipeStats::SampleDrawCommandBytes(sizeof(MG_Backend::Command));
}

void Clear(GLbitfield mask) {
    const MG_Pipe::PipeInputs& in = MG_Pipe::gPipeInputs;
#if MOBILEGL_PIPE_PUSH
    if (in.DirtyMask & MG_Pipe::DirtyBits::kFramebuffer) {
        MG_Util::PipeStats::AddEmission(MG_Util::PipeStats::Emission::Framebuffer);
    }
#endif
    g_espryt->recorder.Record(CommandOp::GlesClear, mask, in.DrawFramebuffer.Name);
}

void ReadPixels(GLint x, GLint y, GLsizei width, GLsizei height, void* out, Uint64 bytes) {
    g_espryt->recorder.Record(CommandOp::GlesReadPixels, static_cast<Uint32>(x), static_cast<Uint32>(y),
                              static_cast<Uint32>(width) * static_cast<Uint32>(height), bytes);
    // No GPU: a readback returns the clear color of the read framebuffer.
    const MG_Pipe::Color4& clear = MG_Pipe::gPipeInputs.Dynamic.ClearColor;
    const unsigned char rgba[4] = {static_cast<unsigned char>(clear.R * 255.0f),
                                   static_cast<unsigned char>(clear.G * 255.0f),
                                   static_cast<unsigned char>(clear.B * 255.0f),
                                   static_cast<unsigned char>(clear.A * 255.0f)};
    auto* bytesOut = static_cast<unsigned char*>(out);
    for (Uint64 i = 0; bytesOut != nullptr && i < bytes; ++i) {
        bytesOut[i] = rgba[i % 4];
    }
}

void CreateTextureStorage(GLuint texture, GLenum target, GLsizei width, GLsizei height, GLenum format) {
    BackendTexture& tex = g_espryt->textures[texture];
    tex.Target = target;
    tex.Width = static_cast<Uint32>(width);
    tex.Height = static_cast<Uint32>(height);
    tex.Format = format;
}

void UploadTexture(GLuint texture, GLint level, MG_Pipe::Rect region, const void* texels, Uint64 bytes) {
    BackendTexture& tex = g_espryt->textures[texture];
    const bool wholeLevel = region.X == 0 && region.Y == 0 && static_cast<Uint32>(region.Width) == tex.Width &&
                            static_cast<Uint32>(region.Height) == tex.Height;
    // Whole-level uploads go as one box; a partial update is split into row
    // bands of at most 64 rows so no single staging copy stalls the ring.
    const Uint32 jobs = wholeLevel ? 1u : static_cast<Uint32>((region.Height + 63) / 64);
    if (texels != nullptr && RingAvailable(g_espryt->ring, bytes, kUploadAlignment)) {
        RingAllocate(g_espryt->ring, bytes, kUploadAlignment);
    }
    tex.UploadedBytes += bytes;
    g_espryt->recorder.Record(CommandOp::GlesTexUpload, texture, static_cast<Uint32>(level), jobs, bytes);
    MG_Util::PipeStats::AddBytes(MG_Util::PipeStats::Bytes::Texture, bytes);
    MG_Util::PipeStats::AddTexUpload(wholeLevel, jobs);
#if MOBILEGL_PIPE_PUSH
    MG_Util::PipeStats::AddEmission(MG_Util::PipeStats::Emission::ClientTexUpload);
#endif
}

void DestroyTexture(GLuint texture) {
    g_espryt->textures.erase(texture);
    g_espryt->recorder.Record(CommandOp::GlesDelete, texture, GL_TEXTURE_2D);
}

void CreateBufferStorage(GLuint buffer, Uint64 size, GLenum usage) {
    BackendBuffer& backing = g_espryt->buffers[buffer];
    if (backing.Pooled) {
        EnrollIntoPool(g_espryt->pool, backing.Block, g_espryt->frame);
    }
    backing.Usage = usage;
    backing.Pooled = IsPoolable(size, usage);
    if (backing.Pooled) {
        backing.Block = AcquireFromPool(g_espryt->pool, size);
    } else {
        backing.Block = PooledBlock{0, size, 0};
    }
#if MOBILEGL_PIPE_PUSH
    MG_Util::PipeStats::OnMapPersistentAttempt();
#endif
}

void UploadBuffer(GLuint buffer, Uint64 offset, const void* data, Uint64 size) {
    if (data == nullptr || size == 0) {
        return;
    }
    if (RingAvailable(g_espryt->ring, size, kUploadAlignment)) {
        RingAllocate(g_espryt->ring, size, kUploadAlignment);
    } else {
        // Too large to stream: a direct upload that bypasses the ring.
        g_espryt->recorder.Record(CommandOp::GlesBufferUpload, buffer, static_cast<Uint32>(offset), 1, size);
    }
    MG_Util::PipeStats::AddBytes(MG_Util::PipeStats::Bytes::Buffer, size);
}

void DestroyBuffer(GLuint buffer) {
    const auto found = g_espryt->buffers.find(buffer);
    if (found == g_espryt->buffers.end()) {
        return;
    }
    if (found->second.Pooled) {
        EnrollIntoPool(g_espryt->pool, found->second.Block, g_espryt->frame);
    }
    g_espryt->buffers.erase(found);
    g_espryt->recorder.Record(CommandOp::GlesDelete, buffer, GL_ARRAY_BUFFER);
}

void DestroyProgram(GLuint program) {
    g_espryt->recorder.Record(CommandOp::GlesDelete, program, 0);
}

void Flush() {
    FlushPendingRangesNow(g_espryt->ring, g_espryt->recorder);
    g_espryt->recorder.Record(CommandOp::Flush);
}

void Finish() {
    Flush();
}

void Present() {
    FlushPendingRangesNow(g_espryt->ring, g_espryt->recorder);
    g_espryt->recorder.Record(CommandOp::Present);
    g_espryt->recorder.Submit();
    ++g_espryt->frame;
    ProcessDeferredBufferReleases(g_espryt->pool, g_espryt->frame);
    TrimBufferPool(g_espryt->pool, kPoolRetainBytes);
    MG_Util::PipeStats::OnPresent();
}

} // namespace

void Install(MG_Pipe::BackendFunctionsTable& table) {
    delete g_espryt;
    g_espryt = new Espryt();
    g_espryt->ring = CreateRingStorage(kRingCapacity);
    table.Name = "DirectGLES";
    table.GL.DrawArrays = DrawArrays;
    table.GL.DrawElements = DrawElements;
    table.GL.Clear = Clear;
    table.GL.ReadPixels = ReadPixels;
    table.GL.CreateTextureStorage = CreateTextureStorage;
    table.GL.UploadTexture = UploadTexture;
    table.GL.DestroyTexture = DestroyTexture;
    table.GL.CreateBufferStorage = CreateBufferStorage;
    table.GL.UploadBuffer = UploadBuffer;
    table.GL.DestroyBuffer = DestroyBuffer;
    table.GL.DestroyProgram = DestroyProgram;
    table.GL.Flush = Flush;
    table.GL.Finish = Finish;
    table.GL.Present = Present;
}

void Uninstall(MG_Pipe::BackendFunctionsTable& table) {
    if (g_espryt != nullptr) {
        ClearBufferPool(g_espryt->pool);
        MGLOG_I("DirectGLES: %llu commands recorded over %llu frames, %llu payload bytes",
                static_cast<unsigned long long>(g_espryt->recorder.TotalCommands()),
                static_cast<unsigned long long>(g_espryt->recorder.Frames()),
                static_cast<unsigned long long>(g_espryt->recorder.PayloadBytes()));
    }
    table = MG_Pipe::BackendFunctionsTable{};
}

const MG_Backend::CommandRecorder& Recorder() {
    return g_espryt->recorder;
}

} // namespace DirectGLES
