// SPDX-License-Identifier: MIT
#pragma once

#include "engine/exec/debug/breakpoint.h"
#include "engine/exec/debug/replayer.h"
#include "engine/exec/session.h"
#include "engine/exec/value_digest.h"

#include <atomic>
#include <chrono>
#include <functional>
#include <optional>
#include <unordered_map>
#include <unordered_set>

namespace onnxscope {

/// Why the debugger stopped.
enum class StopReason {
    None, // not started or running
    Step, // a step, step into/out finished
    Breakpoint,
    NonFinite,
    DebugNode,
    YieldOp, // before a YieldOp: the caller may supply its outputs (setYieldOutputs)
    RunToReached,
    Paused, // requestPause()
    Finished,
    Failed,
};

std::string_view stopReasonName(StopReason reason);

/// Where and why execution stopped.
struct StopInfo {
    StopReason reason = StopReason::None;
    int breakpointId = 0;
    std::string message; // human-readable: "breakpoint 2 at main / Conv_3", the error, ...
    std::string framePath; // of the position (innermost frame)
    const Node* lastNode = nullptr; // the node that completed last (if the stop is after a node)
    const Node* nextNode = nullptr; // the node that runs next, if the stop is before a node
};

/// An empty string that outlives every use: what SharedText and StringRef read when they hold nothing.
const std::string& emptyText();

/// An immutable string that copies share: a frame's path, held once by every value recorded in that frame, so that
/// recording a value allocates nothing for it.
class SharedText {
public:
    SharedText() = default;
    explicit SharedText(std::string text)
        : m_text(std::make_shared<const std::string>(std::move(text)))
    {
    }
    const std::string& str() const { return m_text ? *m_text : emptyText(); }
    operator const std::string&() const { return str(); }
    friend bool operator==(const SharedText& a, std::string_view b) { return a.str() == b; }

private:
    std::shared_ptr<const std::string> m_text;
};

/// A string owned elsewhere (a graph's value name), read as a const std::string&; copies are a pointer.
class StringRef {
public:
    StringRef() = default;
    StringRef(const std::string& text)
        : m_text(&text)
    {
    }
    const std::string& str() const { return m_text ? *m_text : emptyText(); }
    operator const std::string&() const { return str(); }
    friend bool operator==(const StringRef& a, std::string_view b) { return a.str() == b; }

private:
    const std::string* m_text = nullptr;
};

/// A value the debugger kept: one output of one executed node in one frame. Recording one allocates nothing beyond
/// the value itself: the name is a view of the graph's (valid while the model is, which the debugger and the UI's
/// snapshots hold) and the frame path is shared by every value of the frame.
struct RecordedValue {
    RecordedValue() = default;
    /// Every field (a constructor rather than aggregate initialisation, so that the debugger's emplace_back after each
    /// node neither zeroes the entry first nor moves a temporary into it).
    RecordedValue(uint64_t sequence, uint64_t frameId, const SharedText& framePath, const Graph* graph, NodeId producer,
        StringRef name, const Value& value, bool dropped, const Node* tracePoint, int64_t iteration)
        : sequence(sequence)
        , frameId(frameId)
        , framePath(framePath)
        , graph(graph)
        , producer(producer)
        , name(name)
        , value(value)
        , dropped(dropped)
        , tracePoint(tracePoint)
        , iteration(iteration)
    {
    }

