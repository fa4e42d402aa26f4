// MobileGL driver fixture - MG_Test/demo/Workload.cpp
#include "MG_Test/demo/Workload.h"

#include <cstdint>

#include "MG_Impl/GLImpl/GLEntry.h"

namespace MG_Test {
namespace {

constexpr Uint32 kChunkCount = 48;
constexpr GLsizei kChunkIndices = 1536;
constexpr GLsizei kChunkVertexBytes = 24 * 1024;
constexpr GLsizei kAtlasSize = 256;
constexpr GLsizei kLightmapSize = 16;
constexpr GLsizei kFontSize = 128;
constexpr GLsizei kOffscreenSize = 64;
constexpr GLint kUniformViewProj = 0;
constexpr GLint kUniformFog = 1;
constexpr GLint kUniformTint = 2;

// A small deterministic generator so every run issues the same calls.
Uint32 Mix(Uint64 x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return static_cast<Uint32>(x);
}

void* Offset(Uint64 bytes) {
    return reinterpret_cast<void*>(static_cast<std::uintptr_t>(bytes));
}

} // namespace

Workload::Workload(GLuint width, GLuint height) : m_width(width), m_height(height) {}

GLuint Workload::MakeChunkBuffer(Uint32 seed) {
    GLuint buffer = 0;
    glGenBuffers(1, &buffer);
    glBindBuffer(GL_ARRAY_BUFFER, buffer);
    m_scratch.assign(kChunkVertexBytes, static_cast<unsigned char>(seed));
    glBufferData(GL_ARRAY_BUFFER, kChunkVertexBytes, m_scratch.data(), GL_STATIC_DRAW);
    return buffer;
}

void Workload::Setup() {
    // textures: block atlas, lightmap, font, offscreen target
    GLuint textures[4] = {0, 0, 0, 0};
    glGenTextures(4, textures);
    m_atlas = textures[0];
    m_lightmap = textures[1];
    m_font = textures[2];
    m_offscreenColor = textures[3];

    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, m_atlas);
    m_scratch.assign(static_cast<std::size_t>(kAtlasSize) * kAtlasSize * 4, 0x7f);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA, kAtlasSize, kAtlasSize, 0, GL_RGBA, GL_UNSIGNED_BYTE, m_scratch.data());
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAX_LEVEL, 0);

    glActiveTexture(GL_TEXTURE0 + 1);
    glBindTexture(GL_TEXTURE_2D, m_lightmap);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA, kLightmapSize, kLightmapSize, 0, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);

    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, m_font);
    m_scratch.assign(static_cast<std::size_t>(kFontSize) * kFontSize * 4, 0xff);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA, kFontSize, kFontSize, 0, GL_RGBA, GL_UNSIGNED_BYTE, m_scratch.data());

    glBindTexture(GL_TEXTURE_2D, m_offscreenColor);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA, kOffscreenSize, kOffscreenSize, 0, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);

    glGenFramebuffers(1, &m_offscreenFbo);
    glBindFramebuffer(GL_FRAMEBUFFER, m_offscreenFbo);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, m_offscreenColor, 0);
    if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE) {
        ++m_stats.glErrors;
    }
    glBindFramebuffer(GL_FRAMEBUFFER, 0);

    // programs: terrain samples the atlas and the lightmap, the others the atlas/font
    m_terrainProgram = mglCreateLinkedProgram(0x3);
    m_entityProgram = mglCreateLinkedProgram(0x3);
    m_guiProgram = mglCreateLinkedProgram(0x1);

    // geometry
    GLuint vaos[3] = {0, 0, 0};
    glGenVertexArrays(3, vaos);
    m_terrainVao = vaos[0];
    m_entityVao = vaos[1];
    m_guiVao = vaos[2];

    glBindVertexArray(m_terrainVao);
    glGenBuffers(1, &m_indexBuffer);
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, m_indexBuffer);
    m_scratch.assign(static_cast<std::size_t>(kChunkIndices) * 2, 0x01);
    glBufferData(GL_ELEMENT_ARRAY_BUFFER, kChunkIndices * 2, m_scratch.data(), GL_STATIC_DRAW);
    for (Uint32 i = 0; i < kChunkCount; ++i) {
        m_chunks.push_back(MakeChunkBuffer(i));
    }
    glBindBuffer(GL_ARRAY_BUFFER, m_chunks[0]);
    glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 28, Offset(0));
    glVertexAttribPointer(1, 4, GL_UNSIGNED_BYTE, GL_TRUE, 28, Offset(12));
    glVertexAttribPointer(2, 2, GL_FLOAT, GL_FALSE, 28, Offset(16));
    glEnableVertexAttribArray(0);
    glEnableVertexAttribArray(1);
    glEnableVertexAttribArray(2);

    glBindVertexArray(m_entityVao);
    glGenBuffers(1, &m_entityBuffer);
    glBindBuffer(GL_ARRAY_BUFFER, m_entityBuffer);
    m_scratch.assign(36 * 32, 0x22);
    glBufferData(GL_ARRAY_BUFFER, 36 * 32, m_scratch.data(), GL_STATIC_DRAW);
    glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 32, Offset(0));
    glVertexAttribPointer(2, 2, GL_FLOAT, GL_FALSE, 32, Offset(12));
    glVertexAttribPointer(3, 3, GL_FLOAT, GL_TRUE, 32, Offset(20));
    glEnableVertexAttribArray(0);
    glEnableVertexAttribArray(2);
    glEnableVertexAttribArray(3);

    glBindVertexArray(m_guiVao);
    glGenBuffers(1, &m_guiBuffer);
    glBindBuffer(GL_ARRAY_BUFFER, m_guiBuffer);
    glBufferData(GL_ARRAY_BUFFER, 4096, nullptr, GL_STREAM_DRAW);
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 16, Offset(0));
    glVertexAttribPointer(2, 2, GL_FLOAT, GL_FALSE, 16, Offset(8));
    glEnableVertexAttribArray(0);
    glEnableVertexAttribArray(2);
    glBindVertexArray(0);

    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    glCullFace(GL_BACK);
    glFrontFace(GL_CCW);
    glDepthFunc(GL_LEQUAL);
    CheckErrors();
}

