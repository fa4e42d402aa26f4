// MobileGL driver fixture - MG_Pipe/MGPipeValueTypes.h
// Plain value types that cross the frontend/backend seam. This header is the
// one the include-closure probe "value-header" protects: it may reach MG_Util
// and the standard library, never MG_State/, MG_Impl/, MG_Backend/ or MG_Remote/.
// Everything here is trivially copyable so a fill is a memcpy-shaped copy.
#pragma once

#include "MG_Util/GLDefs.h"
#include "MG_Util/Types.h"

namespace MG_Pipe {

constexpr Uint32 kMaxTextureUnits = 16;
constexpr Uint32 kMaxVertexAttribs = 16;
constexpr Uint32 kMaxColorAttachments = 4;
constexpr Uint32 kMaxUniformSlots = 32;

struct Color4 {
    Float32 R = 0.0f;
    Float32 G = 0.0f;
    Float32 B = 0.0f;
    Float32 A = 0.0f;
};

struct BlendDesc {
    bool Enabled = false;
    GLenum SrcRGB = GL_ONE;
    GLenum DstRGB = GL_ZERO;
    GLenum SrcAlpha = GL_ONE;
    GLenum DstAlpha = GL_ZERO;
    GLenum EquationRGB = GL_FUNC_ADD;
    GLenum EquationAlpha = GL_FUNC_ADD;
    Uint8 ColorWriteMask = 0xF;
};

struct DepthDesc {
    bool TestEnabled = false;
    bool WriteEnabled = true;
    GLenum Func = GL_LESS;
    Float32 RangeNear = 0.0f;
    Float32 RangeFar = 1.0f;
};

struct StencilFaceDesc {
    GLenum Func = GL_ALWAYS;
    GLint Ref = 0;
    Uint32 ReadMask = 0xFFFFFFFFu;
    Uint32 WriteMask = 0xFFFFFFFFu;
    GLenum FailOp = GL_KEEP;
    GLenum DepthFailOp = GL_KEEP;
    GLenum PassOp = GL_KEEP;
};

struct RasterDesc {
    bool CullEnabled = false;
    GLenum CullFace = GL_BACK;
    GLenum FrontFace = GL_CCW;
    bool ScissorEnabled = false;
    bool PolygonOffsetEnabled = false;
    Float32 PolygonOffsetFactor = 0.0f;
    Float32 PolygonOffsetUnits = 0.0f;
    Float32 LineWidth = 1.0f;
};

struct Rect {
    GLint X = 0;
    GLint Y = 0;
    GLsizei Width = 0;
    GLsizei Height = 0;
};

// The pipeline-affecting part of render state: what a backend bakes into a
// pipeline object (Vulkan) or a render-state CSO (GLES push path).
struct PipelineDesc {
    BlendDesc Blend;
    DepthDesc Depth;
    bool StencilEnabled = false;
    StencilFaceDesc StencilFront;
    StencilFaceDesc StencilBack;
    RasterDesc Raster;
};

// The dynamic part: set on the command stream without a new pipeline.
struct DynamicDesc {
    Rect Viewport;
    Rect Scissor;
    Color4 BlendColor;
    Color4 ClearColor;
    Float32 ClearDepth = 1.0f;
    GLint ClearStencil = 0;
};

struct SamplerDesc {
    GLenum MinFilter = GL_NEAREST_MIPMAP_LINEAR;
    GLenum MagFilter = GL_LINEAR;
    GLenum WrapS = GL_REPEAT;
    GLenum WrapT = GL_REPEAT;
    GLint BaseLevel = 0;
    GLint MaxLevel = 1000;
};

struct TextureUnitView {
    GLuint Texture = 0;
    GLenum Target = GL_TEXTURE_2D;
    SamplerDesc Sampler;
};

struct VertexAttribDesc {
    bool Enabled = false;
    GLint Size = 4;
    GLenum Type = GL_FLOAT;
    bool Normalized = false;
    GLsizei Stride = 0;
    Uint64 Offset = 0;
    GLuint Buffer = 0;
};

struct VertexLayoutDesc {
    VertexAttribDesc Attribs[kMaxVertexAttribs];
    GLuint ElementBuffer = 0;
};

struct PixelStoreDesc {
    GLint Alignment = 4;
    GLint RowLength = 0;
};

struct FramebufferDesc {
    GLuint Name = 0;
    GLuint ColorTextures[kMaxColorAttachments] = {0, 0, 0, 0};
    GLuint DepthTexture = 0;
    Uint32 Width = 0;
    Uint32 Height = 0;
};

struct UniformValue {
    GLint Location = -1;
    Float32 Values[4] = {0.0f, 0.0f, 0.0f, 0.0f};
};

struct ProgramDesc {
    GLuint Program = 0;
    Uint32 UniformCount = 0;
    UniformValue Uniforms[kMaxUniformSlots];
};

// Draw-time parameters of one verb.
struct DrawParams {
    GLenum Mode = GL_TRIANGLES;
    GLint First = 0;
    GLsizei Count = 0;
    GLenum IndexType = GL_UNSIGNED_SHORT;
    Uint64 IndexOffset = 0;
    bool Indexed = false;
};

// 64-bit FNV-1a over a value type's bytes; the key of memo tables in backends.
inline Uint64 HashBytes(const void* data, std::size_t size, Uint64 seed = 0xcbf29ce484222325ull) {
    const auto* bytes = static_cast<const Uint8*>(data);
    Uint64 hash = seed;
    for (std::size_t i = 0; i < size; ++i) {
        hash ^= bytes[i];
        hash *= 0x100000001b3ull;
    }
    return hash;
}

} // namespace MG_Pipe
