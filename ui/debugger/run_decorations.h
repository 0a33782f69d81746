// SPDX-License-Identifier: MIT
#pragma once

#include "ui/common/debug_snapshot.h"
#include "ui/common/graph_decorations.h"

namespace onnxscope {

class BreakpointModel;

/// Marks a stopped run's nodes on the graph: the executed ones done, each frame's control-flow node and the next node
/// current, the node whose output stopped the run (NaN/Inf, a value condition) tripped, a failed node failed. Clears
/// the previous marks first; a null snapshot only clears.
void showRunState(GraphDecorations& graph, const DebugSnapshot* snapshot, const BreakpointModel& breakpoints);

/// Marks the boxes drawn now with what the run and the breakpoints say about them: breakpoint dots (enabled node and
/// op-type breakpoints, conditions on a node), a note with the node's time, its failure or what it stopped the run
/// with, the colour by time (white to red on a square-root scale) when `colourByTime`, and the actual type and shape of
/// what flowed on executed edges and through the graph's inputs and outputs. To be written again after each layout.
void decorateRun(
    GraphDecorations& graph, const DebugSnapshot* snapshot, const BreakpointModel& breakpoints, bool colourByTime);

} // namespace onnxscope
