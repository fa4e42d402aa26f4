// MobileGL driver fixture - MG_Backend/Common/CommandRecorder.h
// What a backend would submit, recorded instead of submitted: the fixture has
// no GPU. Each backend appends one Command per driver call it would make; the
// recorder keeps the current frame's stream and running totals, so tests and
// the demo can check what actually reached "the driver".
#pragma once

#include <vector>

#include "MG_Pipe/MGPipeValueTypes.h"

namespace MG_Backend {

enum class CommandOp : Uint16 {
    // GLES-shaped (DirectGLES)
    GlesBindPipelineState,
    GlesSetDynamicState,
    GlesBindTexture,
    GlesBindSampler,
    GlesBindVertexLayout,
    GlesUseProgram,
    GlesUploadUniforms,
    GlesBindFramebuffer,
    GlesDraw,
    GlesDrawIndexed,
    GlesClear,
    GlesReadPixels,
    GlesTexUpload,
    GlesBufferUpload,
    GlesDelete,
    // Vulkan-shaped (DirectVulkan)
    VkBindPipeline,
    VkSetViewportScissor,
    VkSetBlendConstants,
    VkBindDescriptorSet,
    VkBindVertexBuffers,
    VkPushConstants,
    VkBeginRenderPass,
    VkDraw,
    VkDrawIndexed,
    VkClearAttachments,
    VkCopyImageToBuffer,
    VkCopyBufferToImage,
    VkCopyBuffer,
    VkDestroy,
    // both
    Flush,
    Present,
};

struct Command {
    CommandOp Op = CommandOp::Flush;
    Uint32 A = 0;
    Uint32 B = 0;
    Uint32 C = 0;
    Uint64 Payload = 0; // bytes that would travel with the command
};

class CommandRecorder {
public:
    void Record(CommandOp op, Uint32 a = 0, Uint32 b = 0, Uint32 c = 0, Uint64 payload = 0) {
        m_frame.push_back(Command{op, a, b, c, payload});
        m_payloadBytes += payload;
        ++m_totalCommands;
    }

    // Ends a frame: the stream is "submitted" (dropped) and counted.
    Uint64 Submit() {
        const Uint64 count = m_frame.size();
        m_frame.clear();
        ++m_frames;
        return count;
    }

    const std::vector<Command>& Frame() const { return m_frame; }
    Uint64 TotalCommands() const { return m_totalCommands; }
    Uint64 PayloadBytes() const { return m_payloadBytes; }
    Uint64 Frames() const { return m_frames; }

private:
    std::vector<Command> m_frame;
    Uint64 m_totalCommands = 0;
    Uint64 m_payloadBytes = 0;
    Uint64 m_frames = 0;
};

} // namespace MG_Backend
