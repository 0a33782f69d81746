// SPDX-License-Identifier: MIT
// The replayer of the Debugger: checkpoints, call records, the step log, and the replays that restore a position
// (restoreTo, in the debugger's own session) and rebuild values (materialize, in a session of its own).
#include "engine/exec/debug/debugger.h"

#include "engine/core/spare_vectors.h"
#include "engine/exec/observers/output_watch.h"

#include <algorithm>
#include <string_view>

namespace onnxscope {

/// Re-runs part of a run in a session of its own, numbering the values as Debugger::record does, and hands the
/// wanted ones to a sink.
class Debugger::Replay : public SessionObserver {
public:
    /// `wanted`: the values to rebuild, by ordinal; a recorded subgraph call that makes none of them is passed over
    /// with its recorded outputs.
    Replay(const Debugger& debugger, const Checkpoint& from, const std::vector<const RecordedValue*>& wanted)
        : m_session(debugger.m_program, debugger.m_session.options())
        , m_ordinal(from.ordinal)
        , m_calls(debugger.m_calls)
        , m_wanted(wanted)
    {
        m_session.addObserver(this);
        m_session.setCallSkipper([this](const Frame&) { return skipCall(); });
        m_session.resume(from.frameId, from.pc, from.values);
    }
    ~Replay() override { m_session.removeObserver(this); }

    /// Runs until the value numbered `ordinal` was made; false if the run ended or failed first.
    bool runPast(uint64_t ordinal, const std::function<void(uint64_t, const Value&)>& sink, size_t& steps)
    {
        m_sink = &sink;
        while (m_ordinal <= ordinal && m_session.state() == Session::State::Running) {
            m_session.advance();
            ++steps;
        }
        m_sink = nullptr;
        return m_ordinal > ordinal;
    }
    uint64_t ordinal() const { return m_ordinal; }

private:
    void afterNode(const NodeEvent& event) override
    {
        for (size_t i = 0; i < event.node.outputs.size(); ++i)
            if (event.node.outputs[i] != kNoValue)
                give(event.outputs[i]);
    }
    void frameEntered(const Frame& frame, const std::string&) override
    {
        for (ValueId id : frame.graph().inputs())
            give(frame.values[static_cast<size_t>(id)]);
    }
    bool wantsTiming() const override { return false; }
    void give(const Value& value)
    {
        if (m_sink)
            (*m_sink)(m_ordinal, value);
        ++m_ordinal;
    }
    std::optional<std::vector<Value>> skipCall()
    {
        // The call entered now: recorded with the values made so far and the depth of its caller (ordinals alone
        // may repeat for a call that records nothing on entry, an If branch, and the first call inside it).
        const size_t depth = m_session.depth();
        auto it = std::lower_bound(m_calls.begin(), m_calls.end(), m_ordinal,
            [](const CallRecord& c, uint64_t ordinal) { return c.ordinalBefore < ordinal; });
        for (; it != m_calls.end() && it->ordinalBefore == m_ordinal; ++it) {
            if (it->depth != depth || it->ordinalAfter <= it->ordinalBefore)
                continue;
            auto next = std::lower_bound(m_wanted.begin(), m_wanted.end(), m_ordinal,
                [](const RecordedValue* v, uint64_t ordinal) { return v->ordinal < ordinal; });
            if (next != m_wanted.end() && (*next)->ordinal < it->ordinalAfter)
                return std::nullopt; // it makes a wanted value: run it
            m_ordinal = it->ordinalAfter;
            ++skipped;
            return it->outputs;
        }
        return std::nullopt;
    }

