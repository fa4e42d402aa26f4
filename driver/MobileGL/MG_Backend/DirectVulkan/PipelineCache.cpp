// MobileGL driver fixture - MG_Backend/DirectVulkan/PipelineCache.cpp
#include "MG_Backend/DirectVulkan/PipelineCache.h"

namespace DirectVulkan {

Uint32 PipelineCache::GetOrCreate(const PipelineKey& key, bool& created) {
    for (const Entry& entry : m_entries) {
        if (entry.Key == key) {
            created = false;
            return entry.Id;
        }
    }
    created = true;
    const Uint32 id = static_cast<Uint32>(m_entries.size()) + 1;
    m_entries.push_back(Entry{key, id});
    return id;
}

Uint64 LayoutFormatHash(const MG_Pipe::VertexLayoutDesc& layout) {
    Uint64 hash = 0xcbf29ce484222325ull;
    for (const MG_Pipe::VertexAttribDesc& attrib : layout.Attribs) {
        const Uint32 format[4] = {attrib.Enabled ? 1u : 0u, static_cast<Uint32>(attrib.Size), attrib.Type,
                                  static_cast<Uint32>(attrib.Stride)};
        hash = MG_Pipe::HashBytes(format, sizeof format, hash);
    }
    return hash;
}

PipelineKey MakePipelineKey(const MG_Pipe::PipelineDesc& pipeline, GLuint program,
                            const MG_Pipe::VertexLayoutDesc& layout) {
    PipelineKey key;
    key.PipelineHash = MG_Pipe::HashBytes(&pipeline, sizeof pipeline);
    key.Program = program;
    key.LayoutHash = LayoutFormatHash(layout);
    return key;
}

} // namespace DirectVulkan
