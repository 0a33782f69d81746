// SPDX-License-Identifier: MIT
#pragma once

#include "engine/model/graph.h"
#include "engine/model/input_roles.h" // randomValue(), defaultInputValue()

#include <filesystem>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace onnxscope::cli {

/// "\n  name: type" for every input the caller must supply ("\n  (none)" if there is none).
std::string expectedInputsText(const Graph& graph);

/// An input value from a .npy, .npz (the array named `name`, or its only array) or .pb file (the engine's
/// readInputValue()); UsageError for a file of another suffix.
Value readInputFile(const std::string& name, const std::filesystem::path& file, const ValueType* declared);

/// readInputs() of the --input options.
std::map<std::string, Value> readInputOptions(const Graph& graph, const std::vector<std::string>& specs);

/// --dim SYMBOL=VALUE options as a map; UsageError for a malformed one or a negative VALUE.
std::map<std::string, int64_t> parseDims(const std::vector<std::string>& specs);

/// The inputs named by `specs` ("NAME=FILE" with a .npy, .npz or .pb file, or "FILE.npz" whose arrays are named
/// after the inputs), checked against the graph's inputs; `option` names the option in errors ("--input").
std::map<std::string, Value> readInputs(const Graph& graph, const std::vector<std::string>& specs, const char* option);

/// --random-inputs, --seed and --dim, as `run` and `compare` take them.
struct RandomInputs {
    bool enabled = false;
    uint64_t seed = 0;
    std::map<std::string, int64_t> dims;
};

/// Fills the required inputs that `inputs` lacks: with the values their role asks for, else seeded random ones
/// (defaultInputValue()), when `random.enabled` (each printed, unless `quiet`, as `random input "x": float[2, 3]`,
/// with ` for SIDE` when `side` is given and `, RULE` when a role chose them), else an Error listing
/// them and every expected input, prefixed "SIDE: " when `side` is given. Symbolic dims no --dim sized (so 1) are
/// added to `defaultedDims` when given; without a side, a --dim that sizes no input is warned about on stderr.
void completeInputs(const Graph& graph, std::map<std::string, Value>& inputs, const RandomInputs& random,
    const std::string& side = {}, bool quiet = false, std::set<std::string>* defaultedDims = nullptr);

} // namespace onnxscope::cli