    Session m_session;
    uint64_t m_ordinal;
    const std::vector<CallRecord>& m_calls;
    const std::vector<const RecordedValue*>& m_wanted;
    const std::function<void(uint64_t, const Value&)>* m_sink = nullptr;

public:
    size_t skipped = 0;
};

void Debugger::countCheckpoint(const Checkpoint& checkpoint, int sign)
{
    for (const auto& [id, value] : checkpoint.values) {
        const Tensor* t = value.heldTensor();
        const void* key = t ? t->raw() : nullptr;
        const size_t bytes = value.byteSize();
        if (!key) {
            m_checkpointBytes = sign > 0 ? m_checkpointBytes + bytes : m_checkpointBytes - bytes;
            continue;
        }
        auto it = std::lower_bound(m_checkpointStorage.begin(), m_checkpointStorage.end(), key,
            [](const auto& entry, const void* k) { return entry.first < k; });
        if (sign > 0) {
            if (it == m_checkpointStorage.end() || it->first != key)
                it = m_checkpointStorage.insert(it, { key, { bytes, 0 } });
            if (it->second.second++ == 0)
                m_checkpointBytes += bytes;
        } else if (it != m_checkpointStorage.end() && it->first == key && --it->second.second == 0) {
            m_checkpointBytes -= it->second.first;
            m_checkpointStorage.erase(it);
        }
    }
}

void Debugger::dropCheckpoints(size_t first)
{
    for (size_t i = first; i < m_checkpoints.size(); ++i) {
        countCheckpoint(m_checkpoints[i], -1);
        m_checkpoints[i].values.clear();
        m_spareCheckpointValues.push_back(std::move(m_checkpoints[i].values));
    }
    m_checkpoints.erase(m_checkpoints.begin() + static_cast<std::ptrdiff_t>(first), m_checkpoints.end());
}

void Debugger::takeCheckpoint()
{
    const Frame& main = m_session.frame(0);
    const Plan& plan = *main.plan;
    Checkpoint c;
    if (!m_spareCheckpointValues.empty()) {
        c.values = std::move(m_spareCheckpointValues.back());
        m_spareCheckpointValues.pop_back();
    }
    c.step = m_steps;
    c.ordinal = m_ordinal;
    c.sequence = m_sequence;
    c.frameId = main.id;
    c.pc = main.pc;
    for (size_t id = 0; id < main.values.size(); ++id) {
        const Value& v = main.values[id];
        if (v.isNone() || !plan.constants[id].isNone())
            continue;
        const bool live = plan.isGraphOutput[id] || plan.lastUse[id] >= static_cast<NodeId>(main.pc);
        if (live)
            c.values.emplace_back(static_cast<ValueId>(id), v);
    }
    // The start's values are the caller's inputs, held anyway: not counted.
    if (!m_checkpoints.empty())
        countCheckpoint(c, +1);
    m_checkpoints.push_back(std::move(c));
}

void Debugger::maybeCheckpoint()
{
    if (m_session.depth() != 1 || m_session.state() != Session::State::Running)
        return;
    const Frame& main = m_session.frame(0);
    if (main.pending || main.atEnd() || main.pc % m_checkpointInterval != 0)
        return;
    if (!m_checkpoints.empty() && m_checkpoints.back().step >= m_steps)
        return;
    takeCheckpoint();
    keepToBudget(m_values.size());
}

Session::StepResult Debugger::advanceSession()
{
    Session::StepResult r;
    try {
        r = m_session.advance();
    } catch (...) {
        ++m_steps;
        m_stepLog.push_back(
            { m_session.failure().node, static_cast<uint32_t>(m_session.depth()), Session::StepKind::Finished });
        throw;
    }
    ++m_steps;
    m_stepLog.push_back({ r.node, static_cast<uint32_t>(r.depth), r.kind });
    maybeCheckpoint();
    if (!m_replaying)
        publishPosition();
    return r;
}

void Debugger::publishPosition()
{
    m_livePosition.store(m_steps, std::memory_order_relaxed);
    if (m_session.depth() > 0)
        m_liveMainDone.store(m_session.frame(0).pc, std::memory_order_relaxed);
    else if (m_session.state() == Session::State::Finished)
        m_liveMainDone.store(m_program->model().graph().nodes().size(), std::memory_order_relaxed);
}

bool Debugger::stoppable(uint64_t position) const
{
    if (position == 0)
        return true;
    const StepMark& m = m_stepLog.at(position - 1);
    return m.kind == Session::StepKind::NodeDone || m.kind == Session::StepKind::FrameEntered;
}

bool Debugger::stepStoppable(uint64_t position) const
{
    if (!stoppable(position))
        return false;
    // As stepping forward does, the reverse steps pass the positions before a Constant-only node
    // (DebuggerOptions::stepConstants).
    if (m_options.stepConstants || position >= m_stepLog.size())
        return true;
    const StepMark& next = m_stepLog[position];
    return !(next.kind == Session::StepKind::NodeDone && next.node && std::string_view(next.node->opType) == "Constant"
        && next.node->domain.empty() && next.node->subgraphs.empty());
}

size_t Debugger::depthAt(uint64_t position) const
{
    return position == 0 ? 1 : m_stepLog.at(position - 1).depth;
}

void Debugger::addCallRecord(CallRecord record)
{
    // One record per m_callGap values recorded, the outermost (earliest entered) of each stretch: spread evenly over
    // the run, and each passes over as much as it can.
    const auto bucket = [this](const CallRecord& c) { return c.ordinalBefore / m_callGap; };
    auto at = std::lower_bound(m_calls.begin(), m_calls.end(), record.enterStep,
        [](const CallRecord& c, uint64_t step) { return c.enterStep < step; });
    if (at != m_calls.end() && at->enterStep == record.enterStep) {
        m_callBytes -= at->bytes;
        m_callBytes += record.bytes;
        *at = std::move(record);
    } else {
        if (at != m_calls.begin() && bucket(*std::prev(at)) == bucket(record))
            return;
        if (at != m_calls.end() && bucket(*at) == bucket(record)) {
            m_callBytes -= at->bytes;
            at = m_calls.erase(at);
        }
        m_callBytes += record.bytes;
        m_calls.insert(at, std::move(record));
    }
    // At most a quarter of the budget: the stretches double while they take more (replays then run the calls between
    // two records).
    while (m_callBytes > m_options.memoryBudget / 4 && !m_calls.empty()) {
        m_callGap *= 2;
        size_t kept = 0;
        m_callBytes = 0;
        for (size_t i = 0; i < m_calls.size(); ++i) {
            if (kept > 0 && bucket(m_calls[kept - 1]) == bucket(m_calls[i]))
                continue;
            m_callBytes += m_calls[i].bytes;
            if (kept != i)
                m_calls[kept] = std::move(m_calls[i]);
            ++kept;
        }
        m_calls.resize(kept);
        if (kept == 1 && m_callBytes > m_options.memoryBudget / 4) {
            m_calls.clear();
            m_callBytes = 0;
        }
    }
}

void Debugger::frameLeft(const Frame& frame, const std::string&)
{
    if (frame.parentFrameId == 0 || m_openCalls.empty())
        return;
    CallRecord record = std::move(m_openCalls.back());
    m_openCalls.pop_back();
    // Only where every iteration's values stay in the record: skipping a call brings its values back.
    if (m_options.iterationRetention != IterationRetention::All)
        return;
    record.leaveStep = m_steps + 1; // this is the step that leaves it
    record.ordinalAfter = m_ordinal;
    record.sequenceAfter = m_sequence;
    for (ValueId id : frame.graph().outputs()) {
        record.outputs.push_back(frame.values[static_cast<size_t>(id)]);
        record.bytes += record.outputs.back().byteSize();
    }
    addCallRecord(std::move(record));
}

std::optional<std::vector<Value>> Debugger::skipCall()
{
    if (!m_replaying)
        return std::nullopt;
    auto it = std::lower_bound(
        m_calls.begin(), m_calls.end(), m_steps, [](const CallRecord& c, uint64_t step) { return c.enterStep < step; });
    if (it == m_calls.end() || it->enterStep != m_steps || it->leaveStep > m_replayTarget
        || it->leaveStep - 1 > m_stepLogTailFrom + m_stepLogTail.size())
        return std::nullopt;
    // The call's steps but the last, which the step that skips it logs (as its FrameLeft).
    for (uint64_t step = it->enterStep; step + 1 < it->leaveStep; ++step)
        m_stepLog.push_back(m_stepLogTail[static_cast<size_t>(step - m_stepLogTailFrom)]);
    const auto byOrdinal = [](const RecordedValue& v, uint64_t ordinal) { return v.ordinal < ordinal; };
    auto first = std::lower_bound(m_replayPool.begin(), m_replayPool.end(), it->ordinalBefore, byOrdinal);
    auto last = std::lower_bound(first, m_replayPool.end(), it->ordinalAfter, byOrdinal);
    for (auto v = first; v != last; ++v) {
        if (!v->dropped && !pinned(*v))
            m_recordedBytes += v->value.byteSize();
        m_values.push_back(std::move(*v));
    }
    m_ordinal = it->ordinalAfter;
    m_sequence = it->sequenceAfter;
    m_steps = it->leaveStep - 1;
    m_pathRecord = nullptr;
    ++m_skippedCalls;
    keepToBudget(m_values.size());
    return it->outputs;
}

void Debugger::restoreTo(uint64_t position)
{
    check(!m_checkpoints.empty(), "the debugger has not been started");
    auto it = std::upper_bound(m_checkpoints.begin(), m_checkpoints.end(), position,
        [](uint64_t p, const Checkpoint& c) { return p < c.step; });
    const Checkpoint& from = *std::prev(it);
    // Later checkpoints are taken again on the way forward.
    dropCheckpoints(static_cast<size_t>(it - m_checkpoints.begin()));
    // The values recorded after the checkpoint are recorded again on the way.
    auto firstLater = std::lower_bound(m_values.begin(), m_values.end(), from.ordinal,
        [](const RecordedValue& v, uint64_t ordinal) { return v.ordinal < ordinal; });
    // Their digests describe the same data again (the replay is bit-identical): kept for the values recorded anew.
    m_replayDigests.clear();
    m_replayDigestsFrom = from.ordinal;
    for (auto v = firstLater; v != m_values.end(); ++v) {
        if (!v->dropped && !pinned(*v))
            m_recordedBytes -= v->value.byteSize();
        if (v->summary.valid) {
            m_replayDigests.resize(static_cast<size_t>(v->ordinal - from.ordinal) + 1);
            m_replayDigests.back() = v->summary;
        }
    }
    // Those of the calls the replay passes over come back as they are (skipCall).
    m_replayPool.assign(std::make_move_iterator(firstLater), std::make_move_iterator(m_values.end()));
    m_values.erase(firstLater, m_values.end());
    m_firstKept = std::min(m_firstKept, m_values.size());
    m_ordinal = from.ordinal;
    m_sequence = from.sequence;
    m_steps = from.step;
    m_stepLogTailFrom = from.step;
    m_stepLogTail.assign(
        m_stepLog.begin() + static_cast<std::ptrdiff_t>(std::min<uint64_t>(from.step, m_stepLog.size())),
        m_stepLog.end());
    m_stepLog.resize(from.step);
    // Calls that end after the position are run again on the way forward, and recorded again.
    std::erase_if(m_calls, [&](const CallRecord& c) {
        if (c.leaveStep <= position)
            return false;
        m_callBytes -= c.bytes;
        return true;
    });
    m_openCalls.clear();
    m_replayTarget = position;
    m_pathRecord = nullptr;
    m_pathFrameId = 0;
    m_afterStop.reset();
    m_session.resume(from.frameId, from.pc, from.values);
    m_replaying = true;
    try {
        while (m_steps < position && m_session.state() == Session::State::Running) {
            advanceSession();
            ++m_replayedSteps;
        }
    } catch (const Error&) {
        m_replaying = false;
        m_replayPool.clear();
        m_stepLogTail.clear();
        m_replayTarget = 0;
        throw;
    }
    m_replaying = false;
    m_replayPool.clear();
    m_stepLogTail.clear();
    m_replayTarget = 0;
    m_afterStop.reset();
}

Value Debugger::materialize(const RecordedValue& value)
{
    if (const Value* held = heldValue(value))
        return *held;
    Value out;
    const RecordedValue* one = &value;
    materialize(std::span<const RecordedValue* const>(&one, 1), [&](const RecordedValue&, const Value& v) { out = v; });
    return out;
}

void Debugger::materialize(
    std::span<const RecordedValue* const> values, const std::function<void(const RecordedValue&, const Value&)>& sink)
{
    ensureLog();
    std::vector<const RecordedValue*> wanted;
    for (const RecordedValue* v : values) {
        if (const Value* held = heldValue(*v))
            sink(*v, *held);
        else
            wanted.push_back(v);
    }
    if (wanted.empty())
        return;
    check(!m_checkpoints.empty(), "the debugger has not been started");
    std::sort(wanted.begin(), wanted.end(), [](const auto* a, const auto* b) { return a->ordinal < b->ordinal; });
    const auto started = std::chrono::steady_clock::now();
    const auto checkpointBefore = [&](uint64_t ordinal) -> const Checkpoint& {
        auto it = std::upper_bound(m_checkpoints.begin(), m_checkpoints.end(), ordinal,
            [](uint64_t o, const Checkpoint& c) { return o < c.ordinal; });
        check(it != m_checkpoints.begin(), "no checkpoint before the value");
        return *std::prev(it);
    };
    std::unique_ptr<Replay> replay;
    size_t next = 0;
    const std::function<void(uint64_t, const Value&)> give = [&](uint64_t ordinal, const Value& v) {
        while (next < wanted.size() && wanted[next]->ordinal < ordinal)
            ++next;
        for (size_t i = next; i < wanted.size() && wanted[i]->ordinal == ordinal; ++i)
            sink(*wanted[i], v);
    };
    for (size_t i = 0; i < wanted.size();) {
        const RecordedValue& target = *wanted[i];
        const Checkpoint& from = checkpointBefore(target.ordinal);
        // Going on with the replay under way is no more work than starting again from the nearest checkpoint.
        if (!replay || replay->ordinal() < from.ordinal || replay->ordinal() > target.ordinal) {
            if (replay)
                m_skippedCalls += replay->skipped;
            replay = std::make_unique<Replay>(*this, from, wanted);
            ++m_rematerializations;
        }
        next = i;
        try {
            if (!replay->runPast(target.ordinal, give, m_replayedSteps))
                throw Error("value \"" + target.name.str() + "\" was not produced again");
        } catch (const Error& e) {
            throw Error(std::string("rebuilding value \"") + target.name.str() + "\": " + e.what());
        }
        while (i < wanted.size() && wanted[i]->ordinal < replay->ordinal())
            ++i;
    }
    if (replay)
        m_skippedCalls += replay->skipped;
    m_rematerializationTime += std::chrono::steady_clock::now() - started;
}

std::optional<uint64_t> Debugger::latestHitBefore(uint64_t here, const std::function<std::optional<uint64_t>()>& step)
{
    // Segment by segment, from the checkpoint nearest before `here` back to the start: the search stops in the latest
    // segment that holds a hit, so it costs the way back to that hit rather than a run from the start.
    std::vector<uint64_t> starts;
    for (const Checkpoint& c : m_checkpoints)
        if (c.step < here)
            starts.push_back(c.step);
    if (starts.empty())
        starts.push_back(0);
    uint64_t end = here;
    for (size_t i = starts.size(); i-- > 0;) {
        restoreTo(starts[i]);
        std::optional<uint64_t> hit;
        try {
            while (m_steps < end && m_session.state() == Session::State::Running)
                if (const std::optional<uint64_t> h = step())
                    hit = h;
        } catch (const Error&) {
            // The run failed on the way: the position before the failure is as far as it goes.
        }
        if (hit)
            return hit;
        end = starts[i];
    }
    return std::nullopt;
}

} // namespace onnxscope
