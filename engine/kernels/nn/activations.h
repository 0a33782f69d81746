// SPDX-License-Identifier: MIT
#pragma once

// Fused element-wise steps for plain runs (engine/exec/fusion.cpp).

#include "engine/kernels/kernel.h"

#include <memory>

namespace onnxscope {

/// The kernel of a plain-run step that runs `sigmoid` (a Sigmoid node reading X) and then `mul` (a Mul node reading X
/// and the Sigmoid's output, as SiLU is exported) as one: for float X, y = x * sigmoid(x) in one vector pass
/// (simd::Activation::Silu); for other types, the two nodes' own kernels in turn, with their own errors. Built on the
/// Sigmoid node: its input 0 is X, and the step's output is the Mul's.
std::unique_ptr<Kernel> makeSiluStep(
    const Node& sigmoid, const Kernel& sigmoidKernel, const Node& mul, const Kernel& mulKernel);

} // namespace onnxscope
