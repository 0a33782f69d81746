// SPDX-License-Identifier: MIT
#pragma once

#include "engine/model/graph.h"

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

/// Seeded random values: floats uniform in [-1, 1), integers in [0, 9], random lowercase strings. `run` and
/// `compare` share these so that the same --seed feeds the same values to both.
Tensor randomTensor(DataType type, const Shape& shape, std::mt19937_64& rng);
/// A random value of a declared type; symbolic dims come from `dims` (recorded in `usedDims`), else 1 (recorded in
/// `defaultedDims` when given: the symbol, or "(unnamed, of "NAME")").
Value randomValue(const std::string& name, const ValueType& type, const std::map<std::string, int64_t>& dims,
    std::set<std::string>& usedDims, std::mt19937_64& rng, std::set<std::string>* defaultedDims = nullptr);

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

/// Fills the required inputs that `inputs` lacks: with seeded random values when `random.enabled` (each printed,
/// unless `quiet`, as `random input "x": float[2, 3]`, with ` for SIDE` when `side` is given), else an Error listing
/// them and every expected input, prefixed "SIDE: " when `side` is given. Symbolic dims no --dim sized (so 1) are
/// added to `defaultedDims` when given; without a side, a --dim that sizes no input is warned about on stderr.
void completeInputs(const Graph& graph, std::map<std::string, Value>& inputs, const RandomInputs& random,
    const std::string& side = {}, bool quiet = false, std::set<std::string>* defaultedDims = nullptr);

} // namespace onnxscope::cli
