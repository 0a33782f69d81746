// SPDX-License-Identifier: MIT
// The one replay of the Debugger (replayer.h): restoring a position and rebuilding values both run it.
#include "engine/exec/debug/replayer.h"

#include <algorithm>

namespace onnxscope {

size_t recordedOnEntry(const Frame& frame)
{
    return frame.graph().inputs().size();
}

size_t recordedAfter(const Node& node)
{
    return static_cast<size_t>(
        std::count_if(node.outputs.begin(), node.outputs.end(), [](ValueId id) { return id != kNoValue; }));
}

Replayer::Replayer(std::shared_ptr<const Program> program, const SessionOptions& options,
    const std::vector<CallRecord>& calls, const Checkpoint& from, ReplaySink& sink)
    : m_own(std::make_unique<Session>(std::move(program), options))
    , m_session(m_own.get())
    , m_calls(calls)
    , m_sink(sink)
{
    m_session->addObserver(this);
    attach(from);
}

Replayer::Replayer(Session& session, SessionObserver* replacing, const std::vector<CallRecord>& calls,
    const Checkpoint& from, ReplaySink& sink)
    : m_session(&session)
    , m_replacing(replacing)
    , m_calls(calls)
    , m_sink(sink)
{
    m_session->replaceObserver(replacing, this);
    attach(from);
}

void Replayer::attach(const Checkpoint& from)
{
    m_steps = from.step;
    m_ordinal = from.ordinal;
    m_session->setCallSkipper([this](const Frame&) { return skipCall(); });
    m_session->resume(from.frameId, from.pc, from.values);
}

Replayer::~Replayer()
{
    m_session->setCallSkipper(nullptr);
    if (m_replacing)
        m_session->replaceObserver(this, m_replacing);
    else
        m_session->removeObserver(this);
}

Session::StepResult Replayer::advance()
{
    ++m_advances;
    try {
        const Session::StepResult r = m_session->advance();
        ++m_steps;
        return r;
    } catch (...) {
        ++m_steps;
        throw;
    }
}

bool Replayer::runPast(uint64_t ordinal)
{
    while (m_ordinal <= ordinal && m_session->state() == Session::State::Running)
        advance();
    return m_ordinal > ordinal;
}

void Replayer::afterNode(const NodeEvent& event)
{
    const uint64_t first = m_ordinal;
    m_ordinal += recordedAfter(event.node);
    m_sink.replayNodeDone(event, first);
}

void Replayer::frameEntered(const Frame& frame, const std::string& framePath)
{
    const uint64_t first = m_ordinal;
    m_ordinal += recordedOnEntry(frame);
    m_sink.replayFrameEntered(frame, framePath, first);
}

void Replayer::frameLeft(const Frame& frame, const std::string& framePath)
{
    m_sink.replayFrameLeft(frame, framePath);
}

std::optional<std::vector<Value>> Replayer::skipCall()
{
    // The call entered by this step, if it was recorded (the steps before it number it: a call and the first call
    // inside it, entered by different steps, may have made the same values before them).
    auto it = std::lower_bound(
        m_calls.begin(), m_calls.end(), m_steps, [](const CallRecord& c, uint64_t step) { return c.enterStep < step; });
    if (it == m_calls.end() || it->enterStep != m_steps || it->leaveStep > m_skipLimit
        || it->ordinalBefore != m_ordinal)
        return std::nullopt;
    auto next = std::lower_bound(m_wanted.begin(), m_wanted.end(), it->ordinalBefore);
    if (next != m_wanted.end() && *next < it->ordinalAfter)
        return std::nullopt; // it makes a wanted value: run it
    std::vector<Value> outputs = it->outputs;
    const CallRecord& call = *it;
    m_ordinal = call.ordinalAfter;
    // The step that skips it is its last (advance() counts it).
    m_steps = call.leaveStep - 1;
    ++m_skipped;
    m_sink.replayCallSkipped(call);
    return outputs;
}

} // namespace onnxscope
