// SPDX-License-Identifier: MIT
#include "app/cli/cli_inputs.h"

#include "app/cli/commands.h"

#include "engine/io/input_reader.h"

#include <iostream>

namespace fs = std::filesystem;

namespace onnxscope::cli {

std::string expectedInputsText(const Graph& graph)
{
    std::string s;
    for (ValueId id : graph.requiredInputs())
        s += "\n  " + graph.value(id).name + ": " + graph.value(id).type.toString();
    return s.empty() ? "\n  (none)" : s;
}

Value readInputFile(const std::string& name, const fs::path& file, const ValueType* declared)
{
    if (inputFileFormat(file) == InputFileFormat::Unknown)
        throw UsageError("input \"" + name + "\": \"" + file.string() + "\" is neither .npy, .npz nor .pb");
    return readInputValue(name, file, declared);
}

std::map<std::string, Value> readInputOptions(const Graph& graph, const std::vector<std::string>& specs)
{
    return readInputs(graph, specs, "--input");
}

std::map<std::string, int64_t> parseDims(const std::vector<std::string>& specs)
{
    std::map<std::string, int64_t> dims;
    for (const auto& d : specs) {
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
    return dims;
}

std::map<std::string, Value> readInputs(const Graph& graph, const std::vector<std::string>& specs, const char* option)
{
    std::map<std::string, Value> inputs;
    for (const auto& spec : specs) {
        auto eq = spec.find('=');
        if (eq == std::string::npos) {
            fs::path file(spec);
            if (file.extension() == ".npz") {
                for (auto& [key, value] : readInputArchive(file))
                    inputs[key] = std::move(value);
                continue;
            }
            throw UsageError(std::string(option)
                + " expects NAME=FILE (.npy, .npz or .pb) or an .npz whose arrays are named after the inputs, got \""
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
    return inputs;
}

void completeInputs(const Graph& graph, std::map<std::string, Value>& inputs, const RandomInputs& random,
    const std::string& side, bool quiet, std::set<std::string>* defaultedDims)
{
    std::vector<std::string> missing;
    for (ValueId id : graph.requiredInputs())
        if (!inputs.count(graph.value(id).name) && graph.value(id).type.kind != Value::Kind::Optional)
            missing.push_back(graph.value(id).name);
    if (missing.empty())
        return;
    if (random.enabled) {
        std::mt19937_64 rng(random.seed);
        std::set<std::string> usedDims;
        for (ValueId id : graph.requiredInputs()) {
            const auto& v = graph.value(id);
            if (inputs.count(v.name) || v.type.kind == Value::Kind::Optional)
                continue;
            std::string rule;
            inputs[v.name] = defaultInputValue(graph, id, random.dims, usedDims, rng, defaultedDims, rule);
            if (!quiet)
                std::cout << "random input \"" << v.name << "\"" << (side.empty() ? "" : " for " + side) << ": "
                          << inputs[v.name].typeString() << (rule == "random" ? std::string() : ", " + rule) << "\n";
        }
        if (side.empty())
            for (const auto& [symbol, value] : random.dims)
                if (!usedDims.count(symbol))
                    std::cerr << "warning: --dim " << symbol << " matches no symbolic dimension of the inputs\n";
        return;
    }
    std::string names;
    for (const auto& m : missing)
        names += (names.empty() ? "\"" : ", \"") + m + "\"";
    throw Error((side.empty() ? std::string() : side + ": ") + "missing input"
        + std::string(missing.size() > 1 ? "s " : " ") + names
        + " (give them with --input NAME=FILE.npy|FILE.npz|FILE.pb, or use --random-inputs); the model expects:"
        + expectedInputsText(graph));
}

} // namespace onnxscope::cli
