// SPDX-License-Identifier: MIT
#pragma once

#include "engine/kernels/kernel_registry.h"
#include "engine/model/model.h"

#include <memory>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace onnxscope {

/// A step of a plain run that does the work of several consecutive nodes at once (engine/exec/fusion.h): its kernel
/// reads the first node's inputs, reports errors under the first node's name, and writes `output`, the last node's
/// output. The intermediate values are never produced. The Constant nodes covered, and the nodes computed at plan time
/// because all their inputs were known (folded), are not run: the step sets their outputs (a step without a kernel
/// covers such nodes only, or skips one node whose work another step's kernel does: a DequantizeLinear of weights
/// that an integer convolution reads quantized, the QuantizeLinear whose output it writes, a Transpose of weights
/// that a MatMul reads in place).
struct FusedStep {
    std::unique_ptr<Kernel> kernel;
    uint32_t nodes = 0; // nodes covered, the first included; 0: no step starts at this node
    ValueId output = kNoValue;
    std::vector<std::pair<ValueId, Value>> constants; // outputs of the Constant nodes covered
};

/// The immutable execution plan of one graph: kernels (one per node, built once), constant values, and for each
/// value the position in the node order after which it is no longer needed.
struct Plan {
    const Graph* graph = nullptr;
    std::vector<std::unique_ptr<Kernel>> kernels; // by NodeId; nodes are already in topological order
    std::vector<Value> constants; // by ValueId: initializers (and input defaults); None otherwise
    /// By ValueId: the NodeId after which the value is dead (-1: never read by a node, or a graph output).
    std::vector<NodeId> lastUse;
    std::vector<bool> isGraphOutput; // by ValueId
    /// By NodeId: values whose last use is that node, to free in plain runs.
    std::vector<std::vector<ValueId>> freeAfter;
    /// By NodeId: positions of inputs that die at that node (read once by it, not graph outputs, not constants).
    /// A plain run hands them to the kernel, which may write its output over them.
    std::vector<std::vector<uint32_t>> donatedInputs;
    /// By NodeId: the fused step that a plain run (values freed, no observer) runs instead of that node and the
    /// ones after it. Runs with observers (debugger, trace, profile, compare) always run every node.
    std::vector<FusedStep> fused;

    /// By ValueId: the values known at plan time (initializers, folded outputs, and outer-scope values known in the
    /// enclosing plan), from which the plans of subgraphs fold theirs.
    std::vector<Value> known;
    /// By NodeId: nodes whose outputs were computed at plan time by their own kernels, from known inputs (Constant
    /// nodes included). Every run takes those values instead of running the kernel again: plain runs through their
    /// steps, observed and debug runs node by node, each node still shown with its inputs and outputs.
    std::vector<bool> folded;

    /// Nodes that plain runs of this graph compute with fused kernels, or skip because a fused step does their work
    /// (folded nodes excluded).
    size_t fusedNodeCount() const;
    /// Nodes other than Constant whose outputs runs take from plan time (engine/exec/fusion.h).
    size_t foldedNodeCount() const;
};

/// A model compiled for execution: a Plan for the main graph, every subgraph and every function body.
/// Building it checks that every node (at any depth) has a kernel and valid attributes, and reports every
/// problem found at once, before any node runs. Immutable and shareable between sessions.
class Program {
public:
    explicit Program(std::shared_ptr<const Model> model, const KernelRegistry& registry = KernelRegistry::builtin());

    const Model& model() const { return *m_model; }
    std::shared_ptr<const Model> modelPtr() const { return m_model; }
    const Plan& plan(const Graph& graph) const;
    const Plan& mainPlan() const { return plan(m_model->graph()); }
    /// Values a run makes if each graph runs once (the main graph, each subgraph and function body at each place it
    /// is used): inputs and node outputs. Counted once, for the debuggers that size their logs by it.
    size_t valuesOfOneRun() const { return m_valuesOfOneRun; }
    /// Every YieldOp of the model, at any depth.
    const std::unordered_set<const Node*>& yieldNodes() const { return m_yieldNodes; }

    /// Nodes of the model (any depth) with no kernel in `registry`: "node "x" (Foo, domain "", opset 13)", each once,
    /// with " (N times)" appended when a function body instantiated at N call sites holds it.
    static std::vector<std::string> unsupportedNodes(
        const Model& model, const KernelRegistry& registry = KernelRegistry::builtin());

private:
    void build(const Graph& graph, const KernelRegistry& registry, std::vector<std::string>& problems);
    /// planFusions for `graph` and, after it, the subgraphs of its nodes, which see its known values.
    void fuse(const Graph& graph, const Plan* enclosing);

    std::shared_ptr<const Model> m_model;
    std::unordered_map<const Graph*, std::unique_ptr<Plan>> m_plans;
    size_t m_valuesOfOneRun = 0;
    std::unordered_set<const Node*> m_yieldNodes;
};

} // namespace onnxscope
