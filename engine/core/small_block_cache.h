// SPDX-License-Identifier: MIT
#pragma once

// The per-thread cache of small blocks and the allocators that draw from it. They are on the hot path of every small
// tensor's allocation, so they stay inline in tensor.cpp; only engine/core's storage code includes this header, never
// tensor.h.

#include "engine/core/sanitizer.h"
#include "engine/core/storage_cache.h"

#include <cstddef>
#include <cstdint>
#include <new>
#if ONNXSCOPE_ASAN
#include <sanitizer/asan_interface.h>
#endif

namespace onnxscope {

/// Recently freed blocks of small tensors (elements and control block, allocateInline()), by size, for the next
/// tensor of that size; one cache per thread, which takes the blocks that thread frees. A debug run keeps all its
/// outputs and frees them together at its end: malloc then merges neighbouring blocks and splits them again in the
/// next run, or keeps the few its own thread cache holds (7 of a size). hey_jarvis, 5000 runs, fastest: debug
/// 19.4-19.8 us with malloc alone, 17.2-18.4 us with malloc's thread cache unbounded (GLIBC_TUNABLES); plain runs
/// 15.0-15.5 either way; with this cache, 17.6-18.3 (medians 19.3 against 19.7-20.8 without). A cache shared by all
/// threads behind a mutex gave 18.3-18.8. Holds at most kLimit bytes; freed blocks are linked through their first
/// bytes. Not in sanitized builds, where malloc's own free lists catch a use after free.
class SmallBlockCache {
public:
    static constexpr size_t kLimit = size_t(16) << 20;
    static constexpr size_t kClasses = StorageCache::kMinBytes / 64; // n * 64 element bytes (0: shapes)

    ~SmallBlockCache()
    {
        clear();
        t_gone = true;
    }

    /// This thread's cache; null once the thread has destroyed it (blocks freed later go straight back to malloc).
    static SmallBlockCache* forThisThread()
    {
        if (!kOwnStorageBlocks || t_gone)
            return nullptr;
        thread_local SmallBlockCache cache;
        return &cache;
    }

    /// A block of `bytes` whose elements take `elementBytes` (a multiple of 64 below StorageCache::kMinBytes); null
    /// if none of that size is held.
    void* take(size_t bytes, size_t elementBytes)
    {
        FreeBlock*& head = m_free[elementBytes / 64];
        FreeBlock* block = head;
        if (block) {
            head = block->next;
            m_held -= bytes;
        }
        return block;
    }

    /// Keeps the block unless that would pass kLimit; false if not kept.
    bool give(void* p, size_t bytes, size_t elementBytes)
    {
        if (m_held + bytes > kLimit)
            return false;
        auto* block = static_cast<FreeBlock*>(p);
        block->next = m_free[elementBytes / 64];
        m_free[elementBytes / 64] = block;
        m_held += bytes;
        return true;
    }

    size_t held() const { return m_held; }

    void clear()
    {
        for (FreeBlock*& head : m_free)
            while (FreeBlock* block = head) {
                head = block->next;
                ::operator delete(block);
            }
        m_held = 0;
    }

private:
    struct FreeBlock {
        FreeBlock* next;
    };
    static inline thread_local bool t_gone = false;

    FreeBlock* m_free[kClasses] = {};
    size_t m_held = 0;
};

/// A block of `bytes` from this thread's SmallBlockCache, else from operator new.
inline void* takeSmallBlock(size_t bytes, size_t elementBytes)
{
    SmallBlockCache* cache = SmallBlockCache::forThisThread();
    if (void* p = cache ? cache->take(bytes, elementBytes) : nullptr)
        return p;
    return ::operator new(bytes);
}

/// Returns a block of takeSmallBlock() to this thread's cache, or to operator delete when the cache is full or gone.
inline void giveSmallBlock(void* p, size_t bytes, size_t elementBytes)
{
    SmallBlockCache* cache = SmallBlockCache::forThisThread();
    if (!cache || !cache->give(p, bytes, elementBytes))
        ::operator delete(p);
}

/// The allocator with which a small tensor's elements share one block with its shared_ptr's control block
/// (std::allocate_shared asks it for the control block): room for `elementBytes` more, beginning at the first 64-byte
/// boundary past the control block, whose address allocate() writes to `*data`. A separate aligned_alloc cost a
/// tensor two allocations, and glibc's memalign takes neither its thread cache nor its fast bins (hey_jarvis, whose
/// tensors are all small: plain runs 18 -> 16 us, debug runs 23 -> 20.5 us).
template <class T> struct InlineStorageAllocator {
    using value_type = T;

    size_t elementBytes = 0;
    void** data = nullptr;

    InlineStorageAllocator(size_t elementBytes, void** data)
        : elementBytes(elementBytes)
        , data(data)
    {
    }
    template <class U>
    InlineStorageAllocator(const InlineStorageAllocator<U>& other)
        : elementBytes(other.elementBytes)
        , data(other.data)
    {
    }

    /// The control block ends anywhere: up to 63 more bytes reach the next 64-byte boundary.
    size_t blockBytes(size_t n) const { return n * sizeof(T) + 63 + elementBytes; }

    T* allocate(size_t n)
    {
        auto* p = static_cast<char*>(takeSmallBlock(blockBytes(n), elementBytes));
        char* const head = p + n * sizeof(T);
        char* const elements = head + (64 - reinterpret_cast<uintptr_t>(head) % 64) % 64;
        *data = elements;
#if ONNXSCOPE_ASAN
        // AddressSanitizer sees the ends of the whole block: mark the padding on either side of the elements too.
        char* const end = elements + elementBytes;
        ASAN_POISON_MEMORY_REGION(head, static_cast<size_t>(elements - head));
        ASAN_POISON_MEMORY_REGION(end, static_cast<size_t>(p + blockBytes(n) - end));
#endif
        return reinterpret_cast<T*>(p);
    }
    void deallocate(T* p, size_t n)
    {
        giveSmallBlock(p, blockBytes(n), elementBytes);
    }

    template <class U> bool operator==(const InlineStorageAllocator<U>&) const
    {
        return true;
    }
};

/// The allocator of tensors' shared shapes: blocks from the thread's SmallBlockCache, in the size class that tensors'
/// elements never use (they take 64 bytes or more). A debug run keeps every output's shape until its end; with malloc,
/// each took a block from its slow path once its thread cache of 7 blocks of that size was empty.
template <class T> struct ShapeBlockAllocator {
    using value_type = T;
    static constexpr size_t kElementBytes = 0; // SmallBlockCache's size class 0, which holds these blocks only

    ShapeBlockAllocator() = default;
    template <class U> ShapeBlockAllocator(const ShapeBlockAllocator<U>&) { }
    T* allocate(size_t n) { return static_cast<T*>(takeSmallBlock(n * sizeof(T), kElementBytes)); }
    void deallocate(T* p, size_t n) { giveSmallBlock(p, n * sizeof(T), kElementBytes); }
    template <class U> bool operator==(const ShapeBlockAllocator<U>&) const { return true; }
};

} // namespace onnxscope
