// SPDX-License-Identifier: MIT
#pragma once

// The Conv kernel's entry point for plan-time fusion (engine/exec/fusion.cpp).

#include "engine/kernels/kernel.h"
#include "engine/kernels/simd/simd.h"

#include <memory>
#include <optional>

namespace onnxscope {

/// What a plain-run fusion folds into a Conv node. When `weights` is set, it and `bias` (absent: no bias) replace the
/// node's inputs W and B, which are then not read. `activation` is applied to the float output after the bias.
struct ConvFolding {
    std::optional<Tensor> weights;
    std::optional<Tensor> bias;
    simd::ActivationParams activation;
};

/// The Conv kernel for `init.node` with `folding` applied: the same attribute parsing, checks and errors (naming the
/// Conv node) as the node's own kernel. The activation needs float data; other types fail with an error.
std::unique_ptr<Kernel> makeFoldedConv(const KernelInit& init, ConvFolding folding);

} // namespace onnxscope
