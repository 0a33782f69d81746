// SPDX-License-Identifier: MIT
#pragma once

#include "engine/core/text.h"
#include "engine/core/thread_pool.h"
#include "engine/core/value.h"
#include "engine/exec/session.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <chrono>
#include <memory>
#include <string>

namespace onnxscope::cli {

/// {"kind": "tensor", "dtype": "float", "shape": [1, "N", null]} (symbols as strings, unknown dims as null).
nlohmann::json valueTypeJson(const ValueType& type);

/// --max-loop-iterations and --allocation-limit, shared by the commands that run models.
struct LimitOptions {
    int64_t maxLoopIterations = 0;
    std::string allocationLimit;

    /// Adds the options to `cmd` (--max-loop-iterations only if `loops`).
    void addTo(CLI::App* cmd, bool loops = true);
    /// Sets the engine's allocation limit if one was given (before any model is loaded) and returns the session
    /// limits. Throws UsageError for a malformed size.
    ExecutionLimits apply() const;
};

/// --threads, shared by the commands that run models.
struct ThreadOptions {
    int threads = 1;

    void addTo(CLI::App* cmd);
    /// The intra-op pool for SessionOptions::threadPool: null for one thread, all hardware threads for 0. Throws
    /// UsageError for a negative count.
    std::unique_ptr<ThreadPool> makePool() const;
};

/// engine/core/byte_size.h's parseByteSize ("1048576", "512M", "1.5G", "64KiB"); UsageError naming `option` otherwise.
uint64_t parseByteSize(const std::string& text, const std::string& option);

} // namespace onnxscope::cli
