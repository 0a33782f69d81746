// SPDX-License-Identifier: MIT
#pragma once

#include "engine/core/sanitizer.h"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

namespace onnxscope {

/// The machine's physical memory in bytes; the largest size_t if the system does not say.
size_t physicalMemory();

/// Whether tensor storage is kept in the engine's own caches (the block arena, the small-block caches) and malloc's
/// thresholds are set. AddressSanitizer sees overflows and uses after free only in memory straight from malloc:
/// sanitized builds keep every block there.
inline constexpr bool kOwnStorageBlocks = !ONNXSCOPE_ASAN;

/// Address space for the storage cache's blocks, mapped from the system in chunks that ask for transparent huge pages
/// (madvise(MADV_HUGEPAGE), which Debian's default THP mode "madvise" honours). A debug run keeps every intermediate:
/// ocr_det writes 659 MiB per run, and with 4 KiB pages the first run faulted 184 000 of them (1.7 s on this VM) and
/// every run missed the TLB on most. Blocks are carved one after the other from 256 MiB chunks; a block larger than a
/// quarter of that is a mapping of its own. Chunks are never unmapped: a block whose memory is given back
/// (release()) keeps its address range for the next block of its size. Not thread-safe: StorageCache locks.
class BlockArena {
public:
    static constexpr size_t kHugePage = size_t(2) << 20;
    static constexpr size_t kChunk = size_t(256) << 20;

    static bool ownMapping(size_t bytes) { return bytes > kChunk / 4; }
    static size_t toHugePages(size_t bytes) { return (bytes + kHugePage - 1) / kHugePage * kHugePage; }

    /// A new block of `bytes` (a multiple of the page size), or null when the system refuses the mapping.
    void* allocate(size_t bytes);

    /// Gives the block's memory back to the system. A block in a chunk keeps its address range (reusable for a block
    /// of the same size, which faults in fresh pages); a block of its own is unmapped, and `true` says so.
    static bool release(void* p, size_t bytes);

private:
    /// `bytes` (a multiple of kHugePage) of fresh memory at an address aligned to kHugePage.
    static void* map(size_t bytes);

    char* m_chunk = nullptr;
    size_t m_used = 0;
};

/// Recently freed large blocks, by size, for the next tensor of that size: a run allocates the same shapes again
/// and again, and fresh memory costs a page fault per page. Holds at most limit() bytes; the memory of blocks beyond
/// that goes back to the system. Blocks come from the BlockArena (except in sanitized builds, or when the system
/// refuses a mapping: then from malloc, and back to free). Tensor storage of kMinBytes and more comes from here.
class StorageCache {
public:
    static constexpr size_t kMinBytes = size_t(64) << 10;

    std::atomic<size_t> limit { std::min(size_t(1) << 30, physicalMemory() / 8) };

    StorageCache();

    /// A block of `bytes` (a multiple of the page size) and whether it is the arena's.
    std::pair<void*, bool> take(size_t bytes);
    void give(void* p, size_t bytes, bool arena);
    void clear();
    size_t held();

private:
    struct Block {
        void* p = nullptr;
        bool arena = false; // from the BlockArena, else from malloc
    };
    using Blocks = std::unordered_map<size_t, std::vector<Block>>;

    /// The last block of this size in `from`, taken out of it; a null block if there is none.
    static Block pop(Blocks& from, size_t bytes);
    /// Gives the block's memory back to the system (m_mutex held).
    void discard(Block block, size_t bytes);

    std::mutex m_mutex;
    BlockArena m_arena;
    Blocks m_free; // held: their memory is resident, counted in m_held
    Blocks m_released; // arena address ranges whose memory went back to the system
    size_t m_held = 0;
};

/// The process's storage cache. Never destroyed: tensors may be released during static destruction.
StorageCache& storageCache();

} // namespace onnxscope
