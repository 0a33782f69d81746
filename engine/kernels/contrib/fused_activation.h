// SPDX-License-Identifier: MIT
#pragma once

// The activation that onnxruntime's graph optimizer folds into FusedConv, FusedGemm and com.microsoft.nchwc Conv,
// read from the node's attributes once and applied in place to a floating-point tensor. Include only from kernel .cpp
// files.

#include "engine/kernels/kernel.h"
#include "engine/kernels/simd/simd.h"

#include <optional>
#include <string>

namespace onnxscope::contrib {

/// One activation with its parameters (alpha, beta, gamma as the op of that name takes them).
struct FusedActivation {
    enum class Kind {
        None,
        Relu,
        LeakyRelu, // alpha
        Clip, // alpha = min, beta = max
        Sigmoid,
        Tanh,
        HardSigmoid, // alpha, beta
        Elu, // alpha
        Celu, // alpha
        Selu, // alpha, gamma
        Softplus,
        Softsign,
        ThresholdedRelu, // alpha
        ParametricSoftplus, // alpha * softplus(beta * x)
        ScaledTanh, // alpha * tanh(beta * x)
    };
    Kind kind = Kind::None;
    float alpha = 0.0f, beta = 0.0f, gamma = 0.0f;
    std::string name; // the attribute's value, for messages

    /// FusedConv and nchwc Conv: `activation` (Relu, Tanh, Sigmoid, LeakyRelu, Clip or HardSigmoid, as onnxruntime's
    /// CPU kernels take) and `activation_params` (1 value for LeakyRelu, 2 for Clip and HardSigmoid).
    static FusedActivation fromConvAttributes(const KernelInit& init);
    /// FusedGemm: `activation` (any of the kinds above but Clip) and the parameters it needs as `activation_alpha`,
    /// `activation_beta`, `activation_gamma`.
    static FusedActivation fromGemmAttributes(const KernelInit& init);

    /// The same activation as the simd loops take it, when they have it.
    std::optional<simd::ActivationParams> simdParams() const;
    /// y = act(y) in place (float, double, float16, bfloat16; half types computed in float).
    void apply(KernelContext& ctx, Tensor& y) const;
};

} // namespace onnxscope::contrib
