// MobileGL driver fixture - MG_Util/Metrics/PipeStats.cpp
#include "MG_Util/Metrics/PipeStats.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "MG_Util/Debug/Log.h"

namespace MG_Util::PipeStats {
namespace {

constexpr Uint32 kBytesCount = static_cast<Uint32>(Bytes::Count);
constexpr Uint32 kGateCount = static_cast<Uint32>(Gate::Count);

// Run totals. A window is the difference between two snapshots of this.
struct Counters {
    Uint64 frames = 0;
    Uint64 draws = 0;
    Uint64 accessorCalls = 0;
    Uint64 bytes[kBytesCount] = {};
    Uint64 texEmit = 0;
    Uint64 texBox = 0;
    Uint64 texRect = 0;
    Uint64 texJobs = 0;
    Uint64 gateHit[kGateCount] = {};
    Uint64 gateMiss[kGateCount] = {};
};

struct Runtime {
    bool enabled = false;
    bool shutDown = false;
    Uint32 period = kDefaultSummaryFramePeriod;
    std::string dumpPath;
    Counters run;
    Counters base;
    Uint64 drawCommandHistogram[kHistogramBuckets] = {};
};

Runtime g_stats;

const char* const kBytesShort[kBytesCount] = {"buf", "tex", "ubog", "ubon", "vtxc", "idxc", "icmd", "pmap", "resid"};
const char* const kBytesLong[kBytesCount] = {
    "stage-buffer",        "stage-texture",      "stage-ubo-global",    "stage-ubo-named",     "stage-vertex-client",
    "stage-index-client",  "stage-indirect-cmd", "persistent-map-push", "residual-value-block"};
const char* const kGateShort[kGateCount] = {"ers", "etl", "eub", "mfp", "mpm", "mdt"};
const char* const kGateLong[kGateCount] = {"espryt-render-state",        "espryt-texture-sync-list",
                                           "espryt-unit-bindings-epoch", "magma-draw-fastpath",
                                           "magma-pipeline-memo",        "magma-dynamic-tail"};

Uint32 HistogramBucket(Uint64 bytes) {
    // Bucket 0 holds exactly 0 bytes; bucket k holds [2^(k-1), 2^k); the last saturates.
    Uint32 bucket = 0;
    while (bytes != 0 && bucket < kHistogramBuckets - 1) {
        bytes >>= 1;
        ++bucket;
    }
    return bucket;
}

std::string U(Uint64 value) {
    return std::to_string(value);
}

// bytes/f[...] (a window with frames) or bytes[...] totals (window == 0).
void AppendBytes(std::string& line, const Uint64* now, const Uint64* base, const char* const* names, Uint32 count,
                 Uint64 window) {
    for (Uint32 i = 0; i < count; ++i) {
        const Uint64 delta = now[i] - base[i];
        line += ' ';
        line += names[i];
        line += '=';
        line += window == 0 ? U(delta) : Fixed2(delta, window);
    }
}

bool EnvFlag(const char* name) {
    const char* value = std::getenv(name);
    return value != nullptr && value[0] != '\0' && std::strcmp(value, "0") != 0 && std::strcmp(value, "false") != 0;
}

#if MOBILEGL_PIPE_PUSH
constexpr Uint32 kEmissionCount = static_cast<Uint32>(Emission::Count);
const char* const kEmissionShort[kEmissionCount] = {"fbe", "sve", "sse", "sie", "ctu", "trp", "rsp", "vbs", "wrec"};
const char* const kEmissionLong[kEmissionCount] = {
    "framebuffer-emissions",       "sampler-view-emissions", "sampler-state-emissions",
    "shader-image-emissions",      "client-tex-upload-emissions", "tex-remint-pulls",
    "residual-pulls",              "server-verb-boundaries", "wire-records"};

// Push-only counters live apart from Counters so that a pull build's
// functions and objects keep their exact size.
struct PushCounters {
    Uint64 csoBlobBytes = 0;
    Uint64 segmentBytes = 0;
    Uint64 csoMints = 0;
    Uint64 csoBinds = 0;
    Uint64 mapPersistent = 0;
    Uint64 emissions[kEmissionCount] = {};
};

struct PushRuntime {
    PushCounters run;
    PushCounters base;
    // Gauges of the wire; this fixture has no wire encoder, so they stay 0 and
    // maxcap reads 0 ("no wire producer in this process").
    Uint64 maxRecordBytes = 0;
    Uint64 maxRecordCap = 0;
    Uint64 ringWraps = 0;
    Uint64 ringPads = 0;
    Uint64 ringWaits = 0;
    Uint64 serverWaits = 0;
    Uint64 serverParks = 0;
    Uint64 clientWaits = 0;
    Uint64 clientParks = 0;
    Uint64 stagedBlobHistogram[kHistogramBuckets] = {};
};

PushRuntime g_push;

void AppendPushBrackets(std::string& line, Uint64 window) {
    const PushCounters& now = g_push.run;
    const PushCounters& base = g_push.base;
    line += " cso[csom=" + U(now.csoMints - base.csoMints) + " csob=" + U(now.csoBinds - base.csoBinds) +
            " mpr=" + U(now.mapPersistent - base.mapPersistent) + "]";
    line += " emit[";
    for (Uint32 i = 0; i < kEmissionCount; ++i) {
        const Uint64 delta = now.emissions[i] - base.emissions[i];
        if (i != 0) {
            line += ' ';
        }
        line += kEmissionShort[i];
        line += '=';
        line += U(delta);
        if (static_cast<Emission>(i) == Emission::WireRecord) {
            line += " wrec/f=";
            line += window == 0 ? U(delta) : Fixed2(delta, window);
        }
    }
    line += " maxrec=" + U(g_push.maxRecordBytes) + " maxcap=" + U(g_push.maxRecordCap) +
            " ringwraps=" + U(g_push.ringWraps) + " ringpads=" + U(g_push.ringPads) +
            " ringwaits=" + U(g_push.ringWaits) + "]";
    line += " wait[srv=" + U(g_push.serverWaits) + " srvpark=" + U(g_push.serverParks) +
            " cli=" + U(g_push.clientWaits) + " clipark=" + U(g_push.clientParks) + "]";
}
#endif

void AppendHistogram(std::string& out, const Uint64* buckets) {
    out += '[';
    for (Uint32 i = 0; i < kHistogramBuckets; ++i) {
        if (i != 0) {
            out += ", ";
        }
        out += U(buckets[i]);
    }
    out += ']';
}

// The run totals, hand-written in the upstream key order.
std::string FormatJsonDump() {
    const Counters& run = g_stats.run;
    std::string out = "{\n";
    out += "  \"frames\": " + U(run.frames) + ",\n";
    out += "  \"bytes\": {\n";
    for (Uint32 i = 0; i < kBytesCount; ++i) {
        out += "    \"" + std::string(kBytesLong[i]) + "\": " + U(run.bytes[i]);
#if MOBILEGL_PIPE_PUSH
        out += ",\n";
#else
        out += i + 1 == kBytesCount ? "\n" : ",\n";
#endif
    }
#if MOBILEGL_PIPE_PUSH
    out += "    \"cso-blob-bytes\": " + U(g_push.run.csoBlobBytes) + ",\n";
    out += "    \"stage-segment-bytes\": " + U(g_push.run.segmentBytes) + "\n";
#endif
    out += "  },\n";
    out += "  \"calls\": {\n";
    out += "    \"draws\": " + U(run.draws) + ",\n";
    out += "    \"accessor-calls\": " + U(run.accessorCalls) + ",\n";
    out += "    \"tex-upload-emissions\": " + U(run.texEmit) + ",\n";
    out += "    \"tex-upload-box\": " + U(run.texBox) + ",\n";
    out += "    \"tex-upload-rect\": " + U(run.texRect) + ",\n";
#if MOBILEGL_PIPE_PUSH
    out += "    \"tex-upload-jobs\": " + U(run.texJobs) + ",\n";
    out += "    \"render-state-cso-mints\": " + U(g_push.run.csoMints) + ",\n";
    out += "    \"render-state-cso-binds\": " + U(g_push.run.csoBinds) + ",\n";
    out += "    \"map-persistent-roundtrips\": " + U(g_push.run.mapPersistent) + ",\n";
    for (Uint32 i = 0; i < kEmissionCount; ++i) {
        out += "    \"" + std::string(kEmissionLong[i]) + "\": " + U(g_push.run.emissions[i]);
        out += i + 1 == kEmissionCount ? "\n" : ",\n";
    }
#else
    out += "    \"tex-upload-jobs\": " + U(run.texJobs) + "\n";
#endif
    out += "  },\n";
    out += "  \"gates\": {\n";
    for (Uint32 i = 0; i < kGateCount; ++i) {
        out += "    \"" + std::string(kGateLong[i]) + "\": {\"hit\": " + U(run.gateHit[i]) +
               ", \"miss\": " + U(run.gateMiss[i]) + "}";
        out += i + 1 == kGateCount ? "\n" : ",\n";
    }
    out += "  },\n";
#if MOBILEGL_PIPE_PUSH
    out += "  \"wire\": {\n";
    out += "    \"max-record-bytes\": " + U(g_push.maxRecordBytes) + ",\n";
    out += "    \"max-record-bytes-cap\": " + U(g_push.maxRecordCap) + ",\n";
    out += "    \"ring-wraps\": " + U(g_push.ringWraps) + ",\n";
    out += "    \"ring-wrap-pads\": " + U(g_push.ringPads) + ",\n";
    out += "    \"ring-waits\": " + U(g_push.ringWaits) + ",\n";
    out += "    \"server-waits\": " + U(g_push.serverWaits) + ",\n";
    out += "    \"server-parks\": " + U(g_push.serverParks) + ",\n";
    out += "    \"client-waits\": " + U(g_push.clientWaits) + ",\n";
    out += "    \"client-parks\": " + U(g_push.clientParks) + "\n";
    out += "  },\n";
#endif
    out += "  \"cmd-bytes-per-draw-histogram\": ";
    AppendHistogram(out, g_stats.drawCommandHistogram);
#if MOBILEGL_PIPE_PUSH
    out += ",\n  \"staged-blob-bytes-histogram\": ";
    AppendHistogram(out, g_push.stagedBlobHistogram);
#endif
    out += "\n}\n";
    return out;
}

void WriteJsonDump() {
    const std::string& path = g_stats.dumpPath;
    std::FILE* file = std::fopen(path.c_str(), "w");
    if (file == nullptr) {
        MGLOG_W("PipeStats: could not open MOBILEGL_PIPE_STATS_FILE='%s' for writing", path.c_str());
        return;
    }
    const std::string text = FormatJsonDump();
    const bool ok = std::fwrite(text.data(), 1, text.size(), file) == text.size();
    const bool closed = std::fclose(file) == 0;
    if (!ok || !closed) {
        MGLOG_W("PipeStats: failed writing MOBILEGL_PIPE_STATS_FILE='%s'", path.c_str());
        return;
    }
    MGLOG_I("MGPipe stats: wrote JSON dump to %s", path.c_str());
}

} // namespace

std::string Fixed2(Uint64 numerator, Uint64 denominator) {
    if (denominator == 0) {
        return "n/a";
    }
    const Uint64 hundredths = (numerator * 100 + denominator / 2) / denominator;
    const Uint64 fraction = hundredths % 100;
    return U(hundredths / 100) + (fraction < 10 ? ".0" : ".") + U(fraction);
}

void Init() {
    g_stats = Runtime{};
#if MOBILEGL_PIPE_PUSH
    g_push = PushRuntime{};
#endif
    g_stats.enabled = EnvFlag("MOBILEGL_PIPE_STATS");
    if (!g_stats.enabled) {
        return;
    }
    const char* period = std::getenv("MOBILEGL_PIPE_STATS_PERIOD");
    if (period != nullptr) {
        const long parsed = std::strtol(period, nullptr, 10);
        g_stats.period = parsed > 0 ? static_cast<Uint32>(parsed) : kDefaultSummaryFramePeriod;
    }
    const char* dump = std::getenv("MOBILEGL_PIPE_STATS_FILE");
    if (dump != nullptr && dump[0] != '\0') {
        g_stats.dumpPath = dump;
        MGLOG_I("MGPipe stats: counters ON (MOBILEGL_PIPE_STATS), summary every %u frames, JSON dump to %s",
                g_stats.period, dump);
    } else {
        MGLOG_I("MGPipe stats: counters ON (MOBILEGL_PIPE_STATS), summary every %u frames", g_stats.period);
    }
}

bool Enabled() {
    return g_stats.enabled;
}

Uint32 Period() {
    return g_stats.period;
}

void OnPresent() {
    if (!g_stats.enabled) {
        return;
    }
    ++g_stats.run.frames;
    if (g_stats.run.frames % g_stats.period == 0) {
        EmitSummaryLine();
    }
}

void AddDraws(Uint64 count) {
    g_stats.run.draws += count;
}

void AddAccessorCalls(Uint64 count) {
    g_stats.run.accessorCalls += count;
}

void AddBytes(Bytes cls, Uint64 bytes) {
    g_stats.run.bytes[static_cast<Uint32>(cls)] += bytes;
}

void AddTexUpload(bool box, Uint32 jobs) {
    ++g_stats.run.texEmit;
    if (box) {
        ++g_stats.run.texBox;
    } else {
        ++g_stats.run.texRect;
    }
    g_stats.run.texJobs += jobs;
}

void GateHit(Gate gate) {
    ++g_stats.run.gateHit[static_cast<Uint32>(gate)];
}

void GateMiss(Gate gate) {
    ++g_stats.run.gateMiss[static_cast<Uint32>(gate)];
}

void SampleDrawCommandBytes(Uint64 bytes) {
    ++g_stats.drawCommandHistogram[HistogramBucket(bytes)];
}

#if MOBILEGL_PIPE_PUSH
void OnCsoMint() {
    ++g_push.run.csoMints;
}

void OnCsoBind() {
    ++g_push.run.csoBinds;
}

void OnMapPersistentAttempt() {
    ++g_push.run.mapPersistent;
}

void AddEmission(Emission emission) {
    ++g_push.run.emissions[static_cast<Uint32>(emission)];
}

void AddCsoBlobBytes(Uint64 bytes) {
    g_push.run.csoBlobBytes += bytes;
    ++g_push.stagedBlobHistogram[HistogramBucket(bytes)];
}

void SampleStagedBlobBytes(Uint64 bytes) {
    ++g_push.stagedBlobHistogram[HistogramBucket(bytes)];
}
#endif

std::string FormatWindowLine() {
    const Counters& now = g_stats.run;
    const Counters& base = g_stats.base;
    const Uint64 window = now.frames - base.frames;
    const Uint64 draws = now.draws - base.draws;
    const Uint64 acc = now.accessorCalls - base.accessorCalls;

    std::string line = "MGPipe stats: frames=" + U(now.frames) + " window=" + U(window) + " draws=" + U(draws) +
                       " draws/f=" + Fixed2(draws, window) + " acc=" + U(acc) + " acc/draw=" + Fixed2(acc, draws);
    line += window == 0 ? " bytes[" : " bytes/f[";
    AppendBytes(line, now.bytes, base.bytes, kBytesShort, kBytesCount, window);
    line.erase(line.find('[') + 1, 1); // no space after the opening bracket
#if MOBILEGL_PIPE_PUSH
    line += " csob-blob=";
    line += window == 0 ? U(g_push.run.csoBlobBytes - g_push.base.csoBlobBytes)
                        : Fixed2(g_push.run.csoBlobBytes - g_push.base.csoBlobBytes, window);
    line += " seg=";
    line += window == 0 ? U(g_push.run.segmentBytes - g_push.base.segmentBytes)
                        : Fixed2(g_push.run.segmentBytes - g_push.base.segmentBytes, window);
#endif
    line += "] tex[emit=" + U(now.texEmit - base.texEmit) + " box=" + U(now.texBox - base.texBox) +
            " rect=" + U(now.texRect - base.texRect) + " jobs=" + U(now.texJobs - base.texJobs) + "]";
#if MOBILEGL_PIPE_PUSH
    AppendPushBrackets(line, window);
#endif
    line += " gates[";
    for (Uint32 i = 0; i < kGateCount; ++i) {
        if (i != 0) {
            line += ' ';
        }
        line += kGateShort[i];
        line += '=';
        line += U(now.gateHit[i] - base.gateHit[i]) + "/" + U(now.gateMiss[i] - base.gateMiss[i]);
    }
    line += ']';
    return line;
}

void EmitSummaryLine() {
    const std::string line = FormatWindowLine();
    MGLOG_I("%s", line.c_str());
    g_stats.base = g_stats.run;
#if MOBILEGL_PIPE_PUSH
    g_push.base = g_push.run;
#endif
}

void Shutdown() {
    if (!g_stats.enabled || g_stats.shutDown) {
        return;
    }
    g_stats.shutDown = true;
    EmitSummaryLine();
    if (!g_stats.dumpPath.empty()) {
        WriteJsonDump();
    }
}

} // namespace MG_Util::PipeStats
