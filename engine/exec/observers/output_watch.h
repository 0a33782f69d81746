// SPDX-License-Identifier: MIT
#pragma once

#include "engine/exec/session.h"

#include <optional>
#include <string>

namespace onnxscope {

/// A node output that met a watch's test, and where.
struct OutputHit {
    std::string node; // the node's label: `node "div_3" (Div)`
    std::string nodePath; // `main / Loop "l" iteration 2 / div_3`
    size_t output = 0; // index among the node's outputs
    std::string valueName;
    std::string valueType; // "float[2, 3]"
    int64_t index = -1; // flat index of the first element that met the test, -1 when the test is not about one
    std::string description; // "NaN at index [0, 1]"
};

/// The first output of the node in `event` (an afterNode event) holding NaN or Inf, looking inside sequences,
/// maps and optionals. What the debugger's non-finite breakpoint and NonFiniteWatch stop on.
std::optional<OutputHit> firstNonFiniteOutput(const NodeEvent& event);

/// Remembers the first node output a session produces that holds NaN or Inf (`onnxscope-cli run --break-on-nan`).
/// The caller stops advancing the session once hit() is set.
class NonFiniteWatch : public SessionObserver {
public:
    void afterNode(const NodeEvent& e) override;
    bool wantsTiming() const override { return false; }
    const std::optional<OutputHit>& hit() const { return m_hit; }

private:
    std::optional<OutputHit> m_hit;
};

} // namespace onnxscope
