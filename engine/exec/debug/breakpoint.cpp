// SPDX-License-Identifier: MIT
#include "engine/exec/debug/breakpoint.h"

#include "engine/core/error.h"

#include <algorithm>
#include <string_view>

namespace onnxscope {

namespace {

std::string trimmed(const std::string& s)
{
    const size_t begin = s.find_first_not_of(" \t");
    if (begin == std::string::npos)
        return {};
    return s.substr(begin, s.find_last_not_of(" \t") - begin + 1);
}

} // namespace

Breakpoint makeBreakpoint(
    Breakpoint::Kind kind, std::string target, const std::string& condition, int output, int64_t iteration)
{
    using Kind = Breakpoint::Kind;
    Breakpoint b;
    b.kind = kind;
    b.pattern = std::move(target);
    b.iteration = iteration < 0 ? -1 : iteration;
    b.output = output < 0 ? -1 : output;
    if ((kind == Kind::Node || kind == Kind::OpType || kind == Kind::Value) && b.pattern.empty())
        throw Error(std::string("a breakpoint on ")
            + (kind == Kind::Node          ? "a node needs the node's name"
                    : kind == Kind::OpType ? "an op type needs the op type"
                                           : "a value needs the value's name"));
    const std::string text = trimmed(condition);
    if (!text.empty()) {
        if (kind != Kind::Condition && kind != Kind::Value)
            throw Error("only a condition or value breakpoint takes a condition (\"" + text + "\")");
        b.when = ValueCondition::parse(text);
    } else if (kind == Kind::Condition) {
        throw Error("a condition breakpoint needs a condition, such as \"any |x| > 1e4\"");
    }
    return b;
}

Breakpoint parseBreakpointSpec(const std::string& spec, int64_t iteration)
{
    const size_t colon = spec.rfind(':');
    const std::string node = colon == std::string::npos ? std::string() : trimmed(spec.substr(0, colon));
    const std::string condition = trimmed(colon == std::string::npos ? spec : spec.substr(colon + 1));
    if (condition.empty())
        throw Error("\"" + spec + "\" names no condition: expected \"NODE: CONDITION\" or \"CONDITION\"");
    return makeBreakpoint(Breakpoint::Kind::Condition, node, condition, -1, iteration);
}

std::string defaultDescription(const Breakpoint& b)
{
    switch (b.kind) {
    case Breakpoint::Kind::Node:
        return "node " + b.pattern;
    case Breakpoint::Kind::OpType:
        return "op type " + b.pattern;
    case Breakpoint::Kind::Value:
        return "value " + b.pattern;
    case Breakpoint::Kind::NonFinite:
        return "first NaN/Inf";
    case Breakpoint::Kind::DebugNodes:
        return "DEBUG nodes";
    case Breakpoint::Kind::Condition:
        break;
    }
    return "condition on " + (b.pattern.empty() ? std::string("any node") : b.pattern);
}

std::optional<OutputHit> hitAfterNode(const Breakpoint& b, const NodeEvent& event, int64_t iteration)
{
    if (!b.enabled || (b.iteration >= 0 && iteration != b.iteration))
        return std::nullopt;
    const Node& node = event.node;
    if (b.kind == Breakpoint::Kind::Condition) {
        if ((!b.pattern.empty() && !node.hasDisplayName(b.pattern)) || (!b.opType.empty() && node.opType != b.opType))
            return std::nullopt;
        std::optional<OutputHit> hit;
        if (b.when) {
            hit = firstOutputMeeting(event, *b.when, b.output);
            if (!hit)
                return std::nullopt;
        }
        if (b.condition) {
            if (!b.condition(event))
                return std::nullopt;
        } else if (!b.when) {
            return std::nullopt;
        }
        if (!hit) {
            hit.emplace();
            hit->node = node.label();
            hit->nodePath = event.nodePath();
        }
        return hit;
    }
    if (b.kind != Breakpoint::Kind::Value)
        return std::nullopt;
    const Graph& graph = event.frame.graph();
    for (size_t i = 0; i < node.outputs.size() && i < event.outputs.size(); ++i) {
        if (node.outputs[i] == kNoValue || graph.value(node.outputs[i]).name != b.pattern)
            continue;
        std::optional<OutputHit> hit;
        if (b.when) {
            hit = firstOutputMeeting(event, *b.when, static_cast<int>(i));
        } else {
            hit.emplace();
            hit->node = node.label();
            hit->nodePath = event.nodePath();
            hit->output = i;
            hit->valueName = b.pattern;
            hit->valueType = event.outputs[i].typeString();
        }
        if (hit && (!b.condition || b.condition(event)))
            return hit;
    }
    return std::nullopt;
}

bool testsEveryNode(const std::vector<Breakpoint>& breakpoints)
{
    return std::any_of(breakpoints.begin(), breakpoints.end(), [](const Breakpoint& b) {
        return b.enabled
            && (b.kind == Breakpoint::Kind::NonFinite
                || (b.kind == Breakpoint::Kind::Condition && b.pattern.empty() && b.opType.empty() && !b.condition));
    });
}

bool anyEnabled(const std::vector<Breakpoint>& breakpoints)
{
    return std::any_of(breakpoints.begin(), breakpoints.end(), [](const Breakpoint& b) { return b.enabled; });
}

bool watchesNonFinite(const std::vector<Breakpoint>& breakpoints)
{
    return std::any_of(breakpoints.begin(), breakpoints.end(),
        [](const Breakpoint& b) { return b.enabled && b.kind == Breakpoint::Kind::NonFinite; });
}

bool isDebugNode(const Node& node)
{
    // string_view compares the lengths first: this runs after every node.
    return std::string_view(node.opType) == "DEBUG" && (node.domain == "mlprodict" || node.domain == "DEBUG");
}

bool targetsBeforeNode(const Breakpoint& b, const Node& node, int64_t iteration)
{
    if (!b.enabled)
        return false;
    const bool target = (b.kind == Breakpoint::Kind::Node && node.hasDisplayName(b.pattern))
        || (b.kind == Breakpoint::Kind::OpType && b.pattern == node.opType);
    return target && (b.iteration < 0 || iteration == b.iteration);
}

} // namespace onnxscope
