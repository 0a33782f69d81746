// SPDX-License-Identifier: MIT
// `onnxscope-cli run --debug-run` without --repeat: one debug run, then --inspect and --timings.
#include "app/cli/commands.h"
#include "app/cli/run_options.h"

#include "engine/core/tensor_stats.h"
#include "engine/core/text.h"
#include "engine/exec/observers/dump_observer.h"
#include "engine/exec/observers/trace_observer.h"
#include "engine/io/value_writer.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>

using Clock = std::chrono::steady_clock;

namespace onnxscope::cli {

namespace {

/// The lines `--inspect` prints for a value: its type and statistics, then its first elements. They depend on the data
/// only, so a run that had to rebuild the value prints the same lines as one that kept it.
std::string inspectLines(const std::string& name, const Value& value)
{
    std::ostringstream s;
    s << "value \"" << name << "\": " << value.typeString();
    if (const auto stats = computeStats(value); stats && stats->numeric)
        s << std::setprecision(9) << " min " << stats->min << " max " << stats->max << " mean " << stats->mean
          << " std " << stats->std << " nan " << stats->nan << " inf " << stats->posInf + stats->negInf;
    s << "\n  first values: " << preview(value) << "\n";
    return s.str();
}

} // namespace

/// The debugger's options for --debug-run: --memory-budget and --keep-data.
DebuggerOptions debuggerOptionsOf(const RunOptions& o, const SessionOptions& sessionOptions)
{
    DebuggerOptions options;
    options.session = sessionOptions;
    if (!o.memoryBudget.empty())
        options.memoryBudget = static_cast<size_t>(parseByteSize(o.memoryBudget, "--memory-budget"));
    options.retention = o.keepData ? ValueRetention::Values : ValueRetention::Summaries;
    return options;
}

int debugRunOnce(const RunOptions& o, const std::shared_ptr<const Program>& program,
    const std::map<std::string, Value>& inputs, const SessionOptions& sessionOptions, ValueWriter* writer)
{
    const DebuggerOptions options = debuggerOptionsOf(o, sessionOptions);
    // The observers outlive the debugger, which asks them about timing as it lets them go.
    TraceObserver trace(std::cout);
    // --dump-all: every value written as it is made, while the debugger keeps only what the budget holds.
    std::unique_ptr<DumpObserver> dump;
    if (o.dumpAll)
        dump = std::make_unique<DumpObserver>(*writer);
    Debugger debugger(program, options);
    if (o.trace)
        debugger.addObserver(&trace);
    if (dump)
        debugger.addObserver(dump.get());
    const auto started = Clock::now();
    debugger.start(inputs);
    StopInfo stop = debugger.continueRun();
    while (stop.reason == StopReason::YieldOp || stop.reason == StopReason::DebugNode)
        stop = debugger.continueRun();
    const auto elapsed = Clock::now() - started;
    if (!debugger.budgetNotice().empty())
        std::cerr << "note: " << debugger.budgetNotice() << "\n";
    // A value the dump could not write fails the run too, though no node failed.
    if (stop.reason == StopReason::Failed || debugger.failed()) {
        std::string message = stop.message;
        if (writer && writer->failed())
            message += "\n  note: \"" + o.outputDir + "\" holds only part of the values and no manifest.json";
        else if (writer && o.dumpAll)
            writer->writeManifest();
        throw Error(message);
    }
    const auto& outputs = debugger.session().outputs();
    if (writer) {
        for (const auto& name : debugger.session().outputNames())
            if (!dump || !dump->mainOutputsWritten().count(name))
                writer->write(name, outputs.at(name), "", "main", "output");
        writer->writeManifest();
    }
    const MemoryStats atEnd = debugger.memoryStats();
    if (!o.quiet) {
        for (const auto& name : debugger.session().outputNames())
            std::cout << "output \"" << name << "\": " << preview(outputs.at(name)) << "\n";
        std::cout << "debug run: " << debugger.values().size() << " value(s) in "
                  << formatMs(std::chrono::duration_cast<std::chrono::nanoseconds>(elapsed)) << " ms\n";
    }
    nlohmann::json recomputations = nlohmann::json::array();
    for (const std::string& name : o.inspect) {
        const RecordedValue* record = debugger.findValue(name);
        if (!record)
            throw Error("--inspect: the run recorded no value \"" + name + "\"");
        const bool dropped = record->dropped;
        const size_t stepsBefore = debugger.memoryStats().replayedSteps;
        const auto t0 = Clock::now();
        const Value value = debugger.materialize(*record);
        const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
        if (dropped)
            recomputations.push_back({ { "name", name }, { "ms", ms },
                { "replayed_steps", debugger.memoryStats().replayedSteps - stepsBefore } });
        std::cout << inspectLines(name, value);
    }
    if (!o.timingsFile.empty()) {
        const MemoryStats now = debugger.memoryStats();
        nlohmann::json timings { { "mode", "debug" }, { "memory_budget", options.memoryBudget },
            { "run_ms", std::chrono::duration<double, std::milli>(elapsed).count() },
            { "recorded_values", atEnd.keptValues + atEnd.droppedValues }, { "kept_values", atEnd.keptValues },
            { "dropped_values", atEnd.droppedValues }, { "recorded_bytes", atEnd.recordedBytes },
            { "checkpoints", atEnd.checkpoints }, { "checkpoint_bytes", atEnd.checkpointBytes },
            { "checkpoint_interval", atEnd.checkpointInterval }, { "recomputations", recomputations },
            { "replays", now.rematerializations }, { "replayed_steps", now.replayedSteps },
            { "recompute_ms", std::chrono::duration<double, std::milli>(now.rematerializationTime).count() },
            { "budget_notice", debugger.budgetNotice() }, { "peak_rss_kib", peakResidentKib() } };
        std::ofstream out(o.timingsFile);
        out << timings.dump(2) << "\n";
        out.close();
        check(out.good(), "cannot write \"" + o.timingsFile + "\"");
    }
    return kOk;
}

} // namespace onnxscope::cli
