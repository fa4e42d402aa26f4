// MobileGL driver fixture - MG_Test/consistency/SetterConsistency.cpp
// The setter-consistency test (G7): every member of kMGPipePipelineChunks has a
// setter whose DirtySurface.def answer moves NEW_PIPELINE_STATE, every member of
// kMGPipeDynamicChunks has one that moves NEW_RENDER_STATE without it, and every
// setter that moves NEW_PIPELINE_STATE writes a pipeline chunk. One test per
// chunk member, named after its setter; a failure names the member and setter.
// Built and run out of tree by run.sh (the `controls` gate's patch control).
#include <cstdio>
#include <cstring>

#include "MG_Pipe/PipeChunks.h"

namespace {

// The answers of DirtySurface.def as bits, so a row's answer is an expression.
enum : unsigned {
    NEW_RENDER_STATE = 1u << 0,
    NEW_PIPELINE_STATE = 1u << 1,
    NEW_PIXEL_PACK = 1u << 2,
    NEW_VERTEX_BUFFERS = 1u << 3,
    NEW_VERTEX_ELEMENTS = 1u << 4,
    NEW_SHADER = 1u << 5,
    NEW_SAMPLER_VIEWS = 1u << 6,
    NEW_FRAMEBUFFER = 1u << 7,
    NEW_VERTEX_ATTRIB_DEFAULTS = 1u << 8,
    NEW_CONSTANT_BUFFERS = 1u << 9,
    kNoBackendRead = 1u << 16,
    kImmediate = 1u << 17,
    kReverseChannel = 1u << 18,
    kExplicitDestroy = 1u << 19,
    kUnpublishedDestroy = 1u << 20,
    kPulledEveryVerb = 1u << 21,
    kPulledPartialShutter = 1u << 22,
};

struct Row {
    const char* Mutator;
    unsigned Answer;
};

#include "MG_Pipe/DirtySurface.def"

#define MGP_ROW(mutator, answer) {#mutator, (answer)},
constexpr Row kRows[] = {MGP_DIRTY_SURFACE_LIST(MGP_ROW)};
#undef MGP_ROW

const Row* Find(const char* setter) {
    for (const Row& row : kRows) {
        if (std::strcmp(row.Mutator, setter) == 0) {
            return &row;
        }
    }
    return nullptr;
}

bool InList(const MG_Pipe::ChunkMember* list, std::size_t n, const char* setter) {
    for (std::size_t i = 0; i < n; ++i) {
        if (std::strcmp(list[i].Setter, setter) == 0) {
            return true;
        }
    }
    return false;
}

int g_tests = 0;
int g_failed = 0;

void Check(const MG_Pipe::ChunkMember& m, bool pipeline) {
    ++g_tests;
    std::printf("[ RUN      ] SetterConsistency.%s\n", m.Setter);
    const Row* row = Find(m.Setter);
    const char* list = pipeline ? "kMGPipePipelineChunks" : "kMGPipeDynamicChunks";
    if (row == nullptr) {
        std::printf("FAIL SetterConsistency.%s: member %s is in %s, but DirtySurface.def has no row for %s\n",
                    m.Setter, m.Member, list, m.Setter);
        ++g_failed;
        return;
    }
    const bool movesPipeline = (row->Answer & NEW_PIPELINE_STATE) != 0;
    const bool movesRender = (row->Answer & NEW_RENDER_STATE) != 0;
    if (pipeline && !movesPipeline) {
        std::printf("FAIL SetterConsistency.%s: member %s is in %s, but DirtySurface.def publishes %s without "
                    "NEW_PIPELINE_STATE (its pipeline object would go stale)\n",
                    m.Setter, m.Member, list, m.Setter);
        ++g_failed;
        return;
    }
    if (!pipeline && (movesPipeline || !movesRender)) {
        std::printf("FAIL SetterConsistency.%s: member %s is in %s, but DirtySurface.def publishes %s %s\n",
                    m.Setter, m.Member, list, m.Setter,
                    movesPipeline ? "with NEW_PIPELINE_STATE (a pipeline rebuild per dynamic change)"
                                  : "without NEW_RENDER_STATE");
        ++g_failed;
        return;
    }
    std::printf("[       OK ] SetterConsistency.%s\n", m.Setter);
}

} // namespace

int main() {
    for (const MG_Pipe::ChunkMember& m : MG_Pipe::kMGPipePipelineChunks) {
        Check(m, true);
    }
    for (const MG_Pipe::ChunkMember& m : MG_Pipe::kMGPipeDynamicChunks) {
        Check(m, false);
    }
    // Coverage: a setter that moves NEW_PIPELINE_STATE must write a pipeline chunk.
    ++g_tests;
    std::printf("[ RUN      ] SetterConsistency.Coverage\n");
    const int before = g_failed;
    for (const Row& row : kRows) {
        if ((row.Answer & NEW_PIPELINE_STATE) != 0 &&
            !InList(MG_Pipe::kMGPipePipelineChunks, sizeof MG_Pipe::kMGPipePipelineChunks / sizeof(MG_Pipe::ChunkMember),
                    row.Mutator)) {
            std::printf("FAIL SetterConsistency.Coverage: %s moves NEW_PIPELINE_STATE but writes no member of "
                        "kMGPipePipelineChunks\n",
                        row.Mutator);
            ++g_failed;
        }
    }
    if (g_failed == before) {
        std::printf("[       OK ] SetterConsistency.Coverage\n");
    }
    std::printf("%d tests, %d failed\n", g_tests, g_failed);
    return g_failed == 0 ? 0 : 1;
}
