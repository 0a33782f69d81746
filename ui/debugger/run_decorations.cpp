// SPDX-License-Identifier: MIT
#include "ui/debugger/run_decorations.h"

#include "ui/common/tensor_format.h"
#include "ui/debugger/breakpoint_model.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>

namespace onnxscope {

namespace {

QString shortType(const Value& v)
{
    const Value* inner = v.isOptional() ? v.optionalValue() : &v;
    if (inner && inner->isTensor())
        return QStringLiteral("%1 %2").arg(
            QString::fromUtf8(dataTypeName(inner->tensor().dtype()).data()), formatShape(inner->tensor().shape()));
    return QString::fromStdString(v.typeString());
}

/// White through amber to red as t goes from 0 to 1.
QColor heat(double t)
{
    t = std::clamp(t, 0.0, 1.0);
    const QColor a(0xff, 0xff, 0xff), b(0xff, 0xcc, 0x80), c(0xef, 0x53, 0x50);
    auto mix = [](const QColor& x, const QColor& y, double f) {
        return QColor::fromRgbF(x.redF() + (y.redF() - x.redF()) * f, x.greenF() + (y.greenF() - x.greenF()) * f,
            x.blueF() + (y.blueF() - x.blueF()) * f);
    };
    return t < 0.5 ? mix(a, b, t * 2) : mix(b, c, (t - 0.5) * 2);
}

} // namespace

void showRunState(GraphDecorations& graph, const DebugSnapshot* s, const BreakpointModel& breakpoints)
{
    graph.clearNodeStates();
    if (!s)
        return;
    for (const auto& [g, nodes] : s->executed)
        for (NodeId n : nodes)
            graph.setNodeState(g, n, NodeState::Done);
    for (size_t i = 0; i < s->frames.size(); ++i) {
        const FrameSnapshot& f = s->frames[i];
        if (i > 0 && f.ownerNode >= 0)
            graph.setNodeState(s->frames[i - 1].graph, f.ownerNode, NodeState::Current);
    }
    if (const BreakpointSpec* b = s->breakpointId > 0 ? breakpoints.find(s->breakpointId) : nullptr; s->lastGraph
        && s->lastNode >= 0
        && (s->reason == StopReason::NonFinite || (b && b->kind == BreakpointSpec::Kind::Condition)))
        graph.setNodeState(s->lastGraph, s->lastNode, NodeState::Tripped);
    const FrameSnapshot* inner = s->innermost();
    if (s->failedGraph && s->failedNode >= 0)
        graph.setNodeState(s->failedGraph, s->failedNode, NodeState::Failed);
    else if (inner && inner->position >= 0)
        graph.setNodeState(inner->graph, inner->position, NodeState::Current);
}

void decorateRun(GraphDecorations& graph, const DebugSnapshot* s, const BreakpointModel& breakpoints, bool colourByTime)
{
    const Graph* drawn = graph.drawnGraph();
    if (!drawn)
        return;
    std::set<std::string> breakNodes, breakOps;
    for (const auto& b : breakpoints.breakpoints()) {
        if (!b.enabled)
            continue;
        if (b.kind == BreakpointSpec::Kind::Node || (b.kind == BreakpointSpec::Kind::Condition && !b.pattern.isEmpty()))
            breakNodes.insert(b.pattern.toStdString());
        else if (b.kind == BreakpointSpec::Kind::OpType)
            breakOps.insert(b.pattern.toStdString());
    }
    std::map<NodeId, const NodeTiming*> timing;
    double maxMs = 0;
    if (s)
        for (const NodeTiming& t : s->timings)
            if (t.graph == drawn) {
                timing[t.node] = &t;
                maxMs = std::max(maxMs, static_cast<double>(t.total.count()) / 1e6);
            }
    const int boxes = graph.boxCount();
    for (int i = 0; i < boxes; ++i) {
        const GraphDecorations::Box box = graph.box(i);
        if (box.kind != GraphDecorations::Box::Kind::Node || box.node < 0) {
            graph.setBreakpointMarker(i, false);
            graph.setHeatColour(i, {});
            continue;
        }
        const Node& node = drawn->node(box.node);
        graph.setBreakpointMarker(i, breakNodes.count(node.displayName()) || breakOps.count(node.opType));
        QString note;
        const auto t = timing.find(box.node);
        if (t != timing.end())
            note = QStringLiteral("Time: %1 ms (%2 call%3)")
                       .arg(static_cast<double>(t->second->total.count()) / 1e6, 0, 'f', 3)
                       .arg(t->second->calls)
                       .arg(t->second->calls == 1 ? QString() : QStringLiteral("s"));
        if (s && s->failedGraph == drawn && s->failedNode == box.node)
            note = QStringLiteral("Failed: %1").arg(s->message);
        else if (box.state == NodeState::Tripped && s && s->lastGraph == drawn && s->lastNode == box.node)
            note = QStringLiteral("Stopped the run: %1").arg(s->message);
        graph.setRunNote(i, note);
        if (colourByTime && t != timing.end() && maxMs > 0)
            graph.setHeatColour(i, heat(std::sqrt(static_cast<double>(t->second->total.count()) / 1e6 / maxMs)));
        else
            graph.setHeatColour(i, {});
    }
    // Executed edges show the actual type and shape of what flowed on them (from the summary of a value whose data was
    // not kept).
    // While the stop's values are being summarised, the labels wait for them rather than show an earlier stop's.
    std::map<std::string, QString> latest;
    if (s && !s->summarising)
        for (const auto& v : s->values) {
            if (v.record.graph != drawn)
                continue;
            if (!v.record.dropped)
                latest[v.record.name] = shortType(v.record.value);
            else if (const ValueDigest& d = v.record.summary; d.valid)
                latest[v.record.name] = d.kind == Value::Kind::Tensor ? QStringLiteral("%1 %2").arg(
                                            QString::fromUtf8(dataTypeName(d.dtype).data()), formatShape(d.shape()))
                                                                      : QString::fromStdString(d.typeString());
        }
    const int edges = graph.edgeCount();
    for (int i = 0; i < edges; ++i) {
        const std::vector<ValueId> values = graph.edgeValues(i);
        QString label;
        if (values.size() == 1 && values.front() != kNoValue) {
            auto it = latest.find(drawn->value(values.front()).name);
            if (it != latest.end())
                label = it->second;
        }
        graph.setEdgeActualType(i, label);
    }
    // So do the graph's inputs and outputs, whose declared types may be symbolic or missing (function bodies).
    for (int i = 0; i < boxes; ++i) {
        const GraphDecorations::Box box = graph.box(i);
        QString label;
        if ((box.kind == GraphDecorations::Box::Kind::Input || box.kind == GraphDecorations::Box::Kind::Output)
            && box.value != kNoValue)
            if (auto it = latest.find(drawn->value(box.value).name); it != latest.end())
                label = it->second;
        graph.setActualType(i, label == box.declaredType ? QString() : label);
    }
}

} // namespace onnxscope
