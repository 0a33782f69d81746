// SPDX-License-Identifier: MIT
#pragma once

#include "engine/core/storage_cache.h"

#include <algorithm>
#include <map>
#include <mutex>

namespace onnxscope {

/// The storage cache keeps freed tensor memory resident (up to a GiB) for the next tensor of the same size. The values
/// a debug run drops go there too, so a small budget would not show in the process's memory: while debuggers exist,
/// the cache holds at most half the smallest budget among them.
class CacheLimit {
public:
    static void set(const void* debugger, size_t budget)
    {
        std::lock_guard lock(mutex());
        auto& all = budgets();
        if (all.empty())
            saved() = storageCache().limit.load();
        all[debugger] = budget;
        apply();
    }
    static void unset(const void* debugger)
    {
        std::lock_guard lock(mutex());
        if (budgets().erase(debugger))
            apply();
    }

private:
    static void apply()
    {
        size_t limit = saved();
        for (const auto& [debugger, budget] : budgets())
            limit = std::min(limit, budget / 2);
        storageCache().limit = limit;
    }
    static std::mutex& mutex()
    {
        static std::mutex m;
        return m;
    }
    static std::map<const void*, size_t>& budgets()
    {
        static std::map<const void*, size_t> b;
        return b;
    }
    static size_t& saved()
    {
        static size_t limit = 0;
        return limit;
    }
};

} // namespace onnxscope
