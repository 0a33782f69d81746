// SPDX-License-Identifier: MIT
#pragma once

#include "engine/core/value.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

namespace onnxscope {

/// Summary statistics of a tensor's elements, over its finite values (NaN and ±Inf are only counted).
/// Bool counts as 0/1; complex tensors use the real part. String tensors only get `count`.
struct TensorStats {
    int64_t count = 0; // elements
    int64_t finite = 0;
    int64_t nan = 0;
    int64_t posInf = 0;
    int64_t negInf = 0;
    int64_t zeros = 0;
    double min = 0; // over finite elements; 0 if none
    double max = 0;
    double mean = 0;
    double std = 0; // population standard deviation
    bool numeric = false; // false for strings and non-tensors
    int64_t nonFinite() const { return nan + posInf + negInf; }
};

/// Statistics of every element (one pass, Welford's algorithm for a stable std).
TensorStats computeStats(const Tensor& tensor);
/// Statistics of a value: a tensor's, or for an optional the held tensor's; nullopt for sequences, maps, none.
std::optional<TensorStats> computeStats(const Value& value);

/// Counts of finite elements in `bins` equal-width bins over [lo, hi] (the stats' min and max when lo == hi == 0).
struct Histogram {
    double lo = 0;
    double hi = 0;
    std::vector<int64_t> counts;
};
Histogram computeHistogram(const Tensor& tensor, int bins, double lo = 0, double hi = 0);

/// Element-wise difference of two tensors of the same element count (shapes may differ only if counts match).
/// Error if the counts differ or an element type is not numeric/bool.
struct TensorDiff {
    double maxAbs = 0; // max |a - b| over pairs where both are finite
    double maxRel = 0; // max |a - b| / max(|b|, tiny)
    int64_t worstIndex = -1; // flat index of maxAbs
    double worstA = 0;
    double worstB = 0;
    int64_t mismatchedNonFinite = 0; // pairs where NaN/Inf do not match
    int64_t count = 0;
};
TensorDiff compareTensors(const Tensor& actual, const Tensor& reference);

/// Calls `fn(index, double)` for every element (numeric and bool tensors), dispatching on the element type once.
void forEachAsDouble(const Tensor& tensor, const std::function<void(int64_t, double)>& fn);
/// Elements [begin, end) as doubles into `out` (numeric and bool tensors; NaN for strings).
void copyAsDouble(const Tensor& tensor, int64_t begin, int64_t end, double* out);

} // namespace onnxscope
