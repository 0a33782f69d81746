// SPDX-License-Identifier: MIT
#pragma once

#include "engine/core/tensor.h"

#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace onnxscope {

/// Options for writing numpy files.
struct NpyWriteOptions {
    /// Format version to write: 1, 2 or 3; 0 picks the smallest that fits (1.0, or 2.0 for huge headers, 3.0 is
    /// never picked automatically since our headers are ASCII).
    int version = 0;
};

/// Parses a `.npy` file held in memory (format 1.0, 2.0 and 3.0).
///
/// Every numeric dtype numpy shares with ONNX is read, plus bool, float16, complex64/128, unicode strings ('<U',
/// UTF-32, returned as UTF-8 std::string) and byte strings ('|S'). Big-endian data is byte-swapped and Fortran-order
/// arrays are transposed to row-major. Object arrays (pickles), structured dtypes and malformed or truncated
/// headers or data are an Error whose message starts with `displayName`.
Tensor parseNpy(std::string_view bytes, const std::string& displayName);
/// Reads a `.npy` file; errors name the file.
Tensor readNpy(const std::filesystem::path& path);

/// Serialises a tensor as `.npy` bytes (little-endian, C order). Strings become a '<U' array (the longest string
/// decides the width); invalid UTF-8 is an Error. bfloat16 has no numpy dtype and is an Error (see
/// npyCompatible()). The narrow types are written as ml_dtypes saves them, one byte per element, with ml_dtypes'
/// name as the descr ('float8_e4m3fn', 'int4', ...): numpy reads them once ml_dtypes is imported
/// (docs/element-types.md); parseNpy() reads them back.
std::string serializeNpy(const Tensor& tensor, NpyWriteOptions options = {});
void writeNpy(const std::filesystem::path& path, const Tensor& tensor, NpyWriteOptions options = {});

/// The tensor itself, or for bfloat16 (which numpy lacks) the same values as float32.
Tensor npyCompatible(const Tensor& tensor);

/// The numpy dtype string a tensor is written with: "<f4", "|b1", "<U7", "float8_e4m3fn", ...
std::string npyDescr(const Tensor& tensor);

/// Reads every array of a `.npz` archive (numpy.savez / savez_compressed), in archive order, with the names numpy
/// gave them (the entry name without ".npy"). Errors name the archive and the entry.
std::vector<std::pair<std::string, Tensor>> readNpz(const std::filesystem::path& path);
/// Writes a `.npz` archive readable by numpy.load; `compress` deflates entries like savez_compressed.
void writeNpz(const std::filesystem::path& path, const std::vector<std::pair<std::string, Tensor>>& arrays,
    bool compress = false, NpyWriteOptions options = {});

} // namespace onnxscope