    uint64_t sequence = 0; // execution order of the producing node
    uint64_t ordinal = 0; // position among every value the run recorded (from 0), the key for rematerialization
    uint64_t frameId = 0;
    SharedText framePath;
    const Graph* graph = nullptr;
    NodeId producer = -1; // -1 for graph inputs of a frame
    StringRef name;
    Value value; // None once dropped
    bool dropped = false; // released to stay under the memory budget
    const Node* tracePoint = nullptr; // DEBUG nodes: the node (the trace point's name is its display name)
    int64_t iteration
        = -1; // the iteration / step of the nearest Loop/Scan frame (If branches inside count), -1 outside loops
    /// Recorded before the data was dropped (DebuggerOptions::summaries); invalid while `value` is kept.
    ValueDigest summary;
};

/// Which values of finished loop iterations (Loop, Scan, SequenceMap bodies and what they contain) the debugger
/// keeps. The values of the iteration being executed are always kept.
enum class IterationRetention {
    All, // every iteration
    LastN, // the last DebuggerOptions::keepIterations iterations of each loop
    None, // nothing from finished iterations
};

/// A quarter of the machine's physical memory: the default memory budget of debug runs.
size_t defaultMemoryBudget();

/// What a debug run keeps of each value it records, beyond its summary.
enum class ValueRetention {
    /// The summary (ValueDigest, made as the node finishes, while the data is in cache; after the stop for the values
    /// of a quiet stretch, Debugger::completeLog) and the checkpoints: the data itself is released when the run no
    /// longer needs it, as a plain run releases it, and Debugger::materialize rebuilds it on demand (from the frames
    /// of the stopped position when it is still there, else by a replay from the nearest checkpoint). The memory of a
    /// run is then a plain run's plus the checkpoints (233 MiB for ocr_det, against 717 MiB keeping every value).
    Summaries,
    /// The data of every value too, within the budget: the newest are kept, older ones summarised and dropped. Reading
    /// a kept value needs no replay, but writing every value to fresh memory costs 1.4-2.1x a plain run on the OCR
    /// models (AMD EPYC Zen 4, AVX-512 and AVX2: docs/performance.md).
    Values,
};

struct DebuggerOptions {
    /// Bytes of recorded values and checkpoints to keep. Beyond it the oldest values are dropped (and marked so; their
    /// summaries stay) and checkpoints are thinned; Debugger::materialize rebuilds a dropped value.
    size_t memoryBudget = defaultMemoryBudget();
    ValueRetention retention = ValueRetention::Summaries;
    /// ValueRetention::Values: record a ValueDigest of every value whose data is dropped, just before it is: what the
    /// Values dock, value conditions and NaN/Inf counts read once the data is gone (kept values need none).
    /// ValueRetention::Summaries records one as each node finishes (after the stop, for quiet stretches). (Off: no
    /// summaries at all; the environment variable ONNXSCOPE_NO_SUMMARIES=1 turns them off, for measurements.)
    bool summaries = true;
    /// Take a checkpoint (the live values) every this many nodes of the main graph; 0 chooses a 32nd of its nodes,
    /// so that rebuilding any value re-runs at most that many. Doubled while checkpoints take over half the budget.
    size_t checkpointInterval = 0;
    IterationRetention iterationRetention = IterationRetention::All;
    int64_t keepIterations = 10;
    /// Step, Step Into and skipConstantsAhead() also stop before Constant nodes, which only make a constant. Off by
    /// default: they run without a stop, like a debugger stepping over library code (breakpoints on them still stop).
    bool stepConstants = false;
    SessionOptions session;
};

/// What the memory budget cost a debug run so far.
struct MemoryStats {
    size_t keptValues = 0; // recorded values whose data is kept
    size_t droppedValues = 0; // recorded values whose data was dropped (forgotten ones included)
    size_t recordedBytes = 0;
    size_t checkpoints = 0; // the start of the run included
    size_t checkpointBytes = 0; // their values, each storage once, the run's inputs left out
    size_t checkpointInterval = 0; // main-graph nodes between checkpoints
    size_t rematerializations = 0; // replays run by materialize()
    size_t replayedSteps = 0; // session steps those replays and the reverse moves ran
    size_t callRecords = 0; // subgraph calls (Loop iterations, Scan steps, branches) whose outputs are kept
    size_t callRecordBytes = 0;
    size_t skippedCalls = 0; // calls the replays passed over with their recorded outputs instead of running them
    /// Segments the last completeLog() replayed in parallel (0: it replayed serially, or there was no log to fill).
    size_t logSegments = 0;
    /// Whether the last completeLog() took the log replayed while the run went (the shadow fill, log_shadow.cpp).
    bool logShadow = false;
    std::chrono::nanoseconds rematerializationTime { 0 };
};

/// Steps through a model: step over, step into and out of subgraphs, continue to breakpoints, run to a node.
/// Keeps every value it sees (under a memory budget) so any executed node can be inspected afterwards.
/// Not thread-safe, except requestPause(), which may be called from any thread.
class Debugger : private SessionObserver, private ReplaySink {
public:
    explicit Debugger(std::shared_ptr<const Program> program, DebuggerOptions options = {});
    ~Debugger() override;

    /// Binds inputs and stops before the first node. Clears recorded values.
    void start(const std::map<std::string, Value>& inputs);
    /// Starts again with the inputs of the last start(); breakpoints stay.
    void reset();

