// SPDX-License-Identifier: MIT
#pragma once

// Helpers shared by the ai.onnx.ml kernels: post transforms, reading the X input as rows of numbers, and the
// tolerant attribute readers those operators need. Include only from kernel .cpp files.

#include "engine/kernels/kernel.h"

#include <cstdint>
#include <string>
#include <vector>

namespace onnxscope::ml {

/// post_transform of LinearClassifier, SVM*, TreeEnsemble*.
enum class PostTransform { None, Logistic, Softmax, SoftmaxZero, Probit };

/// Reads 'post_transform' (default NONE); an unknown value is an error naming the node.
PostTransform readPostTransform(const NodeAttributes& attributes);

double logistic(double x);
/// sqrt(2) * erfinv(2p - 1): the quantile of the standard normal distribution (NaN outside (0, 1)).
double probit(double p);
/// Applies a post transform in place to one row of `n` scores (n >= 2 for the softmaxes to be meaningful).
void applyPostTransform(PostTransform transform, double* scores, int64_t n);

/// X as rows: [N, F] (or [F] as one row, a scalar as one value). Every numeric type is converted to double.
struct Rows {
    int64_t n = 0;
    int64_t features = 0;
    std::vector<double> values; // n * features, row-major
};
Rows readRows(const KernelContext& ctx, const Tensor& x);
/// N and F of X without converting it: [N, F] -> (N, F), [F] -> (1, F), scalar -> (1, 1); rank > 2 is an error.
std::pair<int64_t, int64_t> rowsAndFeatures(const KernelContext& ctx, const Tensor& x);

/// Floats of attribute `name`, or of `name`_as_tensor (a double or float tensor) when present.
std::vector<double> readFloatsOrTensor(const NodeAttributes& attributes, const std::string& name);

/// The element type the model declares for output i, or `fallback` when it declares none.
DataType declaredElementType(const KernelInit& init, size_t output, DataType fallback);

} // namespace onnxscope::ml
