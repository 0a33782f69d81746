// SPDX-License-Identifier: MIT
#include "app/cli/cli_inputs.h"
#include "app/cli/cli_util.h"
#include "app/cli/commands.h"

#include "engine/core/byte_size.h"
#include "engine/exec/extract_case.h"
#include "engine/model/model.h"

#include <iostream>

namespace fs = std::filesystem;

namespace onnxscope::cli {

namespace {

struct ExtractCliOptions {
    std::string model;
    std::vector<std::string> nodes;
    std::vector<std::string> inputNames;
    std::vector<std::string> outputNames;
    std::string out;
    std::vector<std::string> inputs;
    std::vector<std::string> dims;
    uint64_t seed = 0;
    ThreadOptions threads;
    bool force = false;
};

std::string joined(const std::vector<std::string>& names)
{
    std::string s;
    for (const auto& n : names)
        s += (s.empty() ? "\"" : ", \"") + n + "\"";
    return s;
}

int runExtract(const ExtractCliOptions& o)
{
    if (o.nodes.empty() == o.outputNames.empty())
        throw UsageError("give either --node NAME (one or more), or --outputs with --inputs");
    if (!o.nodes.empty() && !o.inputNames.empty())
        throw UsageError("--inputs goes with --outputs; --node takes the node's own inputs");
    if (fs::exists(o.out) && !fs::is_empty(o.out) && !o.force)
        throw UsageError("\"" + o.out + "\" exists and is not empty; choose another folder or add --force");
    std::map<std::string, int64_t> dims;
    for (const auto& d : o.dims) {
        const auto eq = d.find('=');
        if (eq == std::string::npos)
            throw UsageError("--dim expects SYMBOL=VALUE, got \"" + d + "\"");
        try {
            dims[d.substr(0, eq)] = std::stoll(d.substr(eq + 1));
        } catch (const std::exception&) {
            throw UsageError("--dim expects SYMBOL=VALUE, got \"" + d + "\"");
        }
    }
    auto model = Model::load(o.model);
    const Graph& graph = model->graph();
    const SubgraphBoundary part
        = o.nodes.empty() ? subgraphBetween(graph, o.inputNames, o.outputNames) : subgraphOfNodes(graph, o.nodes);

    std::map<std::string, Value> inputs = readInputOptions(graph, o.inputs);
    std::mt19937_64 rng(o.seed);
    std::set<std::string> usedDims;
    for (ValueId id : graph.requiredInputs()) {
        const ValueInfo& v = graph.value(id);
        if (inputs.count(v.name) || v.type.kind == Value::Kind::Optional)
            continue;
        std::string rule;
        inputs[v.name] = defaultInputValue(graph, id, dims, usedDims, rng, nullptr, rule);
        std::cout << "input \"" << v.name << "\" not given: " << inputs[v.name].typeString() << ", " << rule << "\n";
    }
    auto program = std::make_shared<Program>(model);
    const std::unique_ptr<ThreadPool> pool = o.threads.makePool();
    const ExtractedCase written = extractTestCase(program, part, inputs, o.out, {}, pool.get());
    std::cout << "wrote " << o.out << ": " << written.model.nodeCount << " node"
              << (written.model.nodeCount == 1 ? "" : "s") << ", " << written.model.initializerCount << " initializer"
              << (written.model.initializerCount == 1 ? "" : "s") << " ("
              << formatByteCount(written.model.initializerBytes)
              << (written.model.externalData ? ", as external data" : "") << ")\n";
    std::cout << "  inputs: " << joined(part.inputs) << "\n  outputs: " << joined(part.outputs) << "\n";
    std::cout << "  test_data_set_0 holds the values this run gave them; onnxscope-cli test " << o.out
              << " runs it again\n";
    return kOk;
}

} // namespace

CommandRunner addExtractCommand(CLI::App& app)
{
    auto o = std::make_shared<ExtractCliOptions>();
    auto* cmd = app.add_subcommand("extract",
        "Write a standalone repro of a node or a subgraph: a folder in ONNX's backend test layout (model.onnx with "
        "only "
        "the initializers it needs, test_data_set_0/ with the inputs and expected outputs a run of the whole model "
        "gave it), which onnxscope-cli test and onnxruntime's onnx_test_runner read");
    cmd->add_option("model", o->model, "The .onnx file")->required();
    cmd->add_option("--node", o->nodes, "A node of the main graph to extract (repeat for several)");
    cmd->add_option("--inputs", o->inputNames, "Values where the subgraph starts (comma-separated), with --outputs")
        ->delimiter(',');
    cmd->add_option("--outputs", o->outputNames, "Values where the subgraph ends (comma-separated)")->delimiter(',');
    cmd->add_option("-o,--output-dir", o->out, "The folder to write")->required();
    cmd->add_option("--input", o->inputs,
        "NAME=FILE (.npy, .npz or .pb), or an .npz named after the inputs: the whole model's inputs for the run; the "
        "others get made-up values as run --random-inputs makes them");
    cmd->add_option("--seed", o->seed, "Seed for the made-up inputs")->capture_default_str();
    cmd->add_option("--dim", o->dims, "SYMBOL=VALUE: a symbolic dimension of the made-up inputs");
    cmd->add_flag("--force", o->force, "Write into a folder that is not empty");
    o->threads.addTo(cmd);
    return [cmd, o]() -> int { return cmd->parsed() ? runExtract(*o) : -1; };
}

} // namespace onnxscope::cli
