// SPDX-License-Identifier: MIT
// The value log of the Debugger: recorded values, their summaries, the memory budget and the frame records.
#include "engine/exec/debug/debugger.h"

#include "engine/core/spare_vectors.h"
#include "engine/exec/observers/output_watch.h"

#include <algorithm>
#include <string_view>

#include <unistd.h>

namespace onnxscope {

const std::string& emptyText()
{
    static const std::string text;
    return text;
}

size_t defaultMemoryBudget()
{
    const long pages = sysconf(_SC_PHYS_PAGES);
    const long pageSize = sysconf(_SC_PAGE_SIZE);
    if (pages <= 0 || pageSize <= 0)
        return size_t(4) << 30;
    return static_cast<size_t>(pages) * static_cast<size_t>(pageSize) / 4;
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

const RecordedValue* Debugger::findValue(const std::string& name, uint64_t frameId) const
{
    ensureLog();
    for (auto it = m_values.rbegin(); it != m_values.rend(); ++it)
        if (it->name == name && (frameId == 0 || it->frameId == frameId))
            return &*it;
    return nullptr;
}

std::vector<const RecordedValue*> Debugger::tracePoints() const
{
    ensureLog();
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
    // The frames of the stack, innermost first, as frameRecord() reads them (also in quiet stretches, which make no
    // frame records).
    for (size_t f = m_session.depth(); f-- > 0;)
        if (m_session.frame(f).iteration >= 0)
            return m_session.frame(f).iteration;
    return -1;
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
    ensureLog();
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
    ensureLog();
    auto it = std::lower_bound(
        m_values.begin(), m_values.end(), ordinal, [](const RecordedValue& v, uint64_t o) { return v.ordinal < o; });
    return it != m_values.end() && it->ordinal == ordinal ? &*it : nullptr;
}

MemoryStats Debugger::memoryStats() const
{
    ensureLog();
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
    s.logSegments = m_logSegments;
    s.logShadow = m_logShadow;
    return s;
}

} // namespace onnxscope
