// SPDX-License-Identifier: MIT
// The Debugger's quiet stretches: continueRun() and runTo() run as a plain run does (fused, in place, values freed, no
// node events) between the places where they can stop, counting the steps; the nodes an after-node breakpoint tests
// run on their own and are tested (or, for a NaN/Inf or any-node condition breakpoint, every node, in place but
// unfused); the value log of the stretch is filled in after the stop by a replay from the
// checkpoint where it began (completeLog). And the after-node breakpoints' test, which both kinds of run share.
#include "engine/exec/debug/debugger.h"
#include "engine/exec/debug/shadow_fill.h"

#include "engine/exec/observers/output_watch.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <functional>
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
        if (pred(graph, node))
            out.insert(&node);
        for (const auto& [name, subgraph] : node.subgraphs)
            if (subgraph)
                collectNodes(*subgraph, pred, out);
        if (node.functionBody)
            collectNodes(*node.functionBody, pred, out);
    }
}

/// Hands each node event to a function: tests the nodes a quiet stretch runs on their own.
struct AfterNodeHook : SessionObserver {
    std::function<void(const NodeEvent&)> after;
    void afterNode(const NodeEvent& event) override { after(event); }
    bool wantsTiming() const override { return false; }
};

} // namespace

std::optional<StopInfo> Debugger::breakpointAfter(
    const NodeEvent& event, int64_t iteration, bool nonFiniteCandidate) const
{
    for (const auto& b : m_breakpoints) {
        if (!b.enabled || (b.iteration >= 0 && b.iteration != iteration))
            continue;
        StopInfo s;
        s.breakpointId = b.id;
        if (b.kind == Breakpoint::Kind::NonFinite) {
            if (!nonFiniteCandidate)
                continue;
            if (auto hit = firstNonFiniteOutput(event)) {
                s.reason = StopReason::NonFinite;
                s.message = hit->nodePath + " produced " + hit->description + " in output "
                    + std::to_string(hit->output) + " (\"" + hit->valueName + "\")";
                return s;
            }
        } else if (b.kind == Breakpoint::Kind::DebugNodes && isDebugNode(event.node)) {
            s.reason = StopReason::DebugNode;
            s.message = "DEBUG node " + event.nodePath();
            return s;
        } else if (b.kind == Breakpoint::Kind::Condition || b.kind == Breakpoint::Kind::Value) {
            if (hitAfterNode(b, event, iteration)) {
                s.reason = StopReason::Breakpoint;
                s.message = "breakpoint " + std::to_string(b.id) + " (" + b.description + ") after " + event.nodePath();
                return s;
            }
        }
    }
    return std::nullopt;
}

bool Debugger::quietAllowed() const
{
    // Every breakpoint has its place in a quiet stretch: before-node ones are stops, after-node ones are tested after
    // the nodes they name (quietWatched) or after every node (testsEveryNode), a Python callable with the GIL taken in
    // the call only.
    if (quietDisabled() || !m_extraObservers.empty() || m_replaying || m_session.state() != Session::State::Running)
        return false;
    if (m_logPending)
        return true;
    // A stretch begins at a checkpoint, which is a position between two nodes of the main graph.
    const Frame* top = m_session.topFrame();
    return m_session.depth() == 1 && top && !top->pending;
}

