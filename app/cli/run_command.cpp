// SPDX-License-Identifier: MIT
// `onnxscope-cli run`: the options, their checks, the inputs (cli_inputs, shared with `compare`) and the observed run
// (trace, NaN and condition watches, dump) stepped node by node. --debug-run alone goes to run_debug.cpp, --repeat's
// timed runs to run_benchmark.cpp.
#include "app/cli/cli_inputs.h"
#include "app/cli/cli_util.h"
#include "app/cli/commands.h"
#include "app/cli/run_options.h"

#include "engine/core/half.h"
#include "engine/core/text.h"
#include "engine/exec/observers/count_observer.h"
#include "engine/exec/observers/dump_observer.h"
#include "engine/exec/observers/output_watch.h"
#include "engine/exec/observers/profile_observer.h"
#include "engine/exec/observers/trace_observer.h"
#include "engine/exec/program.h"
#include "engine/io/value_writer.h"
#include "engine/model/model.h"

#include <algorithm>
#include <iomanip>
#include <iostream>
#include <set>
#include <sstream>

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace onnxscope::cli {

namespace {

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

/// The checks between options that the parser cannot make; UsageError for the first that fails.
void checkOptions(const RunOptions& o)
{
    if (o.repeat < 0)
        throw UsageError("--repeat must be at least 0");
    if (o.keepValues && (o.repeat == 0 || o.debugRun))
        throw UsageError("--keep-values times plain runs: it needs --repeat N and excludes --debug-run");
    const bool debugOnce = o.debugRun && o.repeat == 0;
    if (!o.timingsFile.empty() && o.repeat == 0 && !debugOnce)
        throw UsageError("--timings needs --repeat N or --debug-run");
    if ((!o.inspect.empty() || !o.memoryBudget.empty() || o.keepData) && !o.debugRun)
        throw UsageError("--inspect, --memory-budget and --keep-data apply to debug runs: add --debug-run");
    if (!o.breakAt.empty() && (!o.debugRun || o.repeat == 0))
        throw UsageError("--break-at times debug runs to a breakpoint: it needs --debug-run and --repeat N");
    if (!o.inspect.empty() && o.repeat > 0)
        throw UsageError("--inspect reads the values of one debug run: it excludes --repeat");
    if (debugOnce && (o.breakOnNan || !o.breakWhen.empty() || o.profile))
        throw UsageError(
            "--debug-run without --repeat does not combine with --break-on-nan, --break-when or --profile");
}

/// The run failed: its message, with what the dump folder holds and which symbolic sizes --random-inputs set to 1.
[[noreturn]] void throwFailure(
    std::string failure, const RunOptions& o, ValueWriter* writer, const std::set<std::string>& defaultedDims)
{
    if (writer && o.dumpAll) {
        if (writer->failed())
            failure += "\n  note: \"" + o.outputDir + "\" holds only part of the values and no manifest.json";
        else
            writer->writeManifest(); // what was produced before the failure is still useful
    }
    if (!defaultedDims.empty()) {
        // A model run on 1×1 images usually fails in its first pooling or window: say why the sizes were 1.
        std::string list;
        for (const auto& d : defaultedDims)
            list += (list.empty() ? "" : ", ") + d;
        failure += "\n  note: --random-inputs set the symbolic dimension"
            + std::string(defaultedDims.size() > 1 ? "s " : " ") + list
            + " to 1; give real sizes with --dim SYMBOL=VALUE";
    }
    throw Error(failure);
}

/// The observed run: the first run, stepped node by node with the watches of --trace, --break-on-nan, --break-when,
/// --dump-all and --profile; with --repeat, the warm-up of the timed runs.
int observedRun(const RunOptions& o, const std::shared_ptr<const Program>& program,
    const std::map<std::string, Value>& inputs, const SessionOptions& sessionOptions, int threads, ValueWriter* writer,
    ConditionWatch& conditions, const std::set<std::string>& defaultedDims)
{
    const Graph& graph = program->model().graph();
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
    if (!failure.empty())
        throwFailure(std::move(failure), o, writer, defaultedDims);
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
        std::function<void(const std::map<std::string, Value>&)> timedOutputs;
        if (writer && outputsFromTimedRun)
            timedOutputs = writeOutputs;
        timeRuns(o, program, inputs, sessionOptions, threads, counter.nodes(), profile, timedOutputs);
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

namespace {

int runModel(const RunOptions& o)
{
    const std::map<std::string, int64_t> dims = parseDims(o.dims);
    checkOptions(o);
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
    auto program = std::make_shared<Program>(model);
    std::map<std::string, Value> inputs = readInputs(model->graph(), o.inputs, "--input");
    std::set<std::string> defaultedDims; // symbolic dimensions of random inputs that no --dim sized (so 1)
    completeInputs(model->graph(), inputs, RandomInputs { o.randomInputs, o.seed, dims }, {}, o.quiet, &defaultedDims);

    std::unique_ptr<ValueWriter> writer;
    if (!o.outputDir.empty()) {
        std::error_code ec;
        fs::create_directories(o.outputDir, ec);
        check(fs::is_directory(o.outputDir),
            "cannot create the output folder \"" + o.outputDir + "\"" + (ec ? ": " + ec.message() : std::string()));
        writer = std::make_unique<ValueWriter>(o.outputDir);
    }
    if (o.debugRun && o.repeat == 0)
        return debugRunOnce(o, program, inputs, sessionOptions, writer.get());
    return observedRun(
        o, program, inputs, sessionOptions, pool ? pool->threads() : 1, writer.get(), conditions, defaultedDims);
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
    cmd->add_flag("--break-on-nan", o->breakOnNan,
        "Stop at the first node that produces NaN or Inf, name it and exit 1. With --debug-run --repeat N, the timed "
        "debug runs hold it as a breakpoint too (as --break-when's conditions)");
    cmd->add_option("--break-when", o->breakWhen,
        "'NODE: CONDITION' (or 'CONDITION' for every node): stop after the first node whose output meets CONDITION, "
        "name it, the output and the first element that met it, and exit 1. CONDITION is 'any |x| > 1e4', "
        "'all x >= 0' (x or |x|; > >= < <= == !=), 'max > 100' (min, max, mean, std, absmax, sum, count), or nan, "
        "inf, nonfinite. Repeat for several conditions");
    cmd->add_option("--repeat", o->repeat,
        "After the first (warm-up) run, time N more runs: median, min, max. With --output-dir (and without "
        "--dump-all) the outputs written are those of the last timed run");
    cmd->add_flag("--debug-run", o->debugRun,
        "Run through the debugger: as a plain run between the places where it can stop (with --trace, --dump-all or "
        "--profile, a hook after every node), then every value's record and summary made after the stop by a replay "
        "from its checkpoints, within --memory-budget (with --keep-data, the values themselves too). With --repeat: "
        "time such runs (the log after the stop timed apart) instead of plain runs (values freed after their last "
        "use)");
    cmd->add_option("--memory-budget", o->memoryBudget,
        "With --debug-run: bytes of checkpoints (and with --keep-data, values) to keep (e.g. 64M, 2G; default a "
        "quarter of the RAM). A value whose data is not kept is rebuilt from the nearest checkpoint when asked for");
    cmd->add_flag("--keep-data", o->keepData,
        "With --debug-run: keep the data of every value too, the newest within --memory-budget, instead of only its "
        "summary (no rebuild to read one, but the run writes every value to fresh memory)");
    cmd->add_option("--inspect", o->inspect,
        "With --debug-run: after the run, print this value's type, statistics and first elements (rebuilt if the "
        "budget dropped it: the lines are the same). Repeat for several values");
    cmd->add_option("--break-at", o->breakAt,
        "With --debug-run --repeat N: time each debug run up to a breakpoint before the node of this display name "
        "(set before the run) instead of to the end");
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
        "[0, 9]), except inputs whose role is known: attention masks are ones, token ids are below the vocabulary "
        "size of the embedding table they index, position ids are 0..n-1; symbolic dims are 1 unless --dim sets "
        "them");
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
