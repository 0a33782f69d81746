// SPDX-License-Identifier: MIT
// The Debugger's replayer: checkpoints, call records, and the one replay that restoring a position
// (Debugger::restoreTo, in the debugger's own session) and rebuilding values (Debugger::materialize, in a session of
// its own) both use.
#pragma once

#include "engine/exec/session.h"

#include <memory>
#include <optional>
#include <vector>

namespace onnxscope {

/// A position between two nodes of the main graph to replay from: its live values, held by reference (the storages
/// the run made, not copies: in-place writes need sole ownership of a buffer, so a held one is never written over), and
/// where it lies in the run.
struct Checkpoint {
    uint64_t step = 0; // position: session steps since start()
    uint64_t ordinal = 0; // values recorded before it
    uint64_t sequence = 0; // nodes completed before it (RecordedValue::sequence)
    uint64_t frameId = 0; // the main frame's
    size_t pc = 0; // the main graph's next node
    std::vector<std::pair<ValueId, Value>> values;
};

/// A subgraph call that completed (a Loop iteration, a Scan step, an If branch, a function body): its outputs and
/// where it lies in the run, so that a replay passes over it without running it (its frame entry is a checkpoint of
/// the loop or branch that made the call).
struct CallRecord {
    uint64_t enterStep = 0; // steps done before the step that entered it
    uint64_t leaveStep = 0; // steps done once it was left
    uint64_t ordinalBefore = 0; // values recorded before it
    uint64_t ordinalAfter = 0;
    uint64_t sequenceBefore = 0;
    uint64_t sequenceAfter = 0;
    size_t depth = 0; // frames of its caller's stack
    std::vector<Value> outputs;
    size_t bytes = 0;
};

/// The rule that numbers the values a debug run records (RecordedValue::ordinal), in the order it records them: the
/// inputs of a frame as it is entered, then the outputs each node has (kNoValue left out) as it completes.
size_t recordedOnEntry(const Frame& frame);
size_t recordedAfter(const Node& node);

/// What a replay hands on, each event with the ordinal of its first value.
class ReplaySink {
public:
    virtual ~ReplaySink() = default;
    virtual void replayFrameEntered(const Frame&, const std::string& /*framePath*/, uint64_t /*firstOrdinal*/) { }
    virtual void replayNodeDone(const NodeEvent&, uint64_t /*firstOrdinal*/) { }
    virtual void replayFrameLeft(const Frame&, const std::string& /*framePath*/) { }
    /// A recorded call was passed over: its steps, values and sequence numbers are the record's.
    virtual void replayCallSkipped(const CallRecord&) { }
};

/// Re-runs a span of a run from a checkpoint, node by node, numbering the values as the debug run did and counting
/// its steps; a recorded call that ends by the skip limit and makes no wanted value is passed over with its recorded
/// outputs (Session::setCallSkipper). Values and call/frame events go to the sink.
class Replayer : private SessionObserver {
public:
    /// In a session of its own.
    Replayer(std::shared_ptr<const Program> program, const SessionOptions& options,
        const std::vector<CallRecord>& calls, const Checkpoint& from, ReplaySink& sink);
    /// In `session` (the debugger's), in the place of its observer `replacing` while the replayer lives; the session's
    /// call skipper is the replayer's meanwhile (and none after).
    Replayer(Session& session, SessionObserver* replacing, const std::vector<CallRecord>& calls, const Checkpoint& from,
        ReplaySink& sink);
    ~Replayer() override;
    Replayer(const Replayer&) = delete;
    Replayer& operator=(const Replayer&) = delete;

    /// Calls that end after this position run again (default: every recorded call may be passed over).
    void setSkipLimit(uint64_t step) { m_skipLimit = step; }
    /// The ordinals to rebuild, sorted: a call that makes one of them runs.
    void setWanted(std::vector<uint64_t> ordinals) { m_wanted = std::move(ordinals); }

    /// One session step (a passed-over call counts its steps). An Error of the model propagates, the step counted.
    Session::StepResult advance();
    /// Runs until the value numbered `ordinal` was made; false if the run ended or failed first.
    bool runPast(uint64_t ordinal);

    Session& session() { return *m_session; }
    uint64_t steps() const { return m_steps; } // position
    uint64_t ordinal() const { return m_ordinal; } // values numbered so far
    size_t advances() const { return m_advances; } // session steps run
    size_t skipped() const { return m_skipped; } // calls passed over

private:
    void afterNode(const NodeEvent& event) override;
    void frameEntered(const Frame& frame, const std::string& framePath) override;
    void frameLeft(const Frame& frame, const std::string& framePath) override;
    bool wantsTiming() const override { return false; }
    std::optional<std::vector<Value>> skipCall();
    void attach(const Checkpoint& from);

    std::unique_ptr<Session> m_own;
    Session* m_session = nullptr;
    SessionObserver* m_replacing = nullptr;
    const std::vector<CallRecord>& m_calls;
    ReplaySink& m_sink;
    std::vector<uint64_t> m_wanted;
    uint64_t m_skipLimit = UINT64_MAX;
    uint64_t m_steps = 0;
    uint64_t m_ordinal = 0;
    size_t m_advances = 0;
    size_t m_skipped = 0;
};

} // namespace onnxscope