std::unordered_set<const Node*> Debugger::quietStops(const std::string& runToName) const
{
    // With no breakpoint and no node to run to, only the YieldOps, which the program found once (a walk over every
    // node was a microsecond of each run of a small model).
    if (!anyEnabled(m_breakpoints) && runToName.empty())
        return m_program->yieldNodes();
    std::unordered_set<const Node*> stops;
    collectNodes(
        m_program->model().graph(),
        [&](const Graph&, const Node& node) {
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

std::unordered_set<const Node*> Debugger::quietWatched() const
{
    // With a breakpoint tested after every node (Session::setAfterNodeCheck), the others are tested there too; only a
    // callable, which may read the node's inputs, still needs its nodes run on their own, not in place.
    std::unordered_set<const Node*> watched;
    if (!anyEnabled(m_breakpoints))
        return watched;
    const bool everyNode = testsEveryNode(m_breakpoints);
    collectNodes(
        m_program->model().graph(),
        [&](const Graph& graph, const Node& node) {
            for (const Breakpoint& b : m_breakpoints) {
                if (!b.enabled || (everyNode && !b.condition))
                    continue;
                if (b.kind == Breakpoint::Kind::DebugNodes && isDebugNode(node))
                    return true;
                if (b.kind == Breakpoint::Kind::Condition && (b.pattern.empty() || node.hasDisplayName(b.pattern))
                    && (b.opType.empty() || node.opType == b.opType))
                    return true;
                if (b.kind == Breakpoint::Kind::Value)
                    for (ValueId id : node.outputs)
                        if (id != kNoValue && graph.value(id).name == b.pattern)
                            return true;
            }
            return false;
        },
        watched);
    return watched;
}

bool Debugger::beginQuietStretch()
{
    if (!m_logPending) {
        m_logPending = true;
        m_logFrom = m_steps;
        if (m_checkpoints.empty() || m_checkpoints.back().step < m_steps)
            takeCheckpoint();
        // More checkpoints inside the stretches, spaced to split what is left of the main graph into as many segments
        // as completeLog() replays at once (fillLogBySegments).
        m_quietCheckpoints.clear();
        const char* asked = std::getenv("ONNXSCOPE_LOG_THREADS");
        m_segmentsAsked = asked && *asked;
        const size_t segments = logThreads();
        const size_t pc = m_session.frame(0).pc;
        const size_t left = m_session.frame(0).graph().nodes().size() - pc;
        m_quietSpacing = segments > 1 ? std::max<size_t>(1, (left + segments - 1) / segments) : 0;
        m_quietNextPc = pc + m_quietSpacing;
    }
    ++m_quietStretches;
    m_quietBegan = std::chrono::steady_clock::now();
    m_quietCheckAt = m_steps;
    // The shadow fill, as the stretch begins (tests) or once it has run 1 ms (a shorter run's log costs less than a
    // thread does; log_shadow.cpp).
    const bool shadow = shadowWanted();
    if (shadow && shadowMode() == 1) {
        startShadow();
        return false;
    }
    return shadow;
}

const Node* Debugger::watchedInProgress(const std::unordered_set<const Node*>& watched, size_t& depth) const
{
    for (size_t f = 0; f < m_session.depth(); ++f) {
        const Frame& frame = m_session.frame(f);
        if (frame.pending && !frame.atEnd() && watched.count(&frame.graph().nodes()[frame.pc])) {
            depth = f + 1;
            return &frame.graph().nodes()[frame.pc];
        }
    }
    return nullptr;
}

void Debugger::quietStepDone(bool fusedKernelStep)
{
    // A fused step with a kernel computes its output only up to the float rounding of the nodes it covers
    // (fusion.h): what follows may differ in its last bits from a run node by node, so the checkpoints of the
    // stretch are given up and completeLog() replays from its start (restoreTo), arriving node by node.
    if (fusedKernelStep) {
        m_quietSpacing = 0;
        m_quietCheckpoints.clear();
    } else if (m_steps >= m_quietCheckAt) {
        maybeQuietCheckpoint();
    }
}

StopInfo Debugger::runQuiet(const std::string& runToName)
{
    // Resuming from a stop skips the checks at the node we are sitting at, except right after start() (runUntil).
    bool skipChecks = !m_freshStart;
    m_freshStart = false;
    bool shadowLater = beginQuietStretch();
    const auto began = std::chrono::steady_clock::now();
    unsigned sinceLook = 0;
    const std::unordered_set<const Node*> stops = quietStops(runToName);
    const std::unordered_set<const Node*> watched = quietWatched();
    std::unordered_set<const Node*> barriers = stops;
    barriers.insert(watched.begin(), watched.end());
    // A watched node runs with this hook as the session's observer (so on its own, with its outputs made), a node
    // with subgraphs until it completes. With a breakpoint tested after every node, the hook is also the session's
    // after-node check: every other node runs in place, values freed, but none fused, so that the stretch stops after
    // exactly the node a run node by node stops after (a fused Conv + Relu could hide the Conv's NaN).
    std::optional<StopInfo> hit;
    AfterNodeHook hook;
    const bool nonFinite = watchesNonFinite(m_breakpoints);
    hook.after = [&](const NodeEvent& event) {
        if (!hit)
            hit = breakpointAfter(event, currentIteration(), nonFinite && anyOutputNonFinite(event));
    };
    // No observer: the session runs as a plain run does (Session::runNode), but never fuses over a stop.
    struct Quiet {
        Debugger& d;
        SessionObserver& hook;
        explicit Quiet(Debugger& debugger, const std::unordered_set<const Node*>& barriers, SessionObserver& hook)
            : d(debugger)
            , hook(hook)
        {
            d.m_session.removeObserver(&d);
            d.m_session.setFusionBarriers(&barriers);
            if (testsEveryNode(d.m_breakpoints))
                d.m_session.setAfterNodeCheck(&hook);
        }
        void watch(bool on) { on ? d.m_session.addObserver(&hook) : d.m_session.removeObserver(&hook); }
        ~Quiet()
        {
            d.publishPosition();
            d.m_session.removeObserver(&hook);
            d.m_session.setFusionBarriers(nullptr);
            d.m_session.setAfterNodeCheck(nullptr);
            d.m_session.addObserver(&d);
        }
    } quiet(*this, barriers, hook);
    // A watched control-flow node in progress (a stop inside its subgraph) is watched until it completes.
    size_t watchDepth = 0;
    const Node* watching = watchedInProgress(watched, watchDepth);
    if (watching)
        quiet.watch(true);
    // Per step only what this stretch needs: a small model's step is a few hundred nanoseconds, and a debug run's goal
    // is 1.10x a plain one. The next node is looked up only for stops, watched nodes or the checkpoints' spacing; the
    // position is published every kPublishEvery steps and at the end (~Quiet).
    const bool lookAhead = !stops.empty() || !watched.empty();
    constexpr unsigned kPublishEvery = 16;
    unsigned sincePublish = 0;
    while (true) {
        const Node* next = lookAhead || m_quietSpacing ? m_session.nextNode() : nullptr;
        if (next && !skipChecks && !stops.empty() && stops.count(next)) {
            if (auto stop = checkBeforeNode(*next, runToName))
                return *stop;
        }
        skipChecks = false;
        if (m_pauseRequested.load(std::memory_order_relaxed) && m_pauseRequested.exchange(false))
            return makeStop(StopReason::Paused, "paused at " + m_session.framePath());
        if (!watching && next && !watched.empty() && watched.count(next)) {
            watching = next;
            watchDepth = m_session.depth();
            quiet.watch(true);
        }
        // Whether this step is a fused one with a kernel (quietStepDone).
        const Frame* top = m_session.topFrame();
        const bool fusedKernel
            = m_quietSpacing && next && top && top->pc < top->plan->fused.size() && top->plan->fused[top->pc].kernel;
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
        if (++sincePublish == kPublishEvery) {
            sincePublish = 0;
            publishPosition();
        }
        if (m_quietSpacing)
            quietStepDone(fusedKernel && r.nodes > 1);
        if (shadowLater && ++sinceLook == 32) {
            sinceLook = 0;
            if (std::chrono::steady_clock::now() - began >= std::chrono::milliseconds(1)) {
                startShadow();
                shadowLater = false;
            }
        }
        if (watching && r.kind == Session::StepKind::NodeDone && r.node == watching && r.depth == watchDepth) {
            quiet.watch(false);
            watching = nullptr;
        }
        if (r.kind == Session::StepKind::Finished)
            return makeStop(StopReason::Finished, "the run has finished");
        if (hit) {
            StopInfo s = *hit;
            s.framePath = m_session.framePath();
            s.lastNode = r.node;
            s.nextNode = m_session.nextNode();
            m_lastStop = s;
            return s;
        }
    }
}

bool Debugger::completeLog(const std::atomic<bool>* cancel)
{
    if (!m_logPending)
        return true;
    const uint64_t target = m_steps;
    const Session::State state = m_session.state();
    // The replay starts at the checkpoint taken where the first pending stretch began (or an earlier one, if the
    // budget thinned it away).
    const auto later = std::upper_bound(m_checkpoints.begin(), m_checkpoints.end(), m_logFrom,
        [](uint64_t p, const Checkpoint& c) { return p < c.step; });
    dropCheckpoints(static_cast<size_t>(later - m_checkpoints.begin()));
    // By segments in parallel from the checkpoints taken during the stretches, the debugger's session left at the
    // stop; else by restoreTo() (which replays in the debugger's own session, arriving where it was).
    m_logSegments = 0;
    m_logShadow = false;
    m_logPending = false; // the replay's own moves find the log complete
    SegmentFill fill = SegmentFill::NotApplicable;
    // The shadow replay, if one trails the stretches (not after a failure: the serial replay restores the failed
    // step's frame as a debug run failing there leaves it); else by segments; else serially.
    if (m_shadow && state == Session::State::Failed)
        stopShadow();
    if (m_shadow)
        fill = fillLogFromShadow(cancel);
    if (fill == SegmentFill::NotApplicable)
        fill = fillLogBySegments(cancel);
    if (fill == SegmentFill::Cancelled) {
        m_logPending = true; // as before the call, the stretches' checkpoints kept
        return false;
    }
    m_quietCheckpoints.clear();
    m_quietSpacing = 0;
    if (fill == SegmentFill::NotApplicable) {
        try {
            restoreTo(target);
        } catch (const Error&) {
            // The stretch ended in the node's failure, which the replay met again.
        }
    }
    check(m_steps == target && m_session.state() == state,
        "the replay of a debug run did not arrive where the run stopped (step " + std::to_string(m_steps) + " of "
            + std::to_string(target) + ")");
    return true;
}

} // namespace onnxscope
