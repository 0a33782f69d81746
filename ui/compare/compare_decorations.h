// SPDX-License-Identifier: MIT
#pragma once

#include "ui/common/compare_colours.h"
#include "ui/common/graph_decorations.h"

namespace onnxscope {

/// Colours the boxes drawn now by a comparison's errors under `metric`: each box by the worst of the nodes it stands
/// for (a Constant folded into it counts when it differs), hatched when none of them has a counterpart, the first
/// divergence and other roots of a difference tagged, and a tooltip saying why. In `mainGraph`, the graph inputs are
/// coloured too and a consumer's note names a differing initializer. Clears the previous marks first; a null result
/// only clears. To be written again after each layout.
void decorateComparison(
    GraphDecorations& graph, const ComparisonResult* result, ErrorMetric metric, const Graph* mainGraph);

} // namespace onnxscope
