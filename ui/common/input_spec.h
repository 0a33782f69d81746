// SPDX-License-Identifier: MIT
#pragma once

#include "engine/core/value.h"

#include <QString>

#include <map>
#include <string>

namespace onnxscope {

/// Where one graph input's value comes from, and its parameters. Plain data: copied to the debugger's worker
/// thread, where buildInputTensor() makes the tensor.
struct InputSpec {
    enum class Source { Zeros, Ones, Constant, Uniform, Normal, Range, File, Typed };
    Source source = Source::Zeros;
    double constant = 0;
    double low = 0, high = 1; // Uniform
    double mean = 0, stddev = 1; // Normal
    double rangeStart = 0, rangeStep = 1; // Range
    quint64 seed = 0; // Uniform, Normal
    QString filePath; // File: .npy or TensorProto .pb
    QString text; // Typed: numbers separated by spaces/commas (brackets ignored), or strings one per line / JSON
    Tensor fileTensor; // File: the tensor read when the file was chosen (shared storage)
};

QString inputSourceName(InputSpec::Source source);

/// Dimension values by symbol ("batch" -> 1). Unnamed unknown dims are keyed "<input>[<axis>]".
using DimValues = std::map<QString, int64_t>;

/// The symbol a dimension is edited under: its own, or "<input>[<axis>]" for an unnamed unknown one; empty if fixed.
QString dimKey(const QString& input, size_t axis, const Dim& dim);
/// The concrete shape of a declared type with symbolic dims taken from `dims` (1 when absent).
Shape resolveShape(const QString& input, const ValueType& type, const DimValues& dims);

/// Builds the tensor for an input of declared type `type`; shape from `type` and `dims` (File and Typed may
/// differ: the file's shape, or a 1-D typed list when the declared rank is 1 with a free dim).
/// Throws Error with a message fit for the user.
Tensor buildInputTensor(const QString& input, const InputSpec& spec, const ValueType& type, const DimValues& dims);
/// Reads a .npy or .pb tensor file; throws Error naming the file.
Tensor readTensorFile(const QString& path);
/// Parses typed-in values into a tensor of `dtype` and `shape` (-1 in a rank-1 shape takes the value count).
Tensor parseTypedValues(const QString& text, DataType dtype, const Shape& shape);

} // namespace onnxscope
