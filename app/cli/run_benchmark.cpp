// SPDX-License-Identifier: MIT
// `onnxscope-cli run --repeat N`: the benchmark harness, plain runs or debug runs, and --timings.
#include "app/cli/commands.h"
#include "app/cli/run_options.h"

#include "engine/core/byte_size.h"
#include "engine/core/text.h"
#include "engine/exec/observers/keep_observer.h"
#include "engine/exec/observers/profile_observer.h"
#include "engine/exec/program.h"
#include "engine/exec/simd_level.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <set>

#include <sys/resource.h>
#include <time.h>

using Clock = std::chrono::steady_clock;

namespace onnxscope::cli {

namespace {

/// Bytes of the tensors a debug run wrote: each storage once (a Reshape shares its input's), leaving out the caller's
/// inputs and the values known at plan time (initializers, folded nodes), which the run did not write.
size_t writtenBytes(const Debugger& debugger, const Program& program, const std::map<std::string, Value>& inputs)
{
    std::set<const void*> seen;
    for (const auto& [name, value] : inputs)
        if (const Tensor* t = value.heldTensor())
            seen.insert(t->raw());
    std::set<const Graph*> graphs;
    size_t bytes = 0;
    for (const RecordedValue& r : debugger.values()) {
        if (r.graph && graphs.insert(r.graph).second)
            for (const Value& known : program.plan(*r.graph).known)
                if (const Tensor* t = known.heldTensor())
                    seen.insert(t->raw());
        const Tensor* t = r.dropped ? nullptr : r.value.heldTensor();
        if (t && seen.insert(t->raw()).second)
            bytes += r.value.byteSize();
    }
    return bytes;
}

/// Minor page faults of this process so far: a run that writes memory the process never touched before pays one per
/// page (on this project's VM, about 12 µs per 4 KiB page).
long minorFaults()
{
    rusage usage {};
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_minflt;
}

} // namespace

// getrusage's ru_maxrss also counts the parent's pages that a fork copied before the exec, which for a small model is
// more than the model: VmHWM does not.
long peakResidentKib()
{
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line))
        if (line.rfind("VmHWM:", 0) == 0)
            return std::strtol(line.c_str() + 6, nullptr, 10);
    rusage usage {};
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_maxrss;
}

