// MobileGL driver fixture - MG_Backend/DirectVulkan/DirectVulkan.cpp
#include "MG_Backend/DirectVulkan/DirectVulkan.h"

#include <cstring>
#include <unordered_map>

#include "MG_Backend/DirectVulkan/PipelineCache.h"
#include "MG_Pipe/PipeInputs.h"
#include "MG_Util/Debug/Log.h"
#include "MG_Util/Metrics/PipeStats.h"

namespace DirectVulkan {
namespace {

using MG_Backend::CommandOp;
using MG_Util::PipeStats::Gate;

struct VkImage {
    Uint32 Width = 0;
    Uint32 Height = 0;
    GLenum Format = GL_RGBA8;
};

struct Magma {
    MG_Backend::CommandRecorder recorder;
    PipelineCache pipelines;
    std::unordered_map<GLuint, VkImage> images;
    std::unordered_map<GLuint, Uint64> bufferSizes;
    // fast-path key: everything a draw binds, by version
    Uint64 lastPipelineVersion = 0;
    Uint64 lastRenderVersion = 0;
    Uint64 lastUnitEpoch = 0;
    GLuint lastProgram = 0;
    Uint64 lastLayoutHash = 0;
    GLuint memoProgram = 0;
    Uint64 memoFormatHash = 0;
    Uint32 boundPipeline = 0;
    GLuint renderPassFramebuffer = ~0u;
    MG_Pipe::DynamicDesc appliedDynamic;
    Uint64 frame = 0;
};

Magma* g_magma = nullptr;

Uint64 LayoutHash(const MG_Pipe::VertexLayoutDesc& layout) {
    return MG_Pipe::HashBytes(&layout, sizeof layout);
}

// mpm: the pipeline memo is keyed by the pipeline-state version, the program
// and the vertex format; only when one of them moved is the full key hashed and
// looked up in the cache.
void BindPipeline(const MG_Pipe::PipeInputs& in) {
    const Uint64 formatHash = LayoutFormatHash(in.Layout);
    if (in.PipelineStateVersion == g_magma->lastPipelineVersion && in.Program.Program == g_magma->memoProgram &&
        formatHash == g_magma->memoFormatHash) {
        MG_Util::PipeStats::GateHit(Gate::MagmaPipelineMemo);
        return;
    }
    MG_Util::PipeStats::GateMiss(Gate::MagmaPipelineMemo);
    bool created = false;
    const PipelineKey key = MakePipelineKey(in.Pipeline, in.Program.Program, in.Layout);
    const Uint32 pipeline = g_magma->pipelines.GetOrCreate(key, created);
    g_magma->lastPipelineVersion = in.PipelineStateVersion;
    g_magma->memoProgram = in.Program.Program;
    g_magma->memoFormatHash = formatHash;
    if (pipeline != g_magma->boundPipeline) {
        g_magma->boundPipeline = pipeline;
        g_magma->recorder.Record(CommandOp::VkBindPipeline, pipeline, created ? 1u : 0u);
    }
}

// mdt: viewport, scissor and blend constants are dynamic state; re-applied
// only when they differ from what the command buffer already has.
void ApplyDynamicDrawStateTail(const MG_Pipe::PipeInputs& in) {
    if (std::memcmp(&g_magma->appliedDynamic.Viewport, &in.Dynamic.Viewport, sizeof in.Dynamic.Viewport) == 0 &&
        std::memcmp(&g_magma->appliedDynamic.Scissor, &in.Dynamic.Scissor, sizeof in.Dynamic.Scissor) == 0 &&
        std::memcmp(&g_magma->appliedDynamic.BlendColor, &in.Dynamic.BlendColor, sizeof in.Dynamic.BlendColor) == 0) {
        MG_Util::PipeStats::GateHit(Gate::MagmaDynamicTail);
        return;
    }
    MG_Util::PipeStats::GateMiss(Gate::MagmaDynamicTail);
    g_magma->appliedDynamic = in.Dynamic;
    g_magma->recorder.Record(CommandOp::VkSetViewportScissor, static_cast<Uint32>(in.Dynamic.Viewport.Width),
                             static_cast<Uint32>(in.Dynamic.Viewport.Height));
    g_magma->recorder.Record(CommandOp::VkSetBlendConstants);
}

void EnsureRenderPass(const MG_Pipe::PipeInputs& in) {
    if (g_magma->renderPassFramebuffer == in.DrawFramebuffer.Name) {
        return;
    }
    g_magma->renderPassFramebuffer = in.DrawFramebuffer.Name;
    g_magma->recorder.Record(CommandOp::VkBeginRenderPass, in.DrawFramebuffer.Name, in.DrawFramebuffer.Width,
                             in.DrawFramebuffer.Height);
}

// mfp: when nothing a draw binds moved since the previous draw, only the draw
// itself is recorded.
bool TrySetupDrawFastPath(const MG_Pipe::PipeInputs& in, Uint64 layoutHash) {
    const bool same = in.RenderStateVersion == g_magma->lastRenderVersion &&
                      in.UnitBindingsEpoch == g_magma->lastUnitEpoch && in.Program.Program == g_magma->lastProgram &&
                      layoutHash == g_magma->lastLayoutHash &&
                      in.DrawFramebuffer.Name == g_magma->renderPassFramebuffer;
    if (same) {
        MG_Util::PipeStats::GateHit(Gate::MagmaDrawFastPath);
    } else {
        MG_Util::PipeStats::GateMiss(Gate::MagmaDrawFastPath);
    }
    return same;
}

void SetupDraw(const MG_Pipe::PipeInputs& in) {
    MG_Util::PipeStats::AddDraws(1);
    const Uint64 layoutHash = LayoutHash(in.Layout);
    if (TrySetupDrawFastPath(in, layoutHash)) {
        return;
    }
    EnsureRenderPass(in);
    BindPipeline(in);
    ApplyDynamicDrawStateTail(in);
    if (in.UnitBindingsEpoch != g_magma->lastUnitEpoch || in.Program.Program != g_magma->lastProgram) {
        g_magma->recorder.Record(CommandOp::VkBindDescriptorSet, in.Program.Program,
                                 static_cast<Uint32>(in.UnitBindingsEpoch));
    }
    if (layoutHash != g_magma->lastLayoutHash) {
        g_magma->recorder.Record(CommandOp::VkBindVertexBuffers, in.Layout.ElementBuffer);
    }
    const Uint64 constants = static_cast<Uint64>(in.Program.UniformCount) * sizeof(MG_Pipe::UniformValue);
    if (constants != 0) {
        g_magma->recorder.Record(CommandOp::VkPushConstants, in.Program.Program, in.Program.UniformCount, 0, constants);
        MG_Util::PipeStats::AddBytes(MG_Util::PipeStats::Bytes::UboNamed, constants);
    }
    g_magma->lastRenderVersion = in.RenderStateVersion;
    g_magma->lastUnitEpoch = in.UnitBindingsEpoch;
    g_magma->lastProgram = in.Program.Program;
    g_magma->lastLayoutHash = layoutHash;
}

void DrawArrays(GLenum mode, GLint first, GLsizei count) {
    SetupDraw(MG_Pipe::gPipeInputs);
    g_magma->recorder.Record(CommandOp::VkDraw, mode, static_cast<Uint32>(first), static_cast<Uint32>(count));
    MG_Util::PipeStats::SampleDrawCommandBytes(sizeof(MG_Backend::Command));
}

void DrawElements(GLenum mode, GLsizei count, GLenum type, Uint64 offset) {
    SetupDraw(MG_Pipe::gPipeInputs);
    g_magma->recorder.Record(CommandOp::VkDrawIndexed, mode, static_cast<Uint32>(count), type, offset);
    MG_Util::PipeStats::SampleDrawCommandBytes(sizeof(MG_Backend::Command));
}

void Clear(GLbitfield mask) {
    EnsureRenderPass(MG_Pipe::gPipeInputs);
    g_magma->recorder.Record(CommandOp::VkClearAttachments, mask);
}

void ReadPixels(GLint x, GLint y, GLsizei width, GLsizei height, void* out, Uint64 bytes) {
    g_magma->recorder.Record(CommandOp::VkCopyImageToBuffer, static_cast<Uint32>(x), static_cast<Uint32>(y),
                             static_cast<Uint32>(width) * static_cast<Uint32>(height), bytes);
    if (out != nullptr) {
        std::memset(out, 0, bytes);
    }
}

void CreateTextureStorage(GLuint texture, GLenum target, GLsizei width, GLsizei height, GLenum format) {
    static_cast<void>(target);
    VkImage& image = g_magma->images[texture];
    image.Width = static_cast<Uint32>(width);
    image.Height = static_cast<Uint32>(height);
    image.Format = format;
}

void UploadTexture(GLuint texture, GLint level, MG_Pipe::Rect region, const void* texels, Uint64 bytes) {
    static_cast<void>(texels);
    const VkImage& image = g_magma->images[texture];
    const bool wholeLevel = static_cast<Uint32>(region.Width) == image.Width &&
                            static_cast<Uint32>(region.Height) == image.Height;
    g_magma->recorder.Record(CommandOp::VkCopyBufferToImage, texture, static_cast<Uint32>(level), 1, bytes);
    MG_Util::PipeStats::AddBytes(MG_Util::PipeStats::Bytes::Texture, bytes);
    MG_Util::PipeStats::AddTexUpload(wholeLevel, 1);
}

void DestroyTexture(GLuint texture) {
    g_magma->images.erase(texture);
    g_magma->recorder.Record(CommandOp::VkDestroy, texture, 1);
}

void CreateBufferStorage(GLuint buffer, Uint64 size, GLenum usage) {
    static_cast<void>(usage);
    g_magma->bufferSizes[buffer] = size;
}

void UploadBuffer(GLuint buffer, Uint64 offset, const void* data, Uint64 size) {
    if (data == nullptr) {
        return;
    }
    g_magma->recorder.Record(CommandOp::VkCopyBuffer, buffer, static_cast<Uint32>(offset), 0, size);
    MG_Util::PipeStats::AddBytes(MG_Util::PipeStats::Bytes::Buffer, size);
}

void DestroyBuffer(GLuint buffer) {
    g_magma->bufferSizes.erase(buffer);
    g_magma->recorder.Record(CommandOp::VkDestroy, buffer, 2);
}

void DestroyProgram(GLuint program) {
    g_magma->recorder.Record(CommandOp::VkDestroy, program, 3);
}

void Flush() {
    g_magma->recorder.Record(CommandOp::Flush);
}

void Finish() {
    Flush();
}

void Present() {
    g_magma->recorder.Record(CommandOp::Present);
    g_magma->recorder.Submit();
    g_magma->renderPassFramebuffer = ~0u;
    ++g_magma->frame;
    MG_Util::PipeStats::OnPresent();
}

} // namespace

void Install(MG_Pipe::BackendFunctionsTable& table) {
    delete g_magma;
    g_magma = new Magma();
    table.Name = "DirectVulkan";
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
    if (g_magma != nullptr) {
        MGLOG_I("DirectVulkan: %llu commands recorded over %llu frames, %u pipelines",
                static_cast<unsigned long long>(g_magma->recorder.TotalCommands()),
                static_cast<unsigned long long>(g_magma->recorder.Frames()), g_magma->pipelines.Size());
    }
    table = MG_Pipe::BackendFunctionsTable{};
}

const MG_Backend::CommandRecorder& Recorder() {
    return g_magma->recorder;
}

} // namespace DirectVulkan
