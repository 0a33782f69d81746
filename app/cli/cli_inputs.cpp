// SPDX-License-Identifier: MIT
#include "app/cli/cli_inputs.h"

#include "app/cli/commands.h"

#include "engine/io/input_reader.h"

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
    std::map<std::string, Value> inputs;
    for (const auto& spec : specs) {
        const auto eq = spec.find('=');
        if (eq == std::string::npos) {
            const fs::path file(spec);
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
        const ValueId id = graph.findValue(name);
        if (id == kNoValue || graph.value(id).source != ValueInfo::Source::Input)
            throw Error("the model has no input \"" + name + "\"; its inputs are:" + expectedInputsText(graph));
        if (inputs.count(name))
            throw UsageError("input \"" + name + "\" is given more than once");
        inputs[name] = readInputFile(name, spec.substr(eq + 1), &graph.value(id).type);
    }
    return inputs;
}

} // namespace onnxscope::cli
