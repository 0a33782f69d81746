// SPDX-License-Identifier: MIT
#pragma once

#include "engine/core/data_type.h"
#include "engine/core/shape.h"

#include <cstdint>
#include <string>

namespace onnxscope {

// The one check of a size that comes from outside (a file's shape, a count, a declared length) against
// Tensor::allocationLimit(). Readers call it before any per-element work or allocation, so that a small file that
// declares billions of elements is an Error at once, whatever its item size (zero included) or memory order.
// Tensor's own allocations go through the same check (docs/reliability.md).

/// The element count of a tensor of `type` and `shape`, once its dims are known to be non-negative, their product
/// not to overflow, and its storage (elementSize(type) per element; the std::string objects for String) to fit the
/// allocation limit. Otherwise throws Error: "tensor string[1, 49, 729, 6, 141220] would need 902.0 GiB, more than
/// the allocation limit of 23.1 GiB".
int64_t checkedTensorCount(DataType type, const Shape& shape);

/// Throws Error unless `count` items of `itemBytes` bytes each fit the allocation limit (the product overflow-checked).
/// `what` names them: "sequence \"s\": 3000000000 items" gives "sequence \"s\": 3000000000 items would need 89.4 GiB,
/// more than the allocation limit of 23.1 GiB".
void checkAllocation(uint64_t count, uint64_t itemBytes, const std::string& what);

} // namespace onnxscope
