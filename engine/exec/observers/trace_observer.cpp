// SPDX-License-Identifier: MIT
#include "engine/exec/observers/trace_observer.h"

#include "engine/core/text.h"

namespace onnxscope {

namespace {

std::string outputTypes(const NodeEvent& e)
{
    std::string s;
    for (size_t i = 0; i < e.outputs.size(); ++i) {
        if (i)
            s += "; ";
        s += e.outputs[i].isNone() ? std::string("-") : e.outputs[i].typeString();
    }
    return s.empty() ? "-" : s;
}

} // namespace

void TraceObserver::afterNode(const NodeEvent& e)
{
    m_out << "[trace] " << e.framePath << " | " << e.node.opType << " | " << e.node.displayName() << " | "
          << outputTypes(e) << " | " << formatMs(e.elapsed) << " ms\n";
    ++m_lines;
}

void TraceObserver::nodeFailed(const NodeEvent& e, const std::string&)
{
    m_out << "[trace] " << e.framePath << " | " << e.node.opType << " | " << e.node.displayName() << " | FAILED | -\n";
    ++m_lines;
}

} // namespace onnxscope
