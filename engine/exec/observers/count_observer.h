// SPDX-License-Identifier: MIT
#pragma once

#include "engine/exec/session.h"

namespace onnxscope {

/// Counts the nodes a session executed, at any depth (every Loop iteration's nodes count).
class CountObserver : public SessionObserver {
public:
    void afterNode(const NodeEvent&) override { ++m_nodes; }
    bool wantsTiming() const override { return false; }
    size_t nodes() const { return m_nodes; }

private:
    size_t m_nodes = 0;
};

} // namespace onnxscope
