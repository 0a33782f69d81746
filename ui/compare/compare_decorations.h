// SPDX-License-Identifier: MIT
#pragma once

#include "ui/common/compare_colours.h"
#include "ui/common/graph_decorations.h"

namespace onnxscope {

/// Which model of a comparison a drawing shows.
enum class CompareSide { A, B };

/// Colours the boxes drawn now by a comparison's errors under `metric`: each box by the worst of the nodes it stands
/// for (a Constant folded into it counts when it differs), hatched when none of them has a counterpart, the first
/// divergence and other roots of a difference tagged, and a tooltip saying why and naming the counterpart on the other
/// side. In `mainGraph`, the graph inputs are coloured too and a consumer's note names a differing initializer. Clears
/// the previous marks first; a null result only clears. To be written again after each layout.
///
/// With CompareSide::B the drawing is side B's model (a fused or quantized graph aligned with A's): each node of B
/// takes the errors of the pairs whose B value it produced (ComparisonResult::nodesOfB), and the B node that produced
/// the first divergence's counterpart is tagged as the first divergence.
void decorateComparison(GraphDecorations& graph, const ComparisonResult* result, ErrorMetric metric,
    const Graph* mainGraph, CompareSide side = CompareSide::A);

} // namespace onnxscope