    /// Runs the next node of the current frame; a node with subgraphs runs whole (breakpoints inside still stop).
    StopInfo step();
    /// Enters the subgraph of the next node (its first branch taken, first iteration), else like step().
    StopInfo stepInto();
    /// Finishes the current frame and stops when the node that owns it completes.
    StopInfo stepOut();
    /// Runs the Constant nodes just ahead in the current frame without stopping (unless options ask to step them or a
    /// breakpoint stops first), so that a run just started stops before its first real operation.
    StopInfo skipConstantsAhead();
    /// Runs until a breakpoint, a YieldOp, a pause request, the end, or an error.
    StopInfo continueRun();
    /// Runs until just before a node with this display name (in any frame), or a breakpoint stops first.
    StopInfo runTo(const std::string& nodeName);
    /// Reverse execution. Each restores the nearest checkpoint before the target and replays forward to it (silently:
    /// no breakpoints, no stops), recording the values again. Positions are counted in session steps since start().
    /// Back to the previous stop of step() in the current frame (or an enclosing one): a node with subgraphs is
    /// stepped back over whole (the reverse of step()).
    StopInfo stepBack();
    /// Back to the previous position where any step could have stopped, entering the frames of subgraphs from their end
    /// (the reverse of stepInto()).
    StopInfo stepBackInto();
    /// Back to just before the node that runs the current frame (the reverse of stepOut()); at the main graph, to the
    /// start.
    StopInfo stepBackOut();
    /// Back to the latest earlier position where continueRun() would have stopped on a breakpoint (node, op type,
    /// NaN/Inf, condition, DEBUG node); to the start if there is none.
    StopInfo reverseContinue();
    /// Back to the latest earlier position just before a node with this display name; to the start if none.
    StopInfo runBackTo(const std::string& nodeName);
    /// Session steps since start(): the current position.
    uint64_t position() const { return m_steps; }
    /// What a command running on another thread has done so far, readable from any thread (for progress polling):
    /// the session steps since start() (a quiet stretch's fused step counts each node it covers) and the nodes of the
    /// main graph completed. Published after each step of a forward move (not while a replay restores a position).
    uint64_t livePosition() const { return m_livePosition.load(std::memory_order_relaxed); }
    uint64_t liveMainNodesDone() const { return m_liveMainDone.load(std::memory_order_relaxed); }
    /// Goes to a position, earlier or later than the current one (later: runs forward without stopping).
    StopInfo goToPosition(uint64_t position);

    /// The data of a recorded value of this run: the value itself if kept, else rebuilt by re-running from the
    /// nearest earlier checkpoint in a separate session (the debugger does not move), bit-identical to the first time.
    Value materialize(const RecordedValue& value);
    /// The data of several recorded values with as few replays as possible; `sink` receives each (in execution order).
    void materialize(std::span<const RecordedValue* const> values,
        const std::function<void(const RecordedValue&, const Value&)>& sink);
    /// The data of a recorded value without a replay: the value itself if kept, else the frame's where a frame of the
    /// current position still holds it (it was made in that frame, which has not released it yet); null if only its
    /// summary is left.
    const Value* heldValue(const RecordedValue& value) const;
    /// The recorded value with this ordinal (RecordedValue::ordinal); null once a reverse move went back before it was
    /// made, or it was forgotten.
    const RecordedValue* findRecord(uint64_t ordinal) const;
    /// Set (once per run) when the budget could not hold even one node's values, which the run then kept anyway.
    const std::string& budgetNotice() const
    {
        ensureLog();
        return m_budgetNotice;
    }
    MemoryStats memoryStats() const;
    const DebuggerOptions& options() const { return m_options; }

    /// The iteration of the nearest Loop/Scan enclosing the frame running now (an If branch or function body inside
    /// a loop iteration is in it), -1 outside loops: the rule of Breakpoint::iteration.
    int64_t currentIteration() const;

    /// Asks a running continueRun()/step from another thread to stop at the next node boundary.
    void requestPause() { m_pauseRequested = true; }

    int addBreakpoint(Breakpoint breakpoint);
    bool removeBreakpoint(int id);
    bool setBreakpointEnabled(int id, bool enabled);
    const std::vector<Breakpoint>& breakpoints() const { return m_breakpoints; }

    /// Outputs to use for the YieldOp about to run (by output name), instead of its inputs.
    void setYieldOutputs(std::map<std::string, Value> outputs);

