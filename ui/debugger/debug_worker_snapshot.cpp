// SPDX-License-Identifier: MIT
// What the worker sends to the UI thread at a stop: DebugWorker's snapshots.
#include "ui/debugger/debug_worker.h"

namespace onnxscope {

void DebugWorker::fillPosition(DebugSnapshot& s, const StopInfo& stop) const
{
    s.model = m_model;
    s.reason = stop.reason;
    s.message = QString::fromStdString(stop.message);
    if (auto it = m_engineToSpec.find(stop.breakpointId); it != m_engineToSpec.end())
        s.breakpointId = it->second;
    s.lastGraph = m_lastGraph;
    s.lastNode = m_lastNode;
    s.mainNodeCount = m_model ? static_cast<int64_t>(m_model->graph().nodes().size()) : 0;
    s.mainNodesDone = m_mainDone;
    s.preemptions = m_preemptions;
    s.timings = m_profile.timings();
    for (const NodeTiming& timing : s.timings)
        s.executed[timing.graph].insert(timing.node);
    if (!m_debugger)
        return;
    const Session& session = m_debugger->session();
    if (session.state() == Session::State::Failed) {
        s.failedGraph = session.failure().graph ? session.failure().graph : m_failedGraph;
        s.failedNode = session.failure().node ? session.failure().node->id : m_failedNode;
    }
    if (session.state() == Session::State::Running || session.state() == Session::State::Failed) {
        std::string path;
        for (size_t i = 0; i < session.depth(); ++i) {
            const Frame& f = session.frame(i);
            path = i == 0 ? f.label : path + " / " + f.label;
            FrameSnapshot fs;
            fs.id = f.id;
            fs.label = f.label;
            fs.path = path;
            fs.graph = &f.graph();
            fs.ownerNode = f.ownerNode;
            fs.iteration = f.iteration;
            fs.position = f.pc < f.graph().nodes().size() ? static_cast<NodeId>(f.pc) : -1;
            s.frames.push_back(std::move(fs));
        }
    }
    if (session.state() == Session::State::Finished)
        s.outputs = session.outputs();
    s.quietStretches = m_debugger->quietStretches();
}

void DebugWorker::fillValues(DebugSnapshot& s)
{
    if (m_reversed || !m_profiledAll) {
        // Nodes after the position went back to were undone, or the profile did not watch the whole run: what ran is
        // what the debugger has recorded.
        s.executed.clear();
        for (const RecordedValue& v : m_debugger->values())
            if (v.producer >= 0 && v.graph)
                s.executed[v.graph].insert(v.producer);
    }
    const Session& session = m_debugger->session();
    s.recordedBytes = m_debugger->recordedBytes();
    {
        const MemoryStats memory = m_debugger->memoryStats();
        s.checkpointBytes = memory.checkpointBytes;
        s.checkpoints = memory.checkpoints;
    }
    s.forgottenValues = m_debugger->forgottenValues();
    const auto& values = m_debugger->values();
    s.values.reserve(values.size());
    // The frames of this position (or a finished run's outputs) still hold some values whose data the run did not
    // keep: the snapshot carries them (the views show them at once, without a rebuild).
    std::set<uint64_t> frameIds;
    for (size_t i = 0; i < session.depth(); ++i)
        frameIds.insert(session.frame(i).id);
    const bool finished = session.state() == Session::State::Finished;
    for (const RecordedValue& v : values) {
        ValueSnapshot vs { v, std::nullopt };
        if (v.dropped && (finished || frameIds.count(v.frameId)))
            if (const Value* held = m_debugger->heldValue(v)) {
                vs.record.value = *held;
                vs.record.dropped = false;
            }
        if (v.summary.valid) {
            vs.stats = v.summary.stats; // recorded as the value was made
        } else if (!vs.record.dropped) {
            auto key = std::make_tuple(v.frameId, v.sequence, v.name);
            auto it = m_stats.find(key);
            if (it == m_stats.end())
                it = m_stats.emplace(std::move(key), computeStats(vs.record.value)).first;
            vs.stats = it->second;
        }
        s.values.push_back(std::move(vs));
    }
}

DebugSnapshotPtr DebugWorker::snapshot(const StopInfo& stop, const std::string& errorOverride)
{
    auto s = std::make_shared<DebugSnapshot>();
    fillPosition(*s, stop);
    if (m_debugger) {
        fillValues(*s);
        const Session& session = m_debugger->session();
        if (stop.reason == StopReason::YieldOp && session.topFrame()) {
            const Frame& f = *session.topFrame();
            if (const Node* node = session.nextNode()) {
                for (ValueId id : node->inputs) {
                    if (id == kNoValue)
                        continue;
                    const std::string& name = f.graph().value(id).name;
                    Value v = static_cast<size_t>(id) < f.values.size() ? f.values[static_cast<size_t>(id)] : Value();
                    if (v.isNone())
                        if (const RecordedValue* r = m_debugger->findValue(name))
                            v = r->value;
                    s->yieldInputs.emplace_back(name, v);
                }
                for (ValueId id : node->outputs)
                    if (id != kNoValue)
                        s->yieldOutputs.push_back(f.graph().value(id).name);
            }
        }
    }
    if (!errorOverride.empty())
        s->message = QString::fromStdString(errorOverride);
    return s;
}

DebugSnapshotPtr DebugWorker::positionSnapshot(const StopInfo& stop)
{
    auto s = std::make_shared<DebugSnapshot>();
    fillPosition(*s, stop);
    s->summarising = true;
    if (m_known) {
        // The values and nodes of the previous stop are still true; those of the stretch come with its summaries.
        s->values = m_known->values;
        for (const auto& [graph, nodes] : m_known->executed)
            s->executed[graph].insert(nodes.begin(), nodes.end());
        s->recordedBytes = m_known->recordedBytes;
        s->checkpointBytes = m_known->checkpointBytes;
        s->checkpoints = m_known->checkpoints;
        s->forgottenValues = m_known->forgottenValues;
    }
    // The main graph's nodes before its position have run (its frame's program counter is a node index).
    if (m_model && m_debugger) {
        const Graph& main = m_model->graph();
        const Session& session = m_debugger->session();
        const size_t count = main.nodes().size();
        const size_t done = session.state() == Session::State::Finished ? count
            : session.depth() > 0                                       ? std::min(session.frame(0).pc, count)
                                                                        : 0;
        for (size_t i = 0; i < done; ++i)
            s->executed[&main].insert(static_cast<NodeId>(i));
    }
    return s;
}

} // namespace onnxscope
