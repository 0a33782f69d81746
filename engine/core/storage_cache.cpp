// SPDX-License-Identifier: MIT
#include "engine/core/storage_cache.h"

#include <cstdint>
#include <cstdlib>
#include <limits>
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

namespace onnxscope {

size_t physicalMemory()
{
    long pages = sysconf(_SC_PHYS_PAGES);
    long pageSize = sysconf(_SC_PAGE_SIZE);
    if (pages <= 0 || pageSize <= 0)
        return std::numeric_limits<size_t>::max();
    return static_cast<size_t>(pages) * static_cast<size_t>(pageSize);
}

void* BlockArena::allocate(size_t bytes)
{
    if (ownMapping(bytes))
        return map(toHugePages(bytes));
    if (!m_chunk || m_used + bytes > kChunk) {
        // The rest of the previous chunk is address space only: it was never touched.
        m_chunk = static_cast<char*>(map(kChunk));
        m_used = 0;
        if (!m_chunk)
            return nullptr;
    }
    void* p = m_chunk + m_used;
    m_used += bytes;
    return p;
}

bool BlockArena::release(void* p, size_t bytes)
{
    if (ownMapping(bytes)) {
        munmap(p, toHugePages(bytes));
        return true;
    }
    madvise(p, bytes, MADV_DONTNEED);
    return false;
}

void* BlockArena::map(size_t bytes)
{
    void* raw = mmap(nullptr, bytes + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED)
        return nullptr;
    const auto start = reinterpret_cast<uintptr_t>(raw);
    const uintptr_t aligned = toHugePages(start);
    if (aligned > start)
        munmap(raw, aligned - start);
    if (const uintptr_t tail = start + kHugePage - aligned) // what is left of the mapping past aligned + bytes
        munmap(reinterpret_cast<void*>(aligned + bytes), tail);
    void* p = reinterpret_cast<void*>(aligned);
    madvise(p, bytes, MADV_HUGEPAGE); // a hint: without THP the block works the same with small pages
    return p;
}

StorageCache::StorageCache()
{
    // Smaller tensors and the kernels' buffers stay with malloc. glibc returns the top of its heap to the system
    // when more than 128 KiB are free there, and raises that bound (and the size from which it maps blocks) only
    // after freeing a mapped block: with large tensors no longer coming from malloc, that took several runs, and
    // until then each debug run of ocr_cls, which keeps ~2 MiB of small tensors, faulted them in again (535 faults,
    // 7 ms a run). These are the values glibc's own adjustment reaches (32 MiB, twice that for trimming).
    if (kOwnStorageBlocks) {
        mallopt(M_MMAP_THRESHOLD, 32 << 20);
        mallopt(M_TRIM_THRESHOLD, 64 << 20);
    }
}

std::pair<void*, bool> StorageCache::take(size_t bytes)
{
    std::lock_guard lock(m_mutex);
    if (Block block = pop(m_free, bytes); block.p) {
        m_held -= bytes;
        return { block.p, block.arena };
    }
    if (Block block = pop(m_released, bytes); block.p)
        return { block.p, true };
    if (void* p = kOwnStorageBlocks ? m_arena.allocate(bytes) : nullptr)
        return { p, true };
    return { std::aligned_alloc(64, bytes), false };
}

void StorageCache::give(void* p, size_t bytes, bool arena)
{
    std::lock_guard lock(m_mutex);
    if (m_held + bytes <= limit.load(std::memory_order_relaxed)) {
        m_free[bytes].push_back({ p, arena });
        m_held += bytes;
        return;
    }
    discard({ p, arena }, bytes);
}

void StorageCache::clear()
{
    std::lock_guard lock(m_mutex);
    for (auto& [bytes, blocks] : m_free)
        for (const Block& block : blocks)
            discard(block, bytes);
    m_free.clear();
    m_held = 0;
}

size_t StorageCache::held()
{
    std::lock_guard lock(m_mutex);
    return m_held;
}

StorageCache::Block StorageCache::pop(Blocks& from, size_t bytes)
{
    auto it = from.find(bytes);
    if (it == from.end() || it->second.empty())
        return { nullptr, false };
    Block block = it->second.back();
    it->second.pop_back();
    return block;
}

void StorageCache::discard(Block block, size_t bytes)
{
    if (!block.arena)
        std::free(block.p);
    else if (!BlockArena::release(block.p, bytes))
        m_released[bytes].push_back(block);
}

StorageCache& storageCache()
{
    static StorageCache* cache = new StorageCache;
    return *cache;
}

} // namespace onnxscope
