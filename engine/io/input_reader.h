// SPDX-License-Identifier: MIT
#pragma once

#include "engine/core/value.h"

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace onnxscope {

/// The kinds of file an input value is read from, told by the suffix (any case).
enum class InputFileFormat {
    Npy, // one numpy array
    Npz, // a numpy archive of named arrays
    Pb, // a serialized TensorProto, SequenceProto, MapProto or OptionalProto, as ONNX's backend test cases hold them
    Unknown,
};

InputFileFormat inputFileFormat(const std::filesystem::path& file);

/// The value of the model input `name` read from `file`, by its suffix:
/// - .npy: the array;
/// - .npz: the array named `name`, or the archive's only array;
/// - .pb: a TensorProto, or a SequenceProto, MapProto or OptionalProto when `declared` (the input's declared type,
///   may be null) has that kind.
/// Every error names the file: unreadable, malformed, no array of that name, or another suffix.
Value readInputValue(const std::string& name, const std::filesystem::path& file, const ValueType* declared = nullptr);

/// Every array of an .npz archive as a value, with the name numpy gave it, in archive order: the inputs of a model
/// when the arrays are named after them. Errors name the archive and the entry.
std::vector<std::pair<std::string, Value>> readInputArchive(const std::filesystem::path& file);

/// A tensor from a .npy or TensorProto .pb file. Errors name the file.
Tensor readTensorFile(const std::filesystem::path& file);

} // namespace onnxscope
