// MobileGL driver fixture - MG_Impl/Pipe/PipeFill.cpp
// The fill: the only code that reads GLContext on behalf of a backend. Each
// section copier returns how many GLContext accessor calls it made; their sum
// is the `acc=` counter of the MGPipe stats line (a lower bound, as upstream).
#include "MG_Impl/Pipe/PipeFill.h"

#include <cstdlib>
#include <cstring>

#include "MG_State/GLState/Core.h"
#include "MG_Util/Debug/Log.h"
#include "MG_Util/Metrics/PipeStats.h"
#if MOBILEGL_PIPE_PUSH
#include "MG_Impl/Pipe/Tracker.h"
#endif

namespace MG_Impl::Pipe {
namespace {

enum Section : Uint32 {
    kSectionPipeline = 1u << 0,
    kSectionDynamic = 1u << 1,
    kSectionUnits = 1u << 2,
    kSectionLayout = 1u << 3,
    kSectionProgram = 1u << 4,
    kSectionFramebuffers = 1u << 5,
    kSectionPack = 1u << 6,
    kSectionUnpack = 1u << 7,
};

struct FillRuntime {
    MG_Pipe::DrawParams staged;
    Uint64 serial = 0;
    bool verifyChecked = false;
    bool verifyArmed = false;
    bool verifyFatal = true;
    Uint32 corruptSection = 0;
    Uint64 divergences = 0;
};

FillRuntime g_fillRuntime;

Uint32 SectionsFor(MG_Pipe::VerbClass cls) {
    switch (cls) {
    case MG_Pipe::VerbClass::kVerbRaster:
        return kSectionPipeline | kSectionDynamic | kSectionUnits | kSectionLayout | kSectionProgram |
               kSectionFramebuffers;
    case MG_Pipe::VerbClass::kVerbClear:
        return kSectionDynamic | kSectionFramebuffers;
    case MG_Pipe::VerbClass::kVerbReadback:
        return kSectionFramebuffers | kSectionPack;
    case MG_Pipe::VerbClass::kVerbTransfer:
        return kSectionUnpack;
    case MG_Pipe::VerbClass::kVerbFrame:
        return 0;
    }
    return 0;
}

Uint32 CopyPipeline(const MG_State::GLContext& ctx, MG_Pipe::PipeInputs& out) {
    const MG_State::RenderStateParameters& p = ctx.Render().Parameters();
    out.Pipeline.Blend = p.BlendStates[0];
    out.Pipeline.Depth = p.Depth;
    out.Pipeline.StencilEnabled = p.StencilEnabled;
    out.Pipeline.StencilFront = p.StencilStates[0];
    out.Pipeline.StencilBack = p.StencilStates[1];
    out.Pipeline.Raster = p.Raster;
    out.PipelineStateVersion = ctx.PipelineStateVersion();
    return 2;
}

Uint32 CopyDynamic(const MG_State::GLContext& ctx, MG_Pipe::PipeInputs& out) {
    const MG_State::RenderStateParameters& p = ctx.Render().Parameters();
    out.Dynamic.Viewport = p.Viewport;
    out.Dynamic.Scissor = p.Scissor;
    out.Dynamic.BlendColor = p.BlendColor;
    out.Dynamic.ClearColor = p.ClearColor;
    out.Dynamic.ClearDepth = p.ClearDepth;
    out.Dynamic.ClearStencil = p.ClearStencil;
    out.RenderStateVersion = ctx.RenderStateVersion();
    return 2;
}

Uint32 CopyUnits(MG_State::GLContext& ctx, MG_Pipe::PipeInputs& out) {
    Uint32 calls = 1;
    const Uint32 sampled = ctx.Programs().CurrentSamplerMask();
    for (Uint32 unit = 0; unit < MG_Pipe::kMaxTextureUnits; ++unit) {
        MG_Pipe::TextureUnitView& view = out.Units[unit];
        const GLuint name = ctx.Textures().BoundName(unit, GL_TEXTURE_2D);
        const MG_State::TextureObject* object = ctx.Textures().Find(name);
        calls += 2;
        view.Texture = name;
        view.Target = GL_TEXTURE_2D;
        view.Sampler = object != nullptr ? object->Params : MG_Pipe::SamplerDesc{};
        if ((sampled >> unit) & 1u) {
            ctx.TexturesForFill().MarkUnitSampled(unit);
            ++calls;
        }
    }
    out.UnitBindingsEpoch = ctx.TextureBindGeneration();
    return calls + 1;
}

Uint32 CopyLayout(const MG_State::GLContext& ctx, MG_Pipe::PipeInputs& out) {
    const MG_State::VertexArrayObject& vao = ctx.VertexArrays().Current();
    for (Uint32 i = 0; i < MG_Pipe::kMaxVertexAttribs; ++i) {
        out.Layout.Attribs[i] = vao.Attribs[i];
    }
    out.Layout.ElementBuffer = vao.ElementBuffer;
    return 1;
}

Uint32 CopyProgram(const MG_State::GLContext& ctx, MG_Pipe::PipeInputs& out) {
    const MG_State::ProgramState& programs = ctx.Programs();
    out.Program.Program = programs.Current();
    out.Program.UniformCount = programs.UniformCount();
    for (Uint32 i = 0; i < programs.UniformCount(); ++i) {
        const MG_State::UniformSlot& slot = programs.Uniform(i);
        out.Program.Uniforms[i].Location = slot.Location;
        std::memcpy(out.Program.Uniforms[i].Values, slot.Value, sizeof slot.Value);
    }
    return 3 + programs.UniformCount();
}

void CopyFramebuffer(const MG_State::FramebufferObject* fbo, GLuint name, MG_Pipe::FramebufferDesc& out) {
    out = MG_Pipe::FramebufferDesc{};
    out.Name = name;
    if (fbo == nullptr) {
        return;
    }
    for (Uint32 i = 0; i < MG_State::kMaxDrawBuffers; ++i) {
        out.ColorTextures[i] = fbo->Color[i].Texture;
    }
    out.DepthTexture = fbo->Depth.Texture;
    out.Width = fbo->Width;
    out.Height = fbo->Height;
}

Uint32 CopyFramebuffers(const MG_State::GLContext& ctx, MG_Pipe::PipeInputs& out) {
    const MG_State::FramebufferState& fbs = ctx.Framebuffers();
    CopyFramebuffer(fbs.Find(fbs.DrawBinding()), fbs.DrawBinding(), out.DrawFramebuffer);
    CopyFramebuffer(fbs.Find(fbs.ReadBinding()), fbs.ReadBinding(), out.ReadFramebuffer);
    return 5;
}

Uint32 CopySections(MG_State::GLContext& ctx, MG_Pipe::PipeInputs& out, Uint32 sections) {
    Uint32 calls = 0;
    if (sections & kSectionPipeline) {
        calls += CopyPipeline(ctx, out);
    }
    if (sections & kSectionDynamic) {
        calls += CopyDynamic(ctx, out);
    }
    if (sections & kSectionUnits) {
        calls += CopyUnits(ctx, out);
    }
    if (sections & kSectionLayout) {
        calls += CopyLayout(ctx, out);
    }
    if (sections & kSectionProgram) {
        calls += CopyProgram(ctx, out);
    }
    if (sections & kSectionFramebuffers) {
        calls += CopyFramebuffers(ctx, out);
    }
    if (sections & kSectionPack) {
        out.Pack = ctx.PixelPack();
        ++calls;
    }
    if (sections & kSectionUnpack) {
        out.Unpack = ctx.PixelUnpack();
        ++calls;
    }
    return calls;
}

bool EnvOn(const char* name, bool fallback) {
    const char* value = std::getenv(name);
    if (value == nullptr || value[0] == '\0') {
        return fallback;
    }
    return std::strcmp(value, "0") != 0 && std::strcmp(value, "false") != 0;
}

#if MOBILEGL_PIPE_PUSH
const char* SectionName(Uint32 section) {
    switch (section) {
    case kSectionPipeline:
        return "Pipeline";
    case kSectionDynamic:
        return "Dynamic";
    case kSectionUnits:
        return "Units";
    case kSectionLayout:
        return "Layout";
    case kSectionProgram:
        return "Program";
    case kSectionFramebuffers:
        return "DrawFramebuffer";
    case kSectionPack:
        return "Pack";
    default:
        return "Unpack";
    }
}

// The verify lane's negative control: damage one field of a section.
void CorruptSection(MG_Pipe::PipeInputs& in, Uint32 section) {
    switch (section) {
    case kSectionPipeline:
        in.Pipeline.Raster.LineWidth += 1.0f;
        break;
    case kSectionDynamic:
        in.Dynamic.ClearDepth += 1.0f;
        break;
    case kSectionUnits:
        in.Units[0].Texture += 1;
        break;
    case kSectionLayout:
        in.Layout.ElementBuffer += 1;
        break;
    case kSectionProgram:
        in.Program.Program += 1;
        break;
    case kSectionFramebuffers:
        in.DrawFramebuffer.Width += 1;
        break;
    case kSectionPack:
        in.Pack.Alignment += 1;
        break;
    default:
        in.Unpack.Alignment += 1;
        break;
    }
}
#endif

// The verify lane: armed by MOBILEGL_PIPE_VERIFY, announced once at the first
// fill. Only a push build has something to compare (its selective fill against
// a full pull copy); a pull build says so instead of claiming to be armed.
void ArmVerifyOnce() {
    if (g_fillRuntime.verifyChecked) {
        return;
    }
    g_fillRuntime.verifyChecked = true;
    const bool requested = EnvOn("MOBILEGL_PIPE_VERIFY", false);
#if MOBILEGL_PIPE_PUSH
    g_fillRuntime.verifyArmed = requested;
    g_fillRuntime.verifyFatal = EnvOn("MOBILEGL_PIPE_VERIFY_FATAL", true);
    if (!requested) {
        return;
    }
    MGLOG_I("MGPipe: verify armed - %u fields, %u verbs, fatal=%d", MG_Pipe::CountVerifiedFields(),
            MG_Pipe::kVerbCount, g_fillRuntime.verifyFatal ? 1 : 0);
    // Negative control: MOBILEGL_PIPE_VERIFY_CORRUPT=<Section> damages that
    // section after every fill, so the compare must trip.
    const char* corrupt = std::getenv("MOBILEGL_PIPE_VERIFY_CORRUPT");
    for (Uint32 bit = 0; corrupt != nullptr && bit < 8; ++bit) {
        if (std::strcmp(corrupt, SectionName(1u << bit)) == 0) {
            g_fillRuntime.corruptSection = 1u << bit;
            MGLOG_I("MGPipe: verify corruption armed - %s", corrupt);
        }
    }
#else
    if (requested) {
        MGLOG_W("MGPipe: verify requested (MOBILEGL_PIPE_VERIFY) but this is a pull build - every fill is a full "
                "copy, nothing to compare");
    }
#endif
}

#if MOBILEGL_PIPE_PUSH
// Which fill sections each dirty bit invalidates.
Uint32 SectionsOfBit(Uint32 bit) {
    switch (static_cast<MGPipeDirty>(bit)) {
    case MGPipeDirty::RenderState:
        return kSectionPipeline | kSectionDynamic;
    case MGPipeDirty::PipelineState:
        return kSectionPipeline;
    case MGPipeDirty::PixelPack:
        return kSectionPack;
    case MGPipeDirty::VertexBuffers:
    case MGPipeDirty::VertexElements:
    case MGPipeDirty::VertexAttribDefaults:
        return kSectionLayout;
    case MGPipeDirty::Shader:
    case MGPipeDirty::ConstantBuffers:
        return kSectionProgram;
    case MGPipeDirty::SamplerViews:
        return kSectionUnits;
    case MGPipeDirty::Framebuffer:
        return kSectionFramebuffers;
    case MGPipeDirty::Count:
        break;
    }
    return 0;
}

struct PushRuntime {
    MGPipeTracker tracker;
    Uint32 pendingSections = ~0u;
    Uint32 causes[8] = {~0u, ~0u, ~0u, ~0u, ~0u, ~0u, ~0u, ~0u};
};

PushRuntime g_pushRuntime;

// Runs the shutters and narrows the class's sections to the dirty ones; the
// units and the unpack parameters are pulled at every verb that reads them
// (their samplers and row lengths have no shutter of their own).
Uint32 PushDirtySections(MG_State::GLContext& ctx, Uint32 classSections, Uint32& dirtyMask) {
    const Uint32 moved = g_pushRuntime.tracker.Update(ctx);
    for (Uint32 bit = 0; bit < kMGPipeDirtyCount; ++bit) {
        if ((moved >> bit) & 1u) {
            const Uint32 sections = SectionsOfBit(bit);
            g_pushRuntime.pendingSections |= sections;
            for (Uint32 s = 0; s < 8; ++s) {
                if ((sections >> s) & 1u) {
                    g_pushRuntime.causes[s] |= 1u << bit;
                }
            }
        }
    }
    const Uint32 pulled = classSections & (kSectionUnits | kSectionUnpack);
    const Uint32 selected = (classSections & g_pushRuntime.pendingSections) | pulled;
    dirtyMask = 0;
    for (Uint32 s = 0; s < 8; ++s) {
        if ((selected >> s) & 1u) {
            dirtyMask |= g_pushRuntime.causes[s];
            g_pushRuntime.causes[s] = 0;
        }
    }
    g_pushRuntime.pendingSections &= ~selected;
    return selected;
}

// Compares what the push fill published with what a pull fill would have.
void VerifyAgainstPull(MG_State::GLContext& ctx, const MG_Pipe::PipeInputs& published, Uint32 classSections,
                       MG_Pipe::Verb verb) {
    static MG_Pipe::PipeInputs shadow;
    shadow = published;
    CopySections(ctx, shadow, classSections);
    struct Span {
        Uint32 section;
        std::size_t offset;
        std::size_t size;
    };
    const Span spans[] = {
        {kSectionPipeline, offsetof(MG_Pipe::PipeInputs, Pipeline), sizeof(MG_Pipe::PipelineDesc)},
        {kSectionDynamic, offsetof(MG_Pipe::PipeInputs, Dynamic), sizeof(MG_Pipe::DynamicDesc)},
        {kSectionUnits, offsetof(MG_Pipe::PipeInputs, Units), sizeof(published.Units)},
        {kSectionLayout, offsetof(MG_Pipe::PipeInputs, Layout), sizeof(MG_Pipe::VertexLayoutDesc)},
        {kSectionProgram, offsetof(MG_Pipe::PipeInputs, Program), sizeof(MG_Pipe::ProgramDesc)},
        {kSectionFramebuffers, offsetof(MG_Pipe::PipeInputs, DrawFramebuffer), sizeof(MG_Pipe::FramebufferDesc)},
        {kSectionPack, offsetof(MG_Pipe::PipeInputs, Pack), sizeof(MG_Pipe::PixelStoreDesc)},
    };
    const auto* a = reinterpret_cast<const unsigned char*>(&published);
    const auto* b = reinterpret_cast<const unsigned char*>(&shadow);
    for (const Span& span : spans) {
        if ((classSections & span.section) == 0 || std::memcmp(a + span.offset, b + span.offset, span.size) == 0) {
            continue;
        }
        ++g_fillRuntime.divergences;
        if (g_fillRuntime.divergences > 16) {
            continue; // counted for the summary; the log keeps the first 16
        }
        MGLOG_F("MGPipe: Fatal{PipeVerifyDiffer, \"%s@%s\", verb=%llu, where=entry}", SectionName(span.section),
                MG_Pipe::VerbName(verb), static_cast<unsigned long long>(g_fillRuntime.serial));
        if (g_fillRuntime.verifyFatal) {
            std::abort();
        }
    }
}
#endif

} // namespace

void StageDraw(const MG_Pipe::DrawParams& params) {
    g_fillRuntime.staged = params;
}

void ResetFill() {
    g_fillRuntime = FillRuntime{};
    MG_Pipe::gPipeInputs = MG_Pipe::PipeInputs{};
#if MOBILEGL_PIPE_PUSH
    g_pushRuntime = PushRuntime{};
    g_pushRuntime.tracker.Reset();
#endif
}

void Fill(MG_Pipe::Verb verb) {
    MG_State::GLContext& ctx = *MG_State::pGLContext;
    MG_Pipe::PipeInputs& inputs = MG_Pipe::gPipeInputs;
    ArmVerifyOnce();
    const Uint32 classSections = SectionsFor(MG_Pipe::ClassOf(verb));
#if MOBILEGL_PIPE_PUSH
    Uint32 dirtyMask = 0;
    const Uint32 sections = PushDirtySections(ctx, classSections, dirtyMask);
    inputs.DirtyMask = dirtyMask;
#else
    const Uint32 sections = classSections;
#endif
    const Uint32 calls = CopySections(ctx, inputs, sections);
    inputs.CurrentVerb = verb;
    inputs.VerbSerial = ++g_fillRuntime.serial;
    if (MG_Pipe::ClassOf(verb) == MG_Pipe::VerbClass::kVerbRaster) {
        inputs.Draw = g_fillRuntime.staged;
    }
    MG_Util::PipeStats::AddAccessorCalls(calls);
#if MOBILEGL_PIPE_PUSH
    if (g_fillRuntime.corruptSection & sections) {
        // Once: the damage stays published until a dirty bit refills the section.
        CorruptSection(inputs, g_fillRuntime.corruptSection);
        g_fillRuntime.corruptSection = 0;
    }
    if (g_fillRuntime.verifyArmed) {
        VerifyAgainstPull(ctx, inputs, classSections, verb);
    }
#endif
}

void ReportVerifySummary() {
#if MOBILEGL_PIPE_PUSH
    if (g_fillRuntime.verifyArmed && !g_fillRuntime.verifyFatal && g_fillRuntime.divergences != 0) {
        MGLOG_E("MGPipe: verify summary - %llu divergence(s) survived MOBILEGL_PIPE_VERIFY_FATAL=0",
                static_cast<unsigned long long>(g_fillRuntime.divergences));
    }
#endif
}

} // namespace MG_Impl::Pipe
