// SPDX-License-Identifier: MIT
#include "app/cli/cli_inputs.h"
#include "app/cli/cli_util.h"
#include "app/cli/commands.h"
#include "engine/core/byte_size.h"

#include "engine/core/half.h"
#include "engine/core/tensor_stats.h"
#include "engine/core/text.h"
#include "engine/exec/debug/debugger.h"
#include "engine/exec/observers/count_observer.h"
#include "engine/exec/observers/dump_observer.h"
#include "engine/exec/observers/keep_observer.h"
#include "engine/exec/observers/output_watch.h"
#include "engine/exec/observers/profile_observer.h"
#include "engine/exec/observers/trace_observer.h"
#include "engine/exec/program.h"
#include "engine/exec/session.h"
#include "engine/exec/simd_level.h"
#include "engine/io/input_reader.h"
#include "engine/io/value_writer.h"
#include "engine/model/model.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <random>
#include <regex>
#include <set>
#include <sstream>

#include <sys/resource.h>
#include <time.h>

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace onnxscope::cli {

namespace {

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
};

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

/// The peak resident memory of this program in KiB: VmHWM, which starts afresh at exec. getrusage's ru_maxrss also
/// counts the parent's pages that a fork copied before the exec, which for a small model is more than the model.
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

/// Minor page faults of this process so far: a run that writes memory the process never touched before pays one per
/// page (on this project's VM, about 12 µs per 4 KiB page).
long minorFaults()
{
    rusage usage {};
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_minflt;
}

/// Whether a node of this display name is in the graph, its subgraphs or its function bodies.
bool hasNode(const Graph& graph, const std::string& name)
{
    for (const Node& node : graph.nodes()) {
        if (node.hasDisplayName(name))
            return true;
        for (const auto& [attribute, subgraph] : node.subgraphs)
            if (subgraph && hasNode(*subgraph, name))
                return true;
        if (node.functionBody && hasNode(*node.functionBody, name))
            return true;
    }
    return false;
}

std::string preview(const Value& v)
{
    if (!v.isTensor())
        return v.typeString();
    const Tensor& t = v.tensor();
    std::ostringstream s;
    s << t.typeString() << " = [";
    const int64_t n = std::min<int64_t>(t.size(), 8);
    for (int64_t i = 0; i < n; ++i) {
        if (i)
            s << ", ";
        if (t.dtype() == DataType::String)
            s << '"' << escapeBytes(t.data<std::string>()[i]) << '"';
        else if (t.dtype() == DataType::Complex64)
            s << t.data<Complex64>()[i];
        else if (t.dtype() == DataType::Complex128)
            s << t.data<Complex128>()[i];
        else
            s << std::setprecision(6) << t.toDouble(i);
    }
    if (t.size() > n)
        s << ", ... (" << t.size() << " values)";
    s << "]";
    return s.str();
}

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

/// `run --debug-run` without --repeat: one run through the debugger within the memory budget, then the values named
/// by --inspect, rebuilt from checkpoints if they were dropped.
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

/// --dump-all DIR names the folder itself; --dump-all -o DIR (the older form) still works, also with --dump-all
/// before the model, where the parser hands the model's path to --dump-all.
void resolveDumpFolder(RunOptions& o)
{
    if (o.model.empty() && !o.dumpAllDir.empty() && !o.outputDir.empty()) {
        o.model = std::move(o.dumpAllDir);
        o.dumpAllDir.clear();
    }
    if (o.model.empty())
        throw UsageError("run needs a MODEL (.onnx file)");
    if (!o.dumpAllDir.empty()) {
        if (!o.outputDir.empty()
            && fs::path(o.outputDir).lexically_normal() != fs::path(o.dumpAllDir).lexically_normal())
            throw UsageError("--dump-all \"" + o.dumpAllDir + "\" and --output-dir \"" + o.outputDir
                + "\" name different folders (give one)");
        o.outputDir = o.dumpAllDir;
    }
    if (o.dumpAll && o.outputDir.empty())
        throw UsageError("--dump-all needs a folder: --dump-all DIR (or --dump-all --output-dir DIR)");
}

int runModel(const RunOptions& o)
{
    if (o.repeat < 0)
        throw UsageError("--repeat must be at least 0");
    std::map<std::string, int64_t> dims;
    for (const auto& d : o.dims) {
        auto eq = d.find('=');
        int64_t value = -1;
        try {
            if (eq != std::string::npos && eq > 0)
                value = std::stoll(d.substr(eq + 1));
        } catch (const std::exception&) {
        }
        if (value < 0)
            throw UsageError("--dim expects SYMBOL=VALUE with a non-negative VALUE, got \"" + d + "\"");
        dims[d.substr(0, eq)] = value;
    }
    if (o.keepValues && (o.repeat == 0 || o.debugRun))
        throw UsageError("--keep-values times plain runs: it needs --repeat N and excludes --debug-run");
    const bool debugOnce = o.debugRun && o.repeat == 0;
    if (!o.timingsFile.empty() && o.repeat == 0 && !debugOnce)
        throw UsageError("--timings needs --repeat N or --debug-run");
    if ((!o.inspect.empty() || !o.memoryBudget.empty() || o.keepData) && !o.debugRun)
        throw UsageError("--inspect, --memory-budget and --keep-data apply to debug runs: add --debug-run");
    if (!o.inspect.empty() && o.repeat > 0)
        throw UsageError("--inspect reads the values of one debug run: it excludes --repeat");
    if (debugOnce && (o.breakOnNan || !o.breakWhen.empty() || o.profile))
        throw UsageError(
            "--debug-run without --repeat does not combine with --break-on-nan, --break-when or --profile");
    ConditionWatch conditions;
    for (const auto& spec : o.breakWhen) {
        try {
            conditions.add(spec);
        } catch (const Error& e) {
            throw UsageError(std::string("--break-when: ") + e.what());
        }
    }
    SessionOptions sessionOptions;
    sessionOptions.limits = o.limits.apply();
    const std::unique_ptr<ThreadPool> pool = o.threads.makePool();
    sessionOptions.threadPool = pool.get();

    auto model = Model::load(o.model);
    const Graph& graph = model->graph();
    auto program = std::make_shared<Program>(model);

    std::map<std::string, Value> inputs;
    for (const auto& spec : o.inputs) {
        auto eq = spec.find('=');
        if (eq == std::string::npos) {
            fs::path file(spec);
            if (file.extension() == ".npz") {
                for (auto& [key, value] : readInputArchive(file))
                    inputs[key] = std::move(value);
                continue;
            }
            throw UsageError("--input expects NAME=FILE (.npy, .npz or .pb) or an .npz whose arrays are named "
                             "after the inputs, got \""
                + spec + "\"");
        }
        const std::string name = spec.substr(0, eq);
        ValueId id = graph.findValue(name);
        if (id == kNoValue || graph.value(id).source != ValueInfo::Source::Input)
            throw Error("the model has no input \"" + name + "\"; its inputs are:" + expectedInputsText(graph));
        if (inputs.count(name))
            throw UsageError("input \"" + name + "\" is given more than once");
        inputs[name] = readInputFile(name, spec.substr(eq + 1), &graph.value(id).type);
    }

    std::vector<std::string> missing;
    for (ValueId id : graph.requiredInputs())
        if (!inputs.count(graph.value(id).name) && graph.value(id).type.kind != Value::Kind::Optional)
            missing.push_back(graph.value(id).name);
    std::set<std::string> defaultedDims; // symbolic dimensions of random inputs that no --dim sized (so 1)
    if (!missing.empty() && o.randomInputs) {
        std::mt19937_64 rng(o.seed);
        std::set<std::string> usedDims;
        for (ValueId id : graph.requiredInputs()) {
            const auto& v = graph.value(id);
            if (!inputs.count(v.name) && v.type.kind != Value::Kind::Optional) {
                inputs[v.name] = randomValue(v.name, v.type, dims, usedDims, rng, &defaultedDims);
                if (!o.quiet)
                    std::cout << "random input \"" << v.name << "\": " << inputs[v.name].typeString() << "\n";
            }
        }
        for (const auto& [symbol, value] : dims)
            if (!usedDims.count(symbol))
                std::cerr << "warning: --dim " << symbol << " matches no symbolic dimension of the inputs\n";
        missing.clear();
    }
    if (!missing.empty()) {
        std::string names;
        for (const auto& m : missing)
            names += (names.empty() ? "\"" : ", \"") + m + "\"";
        throw Error("missing input" + std::string(missing.size() > 1 ? "s " : " ") + names
            + " (give them with --input NAME=FILE.npy|FILE.pb, or use --random-inputs); the model expects:"
            + expectedInputsText(graph));
    }

    std::unique_ptr<ValueWriter> writer;
    if (!o.outputDir.empty()) {
        std::error_code ec;
        fs::create_directories(o.outputDir, ec);
        check(fs::is_directory(o.outputDir),
            "cannot create the output folder \"" + o.outputDir + "\"" + (ec ? ": " + ec.message() : std::string()));
        writer = std::make_unique<ValueWriter>(o.outputDir);
    }

    if (debugOnce)
        return debugRunOnce(o, program, inputs, sessionOptions, writer.get());

    // First run: the observed one (trace, NaN and condition watches, dump); with --repeat it is the warm-up.
    TraceObserver trace(std::cout);
    NonFiniteWatch nan;
    ProfileObserver profile(true);
    std::unique_ptr<DumpObserver> dump;
    CountObserver counter;
    Session session(program, sessionOptions);
    session.addObserver(&counter);
    if (o.trace)
        session.addObserver(&trace);
    if (o.breakOnNan)
        session.addObserver(&nan);
    if (!conditions.empty()) {
        session.addObserver(&conditions);
        for (const std::string& node : conditions.nodeNames())
            if (!node.empty() && !hasNode(graph, node))
                std::cerr << "warning: --break-when: the model has no node \"" << node << "\"\n";
    }
    if (o.dumpAll) {
        dump = std::make_unique<DumpObserver>(*writer);
        session.addObserver(dump.get());
    }
    // Writing every value inside a Loop body would be billed to the Loop: profile a separate run then.
    const bool separateProfileRun = o.profile && o.repeat == 0 && o.dumpAll;
    if (o.profile && o.repeat == 0 && !separateProfileRun)
        session.addObserver(&profile);

    const auto started = Clock::now();
    std::string failure;
    try {
        session.start(inputs);
        while (session.state() == Session::State::Running) {
            session.advance();
            if (nan.hit() || conditions.hit())
                break;
        }
    } catch (const Error& e) {
        failure = e.what();
    }
    const auto elapsed = Clock::now() - started;
    std::cout.flush();
    if (writer && !failure.empty() && o.dumpAll) {
        if (writer->failed())
            failure += "\n  note: \"" + o.outputDir + "\" holds only part of the values and no manifest.json";
        else
            writer->writeManifest(); // what was produced before the failure is still useful
    }
    if (!failure.empty() && !defaultedDims.empty()) {
        // A model run on 1×1 images usually fails in its first pooling or window: say why the sizes were 1.
        std::string list;
        for (const auto& d : defaultedDims)
            list += (list.empty() ? "" : ", ") + d;
        failure += "\n  note: --random-inputs set the symbolic dimension"
            + std::string(defaultedDims.size() > 1 ? "s " : " ") + list
            + " to 1; give real sizes with --dim SYMBOL=VALUE";
    }
    if (!failure.empty())
        throw Error(failure);
    if (const auto& hit = nan.hit()) {
        if (writer && o.dumpAll)
            writer->writeManifest();
        std::cerr << "error: stopped on a non-finite value: " << hit->node << " at " << hit->nodePath
                  << " produced a non-finite value in output \"" << hit->valueName << "\" (" << hit->valueType
                  << "): " << hit->description << "\n";
        return kModelError;
    }
    if (const auto& hit = conditions.hit()) {
        if (writer && o.dumpAll)
            writer->writeManifest();
        std::cerr << "error: stopped on a condition: " << hit->node << " at " << hit->nodePath << " met \""
                  << conditions.metCondition() << "\" in output \"" << hit->valueName << "\" (" << hit->valueType
                  << "): " << hit->description << "\n";
        return kModelError;
    }

    // With --repeat the outputs written are those of the last timed run (so that what is checked is what was
    // timed), except with --dump-all, whose intermediates come from this first run.
    const bool outputsFromTimedRun = o.repeat > 0 && !o.dumpAll;
    const auto writeOutputs = [&](const std::map<std::string, Value>& values) {
        for (const auto& name : session.outputNames()) {
            if (dump && dump->mainOutputsWritten().count(name))
                continue;
            writer->write(name, values.at(name), "", "main", "output");
        }
        writer->writeManifest();
    };
    const auto outputs = session.outputs();
    if (writer && !outputsFromTimedRun)
        writeOutputs(outputs);
    if (!o.quiet) {
        for (const auto& name : session.outputNames())
            std::cout << "output \"" << name << "\": " << preview(outputs.at(name)) << "\n";
        std::cout << "ran " << counter.nodes() << " node(s) in "
                  << formatMs(std::chrono::duration_cast<std::chrono::nanoseconds>(elapsed)) << " ms";
        if (writer && !outputsFromTimedRun)
            std::cout << "; wrote " << writer->count() << " value(s) to " << o.outputDir;
        std::cout << "\n";
    }

    if (o.repeat > 0) {
        std::vector<double> ms, cpuMs;
        std::vector<long> faults; // per run, read outside the clock
        const auto cpuNow = [] {
            timespec ts {};
            clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
            return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
        };
        std::map<std::string, Value> lastOutputs;
        size_t recordedValues = 0, droppedValues = 0, recordedBytes = 0, writtenByRun = 0;
        if (o.debugRun) {
            // Each run through a fresh Debugger: a hook after every node, every intermediate kept. The previous
            // run's values are released after its clock stopped.
            const DebuggerOptions debuggerOptions = debuggerOptionsOf(o, sessionOptions);
            for (int i = 0; i < o.repeat; ++i) {
                auto debugger = std::make_unique<Debugger>(program, debuggerOptions);
                if (o.profile)
                    debugger->addObserver(&profile);
                const long f0 = minorFaults();
                const double c0 = cpuNow();
                auto t0 = Clock::now();
                debugger->start(inputs);
                StopInfo stop = debugger->continueRun();
                while (stop.reason == StopReason::YieldOp || stop.reason == StopReason::DebugNode)
                    stop = debugger->continueRun();
                ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
                cpuMs.push_back(cpuNow() - c0);
                faults.push_back(minorFaults() - f0);
                if (debugger->failed() || !debugger->finished())
                    throw Error("debug run " + std::to_string(i + 1) + " stopped: " + stop.message);
                lastOutputs = debugger->session().outputs();
                recordedValues = debugger->values().size();
                recordedBytes = debugger->recordedBytes();
                if (i + 1 == o.repeat)
                    writtenByRun = writtenBytes(*debugger, *program, inputs);
                droppedValues = debugger->forgottenValues();
                for (const auto& v : debugger->values())
                    droppedValues += v.dropped ? 1 : 0;
                if (o.profile)
                    debugger->removeObserver(&profile);
            }
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
                lastOutputs = timed.run(inputs);
                ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
                cpuMs.push_back(cpuNow() - c0);
                faults.push_back(minorFaults() - f0);
                keeper.clear();
            }
        }
        std::vector<double> sorted = ms;
        std::sort(sorted.begin(), sorted.end());
        // Small models run in tens of microseconds: a tenth of one is still worth telling apart.
        const auto latency = [](double v) { return formatMs(v, v < 1 ? 4 : 3); };
        const size_t n = sorted.size();
        const double median = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
        const char* mode = o.debugRun ? "debug-run" : (o.keepValues ? "keep-values" : "");
        std::cout << mode << (*mode ? " " : "") << "latency over " << n << " run" << (n == 1 ? "" : "s")
                  << " after 1 warm-up: median " << latency(median) << " ms, min " << latency(sorted.front())
                  << " ms, max " << latency(sorted.back()) << " ms\n";
        if (o.debugRun)
            std::cout << "each debug run kept " << recordedValues << " value(s), " << formatByteCount(recordedBytes)
                      << (droppedValues ? ", dropped " + std::to_string(droppedValues) + " over the memory budget" : "")
                      << "\n";
        if (writer && outputsFromTimedRun)
            writeOutputs(lastOutputs);
        if (!o.timingsFile.empty()) {
            nlohmann::json timings { { "mode", o.debugRun ? "debug" : (o.keepValues ? "keep-values" : "plain") },
                { "threads", pool ? pool->threads() : 1 }, { "simd", std::string(simdLevelName()) }, { "runs_ms", ms },
                { "cpu_ms", cpuMs }, { "page_faults", faults }, { "median_ms", median }, { "min_ms", sorted.front() },
                { "max_ms", sorted.back() }, { "nodes", counter.nodes() }, { "peak_rss_kib", peakResidentKib() } };
            if (!o.debugRun) {
                timings["fused_nodes"] = o.keepValues ? 0 : program->mainPlan().fusedNodeCount();
                timings["folded_nodes"] = o.keepValues ? 0 : program->mainPlan().foldedNodeCount();
            }
            if (o.debugRun) {
                timings["recorded_values"] = recordedValues;
                timings["recorded_bytes"] = recordedBytes;
                timings["written_bytes"] = writtenByRun;
                timings["dropped_values"] = droppedValues;
            }
            std::ofstream out(o.timingsFile);
            out << timings.dump(2) << "\n";
            out.close();
            check(out.good(), "cannot write \"" + o.timingsFile + "\"");
        }
    }
    if (separateProfileRun) {
        Session profiled(program, sessionOptions);
        profiled.addObserver(&profile);
        profiled.run(inputs);
    }
    if (o.profile)
        profile.printReport(std::cout, o.repeat > 0 ? static_cast<size_t>(o.repeat) : 1);
    return kOk;
}

} // namespace

