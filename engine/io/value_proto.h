// SPDX-License-Identifier: MIT
#pragma once

#include "engine/core/value.h"

#include <filesystem>

namespace onnx {
class SequenceProto;
class MapProto;
class OptionalProto;
}

namespace onnxscope {

Value valueFromSequenceProto(const onnx::SequenceProto& proto);
Value valueFromMapProto(const onnx::MapProto& proto);
Value valueFromOptionalProto(const onnx::OptionalProto& proto);

/// Reads a serialized value file (.pb) as the backend test cases write them: a TensorProto, or a SequenceProto,
/// MapProto or OptionalProto when `expected` says the value has that kind. Error naming the file on any defect.
Value readValueFile(const std::filesystem::path& path, const ValueType* expected = nullptr);

} // namespace onnxscope
