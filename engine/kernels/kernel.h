// SPDX-License-Identifier: MIT
#pragma once

#include "engine/core/value.h"
#include "engine/model/graph.h"

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace onnxscope {

class ThreadPool;

/// Limits a session imposes on kernels (0 = unlimited).
struct ExecutionLimits {
    int64_t maxLoopIterations = 0;
};

/// What a kernel sees while it runs: the node, its input values and its output values.
class KernelContext {
public:
    KernelContext(const Node& node, std::span<const Value> inputs, std::span<Value> outputs, ThreadPool* pool = nullptr,
        const std::vector<std::optional<Value>>* outputOverrides = nullptr, const ExecutionLimits* limits = nullptr);
    /// Inputs given by address, as the executor does: it points at its frame's values instead of copying each one
    /// (a copy is two atomic reference-count changes, and two more to drop it, once the process has a second thread).
    KernelContext(const Node& node, std::span<const Value* const> inputs, std::span<Value> outputs,
        ThreadPool* pool = nullptr, const std::vector<std::optional<Value>>* outputOverrides = nullptr,
        const ExecutionLimits* limits = nullptr);

    const Node& node() const { return m_node; }
    size_t inputCount() const { return m_byAddress ? m_inputRefs.size() : m_inputs.size(); }
    /// True if input i is present (not omitted and not an absent optional).
    bool hasInput(size_t i) const;
    /// Input i as a value; a None value when absent.
    const Value& inputValue(size_t i) const;
    /// Input i as a tensor; Error naming the node and input if it is missing or not a tensor.
    const Tensor& input(size_t i) const;

    size_t outputCount() const { return m_outputs.size(); }
    /// True if the graph uses output i (its name is not empty).
    bool hasOutput(size_t i) const;
    void setOutput(size_t i, Value value);
    /// Allocates output i with the given type and shape and returns it for filling.
    Tensor& allocateOutput(size_t i, DataType type, Shape shape);
    /// As allocateOutput, without zeroing the elements: for kernels that write every one of them.
    Tensor& allocateOutputUninitialized(size_t i, DataType type, Shape shape);
    /// Output `out` written over input `in` when the executor gave that input away (a plain run, the input's last
    /// use) and no one else holds it, with the same element type and count; otherwise as
    /// allocateOutputUninitialized. For element-wise kernels whose output element i depends on input element i only.
    /// Inputs given as values are given away when no one else holds them; inputs given by address only when listed
    /// in giveAway().
    Tensor& reuseInputOrAllocate(size_t out, size_t in, DataType type, Shape shape);

    /// Inputs given by address that the kernel may write over (indices into the inputs), when no one else holds them.
    void giveAway(std::span<const uint32_t> inputs) { m_givenAway = inputs; }

    /// For YieldOp: a caller-supplied replacement of output i, if any.
    const std::optional<Value>* outputOverride(size_t i) const;
    /// Intra-op thread pool, or null for single-threaded execution.
    ThreadPool* threadPool() const { return m_pool; }
    const ExecutionLimits& limits() const;

    /// Error with the node's label prefixed: `node "x" (Op): message`.
    Error error(const std::string& message) const;

private:
    const Value& inputAt(size_t i) const { return m_byAddress ? *m_inputRefs[i] : m_inputs[i]; }

    const Node& m_node;
    bool m_byAddress = false; // which of the two holds the inputs:
    std::span<const Value> m_inputs; // given as values
    std::span<const Value* const> m_inputRefs; // given by address
    std::span<const uint32_t> m_givenAway; // inputs given by address that the kernel may write over
    std::span<Value> m_outputs;
    ThreadPool* m_pool;
    const std::vector<std::optional<Value>>* m_overrides;
    const ExecutionLimits* m_limits;
};

/// A built operator: created once per node at plan time (attributes parsed and validated then), run many times.
class Kernel {
public:
    virtual ~Kernel() = default;
    virtual void compute(KernelContext& ctx) const = 0;
};

/// One execution of a subgraph requested by a control-flow node: the graph and the values of its inputs.
struct SubgraphCall {
    const Graph* graph = nullptr;
    std::vector<Value> inputs;
    /// How the frame is named in frame paths, e.g. `Loop "loop_0" iteration 3` or `If "if_0" then_branch`.
    std::string label;
    /// Loop iteration / Scan step number (from 0), -1 for If branches and function calls.
    int64_t iteration = -1;
};

/// The state of one run of a control-flow node (If, Loop, Scan, a function call). The executor asks it for
/// subgraph calls one at a time and runs each as a frame, so execution can pause anywhere inside.
class SubgraphRun {
public:
    virtual ~SubgraphRun() = default;
    /// The next subgraph to run, or nullopt when the node is done.
    virtual std::optional<SubgraphCall> next() = 0;
    /// Receives the outputs of the call returned by the last next().
    virtual void finished(std::vector<Value> outputs) = 0;
    /// Sets the node's outputs once next() returned nullopt.
    virtual void complete(KernelContext& ctx) = 0;
};

/// A kernel whose work is done by running subgraphs in frames of the executor.
class SubgraphKernel : public Kernel {
public:
    virtual std::unique_ptr<SubgraphRun> start(KernelContext& ctx) const = 0;
    void compute(KernelContext& ctx) const final;
};

/// What a kernel factory receives at plan time.
struct KernelInit {
    const Node& node;
    /// The graph the node belongs to, for declared types of its outputs; null when unknown.
    const Graph* graph = nullptr;
    const NodeAttributes& attributes() const { return node.attributes; }
    /// The declared type of output i (graph output or value_info), or null if the model declares none.
    const ValueType* declaredOutputType(size_t i) const
    {
        if (!graph || i >= node.outputs.size() || node.outputs[i] == kNoValue)
            return nullptr;
        const ValueType& t = graph->value(node.outputs[i]).type;
        return t.kind == Value::Kind::None ? nullptr : &t;
    }
    int64_t opset() const { return node.opset; }
    Error error(const std::string& message) const { return Error(node.label() + ": " + message); }
};

} // namespace onnxscope
