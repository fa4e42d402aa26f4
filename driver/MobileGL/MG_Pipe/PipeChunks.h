// MobileGL driver fixture - MG_Pipe/PipeChunks.h
// Which chunk of the published state each render-state setter writes. A member
// in kMGPipePipelineChunks is baked into a pipeline object (CSO), so its setter
// must move NEW_PIPELINE_STATE; a member in kMGPipeDynamicChunks is set per draw
// and its setter must not (a needless CSO rebuild per change). DirtySurface.def
// holds the setters' answers; MG_Test/consistency/SetterConsistency.cpp checks
// the two against each other (the G7 setter-consistency test).
#pragma once

namespace MG_Pipe {

struct ChunkMember {
    const char* Member;
    const char* Setter;
};

// clang-format off
constexpr ChunkMember kMGPipePipelineChunks[] = {
    {"Blend.Enabled",            "SetCapability"},
    {"Blend.SrcRGB",             "SetBlendFunc"},
    {"Blend.SrcAlpha",           "SetBlendFuncSeparate"},
    {"Blend.EquationRGB",        "SetBlendEquation"},
    {"Blend.EquationAlpha",      "SetBlendEquationSeparate"},
    {"Blend.ColorWriteMask",     "SetColorMask"},
    {"Depth.Func",               "SetDepthFunc"},
    {"Depth.WriteEnabled",       "SetDepthMask"},
    {"StencilFront.Func",        "SetStencilFunc"},
    {"StencilFront.FailOp",      "SetStencilOp"},
    {"StencilFront.WriteMask",   "SetStencilMask"},
    {"Raster.CullFace",          "SetCullFace"},
    {"Raster.FrontFace",         "SetFrontFace"},
};

constexpr ChunkMember kMGPipeDynamicChunks[] = {
    {"BlendColor",               "SetBlendColor"},
    {"Depth.RangeNear",          "SetDepthRange"},
    {"Raster.PolygonOffsetUnits", "SetPolygonOffset"},
    {"Viewport",                 "SetViewport"},
    {"Scissor",                  "SetScissor"},
    {"Raster.LineWidth",         "SetLineWidth"},
    {"ClearColor",               "SetClearColor"},
    {"ClearDepth",               "SetClearDepth"},
    {"ClearStencil",             "SetClearStencil"},
};
// clang-format on

} // namespace MG_Pipe
