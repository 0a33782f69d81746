// SPDX-License-Identifier: MIT
#include "engine/kernels/contrib/fused_activation.h"

#include "engine/kernels/common/dispatch.h"

#include <cmath>
#include <utility>
#include <vector>

namespace onnxscope::contrib {

namespace {

using Kind = FusedActivation::Kind;

struct KindInfo {
    const char* name;
    Kind kind;
    int params; // how many of alpha, beta, gamma (FusedGemm) or activation_params (FusedConv) it takes
};

constexpr KindInfo kKinds[] = {
    { "Relu", Kind::Relu, 0 },
    { "LeakyRelu", Kind::LeakyRelu, 1 },
    { "Clip", Kind::Clip, 2 },
    { "Sigmoid", Kind::Sigmoid, 0 },
    { "Tanh", Kind::Tanh, 0 },
    { "HardSigmoid", Kind::HardSigmoid, 2 },
    { "Elu", Kind::Elu, 1 },
    { "Celu", Kind::Celu, 1 },
    { "Selu", Kind::Selu, 2 },
    { "Softplus", Kind::Softplus, 0 },
    { "Softsign", Kind::Softsign, 0 },
    { "ThresholdedRelu", Kind::ThresholdedRelu, 1 },
    { "ParametricSoftplus", Kind::ParametricSoftplus, 2 },
    { "ScaledTanh", Kind::ScaledTanh, 2 },
};

const KindInfo* lookup(const std::string& name)
{
    for (const KindInfo& k : kKinds)
        if (name == k.name)
            return &k;
    return nullptr;
}

template <class T> T softplus(T x)
{
    return x > T(0) ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
}

template <class T> T activate(const FusedActivation& a, T x)
{
    const T alpha = static_cast<T>(a.alpha), beta = static_cast<T>(a.beta), gamma = static_cast<T>(a.gamma);
    switch (a.kind) {
    case Kind::None:
        return x;
    case Kind::Relu:
        return x > T(0) ? x : T(0);
    case Kind::LeakyRelu:
        return x >= T(0) ? x : alpha * x;
    case Kind::Clip:
        return std::isnan(x) ? x : std::min(std::max(x, alpha), beta);
    case Kind::Sigmoid:
        return T(1) / (T(1) + std::exp(-x));
    case Kind::Tanh:
        return std::tanh(x);
    case Kind::HardSigmoid:
        return std::max(T(0), std::min(T(1), alpha * x + beta));
    case Kind::Elu:
        return x >= T(0) ? x : alpha * (std::exp(x) - T(1));
    case Kind::Celu:
        return std::max(T(0), x) + std::min(T(0), alpha * (std::exp(x / alpha) - T(1)));
    case Kind::Selu:
        return x > T(0) ? gamma * x : gamma * alpha * (std::exp(x) - T(1));
    case Kind::Softplus:
        return softplus(x);
    case Kind::Softsign:
        return x / (T(1) + std::abs(x));
    case Kind::ThresholdedRelu:
        return x > alpha ? x : T(0);
    case Kind::ParametricSoftplus:
        return alpha * softplus(beta * x);
    case Kind::ScaledTanh:
        return alpha * std::tanh(beta * x);
    }
    return x;
}

} // namespace

FusedActivation FusedActivation::fromConvAttributes(const KernelInit& init)
{
    FusedActivation a;
    const NodeAttributes& attrs = init.attributes();
    if (!attrs.has("activation"))
        return a;
    a.name = attrs.requireString("activation");
    const KindInfo* k = lookup(a.name);
    const bool convKind = k
        && (k->kind == Kind::Relu || k->kind == Kind::Tanh || k->kind == Kind::Sigmoid || k->kind == Kind::LeakyRelu
            || k->kind == Kind::Clip || k->kind == Kind::HardSigmoid);
    if (!convKind)
        throw attrs.error("activation",
            "\"" + a.name + "\" is not supported; expected Relu, Tanh, Sigmoid, LeakyRelu, Clip or HardSigmoid");
    a.kind = k->kind;
    if (k->params == 0)
        return a;
    const std::vector<float> params = attrs.getFloats("activation_params");
    if (static_cast<int>(params.size()) != k->params)
        throw attrs.error("activation_params",
            a.name + " takes " + std::to_string(k->params) + " values, got " + std::to_string(params.size()));
    a.alpha = params[0];
    if (k->params > 1)
        a.beta = params[1];
    return a;
}

FusedActivation FusedActivation::fromGemmAttributes(const KernelInit& init)
{
    FusedActivation a;
    const NodeAttributes& attrs = init.attributes();
    if (!attrs.has("activation"))
        return a;
    a.name = attrs.requireString("activation");
    const KindInfo* k = lookup(a.name);
    if (!k || k->kind == Kind::Clip)
        throw attrs.error("activation",
            "\"" + a.name
                + "\" is not supported; expected one of Relu, LeakyRelu, Sigmoid, Tanh, HardSigmoid, Elu, Celu, Selu, "
                  "Softplus, Softsign, ThresholdedRelu, ParametricSoftplus, ScaledTanh");
    a.kind = k->kind;
    // The parameter names of the activation op, each read from `activation_<name>`.
    std::vector<std::pair<const char*, float*>> params;
    switch (a.kind) {
    case Kind::LeakyRelu:
    case Kind::Elu:
    case Kind::Celu:
    case Kind::ThresholdedRelu:
        params = { { "activation_alpha", &a.alpha } };
        break;
    case Kind::HardSigmoid:
    case Kind::ParametricSoftplus:
    case Kind::ScaledTanh:
        params = { { "activation_alpha", &a.alpha }, { "activation_beta", &a.beta } };
        break;
    case Kind::Selu:
        params = { { "activation_alpha", &a.alpha }, { "activation_gamma", &a.gamma } };
        break;
    default:
        break;
    }
    for (auto& [attr, target] : params) {
        if (!attrs.has(attr))
            throw attrs.error(attr, "required by activation " + a.name);
        *target = attrs.requireFloat(attr);
    }
    return a;
}

std::optional<simd::ActivationParams> FusedActivation::simdParams() const
{
    switch (kind) {
    case Kind::None:
        return simd::ActivationParams {};
    case Kind::Relu:
        return simd::ActivationParams { simd::Activation::Relu };
    case Kind::LeakyRelu:
        return simd::ActivationParams { simd::Activation::LeakyRelu, alpha };
    case Kind::Clip:
        return simd::ActivationParams { simd::Activation::Clip, alpha, beta };
    case Kind::Sigmoid:
        return simd::ActivationParams { simd::Activation::Sigmoid };
    case Kind::Tanh:
        return simd::ActivationParams { simd::Activation::Tanh };
    case Kind::HardSigmoid:
        return simd::ActivationParams { simd::Activation::HardSigmoid, alpha, beta };
    default:
        return std::nullopt;
    }
}

void FusedActivation::apply(KernelContext& ctx, Tensor& y) const
{
    if (kind == Kind::None)
        return;
    if (y.dtype() == DataType::Float) {
        float* p = y.data<float>().data();
        if (auto s = simdParams())
            simd::parallelActivation(ctx.threadPool(), p, p, y.size(), *s);
        else
            for (int64_t i = 0; i < y.size(); ++i)
                p[i] = activate<float>(*this, p[i]);
        return;
    }
    dispatch<FloatTypes>(y.dtype(), ctx.node(), [&]<class T>() {
        for (T& v : y.data<T>()) {
            if constexpr (std::is_same_v<T, double>)
                v = activate<double>(*this, v);
            else
                v = static_cast<T>(activate<float>(*this, static_cast<float>(v)));
        }
    });
}

} // namespace onnxscope::contrib
