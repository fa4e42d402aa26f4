// MobileGL driver fixture - MG_Test/demo/Workload.h
// A scripted, deterministic frame workload shaped like a Minecraft frame:
// terrain chunks, a translucent pass, entities, a streamed GUI, texture
// animation, periodic chunk rebuilds and an occasional offscreen readback.
// It drives only the exported GL entry points, like a real application.
#pragma once

#include <vector>

#include "MG_Util/GLDefs.h"

namespace MG_Test {

struct WorkloadStats {
    Uint64 draws = 0;
    Uint64 uploads = 0;
    Uint64 readbacks = 0;
    Uint64 rebuilds = 0;
    Uint64 glErrors = 0;
};

class Workload {
public:
    Workload(GLuint width, GLuint height);

    // Creates every object the frames use. Call once after mglInitialize.
    void Setup();
    // Issues one frame's GL calls, ending with mglSwapBuffers.
    void RunFrame(Uint64 frame);
    // Deletes what Setup created.
    void Teardown();

    const WorkloadStats& Stats() const { return m_stats; }

private:
    void TerrainPass(Uint64 frame);
    void TranslucentPass(Uint64 frame);
    void EntityPass(Uint64 frame);
    void GuiPass(Uint64 frame);
    void OffscreenReadback(Uint64 frame);
    void AnimateTextures(Uint64 frame);
    void RebuildChunk(Uint64 frame);
    GLuint MakeChunkBuffer(Uint32 seed);
    void CheckErrors();

    GLuint m_width;
    GLuint m_height;
    GLuint m_atlas = 0;
    GLuint m_lightmap = 0;
    GLuint m_font = 0;
    GLuint m_offscreenColor = 0;
    GLuint m_offscreenFbo = 0;
    GLuint m_terrainProgram = 0;
    GLuint m_entityProgram = 0;
    GLuint m_guiProgram = 0;
    GLuint m_terrainVao = 0;
    GLuint m_entityVao = 0;
    GLuint m_guiVao = 0;
    GLuint m_indexBuffer = 0;
    GLuint m_entityBuffer = 0;
    GLuint m_guiBuffer = 0;
    std::vector<GLuint> m_chunks;
    std::vector<unsigned char> m_scratch;
    std::vector<float> m_guiVertices;
    WorkloadStats m_stats;
};

} // namespace MG_Test
