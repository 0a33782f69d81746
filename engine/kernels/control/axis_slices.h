// SPDX-License-Identifier: MIT
#pragma once

#include "engine/core/tensor.h"

#include <vector>

namespace onnxscope {

/// Slice `index` of `t` along `axis`, with that axis removed (Scan inputs).
Tensor sliceAlongAxis(const Tensor& t, int64_t axis, int64_t index);

/// Stacks equally shaped `parts` along a new axis `axis` (0 <= axis <= rank of a part). With no parts the result
/// has `emptyType` and shape `emptySliceShape` with a 0 inserted at `axis` (Loop/Scan outputs of zero iterations).
Tensor stackAlongAxis(const std::vector<Tensor>& parts, int64_t axis, DataType emptyType = DataType::Float,
    const Shape& emptySliceShape = {});

} // namespace onnxscope