namespace {

/// What the timed runs measured: per run its time, CPU time and page faults (read outside the clock); for debug runs
/// also the time to complete the value log after the stop, and the last run's counts.
struct RunTimings {
    std::vector<double> ms, cpuMs, logMs;
    std::vector<long> faults;
    std::map<std::string, Value> outputs; // the last run's
    size_t recordedValues = 0, droppedValues = 0, recordedBytes = 0, writtenByRun = 0;
};

double cpuNow()
{
    timespec ts {};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

/// --debug-run --repeat N: each run through a fresh Debugger (as the GUI starts each run), to the end or --break-at's
/// breakpoint. Two passes of N runs: the first times the runs, the second the completion of each run's value log
/// after its stop. The log fill replays the run and touches every value; timed between two runs it would leave the
/// next run's memory cold, which a plain run timed back to back never is (in the GUI the fill runs after the stop, not
/// just before the next run). Each run's values are released after its clock stopped.
RunTimings timeDebugRuns(const RunOptions& o, const std::shared_ptr<const Program>& program,
    const std::map<std::string, Value>& inputs, const SessionOptions& sessionOptions, ProfileObserver& profile)
{
    RunTimings t;
    const DebuggerOptions debuggerOptions = debuggerOptionsOf(o, sessionOptions);
    const auto runOnce = [&](int i, bool timed) {
        auto debugger = std::make_unique<Debugger>(program, debuggerOptions);
        if (!o.breakAt.empty())
            debugger->addBreakpoint(makeBreakpoint(Breakpoint::Kind::Node, o.breakAt));
        // --break-on-nan and --break-when as the debugger's breakpoints, tested in the timed runs too (the warm-up
        // run stopped the command already if one was met).
        if (o.breakOnNan)
            debugger->addBreakpoint(makeBreakpoint(Breakpoint::Kind::NonFinite, {}));
        for (const std::string& spec : o.breakWhen)
            debugger->addBreakpoint(parseBreakpointSpec(spec));
        if (o.profile && timed)
            debugger->addObserver(&profile);
        const long f0 = minorFaults();
        const double c0 = cpuNow();
        auto t0 = Clock::now();
        debugger->start(inputs);
        StopInfo stop = debugger->continueRun();
        while (stop.reason == StopReason::YieldOp || stop.reason == StopReason::DebugNode
            || (stop.reason == StopReason::Breakpoint && o.breakAt.empty()))
            stop = debugger->continueRun();
        if (timed) {
            t.ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
            t.cpuMs.push_back(cpuNow() - c0);
            t.faults.push_back(minorFaults() - f0);
        }
        if (!o.breakAt.empty() && stop.reason != StopReason::Breakpoint)
            throw Error(
                "debug run " + std::to_string(i + 1) + " did not stop before \"" + o.breakAt + "\": " + stop.message);
        if (timed) {
            if (o.profile)
                debugger->removeObserver(&profile);
            return;
        }
        const auto l0 = Clock::now();
        debugger->completeLog();
        t.logMs.push_back(std::chrono::duration<double, std::milli>(Clock::now() - l0).count());
        if (!o.breakAt.empty())
            stop = debugger->continueRun(); // to the end, untimed, for the outputs and the counts
        if (debugger->failed() || !debugger->finished())
            throw Error("debug run " + std::to_string(i + 1) + " stopped: " + stop.message);
        t.outputs = debugger->session().outputs();
        t.recordedValues = debugger->values().size();
        t.recordedBytes = debugger->recordedBytes();
        if (i + 1 == o.repeat)
            t.writtenByRun = writtenBytes(*debugger, *program, inputs);
        t.droppedValues = debugger->forgottenValues();
        for (const auto& v : debugger->values())
            t.droppedValues += v.dropped ? 1 : 0;
    };
    for (int i = 0; i < o.repeat; ++i)
        runOnce(i, true);
    for (int i = 0; i < o.repeat; ++i)
        runOnce(i, false);
    return t;
}

} // namespace

void timeRuns(const RunOptions& o, const std::shared_ptr<const Program>& program,
    const std::map<std::string, Value>& inputs, const SessionOptions& sessionOptions, int threads, size_t nodes,
    ProfileObserver& profile, const std::function<void(const std::map<std::string, Value>&)>& writeOutputs)
{
    RunTimings t;
    if (o.debugRun) {
        t = timeDebugRuns(o, program, inputs, sessionOptions, profile);
    } else {
        // --keep-values: a KeepObserver holds every output, which it releases after the clock stopped, as the
        // debug runs do.
        KeepObserver keeper;
        Session timed(program, sessionOptions);
        if (o.profile)
            timed.addObserver(&profile);
        if (o.keepValues)
            timed.addObserver(&keeper);
        for (int i = 0; i < o.repeat; ++i) {
            const long f0 = minorFaults();
            const double c0 = cpuNow();
            auto t0 = Clock::now();
            t.outputs = timed.run(inputs);
            t.ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
            t.cpuMs.push_back(cpuNow() - c0);
            t.faults.push_back(minorFaults() - f0);
            keeper.clear();
        }
    }
    std::vector<double> sorted = t.ms;
    std::sort(sorted.begin(), sorted.end());
    // Small models run in tens of microseconds: a tenth of one is still worth telling apart.
    const auto latency = [](double v) { return formatMs(v, v < 1 ? 4 : 3); };
    const size_t n = sorted.size();
    const double median = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    const char* mode = o.debugRun ? "debug-run" : (o.keepValues ? "keep-values" : "");
    std::cout << mode << (*mode ? " " : "") << "latency over " << n << " run" << (n == 1 ? "" : "s")
              << " after 1 warm-up: median " << latency(median) << " ms, min " << latency(sorted.front()) << " ms, max "
              << latency(sorted.back()) << " ms\n";
    double logMedian = 0;
    if (o.debugRun) {
        std::vector<double>& logMs = t.logMs;
        std::sort(logMs.begin(), logMs.end());
        logMedian = n % 2 ? logMs[n / 2] : (logMs[n / 2 - 1] + logMs[n / 2]) / 2;
        std::cout << "the value log and its summaries, made after each stop: median " << latency(logMedian) << " ms\n";
    }
    if (o.debugRun)
        std::cout << "each debug run kept " << t.recordedValues << " value(s), " << formatByteCount(t.recordedBytes)
                  << (t.droppedValues ? ", dropped " + std::to_string(t.droppedValues) + " over the memory budget" : "")
                  << "\n";
    if (writeOutputs)
        writeOutputs(t.outputs);
    if (!o.timingsFile.empty()) {
        nlohmann::json timings { { "mode", o.debugRun ? "debug" : (o.keepValues ? "keep-values" : "plain") },
            { "threads", threads }, { "simd", std::string(simdLevelName()) }, { "runs_ms", t.ms },
            { "cpu_ms", t.cpuMs }, { "page_faults", t.faults }, { "median_ms", median }, { "min_ms", sorted.front() },
            { "max_ms", sorted.back() }, { "nodes", nodes }, { "peak_rss_kib", peakResidentKib() } };
        if (!o.debugRun) {
            timings["fused_nodes"] = o.keepValues ? 0 : program->mainPlan().fusedNodeCount();
            timings["folded_nodes"] = o.keepValues ? 0 : program->mainPlan().foldedNodeCount();
        }
        if (o.debugRun) {
            timings["recorded_values"] = t.recordedValues;
            timings["recorded_bytes"] = t.recordedBytes;
            timings["written_bytes"] = t.writtenByRun;
            timings["dropped_values"] = t.droppedValues;
            timings["log_median_ms"] = logMedian;
        }
        std::ofstream out(o.timingsFile);
        out << timings.dump(2) << "\n";
        out.close();
        check(out.good(), "cannot write \"" + o.timingsFile + "\"");
    }
}

} // namespace onnxscope::cli
