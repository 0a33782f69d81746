// SPDX-License-Identifier: MIT
#pragma once

#include "engine/exec/program.h"

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_set>
#include <vector>

namespace onnxscope {

class ThreadPool;

/// A frame of the executor's stack: one graph being executed (the main graph, an If branch, one Loop
/// iteration, one Scan step, a function body) with its own values and program counter.
struct Frame {
    uint64_t id = 0; // unique within a session
    const Plan* plan = nullptr;
    std::string label; // "main", `Loop "loop_0" iteration 3`, ...
    uint64_t parentFrameId = 0; // 0 for the main frame
    NodeId ownerNode = -1; // the node of the parent frame that runs this frame
    int64_t iteration = -1; // Loop iteration / Scan step (from 0), -1 otherwise
    std::vector<Value> values; // by ValueId
    size_t pc = 0; // index of the next node (nodes are in topological order)
    // A control-flow node at `pc` that has started and is running subgraph calls:
    std::unique_ptr<SubgraphRun> pending;
    std::vector<Value> pendingInputs;
    std::vector<Value> pendingOutputs;
    std::chrono::steady_clock::time_point pendingStart;

    Frame() = default;
    Frame(const Frame&) = delete;
    Frame& operator=(const Frame&) = delete;
    /// Gives `values`' memory to the thread's next frame (engine/exec/session.cpp).
    ~Frame();

    const Graph& graph() const { return *plan->graph; }
    bool atEnd() const { return pc >= plan->graph->nodes().size(); }
};

/// What an observer is told about a node. Inputs and outputs are only valid during the callback; copy the Values
/// (cheap, shared storage) to keep them. Inputs are given by address (the frame's own values, not copies); an
/// omitted input points at a None value.
struct NodeEvent {
    const Node& node;
    const Frame& frame;
    size_t depth; // 1 for the main graph
    std::span<const Value* const> inputs;
    std::span<const Value> outputs; // empty in beforeNode
    std::chrono::nanoseconds elapsed { 0 }; // afterNode: wall time of the node, subgraphs included
    const std::string& framePath; // "main / Loop \"loop_0\" iteration 3" (not copied per event)

    /// framePath + " / " + node display name.
    std::string nodePath() const { return framePath + " / " + node.displayName(); }
};

/// Receives execution events. Several observers coexist (trace, timing, NaN watch, the debugger, the UI bridge).
class SessionObserver {
public:
    virtual ~SessionObserver() = default;
    virtual void beforeNode(const NodeEvent&) { }
    virtual void afterNode(const NodeEvent&) { }
    virtual void nodeFailed(const NodeEvent&, const std::string& /*message*/) { }
    virtual void frameEntered(const Frame&, const std::string& /*framePath*/) { }
    virtual void frameLeft(const Frame&, const std::string& /*framePath*/) { }
    /// Whether this observer reads NodeEvent::elapsed. The session reads the clock around each node only when one
    /// does (on a VM without a vDSO clock, each reading is a system call); otherwise elapsed is zero.
    virtual bool wantsTiming() const { return true; }
};

struct SessionOptions {
    /// Release each value after its last use (plain runs). Graph outputs are always kept.
    bool freeDeadValues = true;
    /// YieldOp: caller-supplied output values by output name (the seed runtime's `yield_ops`).
    std::map<std::string, Value> yieldOutputs;
    /// YieldOp: every output must be supplied in yieldOutputs; a missing one is an error naming it.
    bool requireYieldOutputs = false;
    /// Intra-op thread pool for kernels, or null.
    ThreadPool* threadPool = nullptr;
    /// Limits for kernels, e.g. the maximum Loop trip count (0 = unlimited).
    ExecutionLimits limits;
    /// Check the main graph's inputs against their declared rank and fixed dims (the element type is always
    /// checked). The backend-case runner turns this off, as ONNX's own runner does not check shapes.
    bool checkInputShapes = true;
};

/// Executes a Program one step at a time over an explicit frame stack. A plain run and a debug run are the same
/// loop; the Debugger decides when to stop. Nothing a model does escapes as anything but an Error, after which the
/// session is in the Failed state with the failing node recorded.
class Session {
public:
    enum class State { Idle, Running, Finished, Failed };
    enum class StepKind { NodeDone, FrameEntered, FrameLeft, Finished };
    struct StepResult {
        StepKind kind = StepKind::Finished;
        size_t depth = 0; // stack depth after the step (for NodeDone: the depth of the node's frame)
        const Node* node = nullptr; // NodeDone: the node that completed (the last one of a fused step)
        /// Nodes the step completed: more than 1 for a fused step of a plain run (Plan::fused), which stands for
        /// that many NodeDone steps of a run node by node; 1 otherwise.
        uint32_t nodes = 1;
    };
    struct Failure {
        std::string message;
        std::string framePath;
        const Node* node = nullptr;
        const Graph* graph = nullptr;
    };

