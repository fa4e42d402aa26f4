// MobileGL driver fixture - MG_Backend/DirectVulkan/PipelineCache.h
// Pipeline objects of the Vulkan-shaped backend ("Magma"), keyed by the bytes
// of the pipeline description plus the program and the vertex layout.
#pragma once

#include <vector>

#include "MG_Pipe/MGPipeValueTypes.h"

namespace DirectVulkan {

struct PipelineKey {
    Uint64 PipelineHash = 0;
    GLuint Program = 0;
    Uint64 LayoutHash = 0;

    bool operator==(const PipelineKey& other) const {
        return PipelineHash == other.PipelineHash && Program == other.Program && LayoutHash == other.LayoutHash;
    }
};

class PipelineCache {
public:
    // Returns the pipeline id for the key, creating it on a miss.
    Uint32 GetOrCreate(const PipelineKey& key, bool& created);
    Uint32 Size() const { return static_cast<Uint32>(m_entries.size()); }
    void Clear() { m_entries.clear(); }

private:
    struct Entry {
        PipelineKey Key;
        Uint32 Id = 0;
    };
    std::vector<Entry> m_entries;
};

// Hash of the vertex FORMAT only (enabled, size, type, stride per attribute):
// what a Vulkan pipeline bakes in. Buffer names and offsets are bound
// dynamically and do not take part.
Uint64 LayoutFormatHash(const MG_Pipe::VertexLayoutDesc& layout);

PipelineKey MakePipelineKey(const MG_Pipe::PipelineDesc& pipeline, GLuint program,
                            const MG_Pipe::VertexLayoutDesc& layout);

} // namespace DirectVulkan
