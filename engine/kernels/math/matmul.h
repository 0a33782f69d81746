// SPDX-License-Identifier: MIT
#pragma once

// The MatMul kernel's entry point for plan-time fusion (engine/exec/fusion.cpp).

#include "engine/kernels/kernel.h"

#include <memory>

namespace onnxscope {

/// A MatMul whose B is the transpose of a known float matrix `weights` [N, K] (a Transpose node that exporters write
/// for tied embeddings and linear layers): Y [..., N] = A [..., K] x weights^T, reading the weights in place instead
/// of transposing them on every run. Reads input 0 (A) only; errors name the MatMul node.
std::unique_ptr<Kernel> makeMatMulTransposedB(const KernelInit& init, Tensor weights);

} // namespace onnxscope