void Workload::TerrainPass(Uint64 frame) {
    glUseProgram(m_terrainProgram);
    glUniform4f(kUniformViewProj, static_cast<float>(frame % 360), 0.5f, 0.25f, 1.0f);
    glUniform4f(kUniformFog, 0.6f, 0.7f, 0.9f, 96.0f);
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, m_atlas);
    glActiveTexture(GL_TEXTURE0 + 1);
    glBindTexture(GL_TEXTURE_2D, m_lightmap);
    glActiveTexture(GL_TEXTURE0);
    glEnable(GL_DEPTH_TEST);
    glEnable(GL_CULL_FACE);
    glDisable(GL_BLEND);
    glDepthMask(GL_TRUE);
    glBindVertexArray(m_terrainVao);
    // The visible chunk count breathes with the camera.
    const Uint32 visible = kChunkCount / 2 + Mix(frame / 30) % (kChunkCount / 2);
    for (Uint32 i = 0; i < visible; ++i) {
        glBindBuffer(GL_ARRAY_BUFFER, m_chunks[i]);
        glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 28, Offset(0));
        glDrawElements(GL_TRIANGLES, kChunkIndices, GL_UNSIGNED_SHORT, Offset(0));
        ++m_stats.draws;
    }
}

void Workload::TranslucentPass(Uint64 frame) {
    glEnable(GL_BLEND);
    glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
    glDepthMask(GL_FALSE);
    const Uint32 water = 4 + Mix(frame + 7) % 6;
    for (Uint32 i = 0; i < water; ++i) {
        glBindBuffer(GL_ARRAY_BUFFER, m_chunks[(i * 5) % kChunkCount]);
        glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 28, Offset(0));
        glDrawElements(GL_TRIANGLES, kChunkIndices / 4, GL_UNSIGNED_SHORT, Offset(0));
        ++m_stats.draws;
    }
    glDepthMask(GL_TRUE);
    glBlendFunc(GL_ONE, GL_ZERO);
}

void Workload::EntityPass(Uint64 frame) {
    glUseProgram(m_entityProgram);
    glBindVertexArray(m_entityVao);
    glDisable(GL_CULL_FACE);
    const Uint32 entities = 6 + Mix(frame / 10 + 3) % 10;
    for (Uint32 e = 0; e < entities; ++e) {
        const float hurt = (Mix(frame * 31 + e) % 50 == 0) ? 1.0f : 0.0f;
        glVertexAttrib4f(1, 1.0f, 1.0f - hurt * 0.6f, 1.0f - hurt * 0.6f, 1.0f);
        glUniform4f(kUniformTint, static_cast<float>(e), static_cast<float>(frame % 64), 0.0f, 1.0f);
        glDrawArrays(GL_TRIANGLES, 0, 36);
        ++m_stats.draws;
    }
}