CommandRunner addRunCommand(CLI::App& app)
{
    auto o = std::make_shared<RunOptions>();
    auto* cmd = app.add_subcommand("run", "Run a model on inputs from .npy/.npz/.pb files or random values");
    // Not marked required: resolveDumpFolder() takes it back from --dump-all when that option came before it.
    cmd->add_option("model", o->model, "The .onnx file (required)");
    cmd->add_option("-i,--input", o->inputs,
        "NAME=FILE: an input from a .npy, .pb (TensorProto, or SequenceProto/MapProto/OptionalProto) or .npz file; "
        "or FILE.npz whose arrays are named after the inputs. Repeat for each input");
    cmd->add_option("-o,--output-dir", o->outputDir,
        "Write the outputs to DIR/<k>_<name>.npy (.json for sequences and maps) plus DIR/manifest.json");
    cmd->add_option("--dump-all", o->dumpAllDir,
           "Also write every intermediate value, to DIR: DIR/<k>_<name>.npy per value plus DIR/manifest.json "
           "(--dump-all -o DIR also works). With --debug-run, within --memory-budget")
        ->expected(0, 1)
        ->type_name("DIR");
    cmd->add_flag(
        "--trace", o->trace, "Print one line per executed node: frame path | op type | node | output types | time");
    cmd->add_flag("--profile", o->profile, "Print time per node and per op type");
    cmd->add_flag(
        "--break-on-nan", o->breakOnNan, "Stop at the first node that produces NaN or Inf, name it and exit 1");
    cmd->add_option("--break-when", o->breakWhen,
        "'NODE: CONDITION' (or 'CONDITION' for every node): stop after the first node whose output meets CONDITION, "
        "name it, the output and the first element that met it, and exit 1. CONDITION is 'any |x| > 1e4', "
        "'all x >= 0' (x or |x|; > >= < <= == !=), 'max > 100' (min, max, mean, std, absmax, sum, count), or nan, "
        "inf, nonfinite. Repeat for several conditions");
    cmd->add_option("--repeat", o->repeat,
        "After the first (warm-up) run, time N more runs: median, min, max. With --output-dir (and without "
        "--dump-all) the outputs written are those of the last timed run");
    cmd->add_flag("--debug-run", o->debugRun,
        "Run through the debugger: a hook after every node, a summary of every value made as the node finishes, and "
        "checkpoints within --memory-budget (with --keep-data, the values themselves too). With --repeat: time such "
        "runs instead of plain runs (values freed after their last use)");
    cmd->add_option("--memory-budget", o->memoryBudget,
        "With --debug-run: bytes of checkpoints (and with --keep-data, values) to keep (e.g. 64M, 2G; default a "
        "quarter of the RAM). A value whose data is not kept is rebuilt from the nearest checkpoint when asked for");
    cmd->add_flag("--keep-data", o->keepData,
        "With --debug-run: keep the data of every value too, the newest within --memory-budget, instead of only its "
        "summary (no rebuild to read one, but the run writes every value to fresh memory)");
    cmd->add_option("--inspect", o->inspect,
        "With --debug-run: after the run, print this value's type, statistics and first elements (rebuilt if the "
        "budget dropped it: the lines are the same). Repeat for several values");
    cmd->add_flag("--keep-values", o->keepValues,
        "With --repeat: time plain runs whose every node output is kept to the end of the run by a hook that does "
        "nothing else (so no in-place writes and no fused steps): the memory side of a debug run, to tell it from "
        "the debugger's own cost");
    cmd->add_option("--timings", o->timingsFile,
        "With --debug-run alone: write as JSON to FILE the run's time, the values kept and dropped, the checkpoints "
        "kept, and each recomputation --inspect needed with its time. With --repeat: write the timings as JSON to FILE "
        "(every run's wall and process CPU ms and minor page faults, "
        "median, min, max, threads, SIMD level, peak RSS of the program (VmHWM); for plain runs, the main graph's "
        "nodes run as fused steps and those computed at plan time; for debug runs, the values and bytes kept, and the "
        "bytes the run wrote: each storage once, without the inputs and the values known at plan time)");
    cmd->add_flag("--random-inputs", o->randomInputs,
        "Generate the inputs not given with --input from their declared types (floats in [-1, 1), integers in "
        "[0, 9]); symbolic dims are 1 unless --dim sets them");
    cmd->add_option("--seed", o->seed, "Seed for --random-inputs")->capture_default_str();
    cmd->add_option("--dim", o->dims, "SYMBOL=VALUE: the size of a symbolic input dimension for --random-inputs");
    cmd->add_flag("-q,--quiet", o->quiet, "Do not print the outputs and the summary");
    o->limits.addTo(cmd);
    o->threads.addTo(cmd);
    return [cmd, o]() -> int {
        if (!cmd->parsed())
            return -1;
        o->dumpAll = cmd->count("--dump-all") > 0;
        resolveDumpFolder(*o);
        return runModel(*o);
    };
}

} // namespace onnxscope::cli
