// SPDX-License-Identifier: MIT
#include "engine/exec/observers/output_watch.h"

#include "engine/exec/debug/breakpoint.h"
#include "engine/exec/value_checks.h"

namespace onnxscope {

namespace {

OutputHit makeHit(const NodeEvent& event, size_t output, int64_t index, std::string description)
{
    OutputHit hit;
    hit.node = event.node.label();
    hit.nodePath = event.nodePath();
    hit.output = output;
    hit.valueName = event.frame.graph().value(event.node.outputs[output]).name;
    hit.valueType = event.outputs[output].typeString();
    hit.index = index;
    hit.description = std::move(description);
    return hit;
}

} // namespace

std::optional<OutputHit> firstNonFiniteOutput(const NodeEvent& event)
{
    for (size_t i = 0; i < event.outputs.size() && i < event.node.outputs.size(); ++i) {
        if (auto bad = firstNonFinite(event.outputs[i]))
            return makeHit(event, i, bad->index, std::move(bad->description));
    }
    return std::nullopt;
}

bool anyOutputNonFinite(const NodeEvent& event)
{
    for (size_t i = 0; i < event.outputs.size() && i < event.node.outputs.size(); ++i)
        if (hasNonFinite(event.outputs[i]))
            return true;
    return false;
}

void NonFiniteWatch::afterNode(const NodeEvent& e)
{
    if (!m_hit)
        m_hit = firstNonFiniteOutput(e);
}

std::optional<OutputHit> firstOutputMeeting(const NodeEvent& event, const ValueCondition& condition, int output)
{
    for (size_t i = 0; i < event.outputs.size() && i < event.node.outputs.size(); ++i) {
        if (output >= 0 && static_cast<size_t>(output) != i)
            continue;
        if (auto met = condition.match(event.outputs[i]))
            return makeHit(event, i, met->index, std::move(met->description));
    }
    return std::nullopt;
}

void ConditionWatch::add(const std::string& spec)
{
    // Read as the debugger's condition breakpoints are, by the one parser of "NODE: CONDITION".
    Breakpoint b = parseBreakpointSpec(spec);
    m_conditions.push_back(Entry { std::move(b.pattern), std::move(*b.when) });
}

std::vector<std::string> ConditionWatch::nodeNames() const
{
    std::vector<std::string> names;
    for (const Entry& entry : m_conditions)
        names.push_back(entry.node);
    return names;
}

void ConditionWatch::afterNode(const NodeEvent& e)
{
    if (m_hit)
        return;
    for (const Entry& entry : m_conditions) {
        if (!entry.node.empty() && !e.node.hasDisplayName(entry.node))
            continue;
        if ((m_hit = firstOutputMeeting(e, entry.condition))) {
            m_met = entry.condition.text();
            return;
        }
    }
}

} // namespace onnxscope
