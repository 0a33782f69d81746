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

/// The --input options of a command (NAME=FILE, or an .npz whose arrays are named after the inputs) read against the
/// main graph's inputs. UsageError for a malformed option or an input given twice, Error for an unknown input.
std::map<std::string, Value> readInputOptions(const Graph& graph, const std::vector<std::string>& specs);

} // namespace onnxscope::cli
