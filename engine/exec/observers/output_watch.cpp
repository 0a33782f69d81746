// SPDX-License-Identifier: MIT
#include "engine/exec/observers/output_watch.h"

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

std::string trimmed(const std::string& s)
{
    const size_t begin = s.find_first_not_of(" \t");
    if (begin == std::string::npos)
        return {};
    return s.substr(begin, s.find_last_not_of(" \t") - begin + 1);
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
    const size_t colon = spec.rfind(':');
    Entry entry { colon == std::string::npos ? std::string() : trimmed(spec.substr(0, colon)),
        ValueCondition::parse(trimmed(colon == std::string::npos ? spec : spec.substr(colon + 1))) };
    m_conditions.push_back(std::move(entry));
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
