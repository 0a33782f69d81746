// SPDX-License-Identifier: MIT
#pragma once

// Shared by the MoE and QMoE kernels (com.microsoft): their attributes, softmax top-k routing, activations and the
// expert loop on float weights. Include only from kernel .cpp files.

#include "engine/kernels/kernel.h"
#include "engine/model/attributes.h"

#include <cstdint>
#include <functional>
#include <string>

namespace onnxscope::moe {

enum class Activation { Relu, Gelu, Silu, Identity, SwiGlu };

/// The routing and activation attributes MoE and QMoE share, with their refusals: use_sparse_mixer,
/// swiglu_limit_after_activation, relu2/geglu (CUDA only), unknown activation types, k < 1, swiglu_fusion not 0-2.
struct Config {
    int64_t k = 1, fusion = 0;
    bool normalize = false;
    float alpha = 1.0f, beta = 0.0f, limit = 0;
    Activation act = Activation::Relu;

    explicit Config(const NodeAttributes& a);
    bool swiglu() const { return act == Activation::SwiGlu; }
};

/// The float weights of one expert: w1 [fc1Rows, hidden], w2 [hidden, inter], w3 [inter, hidden] (swiglu_fusion 0
/// only, else null); biases [rows] or null.
struct Weights {
    const float *w1 = nullptr, *b1 = nullptr, *w2 = nullptr, *b2 = nullptr, *w3 = nullptr, *b3 = nullptr;
};

/// For each of `tokens` rows of x [tokens, hidden]: softmax of its logits row [E], the k most probable experts
/// (ties: the higher index first), their probabilities (or, with routerWeights [tokens, E], those values at the
/// selected experts) renormalised to sum 1 with cfg.normalize; y[t] += sum of p · (fc2(act(fc1·x + b1)) + b2).
/// expert(e) gives expert e's weights, asked for once per run and only for experts some token selected; they need
/// to stay valid until the next call.
void run(const Config& cfg, int64_t tokens, int64_t hidden, int64_t inter, int64_t experts, const float* x,
    const float* logits, const float* routerWeights, const std::function<Weights(int64_t)>& expert, float* y);

} // namespace onnxscope::moe
