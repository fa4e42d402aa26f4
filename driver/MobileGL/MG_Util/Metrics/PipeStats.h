// MobileGL driver fixture - MG_Util/Metrics/PipeStats.h
// Run counters of the pipe, printed as `MGPipe stats:` window lines every
// MOBILEGL_PIPE_STATS_PERIOD frames (default 120) while MOBILEGL_PIPE_STATS is
// set, one teardown line at Shutdown(), and an optional JSON dump of the run
// totals (MOBILEGL_PIPE_STATS_FILE). A pull build prints bytes/f[] tex[] gates[];
// a push build (MOBILEGL_PIPE_PUSH=1) adds csob-blob/seg and cso[] emit[] wait[].
#pragma once

#include <string>

#include "MG_Util/Types.h"

namespace MG_Util::PipeStats {

constexpr Uint32 kDefaultSummaryFramePeriod = 120;
constexpr Uint32 kHistogramBuckets = 24;

// Byte classes, in the order of the bytes/f[...] bracket.
enum class Bytes : Uint32 {
    Buffer,            // buf   stage-buffer
    Texture,           // tex   stage-texture
    UboGlobal,         // ubog  stage-ubo-global
    UboNamed,          // ubon  stage-ubo-named
    VertexClient,      // vtxc  stage-vertex-client
    IndexClient,       // idxc  stage-index-client
    IndirectCmd,       // icmd  stage-indirect-cmd
    PersistentMapPush, // pmap  persistent-map-push
    Residual,          // resid residual-value-block
    Count
};

// Early-out gates, in the order of the gates[...] bracket.
enum class Gate : Uint32 {
    EsprytRenderState,       // ers
    EsprytTextureSyncList,   // etl
    EsprytUnitBindingsEpoch, // eub
    MagmaDrawFastPath,       // mfp
    MagmaPipelineMemo,       // mpm
    MagmaDynamicTail,        // mdt
    Count
};

// Reads the MOBILEGL_PIPE_STATS* environment once and prints the banner.
void Init();
bool Enabled();
Uint32 Period();

// One frame ended (each backend's Present() calls this).
void OnPresent();

void AddDraws(Uint64 count);
void AddAccessorCalls(Uint64 count);
void AddBytes(Bytes cls, Uint64 bytes);
// One texture upload emission: a box (whole region, one job) or a rect list.
void AddTexUpload(bool box, Uint32 jobs);
void GateHit(Gate gate);
void GateMiss(Gate gate);
// Command payload bytes of one draw (per-draw histogram of the JSON dump).
void SampleDrawCommandBytes(Uint64 bytes);

#if MOBILEGL_PIPE_PUSH
enum class Emission : Uint32 {
    Framebuffer,       // fbe
    SamplerView,       // sve
    SamplerState,      // sse
    ShaderImage,       // sie
    ClientTexUpload,   // ctu
    TexRemintPull,     // trp
    ResidualPull,      // rsp
    VerbBoundary,      // vbs
    WireRecord,        // wrec
    Count
};
void OnCsoMint();
void OnCsoBind();
void OnMapPersistentAttempt();
void AddEmission(Emission emission);
void AddCsoBlobBytes(Uint64 bytes);
void SampleStagedBlobBytes(Uint64 bytes);
#endif

// The window line for the counters since the last summary line. Pure: it
// does not move the window base.
std::string FormatWindowLine();

// Logs FormatWindowLine() at INFO and moves the window base.
void EmitSummaryLine();

// Teardown: the partial window's line, then the JSON dump if one was asked
// for. Idempotent.
void Shutdown();

// Two-decimal fixed-point quotient, round half up; "n/a" for a zero denominator.
std::string Fixed2(Uint64 numerator, Uint64 denominator);

} // namespace MG_Util::PipeStats
