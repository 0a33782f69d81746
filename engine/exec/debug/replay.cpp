// SPDX-License-Identifier: MIT
// The Debugger's side of its replayer (replayer.h): checkpoints, call records, the step log, and the two uses of the
// one replay: restoring a position (restoreTo, in the debugger's own session) and rebuilding values (materialize, in a
// session of its own).
#include "engine/exec/debug/debugger.h"

#include "engine/core/spare_vectors.h"
#include "engine/exec/observers/output_watch.h"

#include <algorithm>
#include <string_view>

namespace onnxscope {

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

void Debugger::liveMainValues(const Frame& main, std::vector<std::pair<ValueId, Value>>& out)
{
    const Plan& plan = *main.plan;
    for (size_t id = 0; id < main.values.size(); ++id) {
        const Value& v = main.values[id];
        if (v.isNone() || !plan.constants[id].isNone())
            continue;
        const bool live = plan.isGraphOutput[id] || plan.lastUse[id] >= static_cast<NodeId>(main.pc);
        if (live)
            out.emplace_back(static_cast<ValueId>(id), v);
    }
}

void Debugger::takeCheckpoint()
{
    const Frame& main = m_session.frame(0);
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
    liveMainValues(main, c.values);
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

Session::StepResult Debugger::advanceSession(Replayer* replay)
{
    Session::StepResult r;
    try {
        r = replay ? replay->advance() : m_session.advance();
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

void Debugger::replayFrameEntered(const Frame& frame, const std::string& framePath, uint64_t firstOrdinal)
{
    if (firstOrdinal != m_ordinal)
        throw Error("the replay numbers the values of " + framePath + " differently");
    frameEntered(frame, framePath);
}

void Debugger::replayNodeDone(const NodeEvent& event, uint64_t firstOrdinal)
{
    if (firstOrdinal != m_ordinal)
        throw Error("the replay numbers the values of " + event.nodePath() + " differently");
    afterNode(event);
}

void Debugger::replayFrameLeft(const Frame& frame, const std::string& framePath)
{
    frameLeft(frame, framePath);
}

void Debugger::replayCallSkipped(const CallRecord& call)
{
    // The call's steps but the last, which the step that skips it logs (as its FrameLeft).
    for (uint64_t step = call.enterStep; step + 1 < call.leaveStep; ++step)
        m_stepLog.push_back(m_stepLogTail[static_cast<size_t>(step - m_stepLogTailFrom)]);
    const auto byOrdinal = [](const RecordedValue& v, uint64_t ordinal) { return v.ordinal < ordinal; };
    auto first = std::lower_bound(m_replayPool.begin(), m_replayPool.end(), call.ordinalBefore, byOrdinal);
    auto last = std::lower_bound(first, m_replayPool.end(), call.ordinalAfter, byOrdinal);
    for (auto v = first; v != last; ++v) {
        if (!v->dropped && !pinned(*v))
            m_recordedBytes += v->value.byteSize();
        m_values.push_back(std::move(*v));
    }
    m_ordinal = call.ordinalAfter;
    m_sequence = call.sequenceAfter;
    m_steps = call.leaveStep - 1;
    m_pathRecord = nullptr;
    ++m_skippedCalls;
    keepToBudget(m_values.size());
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
    m_pathRecord = nullptr;
    m_pathFrameId = 0;
    m_afterStop.reset();
    // The replay in the debugger's own session, its events handed to the debugger (replay*), which records them as a
    // forward move does. A call it passes over ends by the position and within the steps cut from the log.
    const auto finish = [this] {
        m_replaying = false;
        m_replayPool.clear();
        m_stepLogTail.clear();
        m_afterStop.reset();
    };
    {
        Replayer replay(m_session, this, m_calls, from, *this);
        replay.setSkipLimit(std::min<uint64_t>(position, m_stepLogTailFrom + m_stepLogTail.size() + 1));
        m_replaying = true;
        try {
            while (m_steps < position && m_session.state() == Session::State::Running) {
                advanceSession(&replay);
                ++m_replayedSteps;
            }
        } catch (const Error&) {
            finish();
            throw;
        }
        check(replay.steps() == m_steps && replay.ordinal() == m_ordinal,
            "the replay lost count of the steps or values of the run");
    }
    finish();
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
    // The replay's values by ordinal (the numbering of the run), those wanted handed to the sink.
    struct Give : ReplaySink {
        const std::vector<const RecordedValue*>& wanted;
        const std::function<void(const RecordedValue&, const Value&)>& sink;
        size_t next = 0;
        Give(const std::vector<const RecordedValue*>& wanted,
            const std::function<void(const RecordedValue&, const Value&)>& sink)
            : wanted(wanted)
            , sink(sink)
        {
        }
        void give(uint64_t ordinal, const Value& v)
        {
            while (next < wanted.size() && wanted[next]->ordinal < ordinal)
                ++next;
            for (size_t i = next; i < wanted.size() && wanted[i]->ordinal == ordinal; ++i)
                sink(*wanted[i], v);
        }
        void replayFrameEntered(const Frame& frame, const std::string&, uint64_t first) override
        {
            for (ValueId id : frame.graph().inputs())
                give(first++, frame.values[static_cast<size_t>(id)]);
        }
        void replayNodeDone(const NodeEvent& event, uint64_t first) override
        {
            for (size_t i = 0; i < event.node.outputs.size(); ++i)
                if (event.node.outputs[i] != kNoValue)
                    give(first++, event.outputs[i]);
        }
    } give(wanted, sink);
    std::vector<uint64_t> wantedOrdinals;
    for (const RecordedValue* v : wanted)
        wantedOrdinals.push_back(v->ordinal);
    std::unique_ptr<Replayer> replay;
    const auto count = [&] {
        if (replay) {
            m_skippedCalls += replay->skipped();
            m_replayedSteps += replay->advances();
        }
    };
    for (size_t i = 0; i < wanted.size();) {
        const RecordedValue& target = *wanted[i];
        const Checkpoint& from = checkpointBefore(target.ordinal);
        // Going on with the replay under way is no more work than starting again from the nearest checkpoint.
        if (!replay || replay->ordinal() < from.ordinal || replay->ordinal() > target.ordinal) {
            count();
            replay.reset();
            replay = std::make_unique<Replayer>(m_program, m_session.options(), m_calls, from, give);
            replay->setWanted(wantedOrdinals);
            ++m_rematerializations;
        }
        give.next = i;
        try {
            if (!replay->runPast(target.ordinal))
                throw Error("value \"" + target.name.str() + "\" was not produced again");
        } catch (const Error& e) {
            count();
            throw Error(std::string("rebuilding value \"") + target.name.str() + "\": " + e.what());
        }
        while (i < wanted.size() && wanted[i]->ordinal < replay->ordinal())
            ++i;
    }
    count();
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