void Workload::GuiPass(Uint64 frame) {
    glDisable(GL_DEPTH_TEST);
    glEnable(GL_BLEND);
    glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
    glUseProgram(m_guiProgram);
    glBindTexture(GL_TEXTURE_2D, m_font);
    glBindVertexArray(m_guiVao);
    glBindBuffer(GL_ARRAY_BUFFER, m_guiBuffer);
    const Uint32 quads = 20 + static_cast<Uint32>(frame % 12);
    m_guiVertices.assign(static_cast<std::size_t>(quads) * 6 * 4, 0.5f);
    const GLsizeiptr bytes = static_cast<GLsizeiptr>(m_guiVertices.size() * sizeof(float));
    glBufferData(GL_ARRAY_BUFFER, 4096, nullptr, GL_STREAM_DRAW); // orphan
    glBufferSubData(GL_ARRAY_BUFFER, 0, bytes, m_guiVertices.data());
    glDrawArrays(GL_TRIANGLES, 0, static_cast<GLsizei>(quads * 6));
    ++m_stats.draws;
    glBindTexture(GL_TEXTURE_2D, m_atlas);
    glDrawArrays(GL_TRIANGLES, 0, 6 * 9); // hotbar items
    ++m_stats.draws;
    glDisable(GL_BLEND);
}

void Workload::AnimateTextures(Uint64 frame) {
    // The lightmap is re-uploaded whole every other frame (one box upload);
    // animated atlas tiles (water, lava) are 16x16 sub-rectangles.
    glActiveTexture(GL_TEXTURE0 + 1);
    if (frame % 2 == 0) {
        m_scratch.assign(static_cast<std::size_t>(kLightmapSize) * kLightmapSize * 4,
                         static_cast<unsigned char>(frame));
        glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, kLightmapSize, kLightmapSize, GL_RGBA, GL_UNSIGNED_BYTE,
                        m_scratch.data());
        ++m_stats.uploads;
    }
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, m_atlas);
    if (frame % 4 == 0) {
        m_scratch.assign(16 * 16 * 4, static_cast<unsigned char>(frame * 3));
        for (GLint tile = 0; tile < 2; ++tile) {
            glTexSubImage2D(GL_TEXTURE_2D, 0, 16 * tile, 208, 16, 16, GL_RGBA, GL_UNSIGNED_BYTE, m_scratch.data());
            ++m_stats.uploads;
        }
    }
}

void Workload::RebuildChunk(Uint64 frame) {
    // A chunk section changed: its buffer is deleted and rebuilt.
    const Uint32 index = Mix(frame) % kChunkCount;
    glDeleteBuffers(1, &m_chunks[index]);
    m_chunks[index] = MakeChunkBuffer(static_cast<Uint32>(frame));
    ++m_stats.rebuilds;
}

void Workload::OffscreenReadback(Uint64 frame) {
    glBindFramebuffer(GL_FRAMEBUFFER, m_offscreenFbo);
    glViewport(0, 0, kOffscreenSize, kOffscreenSize);
    glClearColor(0.25f, 0.5f, 0.75f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    glUseProgram(m_guiProgram);
    glBindVertexArray(m_guiVao);
    glDrawArrays(GL_TRIANGLES, 0, 6);
    ++m_stats.draws;
    glPixelStorei(GL_PACK_ALIGNMENT, (frame / 60) % 2 == 0 ? 4 : 1);
    m_scratch.assign(static_cast<std::size_t>(kOffscreenSize) * kOffscreenSize * 4, 0);
    glReadPixels(0, 0, kOffscreenSize, kOffscreenSize, GL_RGBA, GL_UNSIGNED_BYTE, m_scratch.data());
    ++m_stats.readbacks;
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
}

void Workload::RunFrame(Uint64 frame) {
    if (frame % 60 == 59) {
        OffscreenReadback(frame);
    }
    if (frame % 10 == 5) {
        RebuildChunk(frame);
    }
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    glViewport(0, 0, static_cast<GLsizei>(m_width), static_cast<GLsizei>(m_height));
    glScissor(0, 0, static_cast<GLsizei>(m_width), static_cast<GLsizei>(m_height));
    glClearColor(0.47f, 0.65f, 1.0f, 1.0f);
    glClearDepthf(1.0f);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    AnimateTextures(frame);
    TerrainPass(frame);
    TranslucentPass(frame);
    EntityPass(frame);
    GuiPass(frame);
    CheckErrors();
    mglSwapBuffers();
}

void Workload::Teardown() {
    glDeleteBuffers(static_cast<GLsizei>(m_chunks.size()), m_chunks.data());
    const GLuint buffers[3] = {m_indexBuffer, m_entityBuffer, m_guiBuffer};
    glDeleteBuffers(3, buffers);
    const GLuint textures[4] = {m_atlas, m_lightmap, m_font, m_offscreenColor};
    glDeleteTextures(4, textures);
    glDeleteFramebuffers(1, &m_offscreenFbo);
    glUseProgram(0);
    glDeleteProgram(m_terrainProgram);
    glDeleteProgram(m_entityProgram);
    glDeleteProgram(m_guiProgram);
    CheckErrors();
}

void Workload::CheckErrors() {
    while (glGetError() != GL_NO_ERROR) {
        ++m_stats.glErrors;
    }
}

} // namespace MG_Test
