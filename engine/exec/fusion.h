// SPDX-License-Identifier: MIT
#pragma once

#include "engine/exec/program.h"

namespace onnxscope {

/// Fills plan.fused (the plan's kernels, constants and liveness must be built) with the steps of plain runs. Each Conv
/// whose float weights and bias are known at plan time (initializers, not input defaults, or folded outputs) is
/// fused with the nodes after it, as onnxruntime does:
///   - an inference-mode BatchNormalization with known float parameters, folded into the weights and bias;
///   - then any number of Mul and Add by known float values, one or one per channel, folded likewise;
///   - then an activation the convolution applies to its output: Relu, LeakyRelu, Clip with known bounds,
///     HardSigmoid, HardSwish, Sigmoid, Tanh, Gelu (opset 20, either approximation), HardSwish written as
///     x * Clip(x + 3, 0, 6) / 6, or SiLU written as Mul(x, Sigmoid(x)).
/// Elsewhere, a SiLU pair (a Sigmoid, then a Mul of its input and its output, which only the Mul reads) runs as one
/// step (makeSiluStep): one pass over x instead of two, and no Sigmoid output written.
/// The QDQ format's DequantizeLinear -> Conv -> (Relu) -> QuantizeLinear runs as one integer convolution
/// (fuseQdqConv, engine/kernels/quant/qdq_conv.h), as onnxruntime runs it as QLinearConv: equal to the unfused graph
/// up to the float rounding of its sums, so a value within float error of a rounding tie may land one quantization
/// step apart. MatMul(A, Transpose(W)) with W a known float matrix too large to fold reads W in place.
/// A node is fused only when it comes next in the plan's order (Constant nodes in between are allowed: the step sets
/// their outputs) and only it reads the previous output, which is not a graph output nor read by a subgraph.
/// Equivalent up to float rounding (the folded weights, HardSwish's formula); no fusion when any condition is in
/// doubt. Only for plans built with the builtin registry, whose kernels these reproduce.
///
/// Constant folding: a deterministic default-domain node of a few shape, data-movement and element-wise ops whose
/// inputs are all known (initializers, Constant outputs, folded outputs) is computed once here by its own kernel,
/// within bounds on its size and on the plan's total (fusion.cpp). The Constant and folded nodes are grouped in steps
/// without a kernel, one per run of consecutive ones, which set their outputs. Debug runs still run every node.
///
/// `enclosing`: the plan of the graph that holds this one as a subgraph (null for a main graph or a function body).
/// Outer-scope values it knows are known here too. Fills plan.known.
void planFusions(Plan& plan, const Plan* enclosing);

} // namespace onnxscope