    explicit Session(std::shared_ptr<const Program> program, SessionOptions options = {});
    ~Session();

    const Program& program() const { return *m_program; }
    std::shared_ptr<const Program> programPtr() const { return m_program; }
    SessionOptions& options() { return m_options; }
    const SessionOptions& options() const { return m_options; }
    void addObserver(SessionObserver* observer);
    void removeObserver(SessionObserver* observer);
    /// Puts `replacement` where `observer` is among the observers (the order kept), or adds it if `observer` is not
    /// one.
    void replaceObserver(SessionObserver* observer, SessionObserver* replacement);

    /// Binds the main graph's inputs and pushes its frame. Error listing the expected inputs if one is missing,
    /// unknown or of the wrong type or shape.
    void start(const std::map<std::string, Value>& inputs);
    /// Starts at a position between two nodes of the main graph instead of its beginning: `pc` is the next node, and
    /// `values` the values live there (the others are the plan's constants), taken earlier from a run on the same
    /// inputs (the debugger's checkpoints). The main frame gets `frameId`; frames pushed later get new ids.
    void resume(uint64_t frameId, size_t pc, const std::vector<std::pair<ValueId, Value>>& values);
    /// Takes over `other`'s position: its frames (their values, pending control-flow nodes), state, failure and
    /// outputs, `other` being a session of the same program that arrived at a position of the same frame depth (a
    /// replay of the span that led here). The frames taken over keep this session's frame ids, depth by depth; `other`
    /// is left with this session's former frames. The debugger's shadow fill (log_shadow.cpp) leaves its session where
    /// a run node by node would be, as the serial replay does.
    void adoptPosition(Session& other);
    /// Asked, when a control-flow node is about to enter a subgraph call (the caller is the frame of the node),
    /// whether the call's outputs are known already: outputs returned skip the call (no frame, no events) and go to
    /// the node as the frame's would have, in a step that reports the call's StepKind::FrameLeft. The debugger's
    /// replays skip the Loop iterations and branches before the position they go to this way.
    using CallSkipper = std::function<std::optional<std::vector<Value>>(const Frame& caller)>;
    void setCallSkipper(CallSkipper skipper) { m_callSkipper = std::move(skipper); }
    /// Nodes that a fused step of a plain run may start at but not cover beyond its first node (null: none), so that
    /// a caller running plainly can still stop before each of them (the debugger's quiet stretches, which stop before
    /// breakpoints). Held by the caller while it is set.
    void setFusionBarriers(const std::unordered_set<const Node*>* nodes) { m_fusionBarriers = nodes; }
    /// A test after every node that leaves a plain run plain (in place, values freed), unlike an observer: `check`
    /// receives the afterNode event of each node that runs with no observer, with no inputs (the kernel may have
    /// written over those it was given), and no other event. While it is set, no fused step runs: a fused step makes
    /// only its last node's output, and its kernel may turn a NaN or Inf of a node it covers into a finite value (Relu
    /// after a Conv), so each node runs on its own and is tested (the debugger's quiet stretches with a NaN/Inf or
    /// any-node condition breakpoint). Null: none. Held by the caller while it is set.
    void setAfterNodeCheck(SessionObserver* check) { m_afterNodeCheck = check; }
    /// Performs one step: runs the next node of the innermost frame, enters a subgraph frame, or leaves a
    /// finished frame. Throws Error (and enters Failed) if a node fails.
    StepResult advance();
    /// start() then advance() until finished; returns the graph outputs.
    std::map<std::string, Value> run(const std::map<std::string, Value>& inputs);

