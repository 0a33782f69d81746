// SPDX-License-Identifier: MIT
// The Debugger's quiet stretches: continueRun() and runTo() run as a plain run does (fused, in place, values freed, no
// node events) between the places where they can stop, counting the steps; the value log of the stretch is filled in
// after the stop by a replay from the checkpoint where it began (completeLog).
#include "engine/exec/debug/debugger.h"

#include <cstdlib>
#include <string_view>

namespace onnxscope {

namespace {

/// ONNXSCOPE_DEBUG_NODE_BY_NODE=1: debug runs never run quiet stretches (for measurements: a debug run as it was).
bool quietDisabled()
{
    static const bool disabled = [] {
        const char* v = std::getenv("ONNXSCOPE_DEBUG_NODE_BY_NODE");
        return v && *v && std::string_view(v) != "0";
    }();
    return disabled;
}

template <class Pred> void collectNodes(const Graph& graph, const Pred& pred, std::unordered_set<const Node*>& out)
{
    for (const Node& node : graph.nodes()) {
        if (pred(node))
            out.insert(&node);
        for (const auto& [name, subgraph] : node.subgraphs)
            if (subgraph)
                collectNodes(*subgraph, pred, out);
        if (node.functionBody)
            collectNodes(*node.functionBody, pred, out);
    }
}

} // namespace

bool Debugger::quietAllowed() const
{
    if (quietDisabled() || !m_extraObservers.empty() || m_replaying || m_session.state() != Session::State::Running)
        return false;
    for (const Breakpoint& b : m_breakpoints)
        if (b.enabled && ((b.kind != Breakpoint::Kind::Node && b.kind != Breakpoint::Kind::OpType) || b.condition))
            return false;
    if (m_logPending)
        return true;
    // A stretch begins at a checkpoint, which is a position between two nodes of the main graph.
    const Frame* top = m_session.topFrame();
    return m_session.depth() == 1 && top && !top->pending;
}

std::unordered_set<const Node*> Debugger::quietStops(const std::string& runToName) const
{
    std::unordered_set<const Node*> stops;
    collectNodes(
        m_program->model().graph(),
        [&](const Node& node) {
            if (std::string_view(node.opType) == "YieldOp" || (!runToName.empty() && node.hasDisplayName(runToName)))
                return true;
            for (const Breakpoint& b : m_breakpoints)
                if (b.enabled && targetsBeforeNode(b, node, b.iteration))
                    return true;
            return false;
        },
        stops);
    return stops;
}

StopInfo Debugger::runQuiet(const std::string& runToName)
{
    // Resuming from a stop skips the checks at the node we are sitting at, except right after start() (runUntil).
    bool skipChecks = !m_freshStart;
    m_freshStart = false;
    if (!m_logPending) {
        m_logPending = true;
        m_logFrom = m_steps;
        if (m_checkpoints.empty() || m_checkpoints.back().step < m_steps)
            takeCheckpoint();
    }
    ++m_quietStretches;
    const std::unordered_set<const Node*> stops = quietStops(runToName);
    // No observer: the session runs as a plain run does (Session::runNode), but never fuses over a stop.
    struct Quiet {
        Debugger& d;
        explicit Quiet(Debugger& debugger, const std::unordered_set<const Node*>& stops)
            : d(debugger)
        {
            d.m_session.removeObserver(&d);
            d.m_session.setFusionBarriers(&stops);
        }
        ~Quiet()
        {
            d.m_session.setFusionBarriers(nullptr);
            d.m_session.addObserver(&d);
        }
    } quiet(*this, stops);
    while (true) {
        if (const Node* next = m_session.nextNode(); next && !skipChecks && stops.count(next)) {
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
            ++m_steps;
            StopInfo s = makeStop(StopReason::Failed, e.what());
            s.lastNode = m_session.failure().node;
            s.framePath = m_session.failure().framePath;
            m_lastStop = s;
            return s;
        }
        // A fused step stands for the NodeDone steps of the nodes it covers: positions count as node by node.
        m_steps += r.nodes;
        if (r.kind == Session::StepKind::Finished)
            return makeStop(StopReason::Finished, "the run has finished");
    }
}

void Debugger::completeLog()
{
    if (!m_logPending)
        return;
    m_logPending = false;
    const uint64_t target = m_steps;
    const Session::State state = m_session.state();
    // The replay starts at the checkpoint taken where the first pending stretch began (or an earlier one, if the
    // budget thinned it away); none was taken during the stretches.
    const auto later = std::upper_bound(m_checkpoints.begin(), m_checkpoints.end(), m_logFrom,
        [](uint64_t p, const Checkpoint& c) { return p < c.step; });
    dropCheckpoints(static_cast<size_t>(later - m_checkpoints.begin()));
    try {
        restoreTo(target);
    } catch (const Error&) {
        // The stretch ended in the node's failure, which the replay met again.
    }
    check(m_steps == target && m_session.state() == state,
        "the replay of a debug run did not arrive where the run stopped (step " + std::to_string(m_steps) + " of "
            + std::to_string(target) + ")");
}

} // namespace onnxscope
