// SPDX-License-Identifier: MIT
#include "ui/common/debug_snapshot.h"

namespace onnxscope {

const Node* DebugSnapshot::nextNode() const
{
    const FrameSnapshot* f = innermost();
    if (!f || !f->graph || f->position < 0)
        return nullptr;
    return &f->graph->node(f->position);
}

const ValueSnapshot* DebugSnapshot::findValue(const std::string& name, uint64_t frameId) const
{
    for (auto it = values.rbegin(); it != values.rend(); ++it)
        if (it->record.name == name && (frameId == 0 || it->record.frameId == frameId))
            return &*it;
    return nullptr;
}

const ValueSnapshot* DebugSnapshot::findValue(const Graph* graph, ValueId value) const
{
    if (!graph || value < 0)
        return nullptr;
    const std::string& name = graph->value(value).name;
    for (auto it = values.rbegin(); it != values.rend(); ++it)
        if (it->record.graph == graph && it->record.name == name)
            return &*it;
    return nullptr;
}

} // namespace onnxscope
