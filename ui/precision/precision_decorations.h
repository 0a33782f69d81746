// SPDX-License-Identifier: MIT
#pragma once

#include "ui/common/graph_decorations.h"
#include "ui/precision/precision_job.h"

namespace onnxscope {

/// Colours the boxes drawn now by a precision check's risk: each box (a collapsed group by the worst of its nodes)
/// red when it makes a value that overflows the target type, amber when it makes one that mostly flushes to zero,
/// purple when it only reads such a value (also kept in float32), green when none of its nodes is kept; the tooltip
/// gives the reasons. A null result clears the marks. To be written again after each layout.
void decoratePrecision(GraphDecorations& graph, const PrecisionResult* result);

} // namespace onnxscope