    /// Observers added here receive every node event, like the debugger itself (continueRun() and runTo() then run
    /// node by node, without quiet stretches).
    void addObserver(SessionObserver* observer)
    {
        m_session.addObserver(observer);
        m_extraObservers.insert(observer);
    }
    void removeObserver(SessionObserver* observer)
    {
        m_session.removeObserver(observer);
        m_extraObservers.erase(observer);
    }

    /// Fills in the value log (records, summaries, the step log, call records and checkpoints) of the quiet stretches
    /// run since it was last complete: a replay, node by node, from the checkpoint where the first one began to the
    /// current position, bit-identical to the stretch. Every reader of the log (values(), findValue(), findRecord(),
    /// tracePoints(), heldValue(), materialize(), memoryStats()) and every move other than a quiet one calls it first;
    /// a caller may call it earlier, e.g. on its worker thread right after a stop. The debugger stays where it is.
    /// `cancel` (may be set from any thread while it runs): a fill by segments gives up when it is set, leaving the log
    /// pending as before the call (nothing lost: the next call fills it from the start, and a quiet move goes on from
    /// the stop without it); returns false then. The serial replay, which moves the session, is not cancelled.
    bool completeLog(const std::atomic<bool>* cancel = nullptr);
    /// Whether the value log covers every step run so far (no quiet stretch waits for completeLog()).
    bool logComplete() const { return !m_logPending; }
    /// Quiet stretches run by continueRun() and runTo() since start().
    size_t quietStretches() const { return m_quietStretches; }

    const Session& session() const { return m_session; }
    const StopInfo& lastStop() const { return m_lastStop; }
    bool finished() const { return m_session.state() == Session::State::Finished; }
    bool failed() const { return m_session.state() == Session::State::Failed; }

    const std::vector<RecordedValue>& values() const
    {
        ensureLog();
        return m_values;
    }
    /// The latest recorded value with this name (optionally in a given frame).
    const RecordedValue* findValue(const std::string& name, uint64_t frameId = 0) const;
    /// DEBUG trace points in execution order.
    std::vector<const RecordedValue*> tracePoints() const;
    size_t recordedBytes() const
    {
        ensureLog();
        return m_recordedBytes;
    }
    /// Values dropped so long ago that even their entries were removed from values() (only counted).
    size_t forgottenValues() const
    {
        ensureLog();
        return m_forgotten;
    }

private:
    struct StepMark {
        const Node* node = nullptr; // NodeDone: the node
        uint32_t depth = 0;
        Session::StepKind kind = Session::StepKind::NodeDone;
    };
    /// Keeps a completed call's outputs (CallRecord), one per stretch of values, within a quarter of the budget.
    void addCallRecord(CallRecord record);
    void frameLeft(const Frame& frame, const std::string& framePath) override;
    std::vector<CallRecord> m_calls; // by enterStep
    std::vector<CallRecord> m_openCalls; // entered and not left yet, innermost last
    size_t m_callBytes = 0;
    uint64_t m_callGap = 1; // values recorded per call record at most
    size_t m_skippedCalls = 0;
    std::vector<RecordedValue> m_replayPool; // values restoreTo() undid, by ordinal: those of skipped calls come back
    std::vector<StepMark> m_stepLogTail; // the step log restoreTo() cut, from m_stepLogTailFrom
    uint64_t m_stepLogTailFrom = 0;
    /// restoreTo()'s replay (Replayer, in the debugger's own session) hands its events to the debugger's observer
    /// functions, which record as a forward move does; a call it passes over brings back its values (m_replayPool) and
    /// steps (m_stepLogTail).
    void replayFrameEntered(const Frame& frame, const std::string& framePath, uint64_t firstOrdinal) override;
    void replayNodeDone(const NodeEvent& event, uint64_t firstOrdinal) override;
    void replayFrameLeft(const Frame& frame, const std::string& framePath) override;
    void replayCallSkipped(const CallRecord& call) override;
    /// m_session.advance() (through `replay` while one runs), logged, with a checkpoint after it when due.
    Session::StepResult advanceSession(Replayer* replay = nullptr);
    void maybeCheckpoint();
    void takeCheckpoint();
    /// The values of the main frame that are live (used later or graph outputs) and not constants, by reference.
    static void liveMainValues(const Frame& main, std::vector<std::pair<ValueId, Value>>& out);
    void countCheckpoint(const Checkpoint& checkpoint, int sign);
    /// Uncounts the checkpoints from `first` on, keeps their vectors for later ones and removes them.
    void dropCheckpoints(size_t first);
    /// Whether a forward stop could be at this position (before a node, at the start, or at a frame entry).
    bool stepStoppable(uint64_t position) const; // stoppable(), and not before a skipped Constant
    bool stoppable(uint64_t position) const;
    size_t depthAt(uint64_t position) const;
    /// Restores the nearest checkpoint at or before `position` and replays to it.
    void restoreTo(uint64_t position);
    /// The latest position before `here` that `step` reports, searched segment by segment between checkpoints, latest
    /// first: each segment is restored and run forward by calls of `step` (one session step each; it returns the
    /// position of a hit, if that step found one). Leaves the debugger anywhere; the caller restores what it wants.
    std::optional<uint64_t> latestHitBefore(uint64_t here, const std::function<std::optional<uint64_t>()>& step);
    /// The stop of the first enabled after-node breakpoint (NaN/Inf, DEBUG nodes, condition, value) that the node of
    /// `event`, run in enclosing iteration `iteration`, trips; NaN/Inf is looked for only if `nonFiniteCandidate`.
    std::optional<StopInfo> breakpointAfter(const NodeEvent& event, int64_t iteration, bool nonFiniteCandidate) const;
    /// The id of the enabled node or op-type breakpoint that stops before `node` (0: none).
    int breakpointBefore(const Node& node) const;
    /// The stop after arriving at a position by a reverse move.
    StopInfo reverseStop(StopReason reason, std::string message, int breakpointId = 0);
    /// Drops the oldest values (not those from `protectFrom` on) and thins checkpoints to stay under the budget.
    void keepToBudget(size_t protectFrom);
    bool pinned(const RecordedValue& value) const { return value.producer < 0 && value.frameId == m_mainFrameId; }
    /// Whether the values recorded from `first` on may hold NaN or Inf (their summaries do not rule it out).
    bool mayHoldNonFinite(size_t first) const;

