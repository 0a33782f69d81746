// SPDX-License-Identifier: MIT
// The Debugger's stepping, stops and reverse searches; its value log is in value_log.cpp, its replayer (checkpoints,
// call records, replays) in replay.cpp.
#include "engine/exec/debug/debugger.h"
#include "engine/exec/debug/shadow_fill.h"

#include "engine/core/spare_vectors.h"
#include "engine/exec/debug/cache_limit.h"
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
    m_recordCapacity = m_program->valuesOfOneRun();
}

Debugger::~Debugger()
{
    stopShadow();
    CacheLimit::unset(this);
    m_session.removeObserver(this);
    SpareVectors<RecordedValue>::give(m_values);
}

void Debugger::start(const std::map<std::string, Value>& inputs)
{
    stopShadow();
    m_logShadow = false;
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
    m_livePosition.store(0, std::memory_order_relaxed);
    m_liveMainDone.store(0, std::memory_order_relaxed);
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
    m_logPending = false;
    m_quietStretches = 0;
    m_quietCheckpoints.clear();
    m_quietSpacing = 0;
    m_logSegments = 0;
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
    stopShadow(); // its session took the options as they were: the serial or segment fill replays with these
    for (auto& [name, value] : outputs)
        m_session.options().yieldOutputs[name] = std::move(value);
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
    if (!m_replaying)
        m_afterStop = breakpointAfter(event, m_pathRecord->enclosingIteration, nonFiniteCandidate);
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
    beginMove();
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
    return quietAllowed() ? runQuiet({}) : runUntil([](const Session::StepResult&) { return false; });
}

StopInfo Debugger::runTo(const std::string& nodeName)
{
    return quietAllowed() ? runQuiet(nodeName) : runUntil([](const Session::StepResult&) { return false; }, nodeName);
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
    beginMove();
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
    beginMove();
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
    beginMove();
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
    beginMove();
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

StopInfo Debugger::reverseContinue()
{
    check(m_session.state() != Session::State::Idle, "the debugger has not been started");
    beginMove();
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
    beginMove();
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

} // namespace onnxscope
