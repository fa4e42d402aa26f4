// MobileGL driver fixture - MG_Backend/DirectGLES/Managers.cpp
#include "MG_Backend/DirectGLES/Managers.h"

#include <algorithm>

namespace DirectGLES {

bool IsPoolable(Uint64 size, GLenum usage) {
    // Static data is allocated once and kept; only churned storage is recycled.
    return size != 0 && size <= kPoolableMaxBytes && (usage == GL_STREAM_DRAW || usage == GL_DYNAMIC_DRAW);
}

void EnrollIntoPool(BufferPool& pool, const PooledBlock& block, Uint64 frame) {
    // A released block may still be read by frames in flight: park it first.
    PooledBlock parked = block;
    parked.RetireFrame = frame + kRetireLatencyFrames;
    pool.Retiring.push_back(parked);
}

PooledBlock AcquireFromPool(BufferPool& pool, Uint64 size) {
    // Best fit among the free blocks: the smallest one that is large enough.
    std::size_t best = pool.Free.size();
    for (std::size_t i = 0; i < pool.Free.size(); ++i) {
        if (pool.Free[i].Size >= size && (best == pool.Free.size() || pool.Free[i].Size < pool.Free[best].Size)) {
            best = i;
        }
    }
    if (best == pool.Free.size()) {
        ++pool.Misses;
        PooledBlock fresh;
        fresh.Id = pool.NextId++;
        fresh.Size = size;
        return fresh;
    }
    ++pool.Hits;
    PooledBlock found = pool.Free[best];
    pool.Free[best] = pool.Free.back();
    pool.Free.pop_back();
    pool.FreeBytes -= found.Size;
    return found;
}

void TrimBufferPool(BufferPool& pool, Uint64 retainBytes) {
    // Drop the largest free blocks first until the pool fits its budget.
    std::sort(pool.Free.begin(), pool.Free.end(),
              [](const PooledBlock& a, const PooledBlock& b) { return a.Size < b.Size; });
    while (pool.FreeBytes > retainBytes && !pool.Free.empty()) {
        pool.FreeBytes -= pool.Free.back().Size;
        pool.Free.pop_back();
    }
}

void ClearBufferPool(BufferPool& pool) {
    pool.Free.clear();
    pool.Retiring.clear();
    pool.FreeBytes = 0;
}

Uint32 ProcessDeferredBufferReleases(BufferPool& pool, Uint64 frame) {
    Uint32 released = 0;
    std::size_t keep = 0;
    for (std::size_t i = 0; i < pool.Retiring.size(); ++i) {
        const PooledBlock& block = pool.Retiring[i];
        if (block.RetireFrame <= frame) {
            pool.Free.push_back(block);
            pool.FreeBytes += block.Size;
            ++released;
        } else {
            pool.Retiring[keep++] = block;
        }
    }
    pool.Retiring.resize(keep);
    return released;
}

StreamRing CreateRingStorage(Uint64 capacity) {
    StreamRing ring;
    ring.Capacity = capacity;
    ring.Pending.reserve(64);
    return ring;
}

bool RingAvailable(const StreamRing& ring, Uint64 size, Uint64 alignment) {
    if (size > ring.Capacity) {
        return false;
    }
    const Uint64 aligned = (ring.Head + alignment - 1) / alignment * alignment;
    if (aligned + size <= ring.Capacity) {
        return true;
    }
    // Wrapping restarts at 0; the space in front of the tail must hold it.
    return size <= ring.Tail;
}

Uint64 RingAllocate(StreamRing& ring, Uint64 size, Uint64 alignment) {
    Uint64 offset = (ring.Head + alignment - 1) / alignment * alignment;
    if (offset + size > ring.Capacity) {
        offset = 0;
        ++ring.Wraps;
    }
    ring.Head = offset + size;
    ring.Pending.push_back(PendingRange{offset, size});
    return offset;
}

Uint64 FlushPendingRangesNow(StreamRing& ring, MG_Backend::CommandRecorder& recorder) {
    const Uint64 flushed = FlushPendingRangesFrom(ring, 0, recorder);
    ring.Tail = ring.Head;
    return flushed;
}

Uint64 FlushPendingRangesFrom(StreamRing& ring, std::size_t first, MG_Backend::CommandRecorder& recorder) {
    Uint64 bytes = 0;
    for (std::size_t i = first; i < ring.Pending.size(); ++i) {
        const PendingRange& range = ring.Pending[i];
        recorder.Record(MG_Backend::CommandOp::GlesBufferUpload, 0, static_cast<Uint32>(range.Offset), 0, range.Size);
        bytes += range.Size;
    }
    ring.Pending.resize(first);
    ring.FlushedBytes += bytes;
    return bytes;
}

} // namespace DirectGLES
