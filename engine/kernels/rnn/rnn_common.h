// SPDX-License-Identifier: MIT
#pragma once

// Shared parts of RNN, GRU and LSTM: attributes, activation functions, layouts and the per-direction loop.
// Include only from kernel .cpp files in this folder.

#include "engine/kernels/kernel.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

namespace onnxscope::rnn {

/// An activation function of a recurrent cell (Sigmoid, Tanh, Relu, Affine, LeakyRelu, ThresholdedRelu,
/// ScaledTanh, HardSigmoid, Elu, Softsign, Softplus) with its alpha/beta.
struct Activation {
    enum class Kind {
        Sigmoid,
        Tanh,
        Relu,
        Affine,
        LeakyRelu,
        ThresholdedRelu,
        ScaledTanh,
        HardSigmoid,
        Elu,
        Softsign,
        Softplus
    };
    Kind kind = Kind::Sigmoid;
    float alpha = 0, beta = 0;
    template <class T> T operator()(T x) const
    {
        switch (kind) {
        case Kind::Sigmoid:
            return T(1) / (T(1) + std::exp(-x));
        case Kind::Tanh:
            return std::tanh(x);
        case Kind::Relu:
            return std::max(x, T(0));
        case Kind::Affine:
            return T(alpha) * x + T(beta);
        case Kind::LeakyRelu:
            return x >= 0 ? x : T(alpha) * x;
        case Kind::ThresholdedRelu:
            return x > T(alpha) ? x : T(0);
        case Kind::ScaledTanh:
            return T(alpha) * std::tanh(T(beta) * x);
        case Kind::HardSigmoid:
            return std::clamp(T(alpha) * x + T(beta), T(0), T(1));
        case Kind::Elu:
            return x >= 0 ? x : T(alpha) * (std::exp(x) - T(1));
        case Kind::Softsign:
            return x / (T(1) + std::abs(x));
        case Kind::Softplus:
            return std::log1p(std::exp(x));
        }
        return x;
    }
};

/// Attributes common to RNN, GRU and LSTM, read and checked once.
struct Attributes {
    int64_t hiddenSize = 0;
    int numDirections = 1;
    bool reverse = false; // direction == "reverse" (only with one direction)
    float clip = 0; // 0: no clipping
    int64_t layout = 0; // 1: batch-major X, Y, states (opset 14)
    /// gatesPerDirection activations for each direction.
    std::vector<Activation> activations;

    /// `defaults` are the default activation names of one direction, e.g. {"Sigmoid", "Tanh", "Tanh"}.
    Attributes(const KernelInit& init, const std::vector<std::string>& defaults);
};

/// Shapes after layout normalisation: X as [seq, batch, input].
struct Dims {
    int64_t seq = 0, batch = 0, input = 0, hidden = 0;
};

/// Reads X (honouring layout) and checks W/R/B/initial state shapes; `gates` is 1 (RNN), 3 (GRU) or 4 (LSTM).
Dims checkInputs(KernelContext& ctx, const Attributes& a, int64_t gates, bool hasCellState);

/// Per-batch valid length from sequence_lens (input 4), or seq for all.
std::vector<int64_t> sequenceLengths(KernelContext& ctx, const Dims& d);

/// Copies a tensor in layout 0 ([seq, dirs, batch, hidden] or [dirs, batch, hidden]) to the requested layout
/// (batch-major when layout = 1) and sets it as output `index`.
void setOutput(KernelContext& ctx, size_t index, Tensor t, int64_t layout, bool isY);

/// Calls `fn.template operator()<T>()` with the type the cell computes in: double for double X, float for float and
/// float16 X; any other element type is an Error naming the node.
template <class Fn> void dispatchComputeType(KernelContext& ctx, Fn&& fn)
{
    switch (ctx.input(0).dtype()) {
    case DataType::Double:
        return fn.template operator()<double>();
    case DataType::Float:
    case DataType::Float16:
        return fn.template operator()<float>();
    default:
        throw ctx.error("X must be float, double or float16, got " + ctx.input(0).typeString());
    }
}

/// Converts X, W, R, B... to float for float16 inputs; float and double pass through.
Tensor toComputeType(const Tensor& t, DataType compute);
/// Converts a computed float tensor back to float16 when the inputs were float16.
Tensor fromComputeType(const Tensor& t, DataType original);

/// Swaps the first two axes of a rank-3 tensor when layout = 1: batch-major X [batch, seq, input] becomes
/// [seq, batch, input] and states [batch, dirs, hidden] become [dirs, batch, hidden] (and back).
Tensor timeMajor(const Tensor& t, int64_t layout);

} // namespace onnxscope::rnn