    /// completeLog() for the readers of the log, which are const: the log is filled in as it would have been, and
    /// the position does not change.
    void ensureLog() const
    {
        if (m_logPending)
            const_cast<Debugger*>(this)->completeLog();
    }
    /// Whether continueRun()/runTo() may run a quiet stretch from here: no observer but the debugger, and a checkpoint
    /// possible here unless a stretch is pending already.
    bool quietAllowed() const;
    /// The nodes (any graph) before which a quiet stretch must look: YieldOps, nodes named `runToName`, breakpoint
    /// targets.
    std::unordered_set<const Node*> quietStops(const std::string& runToName) const;
    /// The nodes (any graph) whose outputs an after-node breakpoint tests (the node a condition names, the producers
    /// of the value a value breakpoint names, DEBUG nodes): a quiet stretch runs each on its own and tests them. When
    /// every node is tested anyway (testsEveryNode), only the nodes of callables, which may read the inputs.
    std::unordered_set<const Node*> quietWatched() const;
    /// continueRun()/runTo() as a plain run: fused, in place, values freed, no events; the steps counted, the log
    /// left for completeLog().
    StopInfo runQuiet(const std::string& runToName);
    /// The watched node (quietWatched) in progress at some depth of the stack (a stop inside its subgraph), and that
    /// depth; null if none.
    const Node* watchedInProgress(const std::unordered_set<const Node*>& watched, size_t& depth) const;
    /// After a step of a stretch that may take checkpoints: gives them up after a fused step with a kernel, else takes
    /// one when it is due.
    void quietStepDone(bool fusedKernelStep);
    /// A stretch begins: the checkpoint where the pending log begins and the spacing of those inside the stretches (for
    /// the first pending one), the shadow fill started at once (ONNXSCOPE_LOG_SHADOW=1); whether to start it later.
    bool beginQuietStretch();
    /// Fills the quiet stretches' log (completeLog) before a move that runs node by node or goes back.
    void beginMove() { completeLog(); }
    std::unordered_set<SessionObserver*> m_extraObservers;
    bool m_logPending = false; // a quiet stretch ran since the log was complete
    uint64_t m_logFrom = 0; // the position where the first pending stretch began
    /// Checkpoints taken inside the pending quiet stretches (main graph, between nodes, the live values by reference),
    /// spaced so that they split the stretches into segments of about the same number of main-graph nodes. Their
    /// steps are known; their ordinals and sequence numbers only once completeLog() has replayed what lies before.
    std::vector<Checkpoint> m_quietCheckpoints;
    size_t m_quietNextPc = 0; // the main graph's node before which the next one is taken
    size_t m_quietSpacing = 0; // main-graph nodes between two of them
    std::chrono::steady_clock::time_point m_quietBegan; // when the current stretch began
    uint64_t m_quietCheckAt = 0; // the position from which maybeQuietCheckpoint() looks at the main graph's pc again
    bool m_segmentsAsked = false; // ONNXSCOPE_LOG_THREADS was set as the pending log began: segments however short
    /// Takes a checkpoint inside a quiet stretch when the main graph reached m_quietNextPc.
    void maybeQuietCheckpoint();
    /// How many threads completeLog() replays on: ONNXSCOPE_LOG_THREADS if set, else the session's thread count, at
    /// least 2 (1 on a machine that runs one thread).
    size_t logThreads() const;
    /// completeLog() by segments: each span between the checkpoints of the pending stretches is replayed in a session
    /// of its own on a thread of its own, into a Debugger of its own (its records, summaries, call and frame records,
    /// step log and checkpoints numbered from 0), then merged in order and renumbered. NotApplicable (nothing done)
    /// where it does not apply, the serial replay then filling the log; Cancelled (nothing merged) when `cancel` was
    /// set before the segments were done.
    enum class SegmentFill { Filled, NotApplicable, Cancelled };
    SegmentFill fillLogBySegments(const std::atomic<bool>* cancel);
    /// Appends segment `seg`'s records, summaries, checkpoints (after `start`, the checkpoint it began at: null for
    /// the first segment, whose start is the debugger's own), call and frame records and step log to the log,
    /// renumbered from `ordinal` and `sequence` (which it advances); the frames open at the stop (`last`) get the
    /// session's ids.
    void mergeSegment(Debugger& seg, const Checkpoint* start, bool last, uint64_t& ordinal, uint64_t& sequence);
    /// Replays from `from` (its ordinal and sequence taken as 0) to position `to` in this (fresh) debugger's session,
    /// recording as `parent` records.
    void replaySegment(const Debugger& parent, const Checkpoint& from, uint64_t to, const std::atomic<bool>* cancel);
    /// Readies this Debugger to replay part of `parent`'s run from `from` (a segment, or the shadow fill): the
    /// parent's session options, main frame record and checkpoint spacing, its position; returns the Replayer's start
    /// (from's position and values).
    Checkpoint beginSegment(const Debugger& parent, const Checkpoint& from);
    uint64_t m_mergedFrameIds = uint64_t(1) << 62; // ids given to the frames of merged segments
    size_t m_logSegments = 0;
    /// After the merge of segments or of the shadow: the counters, the position's caches, the budget.
    void finishMergedLog(uint64_t target, uint64_t ordinal, uint64_t sequence);
    /// The checkpoint where the pending log begins (m_logFrom), the log recorded up to it; null if the budget thinned
    /// it away (the serial replay then starts at an earlier one).
    const Checkpoint* pendingLogStart() const;
    /// The shadow fill (log_shadow.cpp): while quiet stretches run on one thread with a core to spare, their log is
    /// replayed node by node from the checkpoint where the pending stretches began, on a thread of its own, into a
    /// Debugger of its own, trailing the run's position (m_livePosition); completeLog() waits for it to reach the stop
    /// and merges it as one segment. It needs no checkpoint inside the stretches, so fused steps do not stop it.
    struct ShadowFill;
    std::unique_ptr<ShadowFill> m_shadow;
    bool m_logShadow = false;
    /// ONNXSCOPE_LOG_SHADOW: 0 never, 1 as each stretch begins (tests), 2 once a stretch ran 1 ms (measurements);
    /// unset (3): once a stretch ran 1 ms, where the machine has two hardware threads beyond the run's.
    static int shadowMode();
    bool shadowWanted() const;
    void startShadow();
    /// Gives the shadow up and waits for its thread (nothing merged).
    void stopShadow();
    void shadowLoop(ShadowFill& shadow, const Checkpoint& from);
    SegmentFill fillLogFromShadow(const std::atomic<bool>* cancel);
    size_t m_quietStretches = 0;

