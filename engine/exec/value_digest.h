// SPDX-License-Identifier: MIT
#pragma once

#include "engine/core/tensor_stats.h"

#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <vector>

namespace onnxscope {

/// What a debug run records of every value as it is produced, while the data is still in cache: enough for the Values
/// dock, value conditions and NaN/Inf breakpoints once the data itself was dropped to stay under the memory budget.
struct ValueDigest {
    static constexpr int kBins = 16;
    static constexpr size_t kSample = 8;
    static constexpr size_t kMaxRank = 8;
    static constexpr size_t kHistogramSample = 256;

    // Fixed-size fields only: a debug run makes one per value, and allocates nothing for it.
    bool valid = false; // false until digest() filled it
    Value::Kind kind = Value::Kind::None;
    DataType dtype = DataType::Undefined; // of the tensor, or the tensor an optional holds; Undefined otherwise
    uint8_t rank = 0;
    std::array<int64_t, kMaxRank> dims {}; // the first kMaxRank dimensions
    size_t bytes = 0; // Value::byteSize()
    /// Over the finite elements (NaN and ±Inf only counted), for tensors and present optionals. The std is from the
    /// sums of a single pass, so it may differ from computeStats()'s in the last digits.
    std::optional<TensorStats> stats;
    double histogramLo = 0; // the bins split [histogramLo, histogramHi] evenly (numeric tensors)
    double histogramHi = 0;
    std::array<int64_t, kBins> histogram {};
    /// The histogram bins an even spread of kHistogramSample elements rather than all of them (float tensors larger
    /// than that): its counts then add up to that sample's finite elements, not to stats->finite.
    bool histogramSampled = false;
    uint8_t sampleSize = 0;
    std::array<double, kSample> sample {}; // the first elements (numeric tensors)

    std::vector<int64_t> shape() const { return { dims.begin(), dims.begin() + std::min<size_t>(rank, kMaxRank) }; }
    /// "float[1, 3]" for tensors (Value::typeString's form), the kind for other values.
    std::string typeString() const;
};

/// The digest of `value`: one pass over its elements for the statistics and one for the histogram.
ValueDigest digest(const Value& value);

} // namespace onnxscope