    State state() const { return m_state; }
    const Failure& failure() const { return m_failure; }
    size_t depth() const { return m_frames.size(); }
    const Frame& frame(size_t index) const { return *m_frames.at(index); }
    const Frame* topFrame() const { return m_frames.empty() ? nullptr : m_frames.back().get(); }
    /// The node the next advance() would start in the innermost frame (null at a frame's end or when a
    /// control-flow node there is already in progress).
    const Node* nextNode() const;
    /// The control-flow node of the innermost frame that is in progress, if any.
    const Node* nodeInProgress() const;
    std::string framePath() const;
    /// Outputs of the main graph by name, once Finished.
    const std::map<std::string, Value>& outputs() const { return m_outputs; }
    /// Ordered output names of the main graph.
    std::vector<std::string> outputNames() const;
    /// Fused kernels (Plan::fused) run since start(): plain runs only, each in place of several nodes.
    size_t fusedSteps() const { return m_fusedSteps; }

private:
    void pushFrame(const Plan& plan, std::vector<Value> inputs, std::string label, int64_t iteration = -1);
    StepResult advanceOnce();
    StepResult runNode(Frame& frame);
    StepResult runFused(Frame& frame, const Node& node, const FusedStep& step);
    /// Whether a fused step of `nodes` nodes starting at the frame's pc covers a fusion barrier after its first node.
    bool barrierWithin(const Frame& frame, uint32_t nodes) const;
    StepResult continuePending(Frame& frame);
    StepResult finishNode(Frame& frame, const Node& node, std::chrono::steady_clock::time_point started);
    /// The node's outputs for NodeEvent::outputs, valid until the next node: a view of the frame's values when they
    /// are consecutive there, else copies in m_eventOutputs.
    std::span<const Value> eventOutputs(const Frame& frame, const Node& node);
    [[noreturn]] void fail(const Node* node, const std::string& message);
    /// Points m_inputRefs at the node's inputs in the frame (no copies: no reference count changes).
    void gatherInputs(const Frame& frame, const Node& node);
    /// Points m_inputRefs at `values` and returns them.
    std::span<const Value* const> refsTo(const std::vector<Value>& values);

    std::shared_ptr<const Program> m_program;
    SessionOptions m_options;
    std::vector<SessionObserver*> m_observers;
    bool m_timed = false; // an observer wants NodeEvent::elapsed
    /// When the last advance() returned (timed runs with a control-flow node in progress): the time until the next
    /// one, a debugger's pause, is not the time of the nodes that are in progress.
    std::chrono::steady_clock::time_point m_returnedAt;
    std::vector<std::unique_ptr<Frame>> m_frames;
    std::vector<size_t> m_pathLengths; // m_path's length before each frame's label was appended
    uint64_t m_nextFrameId = 1;
    size_t m_fusedSteps = 0;
    State m_state = State::Idle;
    Failure m_failure;
    std::map<std::string, Value> m_outputs;
    std::vector<const Value*> m_inputRefs; // the current node's inputs, for its kernel and its events
    // Inputs the current node holds itself: those a plain run gives it to write over (moved out of the frame), or a
    // control-flow node's inputs once it has finished. Emptied after each node.
    std::vector<Value> m_inputs;
    std::vector<Value> m_results; // reused buffer for the current node's outputs
    std::vector<Value> m_eventOutputs; // reused buffer for NodeEvent::outputs
    std::string m_path; // framePath(), kept up to date as frames are pushed and popped
    CallSkipper m_callSkipper;
    const std::unordered_set<const Node*>* m_fusionBarriers = nullptr;
    SessionObserver* m_afterNodeCheck = nullptr;
};

/// Name of a value for messages: `"x" (input 0 of node "n" (Op))`.
std::string describeValue(const Graph& graph, ValueId id);

} // namespace onnxscope
