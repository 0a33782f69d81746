// SPDX-License-Identifier: MIT
#pragma once

#include "engine/core/tensor_stats.h"
#include "engine/exec/debug/debugger.h"
#include "engine/exec/observers/profile_observer.h"

#include <QMetaType>
#include <QString>

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <vector>

namespace onnxscope {

/// One level of the call stack: a frame of the executor's stack when the debugger stopped.
struct FrameSnapshot {
    uint64_t id = 0;
    std::string label; // "main", `Loop "loop_0" iteration 3`, `If "If_3" then_branch`
    std::string path; // "main / Loop \"loop_0\" iteration 3"
    const Graph* graph = nullptr;
    NodeId ownerNode = -1; // in the parent frame's graph
    int64_t iteration = -1;
    NodeId position = -1; // the next node (or the control-flow node in progress), -1 at the frame's end
};

/// A recorded value with its statistics (computed on the worker thread).
struct ValueSnapshot {
    RecordedValue record;
    std::optional<TensorStats> stats;
};

/// Everything the UI shows about a stopped run. Immutable once emitted; shared by every view. Values share the
/// engine's tensor storage, so a snapshot costs no tensor copies. Graph and Node pointers stay valid because the
/// snapshot holds the model.
struct DebugSnapshot {
    std::shared_ptr<const Model> model;
    StopReason reason = StopReason::None;
    QString message;
    int breakpointId = 0; // the BreakpointSpec id that stopped the run, 0 if none
    std::vector<FrameSnapshot> frames; // outermost (main) first; empty once finished
    const Graph* lastGraph = nullptr; // graph and node that completed last
    NodeId lastNode = -1;
    const Graph* failedGraph = nullptr;
    NodeId failedNode = -1;
    std::vector<ValueSnapshot> values; // execution order
    std::map<const Graph*, std::set<NodeId>> executed;
    std::vector<NodeTiming> timings; // every node run so far, in the order each first ran
    std::map<std::string, Value> outputs; // once finished
    size_t recordedBytes = 0; // values' data the run keeps
    size_t checkpointBytes = 0; // values its checkpoints hold (each storage once)
    size_t checkpoints = 0;
    size_t forgottenValues = 0;
    int64_t mainNodesDone = 0;
    int64_t mainNodeCount = 0;
    /// Times the thread running the nodes was descheduled for another thread or process while it ran them (this run,
    /// all commands so far): the node times include those waits. 0 where the system does not count them.
    int64_t preemptions = 0;
    /// Stretches this run ran as a plain run does, between the places where it could stop (Debugger::quietStretches;
    /// 0 with Debug › Record Profile on).
    size_t quietStretches = 0;
    /// The stop's position only, sent as soon as a quiet stretch stops, before the debugger has filled in its value
    /// log (DebugController::stopShown): `values`, `executed` and the sizes are those known at the previous stop of the
    /// run; the complete snapshot (DebugController::stopped) follows once every value is summarised.
    bool summarising = false;
    // Set when stopped before a YieldOp:
    std::vector<std::pair<std::string, Value>> yieldInputs; // input name, value
    std::vector<std::string> yieldOutputs; // output names

    const FrameSnapshot* innermost() const { return frames.empty() ? nullptr : &frames.back(); }
    /// The node that runs next (innermost frame), or null.
    const Node* nextNode() const;
    /// The latest value of this name, optionally in one frame.
    const ValueSnapshot* findValue(const std::string& name, uint64_t frameId = 0) const;
    /// The latest value of `value` of `graph` (any frame running that graph).
    const ValueSnapshot* findValue(const Graph* graph, ValueId value) const;
};

using DebugSnapshotPtr = std::shared_ptr<const DebugSnapshot>;

} // namespace onnxscope

Q_DECLARE_METATYPE(onnxscope::DebugSnapshotPtr)
