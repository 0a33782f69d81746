// SPDX-License-Identifier: MIT
#include "engine/exec/debug/debugger.h"

#include "engine/core/spare_vectors.h"
#include "engine/core/storage_cache.h"
#include "engine/exec/observers/output_watch.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string_view>
#include <unistd.h>

namespace onnxscope {

std::string_view stopReasonName(StopReason reason)
{
    switch (reason) {
    case StopReason::None:
        return "none";
    case StopReason::Step:
        return "step";
    case StopReason::Breakpoint:
        return "breakpoint";
    case StopReason::NonFinite:
        return "non-finite value";
    case StopReason::DebugNode:
        return "DEBUG node";
    case StopReason::YieldOp:
        return "YieldOp";
    case StopReason::RunToReached:
        return "run to node";
    case StopReason::Paused:
        return "paused";
    case StopReason::Finished:
        return "finished";
    case StopReason::Failed:
        return "failed";
    }
    return "?";
}

const std::string& emptyText()
{
    static const std::string text;
    return text;
}

namespace {
bool isDebugNode(const Node& node)
{
    // string_view compares the lengths first: this runs after every node.
    return std::string_view(node.opType) == "DEBUG" && (node.domain == "mlprodict" || node.domain == "DEBUG");
}
/// Values a run records if each graph (the main graph, each subgraph and function body) runs once: its inputs and
/// its nodes' outputs.
size_t recordsOfOneRun(const Graph& graph)
{
    size_t n = graph.inputs().size();
    for (const Node& node : graph.nodes()) {
        n += node.outputs.size();
        for (const auto& [name, subgraph] : node.subgraphs)
            n += subgraph ? recordsOfOneRun(*subgraph) : 0;
        if (node.functionBody)
            n += recordsOfOneRun(*node.functionBody);
    }
    return n;
}

} // namespace

namespace {

/// The storage cache keeps freed tensor memory resident (up to a GiB) for the next tensor of the same size. The values
/// a debug run drops go there too, so a small budget would not show in the process's memory: while debuggers exist,
/// the cache holds at most half the smallest budget among them.
class CacheLimit {
public:
    static void set(const void* debugger, size_t budget)
    {
        std::lock_guard lock(mutex());
        auto& all = budgets();
        if (all.empty())
            saved() = storageCache().limit.load();
        all[debugger] = budget;
        apply();
    }
    static void unset(const void* debugger)
    {
        std::lock_guard lock(mutex());
        if (budgets().erase(debugger))
            apply();
    }

private:
    static void apply()
    {
        size_t limit = saved();
        for (const auto& [debugger, budget] : budgets())
            limit = std::min(limit, budget / 2);
        storageCache().limit = limit;
    }
    static std::mutex& mutex()
    {
        static std::mutex m;
        return m;
    }
    static std::map<const void*, size_t>& budgets()
    {
        static std::map<const void*, size_t> b;
        return b;
    }
    static size_t& saved()
    {
        static size_t limit = 0;
        return limit;
    }
};

} // namespace

size_t defaultMemoryBudget()
{
    const long pages = sysconf(_SC_PHYS_PAGES);
    const long pageSize = sysconf(_SC_PAGE_SIZE);
    if (pages <= 0 || pageSize <= 0)
        return size_t(4) << 30;
    return static_cast<size_t>(pages) * static_cast<size_t>(pageSize) / 4;
}

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

Debugger::Debugger(std::shared_ptr<const Program> program, DebuggerOptions options)
    : m_program(program)
    , m_options(std::move(options))
    , m_session(std::move(program), m_options.session)
{
    // Values are released after their last use, as in a plain run: what the debugger keeps, it keeps in its records
    // and checkpoints, within the budget.
    m_session.options().freeDeadValues = true;
    // For measurements only (tests/bench/debug_goal.py): what a run costs without the summary of every value.
    if (const char* off = std::getenv("ONNXSCOPE_NO_SUMMARIES"); off && std::string_view(off) == "1")
        m_options.summaries = false;
    m_session.addObserver(this);
    m_session.setCallSkipper([this](const Frame&) { return skipCall(); });
    m_recordCapacity = recordsOfOneRun(m_program->model().graph());
}

Debugger::~Debugger()
{
    CacheLimit::unset(this);
    m_session.removeObserver(this);
    SpareVectors<RecordedValue>::give(m_values);
}

template <class... Args> void Debugger::record(Args&&... args)
{
    m_values.emplace_back(std::forward<Args>(args)...);
    countLast();
}

void Debugger::countLast()
{
    RecordedValue& v = m_values.back();
    v.ordinal = m_ordinal++;
    if (v.ordinal >= m_replayDigestsFrom && v.ordinal - m_replayDigestsFrom < m_replayDigests.size())
        v.summary = m_replayDigests[static_cast<size_t>(v.ordinal - m_replayDigestsFrom)];
    if (pinned(v))
        return;
    if (m_options.retention == ValueRetention::Summaries) {
        // Summarised now, while the node's output is still in cache; the frame keeps the data as long as the run
        // needs it, and materialize() finds it there or rebuilds it.
        if (!v.summary.valid && m_options.summaries)
            v.summary = digest(v.value);
        v.value = Value();
        v.dropped = true;
        return;
    }
    m_recordedBytes += v.value.byteSize();
}

void Debugger::keepToBudget(size_t protectFrom)
{
    const size_t budget = m_options.memoryBudget;
    // Checkpoints take at most half of the budget: every other one goes while they take more.
    while (m_checkpointBytes > budget / 2 && m_checkpoints.size() > 1) {
        m_checkpointInterval *= 2;
        size_t kept = 1;
        for (size_t i = 1; i < m_checkpoints.size(); ++i) {
            if (m_checkpoints[i].pc % m_checkpointInterval == 0)
                std::swap(m_checkpoints[kept++], m_checkpoints[i]);
        }
        dropCheckpoints(kept);
    }
    while (m_recordedBytes + m_checkpointBytes + m_callBytes > budget && m_firstKept < protectFrom) {
        auto& old = m_values[m_firstKept++];
        if (old.dropped || pinned(old))
            continue;
        m_recordedBytes -= old.value.byteSize();
        if (m_options.summaries && !old.summary.valid)
            old.summary = digest(old.value);
        old.value = Value();
        old.dropped = true;
    }
    if (m_recordedBytes + m_checkpointBytes + m_callBytes > budget && m_budgetNotice.empty()
        && protectFrom < m_values.size()) {
        const RecordedValue& last = m_values.back();
        size_t need = 0;
        for (size_t i = protectFrom; i < m_values.size(); ++i)
            need += m_values[i].value.byteSize();
        m_budgetNotice = "the memory budget (" + std::to_string(budget) + " bytes) is below what "
            + (last.producer >= 0
                    ? "node \"" + last.graph->nodes()[static_cast<size_t>(last.producer)].displayName() + "\""
                    : std::string("the inputs of ") + last.framePath.str())
            + " needs (" + std::to_string(need) + " bytes of values): the run keeps them and goes on";
    }
    // Dropped entries still cost their names and summaries; past a bound they are forgotten and only counted. Those of
    // a run that keeps only summaries are all dropped (those of the last node excepted, which the caller may read).
    if (m_options.retention == ValueRetention::Summaries)
        m_firstKept = std::max(m_firstKept, std::min(protectFrom, m_values.size()));
    if (m_firstKept > kMaxDroppedEntries) {
        m_forgotten += m_firstKept;
        m_values.erase(m_values.begin(), m_values.begin() + static_cast<std::ptrdiff_t>(m_firstKept));
        m_firstKept = 0;
    }
}

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
    return r;
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

void Debugger::start(const std::map<std::string, Value>& inputs)
{
    m_values.clear();
    m_replayDigests.clear();
    m_calls.clear();
    m_openCalls.clear();
    m_callBytes = 0;
    m_callGap = 1;
    m_skippedCalls = 0;
    m_replayPool.clear();
    m_stepLogTail.clear();
    m_forgotten = 0;
    m_ordinal = 0;
    m_steps = 0;
    m_stepLog.clear();
    dropCheckpoints(0);
    m_checkpointStorage.clear();
    m_checkpointBytes = 0;
    m_budgetNotice.clear();
    m_rematerializations = 0;
    m_replayedSteps = 0;
    m_rematerializationTime = {};
    m_afterStop.reset();
    m_frameRecords.clear();
    m_pathRecord = nullptr;
    m_recordedBytes = 0;
    m_firstKept = 0;
    m_sequence = 0;
    m_inputs = inputs;
    m_pauseRequested = false;
    // Dropped values would otherwise stay resident in the storage cache, beyond the budget. A run that keeps only
    // summaries recycles its memory as a plain run does (the cache then holds what a plain run's holds).
    if (m_options.retention == ValueRetention::Values)
        CacheLimit::set(this, m_options.memoryBudget);
    else
        CacheLimit::unset(this);
    m_session.start(inputs);
    const Frame& main = m_session.frame(0);
    m_mainFrameId = main.id;
    const size_t mainNodes = main.graph().nodes().size();
    m_checkpointInterval
        = m_options.checkpointInterval ? m_options.checkpointInterval : std::max<size_t>(1, (mainNodes + 31) / 32);
    SharedText mainPath(m_session.framePath());
    m_frameRecords[main.id] = { 0, -1, -1, mainPath };
    // Room for the values of every graph run once (not initializers, never recorded), in a block kept from an earlier
    // debugger when there is one.
    if (m_values.capacity() < m_recordCapacity) {
        SpareVectors<RecordedValue>::give(m_values);
        m_values = SpareVectors<RecordedValue>::take(m_recordCapacity);
    }
    for (ValueId id : main.graph().inputs())
        record(0, main.id, mainPath, &main.graph(), -1, main.graph().value(id).name,
            main.values[static_cast<size_t>(id)], false, nullptr, -1);
    takeCheckpoint();
    m_freshStart = true;
    m_lastStop = {};
    m_lastStop.reason = StopReason::Step;
    m_lastStop.message = "stopped before the first node";
    m_lastStop.framePath = m_session.framePath();
    m_lastStop.nextNode = m_session.nextNode();
}

void Debugger::reset()
{
    start(m_inputs);
}

int Debugger::addBreakpoint(Breakpoint breakpoint)
{
    breakpoint.id = m_nextBreakpointId++;
    if (breakpoint.description.empty())
        breakpoint.description = defaultDescription(breakpoint);
    m_breakpoints.push_back(std::move(breakpoint));
    return m_breakpoints.back().id;
}

bool Debugger::removeBreakpoint(int id)
{
    auto it = std::find_if(m_breakpoints.begin(), m_breakpoints.end(), [&](const auto& b) { return b.id == id; });
    if (it == m_breakpoints.end())
        return false;
    m_breakpoints.erase(it);
    return true;
}

bool Debugger::setBreakpointEnabled(int id, bool enabled)
{
    for (auto& b : m_breakpoints)
        if (b.id == id) {
            b.enabled = enabled;
            return true;
        }
    return false;
}

void Debugger::setYieldOutputs(std::map<std::string, Value> outputs)
{
    for (auto& [name, value] : outputs)
        m_session.options().yieldOutputs[name] = std::move(value);
}

const RecordedValue* Debugger::findValue(const std::string& name, uint64_t frameId) const
{
    for (auto it = m_values.rbegin(); it != m_values.rend(); ++it)
        if (it->name == name && (frameId == 0 || it->frameId == frameId))
            return &*it;
    return nullptr;
}

std::vector<const RecordedValue*> Debugger::tracePoints() const
{
    std::vector<const RecordedValue*> out;
    for (const auto& v : m_values)
        if (v.tracePoint)
            out.push_back(&v);
    return out;
}

Debugger::FrameRecord& Debugger::frameRecord(const Frame& frame, const std::string& framePath)
{
    auto it = m_frameRecords.find(frame.id);
    if (it != m_frameRecords.end())
        return it->second;
    int64_t enclosing = frame.iteration;
    if (enclosing < 0)
        if (auto parent = m_frameRecords.find(frame.parentFrameId); parent != m_frameRecords.end())
            enclosing = parent->second.enclosingIteration;
    return m_frameRecords
        .emplace(frame.id,
            FrameRecord { frame.parentFrameId, frame.ownerNode, frame.iteration, SharedText(framePath), enclosing })
        .first->second;
}

int64_t Debugger::currentIteration() const
{
    const Frame* top = m_session.topFrame();
    if (!top)
        return -1;
    if (top->iteration >= 0)
        return top->iteration;
    auto it = m_frameRecords.find(top->id);
    return it == m_frameRecords.end() ? -1 : it->second.enclosingIteration;
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

void Debugger::frameEntered(const Frame& frame, const std::string& framePath)
{
    {
        CallRecord open;
        open.enterStep = m_steps;
        open.ordinalBefore = m_ordinal;
        open.sequenceBefore = m_sequence;
        open.depth = m_session.depth() - 1;
        m_openCalls.push_back(std::move(open));
    }
    const FrameRecord& rec = frameRecord(frame, framePath);
    const SharedText path = rec.path;
    const int64_t iteration = rec.enclosingIteration;
    if (frame.iteration >= 0 && m_options.iterationRetention != IterationRetention::All)
        forgetOldIterations(frame);
    const size_t first = m_values.size();
    for (ValueId id : frame.graph().inputs())
        record(m_sequence, frame.id, path, &frame.graph(), -1, frame.graph().value(id).name,
            frame.values[static_cast<size_t>(id)], false, nullptr, iteration);
    keepToBudget(first);
}

void Debugger::forgetOldIterations(const Frame& entered)
{
    const int64_t keep = m_options.iterationRetention == IterationRetention::None
        ? 0
        : std::max<int64_t>(m_options.keepIterations - 1, 0);
    // Frames of earlier iterations of the same loop node, and everything that ran inside them.
    std::unordered_set<uint64_t> dead;
    for (const auto& [id, rec] : m_frameRecords)
        if (id != entered.id && rec.parent == entered.parentFrameId && rec.ownerNode == entered.ownerNode
            && rec.iteration >= 0 && rec.iteration < entered.iteration - keep)
            dead.insert(id);
    if (dead.empty())
        return;
    auto isDead = [&](uint64_t frameId) {
        for (int guard = 0; frameId != 0 && guard < 100000; ++guard) {
            if (dead.count(frameId))
                return true;
            if (frameId == entered.parentFrameId)
                return false;
            auto it = m_frameRecords.find(frameId);
            if (it == m_frameRecords.end())
                return false;
            frameId = it->second.parent;
        }
        return false;
    };
    std::erase_if(m_values, [&](const RecordedValue& v) {
        if (!isDead(v.frameId))
            return false;
        if (!v.dropped)
            m_recordedBytes -= v.value.byteSize();
        return true;
    });
    std::erase_if(m_frameRecords, [&](const auto& kv) { return isDead(kv.first); });
    m_pathRecord = nullptr;
    m_firstKept = 0;
}

void Debugger::afterNode(const NodeEvent& event)
{
    ++m_sequence;
    const Node& node = event.node;
    const bool debugNode = isDebugNode(node);
    // The frame's path, made once when the frame was entered (frameEntered, start); the last frame's is at hand.
    if (event.frame.id != m_pathFrameId || !m_pathRecord) {
        m_pathRecord = &frameRecord(event.frame, event.framePath);
        m_pathFrameId = event.frame.id;
    }
    const SharedText& path = m_pathRecord->path;
    const size_t first = m_values.size();
    for (size_t i = 0; i < node.outputs.size(); ++i) {
        if (node.outputs[i] == kNoValue)
            continue;
        record(m_sequence, event.frame.id, path, &event.frame.graph(), node.id,
            event.frame.graph().value(node.outputs[i]).name, event.outputs[i], false, debugNode ? &node : nullptr,
            m_pathRecord->enclosingIteration);
    }
    // Before keepToBudget, which may remove the oldest entries (and so move these).
    const bool nonFiniteCandidate = mayHoldNonFinite(first);
    keepToBudget(first);

    m_afterStop.reset();
    if (m_replaying)
        return;
    for (const auto& b : m_breakpoints) {
        if (!b.enabled || (b.iteration >= 0 && b.iteration != m_pathRecord->enclosingIteration))
            continue;
        if (b.kind == Breakpoint::Kind::NonFinite) {
            if (!nonFiniteCandidate)
                continue;
            if (auto hit = firstNonFiniteOutput(event)) {
                StopInfo s;
                s.reason = StopReason::NonFinite;
                s.breakpointId = b.id;
                s.message = hit->nodePath + " produced " + hit->description + " in output "
                    + std::to_string(hit->output) + " (\"" + hit->valueName + "\")";
                m_afterStop = s;
                return;
            }
        } else if (b.kind == Breakpoint::Kind::DebugNodes && debugNode) {
            StopInfo s;
            s.reason = StopReason::DebugNode;
            s.breakpointId = b.id;
            s.message = "DEBUG node " + event.nodePath();
            m_afterStop = s;
            return;
        } else if (b.kind == Breakpoint::Kind::Condition || b.kind == Breakpoint::Kind::Value) {
            if (hitAfterNode(b, event, m_pathRecord->enclosingIteration)) {
                StopInfo s;
                s.reason = StopReason::Breakpoint;
                s.breakpointId = b.id;
                s.message = "breakpoint " + std::to_string(b.id) + " (" + b.description + ") after " + event.nodePath();
                m_afterStop = s;
                return;
            }
        }
    }
}

StopInfo Debugger::makeStop(StopReason reason, std::string message, int breakpointId)
{
    StopInfo s;
    s.reason = reason;
    s.message = std::move(message);
    s.breakpointId = breakpointId;
    s.framePath = m_session.framePath();
    s.nextNode = m_session.nextNode();
    m_lastStop = s;
    return s;
}

std::optional<StopInfo> Debugger::checkBeforeNode(const Node& node, const std::string& runToName)
{
    // Built only when stopping: this runs before every node of a debug run.
    const auto where = [&] { return m_session.framePath() + " / " + node.displayName(); };
    if (std::string_view(node.opType) == "YieldOp")
        return makeStop(StopReason::YieldOp, "YieldOp " + where() + " is about to run: supply its outputs or continue");
    if (!runToName.empty() && node.hasDisplayName(runToName))
        return makeStop(StopReason::RunToReached, "reached " + where());
    if (int id = breakpointBefore(node)) {
        const auto& b
            = *std::find_if(m_breakpoints.begin(), m_breakpoints.end(), [&](const auto& b) { return b.id == id; });
        return makeStop(StopReason::Breakpoint,
            "breakpoint " + std::to_string(b.id) + " (" + b.description + ") at " + where(), b.id);
    }
    return std::nullopt;
}

int Debugger::breakpointBefore(const Node& node) const
{
    for (const auto& b : m_breakpoints) {
        if (!b.enabled)
            continue;
        bool hit = targetsBeforeNode(b, node, currentIteration());
        if (hit && b.condition) {
            const Frame& f = *m_session.topFrame();
            NodeEvent ev { node, f, m_session.depth(), {}, {}, {}, m_session.framePath() };
            hit = b.condition(ev);
        }
        if (hit)
            return b.id;
    }
    return 0;
}

StopInfo Debugger::runUntil(const StopPredicate& stopAfter, const std::string& runToName)
{
    if (m_session.state() == Session::State::Finished)
        return makeStop(StopReason::Finished, "the run has finished");
    if (m_session.state() == Session::State::Failed)
        return makeStop(StopReason::Failed, m_session.failure().message);
    check(m_session.state() == Session::State::Running, "the debugger has not been started");
    // Resuming from a stop skips the checks at the node we are sitting at, except right after start().
    bool skipChecks = !m_freshStart;
    m_freshStart = false;
    // Without breakpoints or a node to run to, only a YieldOp stops before it runs.
    const bool checkEachNode = !m_breakpoints.empty() || !runToName.empty();
    std::optional<size_t> settleDepth; // running the Constants after a step, in the frame at this depth or above
    const Node* stepped = nullptr; // the node the step completed
    while (true) {
        if (const Node* next = m_session.nextNode();
            next && !skipChecks && (checkEachNode || std::string_view(next->opType) == "YieldOp")) {
            if (auto stop = checkBeforeNode(*next, runToName))
                return *stop;
        }
        skipChecks = false;
        if (m_pauseRequested.load(std::memory_order_relaxed) && m_pauseRequested.exchange(false))
            return makeStop(StopReason::Paused, "paused at " + m_session.framePath());
        Session::StepResult r;
        try {
            r = advanceSession();
        } catch (const Error& e) {
            StopInfo s = makeStop(StopReason::Failed, e.what());
            s.lastNode = m_session.failure().node;
            s.framePath = m_session.failure().framePath;
            m_lastStop = s;
            return s;
        }
        if (r.kind == Session::StepKind::Finished)
            return makeStop(StopReason::Finished, "the run has finished");
        if (r.kind == Session::StepKind::NodeDone && m_afterStop) {
            StopInfo s = *m_afterStop;
            m_afterStop.reset();
            s.framePath = m_session.framePath();
            s.lastNode = r.node;
            s.nextNode = m_session.nextNode();
            m_lastStop = s;
            return s;
        }
        if (settleDepth ? (r.kind == Session::StepKind::NodeDone || r.kind == Session::StepKind::FrameEntered)
                    && r.depth <= *settleDepth
                        : stopAfter(r)) {
            if (!settleDepth)
                stepped = r.node;
            // Stepping lands before the next node that does something: the Constants ahead run without a stop.
            if (constantAhead()) {
                settleDepth = m_session.depth();
                continue;
            }
            StopInfo s = makeStop(StopReason::Step, {});
            s.lastNode = r.node;
            s.message = stepped ? "stepped over " + stepped->displayName() : "at " + m_session.framePath();
            m_lastStop = s;
            return s;
        }
    }
}

bool Debugger::constantAhead() const
{
    if (m_options.stepConstants)
        return false;
    const Node* next = m_session.nextNode();
    return next && std::string_view(next->opType) == "Constant" && next->domain.empty() && next->subgraphs.empty();
}

StopInfo Debugger::skipConstantsAhead()
{
    if (m_session.state() != Session::State::Running || !constantAhead())
        return m_lastStop;
    const bool fresh = m_freshStart;
    StopInfo s = step();
    if (fresh && s.reason == StopReason::Step) {
        s.message = "stopped before the first node that is not a Constant";
        m_lastStop = s;
    }
    return s;
}

StopInfo Debugger::step()
{
    const size_t d = m_session.depth();
    return runUntil([d](const Session::StepResult& r) {
        return (r.kind == Session::StepKind::NodeDone || r.kind == Session::StepKind::FrameEntered) && r.depth <= d;
    });
}

StopInfo Debugger::stepInto()
{
    const Node* next = m_session.nextNode();
    const bool hasBody = next
        && dynamic_cast<const SubgraphKernel*>(
            m_session.topFrame()->plan->kernels[static_cast<size_t>(next->id)].get());
    if (!hasBody)
        return step();
    const size_t d = m_session.depth();
    return runUntil([d](const Session::StepResult& r) {
        return (r.kind == Session::StepKind::FrameEntered && r.depth == d + 1)
            || (r.kind == Session::StepKind::NodeDone && r.depth <= d);
    });
}

StopInfo Debugger::stepOut()
{
    const size_t d = m_session.depth();
    if (d <= 1)
        return continueRun();
    return runUntil(
        [d](const Session::StepResult& r) { return r.kind == Session::StepKind::NodeDone && r.depth <= d - 1; });
}

StopInfo Debugger::continueRun()
{
    return runUntil([](const Session::StepResult&) { return false; });
}

StopInfo Debugger::runTo(const std::string& nodeName)
{
    return runUntil([](const Session::StepResult&) { return false; }, nodeName);
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

StopInfo Debugger::reverseStop(StopReason reason, std::string message, int breakpointId)
{
    m_freshStart = m_steps == 0;
    StopInfo s = makeStop(reason, std::move(message), breakpointId);
    // Stops before a node (node and op-type breakpoints, run to) name no last node, as going forward.
    const bool beforeNode = reason == StopReason::RunToReached
        || (reason == StopReason::Breakpoint && m_session.nextNode() && breakpointBefore(*m_session.nextNode()));
    if (!beforeNode && m_steps > 0 && m_stepLog[m_steps - 1].kind == Session::StepKind::NodeDone)
        s.lastNode = m_stepLog[m_steps - 1].node;
    m_lastStop = s;
    return s;
}

StopInfo Debugger::goToPosition(uint64_t position)
{
    check(m_session.state() != Session::State::Idle, "the debugger has not been started");
    if (position < m_steps || m_session.state() != Session::State::Running) {
        restoreTo(std::min(position, m_steps));
    }
    m_replaying = true;
    try {
        while (m_steps < position && m_session.state() == Session::State::Running)
            advanceSession();
    } catch (const Error& e) {
        m_replaying = false;
        StopInfo s = makeStop(StopReason::Failed, e.what());
        s.lastNode = m_session.failure().node;
        s.framePath = m_session.failure().framePath;
        m_lastStop = s;
        return s;
    }
    m_replaying = false;
    m_afterStop.reset();
    if (m_session.state() == Session::State::Finished)
        return makeStop(StopReason::Finished, "the run has finished");
    return reverseStop(StopReason::Step, "at step " + std::to_string(m_steps));
}

StopInfo Debugger::stepBack()
{
    check(m_session.state() != Session::State::Idle, "the debugger has not been started");
    const uint64_t here = m_steps;
    const size_t depth = std::max<size_t>(m_session.depth(), 1);
    uint64_t target = 0;
    for (uint64_t p = here; p-- > 0;)
        if (stepStoppable(p) && depthAt(p) <= depth) {
            target = p;
            break;
        }
    restoreTo(target);
    return reverseStop(StopReason::Step,
        target == 0 ? std::string("stepped back to the start") : "stepped back to " + m_session.framePath());
}

StopInfo Debugger::stepBackInto()
{
    check(m_session.state() != Session::State::Idle, "the debugger has not been started");
    uint64_t target = 0;
    for (uint64_t p = m_steps; p-- > 0;)
        if (stepStoppable(p)) {
            target = p;
            break;
        }
    restoreTo(target);
    return reverseStop(StopReason::Step,
        target == 0 ? std::string("stepped back to the start") : "stepped back to " + m_session.framePath());
}

StopInfo Debugger::stepBackOut()
{
    check(m_session.state() != Session::State::Idle, "the debugger has not been started");
    const size_t depth = m_session.depth();
    uint64_t target = 0;
    if (depth > 1)
        for (uint64_t p = m_steps; p-- > 0;)
            if (stepStoppable(p) && depthAt(p) < depth) {
                target = p;
                break;
            }
    restoreTo(target);
    return reverseStop(StopReason::Step,
        target == 0 ? std::string("stepped back to the start") : "stepped back out to " + m_session.framePath());
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

StopInfo Debugger::reverseContinue()
{
    check(m_session.state() != Session::State::Idle, "the debugger has not been started");
    const uint64_t here = m_steps;
    StopReason reason = StopReason::Step;
    std::string message;
    int breakpointId = 0;
    // One step forward, noting where continueRun() would have stopped: before a node with a node or op-type
    // breakpoint, or after a node that tripped an after-node breakpoint (NaN/Inf, a condition, a DEBUG node).
    const std::optional<uint64_t> hit = latestHitBefore(here, [&]() -> std::optional<uint64_t> {
        std::optional<uint64_t> found;
        if (const Node* next = m_session.nextNode(); next && stoppable(m_steps))
            if (int id = breakpointBefore(*next)) {
                found = m_steps;
                reason = StopReason::Breakpoint;
                breakpointId = id;
                message
                    = "breakpoint " + std::to_string(id) + " at " + m_session.framePath() + " / " + next->displayName();
            }
        const Session::StepResult r = advanceSession();
        if (r.kind == Session::StepKind::NodeDone && m_afterStop && m_steps < here) {
            found = m_steps;
            reason = m_afterStop->reason;
            breakpointId = m_afterStop->breakpointId;
            message = m_afterStop->message;
        }
        m_afterStop.reset();
        return found;
    });
    restoreTo(hit.value_or(0));
    if (!hit)
        return reverseStop(StopReason::Step, "no breakpoint before: back at the start");
    return reverseStop(reason, message + " (reverse)", breakpointId);
}

StopInfo Debugger::runBackTo(const std::string& nodeName)
{
    check(m_session.state() != Session::State::Idle, "the debugger has not been started");
    const uint64_t here = m_steps;
    m_replaying = true;
    const std::optional<uint64_t> hit = latestHitBefore(here, [&]() -> std::optional<uint64_t> {
        std::optional<uint64_t> found;
        if (const Node* next = m_session.nextNode(); next && stoppable(m_steps) && next->hasDisplayName(nodeName))
            found = m_steps;
        advanceSession();
        return found;
    });
    m_replaying = false;
    m_afterStop.reset();
    restoreTo(hit.value_or(0));
    if (!hit)
        return reverseStop(StopReason::Step, "node \"" + nodeName + "\" did not run before: back at the start");
    return reverseStop(StopReason::RunToReached, "reached " + m_session.framePath() + " / " + nodeName + " (reverse)");
}

bool Debugger::mayHoldNonFinite(size_t first) const
{
    for (size_t i = first; i < m_values.size(); ++i) {
        const RecordedValue& v = m_values[i];
        // The summary of a tensor counted its NaN and Inf; other values (sequences, maps, optionals) are scanned.
        if (!v.summary.valid || v.summary.kind != Value::Kind::Tensor || !v.summary.stats)
            return true;
        if (v.summary.stats->nan || v.summary.stats->posInf || v.summary.stats->negInf)
            return true;
    }
    return false;
}

const Value* Debugger::heldValue(const RecordedValue& value) const
{
    if (!value.dropped)
        return &value.value;
    if (!value.graph)
        return nullptr;
    // A finished run holds the main graph's outputs.
    if (value.frameId == m_mainFrameId && m_session.state() == Session::State::Finished) {
        const auto& outputs = m_session.outputs();
        if (auto it = outputs.find(value.name.str()); it != outputs.end() && !it->second.isNone())
            for (ValueId id : value.graph->outputs())
                if (value.graph->value(id).name == value.name.str())
                    return &it->second;
    }
    for (size_t f = m_session.depth(); f-- > 0;) {
        const Frame& frame = m_session.frame(f);
        if (frame.id != value.frameId)
            continue;
        if (&frame.graph() != value.graph)
            return nullptr;
        const auto held = [&](ValueId id) -> const Value* {
            if (id == kNoValue || value.graph->value(id).name != value.name.str())
                return nullptr;
            const Value& v = frame.values[static_cast<size_t>(id)];
            return v.isNone() ? nullptr : &v;
        };
        if (value.producer >= 0) {
            // Only once its node ran: before that (a position restored by a reverse move) the slot is empty anyway.
            for (ValueId id : value.graph->node(value.producer).outputs)
                if (const Value* v = held(id))
                    return v;
        } else {
            for (ValueId id : value.graph->inputs())
                if (const Value* v = held(id))
                    return v;
        }
        return nullptr;
    }
    return nullptr;
}

const RecordedValue* Debugger::findRecord(uint64_t ordinal) const
{
    auto it = std::lower_bound(
        m_values.begin(), m_values.end(), ordinal, [](const RecordedValue& v, uint64_t o) { return v.ordinal < o; });
    return it != m_values.end() && it->ordinal == ordinal ? &*it : nullptr;
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

MemoryStats Debugger::memoryStats() const
{
    MemoryStats s;
    for (const RecordedValue& v : m_values)
        ++(v.dropped ? s.droppedValues : s.keptValues);
    s.droppedValues += m_forgotten;
    s.recordedBytes = m_recordedBytes;
    s.checkpoints = m_checkpoints.size();
    s.checkpointBytes = m_checkpointBytes;
    s.checkpointInterval = m_checkpointInterval;
    s.rematerializations = m_rematerializations;
    s.replayedSteps = m_replayedSteps;
    s.rematerializationTime = m_rematerializationTime;
    s.callRecords = m_calls.size();
    s.callRecordBytes = m_callBytes;
    s.skippedCalls = m_skippedCalls;
    return s;
}

} // namespace onnxscope
