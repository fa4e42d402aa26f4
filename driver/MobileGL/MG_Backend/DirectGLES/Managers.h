// MobileGL driver fixture - MG_Backend/DirectGLES/Managers.h
// Backend-side resource bookkeeping of DirectGLES: a pool of recycled buffer
// blocks and a streaming ring for uploads. These functions are the "untouched
// regions" of the disaggregation phase: they move verbatim while the rest of
// the backend is rewritten around them, and the regions gate pins their hashes.
#pragma once

#include <vector>

#include "MG_Backend/Common/CommandRecorder.h"
#include "MG_Pipe/MGPipeValueTypes.h"

namespace DirectGLES {

struct PooledBlock {
    Uint32 Id = 0;
    Uint64 Size = 0;
    Uint64 RetireFrame = 0;
};

struct BufferPool {
    std::vector<PooledBlock> Free;
    std::vector<PooledBlock> Retiring;
    Uint64 FreeBytes = 0;
    Uint32 NextId = 1;
    Uint64 Hits = 0;
    Uint64 Misses = 0;
};

struct PendingRange {
    Uint64 Offset = 0;
    Uint64 Size = 0;
};

struct StreamRing {
    Uint64 Capacity = 0;
    Uint64 Head = 0;
    Uint64 Tail = 0;
    Uint64 Wraps = 0;
    std::vector<PendingRange> Pending;
    Uint64 FlushedBytes = 0;
};

constexpr Uint64 kPoolableMaxBytes = 1u << 20;
constexpr Uint64 kPoolRetainBytes = 8u << 20;
constexpr Uint64 kRetireLatencyFrames = 2;

bool IsPoolable(Uint64 size, GLenum usage);
void EnrollIntoPool(BufferPool& pool, const PooledBlock& block, Uint64 frame);
PooledBlock AcquireFromPool(BufferPool& pool, Uint64 size);
void TrimBufferPool(BufferPool& pool, Uint64 retainBytes);
void ClearBufferPool(BufferPool& pool);
Uint32 ProcessDeferredBufferReleases(BufferPool& pool, Uint64 frame);

StreamRing CreateRingStorage(Uint64 capacity);
bool RingAvailable(const StreamRing& ring, Uint64 size, Uint64 alignment);
Uint64 RingAllocate(StreamRing& ring, Uint64 size, Uint64 alignment);
Uint64 FlushPendingRangesNow(StreamRing& ring, MG_Backend::CommandRecorder& recorder);
Uint64 FlushPendingRangesFrom(StreamRing& ring, std::size_t first, MG_Backend::CommandRecorder& recorder);

} // namespace DirectGLES
