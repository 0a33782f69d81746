// SPDX-License-Identifier: MIT
#pragma once

#include "app/cli/cli_util.h"
#include "engine/exec/debug/debugger.h"
#include "engine/exec/session.h"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace onnxscope {
class ProfileObserver;
class ValueWriter;
} // namespace onnxscope

namespace onnxscope::cli {

/// The options of `onnxscope-cli run` (run_command.cpp reads them; run_debug.cpp and run_benchmark.cpp run them).
struct RunOptions {
    std::string model;
    std::vector<std::string> inputs;
    std::string outputDir;
    bool dumpAll = false;
    std::string dumpAllDir; // --dump-all DIR
    bool trace = false;
    bool profile = false;
    bool breakOnNan = false;
    std::vector<std::string> breakWhen;
    int repeat = 0;
    bool randomInputs = false;
    uint64_t seed = 0;
    std::vector<std::string> dims;
    bool quiet = false;
    LimitOptions limits;
    ThreadOptions threads;
    bool debugRun = false;
    bool keepValues = false;
    std::string timingsFile;
    std::string memoryBudget;
    bool keepData = false; // --keep-data
    std::vector<std::string> inspect;
    std::string breakAt; // --break-at NODE: debug runs timed to a node breakpoint
};

/// The debugger's options for --debug-run: --memory-budget and --keep-data.
DebuggerOptions debuggerOptionsOf(const RunOptions& o, const SessionOptions& sessionOptions);

/// The peak resident memory of this program in KiB (VmHWM, which starts afresh at exec).
long peakResidentKib();

/// A value's type and first elements: `float[2, 3] = [1, 2, 3, 4, 5, 6]`.
std::string preview(const Value& v);

/// `run --debug-run` without --repeat: one run through the debugger within the memory budget, then the values named
/// by --inspect, rebuilt from checkpoints if they were dropped (run_debug.cpp).
int debugRunOnce(const RunOptions& o, const std::shared_ptr<const Program>& program,
    const std::map<std::string, Value>& inputs, const SessionOptions& sessionOptions, ValueWriter* writer);

/// `run --repeat N`, the benchmark harness (run_benchmark.cpp): N timed runs after the warm-up, plain or (with
/// --debug-run) each through a fresh Debugger; prints median, min and max and writes --timings. `threads` and `nodes`
/// (of the warm-up run) go into the timings; `writeOutputs`, when set, receives the last timed run's outputs.
void timeRuns(const RunOptions& o, const std::shared_ptr<const Program>& program,
    const std::map<std::string, Value>& inputs, const SessionOptions& sessionOptions, int threads, size_t nodes,
    ProfileObserver& profile, const std::function<void(const std::map<std::string, Value>&)>& writeOutputs);

} // namespace onnxscope::cli
