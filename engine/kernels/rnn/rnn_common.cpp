// SPDX-License-Identifier: MIT
#include "engine/kernels/rnn/rnn_common.h"

#include "engine/core/half.h"
#include "engine/kernels/common/element_copy.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace onnxscope::rnn {

namespace {

struct ActivationInfo {
    Activation::Kind kind;
    int params; // how many of alpha, beta it consumes
    float alpha, beta; // defaults
};

const std::map<std::string, ActivationInfo>& activationTable()
{
    using K = Activation::Kind;
    static const std::map<std::string, ActivationInfo> table {
        { "sigmoid", { K::Sigmoid, 0, 0, 0 } },
        { "tanh", { K::Tanh, 0, 0, 0 } },
        { "relu", { K::Relu, 0, 0, 0 } },
        { "affine", { K::Affine, 2, 1.0f, 0.0f } },
        { "leakyrelu", { K::LeakyRelu, 1, 0.01f, 0 } },
        { "thresholdedrelu", { K::ThresholdedRelu, 1, 1.0f, 0 } },
        { "scaledtanh", { K::ScaledTanh, 2, 1.0f, 1.0f } },
        { "hardsigmoid", { K::HardSigmoid, 2, 0.2f, 0.5f } },
        { "elu", { K::Elu, 1, 1.0f, 0 } },
        { "softsign", { K::Softsign, 0, 0, 0 } },
        { "softplus", { K::Softplus, 0, 0, 0 } },
    };
    return table;
}

} // namespace

Attributes::Attributes(const KernelInit& init, const std::vector<std::string>& defaults)
{
    const auto& a = init.attributes();
    hiddenSize = a.requireInt("hidden_size");
    if (hiddenSize <= 0)
        throw a.error("hidden_size", "must be positive, got " + std::to_string(hiddenSize));
    std::string direction = a.getString("direction", "forward");
    if (direction == "bidirectional")
        numDirections = 2;
    else if (direction == "reverse")
        reverse = true;
    else if (direction != "forward")
        throw a.error("direction", "must be forward, reverse or bidirectional, got \"" + direction + "\"");
    clip = a.getFloat("clip", 0.0f);
    if (a.has("clip") && clip <= 0)
        throw a.error("clip", "must be positive");
    layout = a.getInt("layout", 0);
    if (layout != 0 && layout != 1)
        throw a.error("layout", "must be 0 or 1");
    auto names = a.getStrings("activations");
    if (names.empty())
        for (int d = 0; d < numDirections; ++d)
            names.insert(names.end(), defaults.begin(), defaults.end());
    if (names.size() != defaults.size() * static_cast<size_t>(numDirections))
        throw a.error("activations",
            "expected " + std::to_string(defaults.size() * numDirections) + " names, got "
                + std::to_string(names.size()));
    auto alphas = a.getFloats("activation_alpha");
    auto betas = a.getFloats("activation_beta");
    size_t ai = 0, bi = 0;
    for (const auto& raw : names) {
        std::string name = raw;
        std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
        auto it = activationTable().find(name);
        if (it == activationTable().end())
            throw a.error("activations", "unknown activation \"" + raw + "\"");
        Activation act { it->second.kind, it->second.alpha, it->second.beta };
        if (it->second.params >= 1 && ai < alphas.size())
            act.alpha = alphas[ai++];
        if (it->second.params >= 2 && bi < betas.size())
            act.beta = betas[bi++];
        activations.push_back(act);
    }
}

Tensor timeMajor(const Tensor& t, int64_t layout)
{
    if (layout == 0 || t.rank() != 3)
        return t;
    // [a, b, c] -> [b, a, c]
    const int64_t a = t.dim(0), b = t.dim(1), c = t.dim(2);
    Tensor out(t.dtype(), { b, a, c });
    dispatchByElementSize(t.dtype(), [&]<class W>() {
        const W* src = elementsOf<W>(t);
        W* dst = mutableElementsOf<W>(out);
        for (int64_t i = 0; i < a; ++i)
            for (int64_t j = 0; j < b; ++j)
                std::copy_n(src + (i * b + j) * c, c, dst + (j * a + i) * c);
    });
    return out;
}

