// SPDX-License-Identifier: MIT
#pragma once

#include "engine/exec/session.h"
#include "engine/exec/value_condition.h"

#include <optional>
#include <string>
#include <vector>

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

/// Whether firstNonFiniteOutput(event) would find an output, without describing it (hasNonFinite: one vector pass
/// over float32 data).
bool anyOutputNonFinite(const NodeEvent& event);

/// The first output of the node in `event` (an afterNode event) that meets `condition`; with `output` >= 0, only that
/// output is tested. What the debugger's condition breakpoints and ConditionWatch stop on.
std::optional<OutputHit> firstOutputMeeting(const NodeEvent& event, const ValueCondition& condition, int output = -1);

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

/// Remembers the first node output a session produces that meets one of its conditions (`onnxscope-cli run
/// --break-when`). The caller stops advancing the session once hit() is set.
class ConditionWatch : public SessionObserver {
public:
    /// Adds a condition: "NODE: CONDITION" for the outputs of the nodes whose display name is NODE (in any frame), or
    /// "CONDITION" alone for every node's. CONDITION is a ValueCondition; NODE may itself hold ':' (the condition is
    /// after the last one), read by parseBreakpointSpec (engine/exec/debug/breakpoint.h) as the debugger's condition
    /// breakpoints are. Error for a malformed condition.
    void add(const std::string& spec);
    bool empty() const { return m_conditions.empty(); }
    /// The node names the conditions are limited to (empty for "every node").
    std::vector<std::string> nodeNames() const;

    void afterNode(const NodeEvent& e) override;
    bool wantsTiming() const override { return false; }
    const std::optional<OutputHit>& hit() const { return m_hit; }
    /// The condition that was met (without its node name): "any |x| > 1e4".
    const std::string& metCondition() const { return m_met; }

private:
    struct Entry {
        std::string node; // empty: every node
        ValueCondition condition;
    };
    std::vector<Entry> m_conditions;
    std::optional<OutputHit> m_hit;
    std::string m_met;
};

} // namespace onnxscope
