// SPDX-License-Identifier: MIT
#pragma once

#include "engine/exec/observers/output_watch.h"
#include "engine/exec/session.h"
#include "engine/exec/value_condition.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace onnxscope {

/// A breakpoint, as data: a target (a node, an op type or a value), an optional ValueCondition on the target's
/// outputs, which output it tests, and one iteration rule. The GUI, the CLI and Python fill one in through
/// makeBreakpoint() / parseBreakpointSpec(), so a request reads the same from every face. Node and op-type
/// breakpoints stop before the node runs; the others right after it.
struct Breakpoint {
    enum class Kind {
        Node, // before a node whose display name equals `pattern` (any frame)
        OpType, // before any node whose op type equals `pattern`
        Value, // after the node that produces a value named `pattern` (any frame), if `when` (when set) holds for it
        NonFinite, // the first node that produces NaN or Inf in a floating-point output
        DebugNodes, // after every DEBUG node
        Condition, // after a node named `pattern` (any node if empty) one of whose outputs meets `when`
    };
    int id = 0; // assigned by Debugger::addBreakpoint
    Kind kind = Kind::Node;
    std::string pattern;
    bool enabled = true;
    /// The one iteration rule, for every kind: only in this iteration or step of the nearest enclosing Loop/Scan (-1:
    /// every iteration). An If branch or a function body run inside that iteration is in it.
    int64_t iteration = -1;
    /// Kind::Condition and Kind::Value: the condition on the node's outputs.
    std::optional<ValueCondition> when;
    /// Kind::Condition: the output `when` tests (-1: any).
    int output = -1;
    /// Kind::Condition: only nodes of this op type (empty: any).
    std::string opType;
    /// A test no data can say: only for Python's callables. An extra filter where it is set (for Node and OpType
    /// too); a Condition breakpoint with neither `when` nor this never stops.
    std::function<bool(const NodeEvent&)> condition;
    std::string description; // shown to the user; filled in by addBreakpoint if empty
};

/// The one way the faces build a breakpoint. `target` is the node's display name (Node, Condition: empty for any
/// node), the op type (OpType) or the value's name (Value); `condition` is ValueCondition text ("" for none; required
/// for Condition), `output` the output it tests (-1: any), `iteration` as Breakpoint::iteration. Error with a message
/// that says what is wrong for a malformed condition or a missing target.
Breakpoint makeBreakpoint(Breakpoint::Kind kind, std::string target, const std::string& condition = {}, int output = -1,
    int64_t iteration = -1);

/// "NODE: CONDITION" (the node's display name may itself hold ':'; the condition follows the last one) or "CONDITION"
/// alone, for any node: a Condition breakpoint, as `onnxscope-cli run --break-when` takes it. Error for a malformed
/// condition.
Breakpoint parseBreakpointSpec(const std::string& spec, int64_t iteration = -1);

/// The default description: "node Conv_3", "op type Conv", "value y", "first NaN/Inf", "DEBUG nodes", "condition on
/// any node".
std::string defaultDescription(const Breakpoint& breakpoint);

/// Whether an after-node breakpoint (Value, Condition) stops after the node of `event`, which ran in the enclosing
/// iteration `iteration` (the rule of Breakpoint::iteration); the output that met its condition (or, without one,
/// the value it names). nullopt for the other kinds, a disabled breakpoint, or no hit. Evaluates only the outputs the
/// breakpoint names.
std::optional<OutputHit> hitAfterNode(const Breakpoint& breakpoint, const NodeEvent& event, int64_t iteration);

/// Whether an enabled breakpoint may stop after any node without reading its inputs: NaN/Inf, or a condition (as data,
/// not a callable) on every node. A quiet stretch then tests each node's outputs after it runs
/// (Session::setAfterNodeCheck): in place, values freed, no fused steps.
bool testsEveryNode(const std::vector<Breakpoint>& breakpoints);

/// Whether any of `breakpoints` is enabled.
bool anyEnabled(const std::vector<Breakpoint>& breakpoints);

/// Whether an enabled NaN/Inf breakpoint is among `breakpoints`.
bool watchesNonFinite(const std::vector<Breakpoint>& breakpoints);

/// A DEBUG node (domain "mlprodict" or "DEBUG"): a trace point, and what a DebugNodes breakpoint stops after.
bool isDebugNode(const Node& node);

/// Whether a before-node breakpoint (Node, OpType) stops before `node` at enclosing iteration `iteration`, not yet
/// asking its callable (Breakpoint::condition).
bool targetsBeforeNode(const Breakpoint& breakpoint, const Node& node, int64_t iteration);

} // namespace onnxscope
