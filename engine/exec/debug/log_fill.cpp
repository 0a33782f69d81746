// SPDX-License-Identifier: MIT
// The value log of quiet stretches filled in by segments (Debugger::completeLog): the spans between the checkpoints
// taken during the stretches are replayed in parallel, each by the replayer in a session of its own, into a debugger of
// its own, and merged in order.
#include "engine/exec/debug/debugger.h"

#include "engine/core/thread_pool.h"

#include <cstdlib>
#include <exception>
#include <string_view>
#include <thread>

namespace onnxscope {

size_t Debugger::logThreads() const
{
    if (const char* v = std::getenv("ONNXSCOPE_LOG_THREADS"); v && *v)
        return std::max<size_t>(1, static_cast<size_t>(std::strtoul(v, nullptr, 10)));
    // Once: glibc reads it from /sys on each call (about 10 us, a tenth of a small model's run).
    static const unsigned hardware = std::thread::hardware_concurrency();
    if (hardware == 1)
        return 1;
    const ThreadPool* pool = m_session.options().threadPool;
    return std::max<size_t>(2, pool ? static_cast<size_t>(pool->threads()) : 1);
}

const Checkpoint* Debugger::pendingLogStart() const
{
    const auto at = std::lower_bound(m_checkpoints.begin(), m_checkpoints.end(), m_logFrom,
        [](const Checkpoint& c, uint64_t p) { return c.step < p; });
    if (at == m_checkpoints.end() || at->step != m_logFrom || m_stepLog.size() != m_logFrom)
        return nullptr;
    return &*at;
}

void Debugger::maybeQuietCheckpoint()
{
    // Looked at again when the main graph may have reached m_quietNextPc: a step moves its pc by at most the nodes it
    // counts.
    m_quietCheckAt = m_steps + 1;
    if (m_session.depth() != 1 || m_session.state() != Session::State::Running)
        return;
    const Frame& main = m_session.frame(0);
    if (main.pending || main.atEnd())
        return;
    if (main.pc < m_quietNextPc) {
        m_quietCheckAt = m_steps + (m_quietNextPc - main.pc);
        return;
    }
    m_quietNextPc = main.pc + m_quietSpacing;
    m_quietCheckAt = m_steps + m_quietSpacing;
    // A segment costs a thread, a session and a merge: on a run shorter than a millisecond more than it saves
    // (gpt2_decode, 0.1 ms: the run 112 -> 157 us and the log 283 -> 422 us with two segments; magika, 8 ms: the log
    // 14.1 -> 8.1 ms). So none is begun in the stretch's first half millisecond, unless ONNXSCOPE_LOG_THREADS asks.
    if (!m_segmentsAsked && std::chrono::steady_clock::now() - m_quietBegan < std::chrono::microseconds(500))
        return;
    Checkpoint c;
    c.step = m_steps;
    c.frameId = main.id;
    c.pc = main.pc;
    liveMainValues(main, c.values);
    m_quietCheckpoints.push_back(std::move(c));
}

Checkpoint Debugger::beginSegment(const Debugger& parent, const Checkpoint& from)
{
    m_session.options() = parent.m_session.options();
    m_mainFrameId = parent.m_mainFrameId;
    m_frameRecords[m_mainFrameId] = parent.m_frameRecords.at(m_mainFrameId);
    m_checkpointInterval = parent.m_checkpointInterval;
    m_steps = from.step;
    Checkpoint start;
    start.step = from.step;
    start.frameId = from.frameId;
    start.pc = from.pc;
    start.values = from.values;
    return start;
}

void Debugger::replaySegment(
    const Debugger& parent, const Checkpoint& from, uint64_t to, const std::atomic<bool>* cancel)
{
    const Checkpoint start = beginSegment(parent, from);
    m_replaying = true;
    const std::vector<CallRecord> none;
    Replayer replay(m_session, this, none, start, *this);
    try {
        while (m_steps < to && m_session.state() == Session::State::Running
            && !(cancel && cancel->load(std::memory_order_relaxed)))
            advanceSession(&replay);
    } catch (const Error&) {
        // The stretch ended in the node's failure, which the replay met again (the last segment only).
    }
    m_replaying = false;
    m_replayedSteps = replay.advances();
}

void Debugger::mergeSegment(Debugger& seg, const Checkpoint* start, bool last, uint64_t& ordinal, uint64_t& sequence)
{
    std::unordered_map<uint64_t, uint64_t> ids { { m_mainFrameId, m_mainFrameId } };
    if (last)
        for (size_t f = 0; f < seg.m_session.depth(); ++f)
            ids[seg.m_session.frame(f).id] = m_session.frame(f).id;
    const auto mapId = [&](uint64_t id) {
        auto it = ids.find(id);
        return it != ids.end() ? it->second : ids.emplace(id, m_mergedFrameIds++).first->second;
    };
    if (start) {
        Checkpoint c;
        c.step = start->step;
        c.ordinal = ordinal;
        c.sequence = sequence;
        c.frameId = start->frameId;
        c.pc = start->pc;
        c.values = start->values;
        countCheckpoint(c, +1);
        m_checkpoints.push_back(std::move(c));
    }
    for (Checkpoint& c : seg.m_checkpoints) {
        c.ordinal += ordinal;
        c.sequence += sequence;
        countCheckpoint(c, +1);
        m_checkpoints.push_back(std::move(c));
    }
    seg.m_checkpoints.clear();
    for (auto& [id, rec] : seg.m_frameRecords) {
        if (id == m_mainFrameId)
            continue;
        FrameRecord r = rec;
        r.parent = mapId(rec.parent);
        m_frameRecords[mapId(id)] = std::move(r);
    }
    for (RecordedValue& v : seg.m_values) {
        v.ordinal += ordinal;
        v.sequence += sequence;
        v.frameId = mapId(v.frameId);
        m_values.push_back(std::move(v));
    }
    seg.m_values.clear();
    m_forgotten += seg.m_forgotten;
    m_stepLog.insert(m_stepLog.end(), seg.m_stepLog.begin(), seg.m_stepLog.end());
    for (CallRecord& c : seg.m_calls) {
        c.ordinalBefore += ordinal;
        c.ordinalAfter += ordinal;
        c.sequenceBefore += sequence;
        c.sequenceAfter += sequence;
        addCallRecord(std::move(c));
    }
    if (last) {
        m_openCalls = std::move(seg.m_openCalls);
        for (CallRecord& c : m_openCalls) {
            c.ordinalBefore += ordinal;
            c.sequenceBefore += sequence;
        }
    }
    m_replayedSteps += seg.m_replayedSteps;
    m_checkpointInterval = std::max(m_checkpointInterval, seg.m_checkpointInterval);
    ordinal += seg.m_ordinal;
    sequence += seg.m_sequence;
}

void Debugger::finishMergedLog(uint64_t target, uint64_t ordinal, uint64_t sequence)
{
    check(m_stepLog.size() == target, "the replayed step log does not cover the run");
    m_ordinal = ordinal;
    m_sequence = sequence;
    m_pathRecord = nullptr;
    m_pathFrameId = 0;
    m_afterStop.reset();
    // As after the last node of the serial replay: its values are not dropped entries that may be forgotten.
    size_t lastNode = m_values.size();
    while (lastNode > 0 && !m_values.empty() && m_values[lastNode - 1].sequence == m_values.back().sequence
        && m_values[lastNode - 1].frameId == m_values.back().frameId
        && m_values[lastNode - 1].producer == m_values.back().producer)
        --lastNode;
    keepToBudget(lastNode);
}

Debugger::SegmentFill Debugger::fillLogBySegments(const std::atomic<bool>* cancel)
{
    const size_t threads = logThreads();
    // A run that failed is left as its failing step left it (a plain step may have moved an input out of its frame):
    // the serial replay restores it node by node, as a debug run failing there would be.
    if (threads < 2 || m_quietCheckpoints.empty() || m_options.retention != ValueRetention::Summaries
        || m_options.iterationRetention != IterationRetention::All || m_session.state() == Session::State::Failed)
        return SegmentFill::NotApplicable;
    const uint64_t target = m_steps;
    // A stretch of a few steps is not worth a thread and a session per segment, unless ONNXSCOPE_LOG_THREADS asks for
    // segments (tests, measurements). (The bench's models run 200-800 steps: a bound in steps cannot tell a 1 ms run
    // from a 100 ms one.)
    constexpr uint64_t kMinSteps = 64;
    if (target - m_logFrom < kMinSteps && !m_segmentsAsked)
        return SegmentFill::NotApplicable;
    // The checkpoint where the first pending stretch began, then those taken inside the stretches.
    const Checkpoint* at = pendingLogStart();
    if (!at)
        return SegmentFill::NotApplicable;
    std::vector<const Checkpoint*> starts { at };
    for (const Checkpoint& c : m_quietCheckpoints)
        if (c.step > starts.back()->step && c.step < target)
            starts.push_back(&c);
    if (starts.size() < 2)
        return SegmentFill::NotApplicable;
    const size_t n = starts.size();
    // Each segment keeps its checkpoints and call records within its share of the budget: together they take no more
    // than the serial replay's.
    DebuggerOptions options = m_options;
    options.memoryBudget = m_options.memoryBudget / n;
    std::vector<std::unique_ptr<Debugger>> segments;
    for (size_t i = 0; i < n; ++i)
        segments.push_back(std::make_unique<Debugger>(m_program, options));
    std::vector<std::exception_ptr> failures(n);
    const auto run = [&](size_t i) {
        try {
            segments[i]->replaySegment(*this, *starts[i], i + 1 < n ? starts[i + 1]->step : target, cancel);
        } catch (...) {
            failures[i] = std::current_exception();
        }
    };
    {
        // As many at once as there are threads: the calling thread runs the last.
        std::vector<std::thread> workers;
        for (size_t first = 0; first < n; first += threads) {
            const size_t last = std::min(n, first + threads);
            for (size_t i = first; i + 1 < last; ++i)
                workers.emplace_back(run, i);
            run(last - 1);
            for (std::thread& w : workers)
                w.join();
            workers.clear();
        }
    }
    // Nothing is merged yet: if a segment did not replay as the run went (it cannot, short of a defect), the serial
    // replay fills the log instead.
    if (cancel && cancel->load())
        return SegmentFill::Cancelled;
    for (const std::exception_ptr& f : failures)
        if (f)
            return SegmentFill::NotApplicable;
    const Debugger& tail = *segments.back();
    if (tail.m_steps != target || tail.m_session.state() != m_session.state()
        || tail.m_session.depth() != m_session.depth())
        return SegmentFill::NotApplicable;

    // Merged in order: ordinals, sequence numbers and frame ids renumbered (the frames open at the stop get the ids of
    // the debugger's own frames).
    uint64_t ordinal = starts[0]->ordinal;
    uint64_t sequence = starts[0]->sequence;
    for (size_t i = 0; i < n; ++i)
        mergeSegment(*segments[i], i > 0 ? starts[i] : nullptr, i + 1 == n, ordinal, sequence);
    finishMergedLog(target, ordinal, sequence);
    m_logSegments = n;
    return SegmentFill::Filled;
}

} // namespace onnxscope
