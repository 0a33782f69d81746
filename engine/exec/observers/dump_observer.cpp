// SPDX-License-Identifier: MIT
#include "engine/exec/observers/dump_observer.h"

#include <algorithm>

namespace onnxscope {

void DumpObserver::afterNode(const NodeEvent& e)
{
    const Graph& graph = e.frame.graph();
    for (size_t i = 0; i < e.outputs.size() && i < e.node.outputs.size(); ++i) {
        if (e.node.outputs[i] == kNoValue || e.outputs[i].isNone())
            continue;
        const std::string& name = graph.value(e.node.outputs[i]).name;
        bool isOutput = false;
        if (e.depth == 1) {
            const auto& outs = graph.outputs();
            isOutput = std::find(outs.begin(), outs.end(), e.node.outputs[i]) != outs.end();
            if (isOutput)
                m_mainOutputsWritten.insert(name);
        }
        m_writer.write(name, e.outputs[i], e.node.displayName(), e.framePath, isOutput ? "output" : "intermediate");
    }
}

} // namespace onnxscope
