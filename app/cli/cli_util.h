// SPDX-License-Identifier: MIT
#pragma once

#include "engine/core/value.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <string>

namespace onnxscope::cli {

/// A value name made safe as a file name: anything but [A-Za-z0-9._-] becomes '_', at most 100 characters,
/// never empty, "." or "..".
std::string sanitizeFileName(const std::string& name);

/// {"kind": "tensor", "dtype": "float", "shape": [1, "N", null]} (symbols as strings, unknown dims as null).
nlohmann::json valueTypeJson(const ValueType& type);

/// Milliseconds with three decimals: "1.234".
std::string formatMs(std::chrono::nanoseconds d);
std::string formatMs(double ms);

/// "1.5 MiB", "312 B".
std::string formatBytes(uint64_t bytes);

/// A JSON rendering of a non-tensor value (sequence, map, optional) with its elements inline; NaN/Inf as strings.
nlohmann::json valueJson(const Value& value);

} // namespace onnxscope::cli
