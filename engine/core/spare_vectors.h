// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <vector>

namespace onnxscope {

/// Emptied vectors that each thread keeps, by element type, for the vectors it makes next: the value vectors of
/// finished frames and the debugger's recorded values. Each is a block that malloc takes from its large bins, after
/// first merging every small block freed since (malloc_consolidate), which a run's small allocations then split again.
/// A debug run frees all its small blocks together at its end, so it paid that at every frame it entered and for its
/// recorded values (hey_jarvis: 13 600 instructions of _int_malloc and 4 100 of malloc_consolidate per keep-values
/// run). At most kMaxKept vectors of at most kMaxElements each, kMaxBytes in all, are kept per thread and type.
template <class T> class SpareVectors {
public:
    static constexpr size_t kMaxKept = 16;
    static constexpr size_t kMaxElements = size_t(1) << 16;
    static constexpr size_t kMaxBytes = size_t(16) << 20;

    ~SpareVectors() { t_gone = true; }

    /// An empty vector with room for `n` elements: a kept one that has the room, else a new one.
    static std::vector<T> take(size_t n)
    {
        std::vector<T> v;
        if (SpareVectors* spare = forThisThread()) {
            auto& kept = spare->m_kept;
            for (size_t i = kept.size(); i-- > 0;)
                if (kept[i].capacity() >= n) {
                    spare->m_bytes -= kept[i].capacity() * sizeof(T);
                    v = std::move(kept[i]);
                    kept.erase(kept.begin() + static_cast<std::ptrdiff_t>(i));
                    return v;
                }
        }
        v.reserve(n);
        return v;
    }

    /// Empties `v` (destroying its elements) and keeps its block for a later take(), unless it is too large or
    /// enough are kept.
    static void give(std::vector<T>& v)
    {
        v.clear();
        SpareVectors* spare = forThisThread();
        const size_t bytes = v.capacity() * sizeof(T);
        if (!spare || v.capacity() == 0 || v.capacity() > kMaxElements || spare->m_kept.size() >= kMaxKept
            || spare->m_bytes + bytes > kMaxBytes)
            return;
        spare->m_kept.push_back(std::move(v));
        spare->m_bytes += bytes;
    }

private:
    /// Null once the thread has destroyed its spares (vectors given later are freed).
    static SpareVectors* forThisThread()
    {
        if (t_gone)
            return nullptr;
        thread_local SpareVectors spare;
        return &spare;
    }

    inline static thread_local bool t_gone = false;
    std::vector<std::vector<T>> m_kept;
    size_t m_bytes = 0; // capacity of the kept vectors
};

} // namespace onnxscope