    using StopPredicate = std::function<bool(const Session::StepResult&)>;
    StopInfo runUntil(const StopPredicate& stopAfter, const std::string& runToName = {});
    StopInfo makeStop(StopReason reason, std::string message, int breakpointId = 0);
    std::optional<StopInfo> checkBeforeNode(const Node& node, const std::string& runToName);
    std::optional<StopInfo> checkAfterNode();
    /// The next node only makes a constant and options say not to stop before it.
    bool constantAhead() const;
    /// Adds a value, made in place from RecordedValue's constructor arguments (no temporary to move and destroy after
    /// every node).
    template <class... Args> void record(Args&&... args)
    {
        m_values.emplace_back(std::forward<Args>(args)...);
        countLast();
    }
    /// Numbers, summarises and counts the value record() added last (not a template).
    void countLast();
    void forgetOldIterations(const Frame& entered);

    void afterNode(const NodeEvent& event) override;
    void frameEntered(const Frame& frame, const std::string& framePath) override;
    bool wantsTiming() const override { return false; }

    struct FrameRecord {
        uint64_t parent = 0;
        NodeId ownerNode = -1;
        int64_t iteration = -1; // the frame's own Loop iteration / Scan step, -1 if it is none
        SharedText path;
        /// The iteration of the nearest Loop/Scan frame at or above this one: an If branch or a function body inside
        /// a loop iteration is in that iteration. -1 outside loops.
        int64_t enclosingIteration = -1;
    };
    /// The record of a frame, made (with its enclosing iteration) the first time it is seen.
    FrameRecord& frameRecord(const Frame& frame, const std::string& framePath);
    std::unordered_map<uint64_t, FrameRecord> m_frameRecords;
    /// The record (path, enclosing iteration) of the frame whose node completed last (in m_frameRecords, whose
    /// elements do not move), and its id.
    const FrameRecord* m_pathRecord = nullptr;
    uint64_t m_pathFrameId = 0;

