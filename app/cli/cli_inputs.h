// SPDX-License-Identifier: MIT
#pragma once

#include "engine/model/graph.h"

#include <filesystem>
#include <map>
#include <random>
#include <set>
#include <string>

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

} // namespace onnxscope::cli
