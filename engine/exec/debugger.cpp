// SPDX-License-Identifier: MIT
#include "engine/exec/debugger.h"

#include "engine/core/spare_vectors.h"
#include "engine/exec/observers/output_watch.h"

#include <algorithm>

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

Debugger::Debugger(std::shared_ptr<const Program> program, DebuggerOptions options)
    : m_program(program)
    , m_options(std::move(options))
    , m_session(std::move(program), m_options.session)
{
    m_session.options().freeDeadValues = false;
    m_session.addObserver(this);
    m_recordCapacity = recordsOfOneRun(m_program->model().graph());
}

Debugger::~Debugger()
{
    m_session.removeObserver(this);
    SpareVectors<RecordedValue>::give(m_values);
}

template <class... Args> void Debugger::record(Args&&... args)
{
    m_values.emplace_back(std::forward<Args>(args)...);
    countLastAndKeepToBudget();
}

void Debugger::countLastAndKeepToBudget()
{
    m_recordedBytes += m_values.back().value.byteSize();
    while (m_recordedBytes > m_options.memoryBudget && m_firstKept + 1 < m_values.size()) {
        auto& old = m_values[m_firstKept++];
        if (old.dropped)
            continue;
        m_recordedBytes -= old.value.byteSize();
        old.value = Value();
        old.dropped = true;
    }
    // Dropped entries still cost their names; past a bound they are forgotten and only counted.
    if (m_firstKept > kMaxDroppedEntries) {
        m_forgotten += m_firstKept;
        m_values.erase(m_values.begin(), m_values.begin() + static_cast<std::ptrdiff_t>(m_firstKept));
        m_firstKept = 0;
    }
}

void Debugger::start(const std::map<std::string, Value>& inputs)
{
    m_values.clear();
    m_forgotten = 0;
    m_frameRecords.clear();
    m_pathRecord = nullptr;
    m_recordedBytes = 0;
    m_firstKept = 0;
    m_sequence = 0;
    m_inputs = inputs;
    m_pauseRequested = false;
    m_session.start(inputs);
    const Frame& main = m_session.frame(0);
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
    if (breakpoint.description.empty()) {
        switch (breakpoint.kind) {
        case Breakpoint::Kind::Node:
            breakpoint.description = "node " + breakpoint.pattern;
            break;
        case Breakpoint::Kind::OpType:
            breakpoint.description = "op type " + breakpoint.pattern;
            break;
        case Breakpoint::Kind::NonFinite:
            breakpoint.description = "first NaN/Inf";
            break;
        case Breakpoint::Kind::DebugNodes:
            breakpoint.description = "DEBUG nodes";
            break;
        case Breakpoint::Kind::Condition:
            breakpoint.description = "condition on " + (breakpoint.pattern.empty() ? "any node" : breakpoint.pattern);
            break;
        }
    }
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

void Debugger::frameEntered(const Frame& frame, const std::string& framePath)
{
    const FrameRecord& rec = frameRecord(frame, framePath);
    const SharedText path = rec.path;
    const int64_t iteration = rec.enclosingIteration;
    if (frame.iteration >= 0 && m_options.iterationRetention != IterationRetention::All)
        forgetOldIterations(frame);
    for (ValueId id : frame.graph().inputs())
        record(m_sequence, frame.id, path, &frame.graph(), -1, frame.graph().value(id).name,
            frame.values[static_cast<size_t>(id)], false, nullptr, iteration);
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
    for (size_t i = 0; i < node.outputs.size(); ++i) {
        if (node.outputs[i] == kNoValue)
            continue;
        record(m_sequence, event.frame.id, path, &event.frame.graph(), node.id,
            event.frame.graph().value(node.outputs[i]).name, event.outputs[i], false, debugNode ? &node : nullptr,
            m_pathRecord->enclosingIteration);
    }

    m_afterStop.reset();
    for (const auto& b : m_breakpoints) {
        if (!b.enabled)
            continue;
        if (b.kind == Breakpoint::Kind::NonFinite) {
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
        } else if (b.kind == Breakpoint::Kind::Condition && (b.pattern.empty() || node.hasDisplayName(b.pattern))
            && b.condition && b.condition(event)) {
            StopInfo s;
            s.reason = StopReason::Breakpoint;
            s.breakpointId = b.id;
            s.message = "breakpoint " + std::to_string(b.id) + " (" + b.description + ") after " + event.nodePath();
            m_afterStop = s;
            return;
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
    for (const auto& b : m_breakpoints) {
        if (!b.enabled)
            continue;
        bool hit = (b.kind == Breakpoint::Kind::Node && node.hasDisplayName(b.pattern))
            || (b.kind == Breakpoint::Kind::OpType && b.pattern == node.opType);
        if (hit && b.iteration >= 0)
            hit = currentIteration() == b.iteration;
        if (hit && b.condition) {
            const Frame& f = *m_session.topFrame();
            NodeEvent ev { node, f, m_session.depth(), {}, {}, {}, m_session.framePath() };
            hit = b.condition(ev);
        }
        if (hit)
            return makeStop(StopReason::Breakpoint,
                "breakpoint " + std::to_string(b.id) + " (" + b.description + ") at " + where(), b.id);
    }
    return std::nullopt;
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
            r = m_session.advance();
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

} // namespace onnxscope
