// SPDX-License-Identifier: MIT
#include "engine/exec/observers/output_watch.h"

#include "engine/exec/value_checks.h"

namespace onnxscope {

std::optional<OutputHit> firstNonFiniteOutput(const NodeEvent& event)
{
    for (size_t i = 0; i < event.outputs.size() && i < event.node.outputs.size(); ++i) {
        if (auto bad = firstNonFinite(event.outputs[i])) {
            OutputHit hit;
            hit.node = event.node.label();
            hit.nodePath = event.nodePath();
            hit.output = i;
            hit.valueName = event.frame.graph().value(event.node.outputs[i]).name;
            hit.valueType = event.outputs[i].typeString();
            hit.index = bad->index;
            hit.description = std::move(bad->description);
            return hit;
        }
    }
    return std::nullopt;
}

void NonFiniteWatch::afterNode(const NodeEvent& e)
{
    if (!m_hit)
        m_hit = firstNonFiniteOutput(e);
}

} // namespace onnxscope
