// SPDX-License-Identifier: MIT
#pragma once

#include "engine/exec/session.h"

#include <vector>

namespace onnxscope {

/// Keeps every node output it is shown, and nothing else: what a run that keeps its values pays beyond a plain run is
/// the memory of every intermediate (no in-place writes, no fused steps), not a debugger's bookkeeping.
class KeepObserver : public SessionObserver {
public:
    void afterNode(const NodeEvent& e) override { m_values.insert(m_values.end(), e.outputs.begin(), e.outputs.end()); }
    bool wantsTiming() const override { return false; }
    /// Releases the values kept so far.
    void clear() { m_values.clear(); }
    size_t count() const { return m_values.size(); }

private:
    std::vector<Value> m_values;
};

} // namespace onnxscope