Dims checkInputs(KernelContext& ctx, const Attributes& a, int64_t gates, bool hasCellState)
{
    const Tensor& x = ctx.input(0);
    if (x.rank() != 3)
        throw ctx.error("X must have rank 3, got " + x.typeString());
    Dims d;
    d.seq = a.layout ? x.dim(1) : x.dim(0);
    d.batch = a.layout ? x.dim(0) : x.dim(1);
    d.input = x.dim(2);
    d.hidden = a.hiddenSize;
    auto expect = [&](size_t index, const Shape& shape, const char* name) {
        if (!ctx.hasInput(index))
            return;
        const Tensor& t = ctx.input(index);
        if (t.shape() != shape)
            throw ctx.error(std::string(name) + " must have shape " + shapeToString(shape) + ", got " + t.typeString());
        if (t.dtype() != x.dtype() && index != 4)
            throw ctx.error(std::string(name) + " must have X's element type, got " + t.typeString());
    };
    const int64_t nd = a.numDirections;
    if (!ctx.hasInput(1) || !ctx.hasInput(2))
        throw ctx.error("inputs W and R are required");
    expect(1, { nd, gates * d.hidden, d.input }, "W");
    expect(2, { nd, gates * d.hidden, d.hidden }, "R");
    expect(3, { nd, 2 * gates * d.hidden }, "B");
    expect(4, { d.batch }, "sequence_lens");
    Shape state = a.layout ? Shape { d.batch, nd, d.hidden } : Shape { nd, d.batch, d.hidden };
    expect(5, state, "initial_h");
    if (hasCellState) {
        expect(6, state, "initial_c");
        expect(7, { nd, 3 * d.hidden }, "P");
    }
    return d;
}

std::vector<int64_t> sequenceLengths(KernelContext& ctx, const Dims& d)
{
    std::vector<int64_t> lens(static_cast<size_t>(d.batch), d.seq);
    if (!ctx.hasInput(4))
        return lens;
    const Tensor& t = ctx.input(4);
    for (int64_t b = 0; b < d.batch; ++b) {
        int64_t l = static_cast<int64_t>(t.toDouble(b));
        if (l < 0 || l > d.seq)
            throw ctx.error("sequence_lens[" + std::to_string(b) + "] = " + std::to_string(l) + " is outside [0, "
                + std::to_string(d.seq) + "]");
        lens[static_cast<size_t>(b)] = l;
    }
    return lens;
}

void setOutput(KernelContext& ctx, size_t index, Tensor t, int64_t layout, bool isY)
{
    if (!ctx.hasOutput(index))
        return;
    if (layout == 0) {
        ctx.setOutput(index, Value(std::move(t)));
        return;
    }
    if (!isY) {
        ctx.setOutput(index, Value(timeMajor(t, 1))); // [dirs, batch, h] -> [batch, dirs, h]
        return;
    }
    // Y: [seq, dirs, batch, h] -> [batch, seq, dirs, h]
    const int64_t s = t.dim(0), n = t.dim(1), b = t.dim(2), h = t.dim(3);
    Tensor out(t.dtype(), { b, s, n, h });
    dispatchByElementSize(t.dtype(), [&]<class W>() {
        const W* src = elementsOf<W>(t);
        W* dst = mutableElementsOf<W>(out);
        for (int64_t i = 0; i < s; ++i)
            for (int64_t j = 0; j < n; ++j)
                for (int64_t k = 0; k < b; ++k)
                    std::copy_n(src + ((i * n + j) * b + k) * h, h, dst + ((k * s + i) * n + j) * h);
    });
    ctx.setOutput(index, Value(std::move(out)));
}

Tensor toComputeType(const Tensor& t, DataType compute)
{
    if (!t.defined() || t.dtype() == compute || t.dtype() != DataType::Float16)
        return t;
    Tensor out(DataType::Float, t.shape());
    auto src = t.data<Float16>();
    auto dst = out.data<float>();
    for (size_t i = 0; i < src.size(); ++i)
        dst[i] = static_cast<float>(src[i]);
    return out;
}

Tensor fromComputeType(const Tensor& t, DataType original)
{
    if (original != DataType::Float16 || !t.defined())
        return t;
    Tensor out(DataType::Float16, t.shape());
    auto src = t.data<float>();
    auto dst = out.data<Float16>();
    for (size_t i = 0; i < src.size(); ++i)
        dst[i] = Float16(src[i]);
    return out;
}

} // namespace onnxscope::rnn
