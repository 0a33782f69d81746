// SPDX-License-Identifier: MIT
#pragma once

#include "engine/exec/session.h"

#include <ostream>

namespace onnxscope {

/// Writes one line per executed node, in execution order, as `onnxscope-cli run --trace` prints them:
///
///   [trace] main / Loop "loop_0" iteration 3 | Add | add_7 | float[2, 3] | 0.012 ms
///
/// (frame path | op type | node | output types, "-" for an absent one | wall time). A node that fails gets
/// `| FAILED | -` in place of its outputs and time.
class TraceObserver : public SessionObserver {
public:
    explicit TraceObserver(std::ostream& out)
        : m_out(out)
    {
    }
    void afterNode(const NodeEvent& e) override;
    void nodeFailed(const NodeEvent& e, const std::string& message) override;
    /// Lines written so far.
    size_t lines() const { return m_lines; }

private:
    std::ostream& m_out;
    size_t m_lines = 0;
};

} // namespace onnxscope