    std::shared_ptr<const Program> m_program;
    DebuggerOptions m_options;
    Session m_session;
    std::map<std::string, Value> m_inputs;
    std::vector<Breakpoint> m_breakpoints;
    int m_nextBreakpointId = 1;
    std::atomic<bool> m_pauseRequested { false };
    bool m_freshStart = false;
    StopInfo m_lastStop;
    std::vector<RecordedValue> m_values;
    size_t m_recordedBytes = 0;
    size_t m_firstKept = 0; // values before this index were considered for dropping
    size_t m_forgotten = 0;
    static constexpr size_t kMaxDroppedEntries = 100000;
    uint64_t m_sequence = 0;
    size_t m_recordCapacity = 0; // values recorded when every graph runs once, reserved by start()
    // Set by afterNode for checkAfterNode():
    std::optional<StopInfo> m_afterStop;

    uint64_t m_mainFrameId = 0;
    uint64_t m_ordinal = 0; // values recorded since start()
    uint64_t m_steps = 0; // session steps since start()
    std::atomic<uint64_t> m_livePosition { 0 }; // m_steps, for livePosition()
    std::atomic<uint64_t> m_liveMainDone { 0 }; // for liveMainNodesDone()
    /// Publishes m_steps and the main graph's progress for the readers of livePosition() on other threads.
    void publishPosition();
    std::vector<StepMark> m_stepLog; // by step - 1
    std::vector<Checkpoint> m_checkpoints; // by step; the first is the start
    size_t m_checkpointInterval = 1;
    size_t m_checkpointBytes = 0;
    // The checkpoints' storages, each once: (storage, (bytes, references)), sorted. Vectors whose capacity a debugger
    // started again reuses, so that a run allocates nothing per checkpoint once it has run before.
    std::vector<std::pair<const void*, std::pair<size_t, size_t>>> m_checkpointStorage;
    std::vector<std::vector<std::pair<ValueId, Value>>> m_spareCheckpointValues;
    std::string m_budgetNotice;
    std::vector<ValueDigest> m_replayDigests; // by ordinal - m_replayDigestsFrom: digests of values undone by restoreTo
    uint64_t m_replayDigestsFrom = 0;
    size_t m_rematerializations = 0;
    size_t m_replayedSteps = 0;
    std::chrono::nanoseconds m_rematerializationTime { 0 };
    bool m_replaying = false; // restoreTo() is running: after-node breakpoints are not evaluated
};

} // namespace onnxscope
