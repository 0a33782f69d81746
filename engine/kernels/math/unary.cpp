// SPDX-License-Identifier: MIT
#include "engine/core/narrow_types.h"
#include "engine/kernels/common/dispatch.h"
#include "engine/kernels/common/elementwise.h"
#include "engine/kernels/kernel_registry.h"
#include "engine/kernels/simd/simd.h"

#include <cmath>
#include <type_traits>

namespace onnxscope {

namespace {

enum class UnaryOp {
    Abs,
    Neg,
    Sign,
    Erf, // numeric
    Reciprocal,
    Floor,
    Ceil,
    Round,
    Sqrt,
    Exp,
    Log, // floating point
    Sin,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,
    Sinh,
    Cosh,
    Asinh,
    Acosh,
    Atanh,
    IsNaN,
    IsInf, // floating point to bool
};

using SignedNumericTypes = TypeList<float, double, Float16, BFloat16, int8_t, int16_t, int32_t, int64_t>;

/// Element-wise unary maths, every version (Abs/Neg/Reciprocal/Floor/Ceil/Sqrt/Exp/Log 1, 6, 13; Sign/Erf 9, 13;
/// Round 11; trigonometric and hyperbolic 7/9; IsNaN 9, 13; IsInf 10). Abs, Sign and Erf take every numeric type,
/// Neg every signed one, the rest float, double, float16 and bfloat16 (a superset of the older constraints).
/// Half types are computed in float. Round rounds half to even. Integer Abs/Neg of the minimum value wrap, as two's
/// complement does. IsInf honours detect_negative/detect_positive; IsNaN and IsInf 20 also take the float8 types. The
/// legacy `consumed_inputs` is ignored.
class Unary final : public Kernel {
public:
    Unary(const KernelInit& init, UnaryOp op)
        : m_op(op)
    {
        if (op == UnaryOp::IsInf) {
            m_detectNegative = init.attributes().getInt("detect_negative", 1) != 0;
            m_detectPositive = init.attributes().getInt("detect_positive", 1) != 0;
        }
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        const Node& what = ctx.node();
        switch (m_op) {
        case UnaryOp::Abs:
        case UnaryOp::Sign:
        case UnaryOp::Erf: {
            if (m_op == UnaryOp::Erf && x.dtype() == DataType::Float) {
                // The SIMD level's Eigen erf (+-1 beyond [-4, 4]; at most 7 ulp, 4.2e-7 relative, measured over
                // [-6, 6]): libm's erff one element at a time took 11 % of a BERT encoder's run. NaN stays NaN.
                Tensor& y = ctx.reuseInputOrAllocate(0, 0, x.dtype(), x.shape());
                simd::parallelActivation(ctx.threadPool(), x.data<float>().data(), y.data<float>().data(), x.size(),
                    { simd::Activation::Erf });
                break;
            }
            Tensor& y = ctx.allocateOutput(0, x.dtype(), x.shape());
            dispatch<NumericTypes>(x.dtype(), what, [&]<class T>() { numeric<T>(x, y); });
            break;
        }
        case UnaryOp::Neg: {
            Tensor& y = ctx.allocateOutput(0, x.dtype(), x.shape());
            dispatch<SignedNumericTypes>(x.dtype(), what, [&]<class T>() { numeric<T>(x, y); });
            break;
        }
        case UnaryOp::IsNaN:
        case UnaryOp::IsInf: {
            Tensor& y = ctx.allocateOutput(0, DataType::Bool, x.shape());
            if (isNarrowFloat(x.dtype()) && x.dtype() != DataType::Float4E2M1)
                classifyNarrow(x, y);
            else
                dispatch<FloatTypes>(x.dtype(), what, [&]<class T>() { classify<T>(x, y); });
            break;
        }
        default: {
            if (m_op == UnaryOp::Exp && x.dtype() == DataType::Float) {
                // The SIMD level's exp (Eigen's in AVX2 and AVX-512 vectors, within 2e-6 relative of exp in double;
                // libm's expf at the baseline), split over the pool: 0.5-0.7 ns an element at AVX-512 on the Xeon of
                // issue 42 against libm's 1.7. inf past the float range, 0 below it, NaN stays NaN.
                Tensor& y = ctx.reuseInputOrAllocate(0, 0, x.dtype(), x.shape());
                simd::parallelActivation(ctx.threadPool(), x.data<float>().data(), y.data<float>().data(), x.size(),
                    { simd::Activation::Exp });
                break;
            }
            Tensor& y = ctx.allocateOutput(0, x.dtype(), x.shape());
            dispatch<FloatTypes>(x.dtype(), what, [&]<class T>() { floating<T>(x, y); });
            break;
        }
        }
    }

private:
    template <class T, class O, class Fn> static void map(const Tensor& x, Tensor& y, Fn fn)
    {
        auto in = x.data<T>();
        auto out = y.data<O>();
        for (size_t i = 0; i < in.size(); ++i)
            out[i] = fn(in[i]);
    }

    template <class T> void numeric(const Tensor& x, Tensor& y) const
    {
        if constexpr (std::is_integral_v<T>) {
            using U = std::make_unsigned_t<T>;
            switch (m_op) {
            case UnaryOp::Abs:
                if constexpr (std::is_signed_v<T>)
                    map<T, T>(x, y, [](T v) { return v < 0 ? static_cast<T>(U(0) - static_cast<U>(v)) : v; });
                else
                    map<T, T>(x, y, [](T v) { return v; });
                break;
            case UnaryOp::Neg:
                map<T, T>(x, y, [](T v) { return static_cast<T>(U(0) - static_cast<U>(v)); });
                break;
            case UnaryOp::Sign:
                map<T, T>(x, y, [](T v) { return static_cast<T>((v > 0) - (v < 0)); });
                break;
            default: // Erf
                map<T, T>(x, y, [](T v) { return convertFromFloat<T>(std::erf(static_cast<double>(v))); });
                break;
            }
        } else {
            using F = MathType<T>;
            switch (m_op) {
            case UnaryOp::Abs:
                map<T, T>(x, y, [](T v) { return static_cast<T>(std::abs(static_cast<F>(v))); });
                break;
            case UnaryOp::Neg:
                map<T, T>(x, y, [](T v) { return static_cast<T>(-static_cast<F>(v)); });
                break;
            case UnaryOp::Sign:
                map<T, T>(x, y, [](T v) {
                    const F f = static_cast<F>(v);
                    return static_cast<T>(f > 0 ? F(1) : f < 0 ? F(-1) : f); // keeps NaN and zero
                });
                break;
            default: // Erf
                map<T, T>(x, y, [](T v) { return static_cast<T>(std::erf(static_cast<F>(v))); });
                break;
            }
        }
    }

    template <class T> void floating(const Tensor& x, Tensor& y) const
    {
        using F = MathType<T>;
        const auto run = [&](auto fn) { map<T, T>(x, y, [&](T v) { return static_cast<T>(fn(static_cast<F>(v))); }); };
        switch (m_op) {
        case UnaryOp::Reciprocal:
            return run([](F v) { return F(1) / v; });
        case UnaryOp::Floor:
            return run([](F v) { return std::floor(v); });
        case UnaryOp::Ceil:
            return run([](F v) { return std::ceil(v); });
        case UnaryOp::Round:
            return run([](F v) { return std::nearbyint(v); }); // default mode: half to even
        case UnaryOp::Sqrt:
            return run([](F v) { return std::sqrt(v); });
        case UnaryOp::Exp:
            return run([](F v) { return std::exp(v); });
        case UnaryOp::Log:
            return run([](F v) { return std::log(v); });
        case UnaryOp::Sin:
            return run([](F v) { return std::sin(v); });
        case UnaryOp::Cos:
            return run([](F v) { return std::cos(v); });
        case UnaryOp::Tan:
            return run([](F v) { return std::tan(v); });
        case UnaryOp::Asin:
            return run([](F v) { return std::asin(v); });
        case UnaryOp::Acos:
            return run([](F v) { return std::acos(v); });
        case UnaryOp::Atan:
            return run([](F v) { return std::atan(v); });
        case UnaryOp::Sinh:
            return run([](F v) { return std::sinh(v); });
        case UnaryOp::Cosh:
            return run([](F v) { return std::cosh(v); });
        case UnaryOp::Asinh:
            return run([](F v) { return std::asinh(v); });
        case UnaryOp::Acosh:
            return run([](F v) { return std::acosh(v); });
        case UnaryOp::Atanh:
            return run([](F v) { return std::atanh(v); });
        default:
            return;
        }
    }

    template <class T> void classify(const Tensor& x, Tensor& y) const
    {
        using F = MathType<T>;
        if (m_op == UnaryOp::IsNaN) {
            map<T, bool>(x, y, [](T v) { return std::isnan(static_cast<F>(v)); });
            return;
        }
        const bool neg = m_detectNegative, pos = m_detectPositive;
        map<T, bool>(x, y, [neg, pos](T v) {
            const F f = static_cast<F>(v);
            return std::isinf(f) && (f > 0 ? pos : neg);
        });
    }

    /// IsNaN/IsInf 20 of the float8 types, from their exact values.
    void classifyNarrow(const Tensor& x, Tensor& y) const
    {
        const auto* in = static_cast<const uint8_t*>(x.raw());
        auto out = y.data<bool>();
        for (size_t i = 0; i < out.size(); ++i) {
            const double v = narrowToDouble(x.dtype(), in[i]);
            out[i] = m_op == UnaryOp::IsNaN ? std::isnan(v)
                                            : std::isinf(v) && (v > 0 ? m_detectPositive : m_detectNegative);
        }
    }

    UnaryOp m_op;
    bool m_detectNegative = true;
    bool m_detectPositive = true;
};

/// Not 1: logical negation of a bool tensor.
class Not final : public Kernel {
public:
    explicit Not(const KernelInit&) { }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        if (x.dtype() != DataType::Bool)
            throw ctx.error("input must be bool, got " + x.typeString());
        Tensor& y = ctx.allocateOutput(0, DataType::Bool, x.shape());
        auto in = x.data<bool>();
        auto out = y.data<bool>();
        for (size_t i = 0; i < in.size(); ++i)
            out[i] = !in[i];
    }
};

template <UnaryOp Op> KernelFactory unaryFactory()
{
    return [](const KernelInit& init) -> std::unique_ptr<Kernel> { return std::make_unique<Unary>(init, Op); };
}

} // namespace

void registerUnary(KernelRegistry& r)
{
    r.add("", "Abs", 1, 13, unaryFactory<UnaryOp::Abs>());
    r.add("", "Neg", 1, 13, unaryFactory<UnaryOp::Neg>());
    r.add("", "Sign", 9, 13, unaryFactory<UnaryOp::Sign>());
    r.add("", "Erf", 9, 13, unaryFactory<UnaryOp::Erf>());
    r.add("", "Reciprocal", 1, 13, unaryFactory<UnaryOp::Reciprocal>());
    r.add("", "Floor", 1, 13, unaryFactory<UnaryOp::Floor>());
    r.add("", "Ceil", 1, 13, unaryFactory<UnaryOp::Ceil>());
    r.add("", "Round", 11, 22, unaryFactory<UnaryOp::Round>());
    r.add("", "Sqrt", 1, 13, unaryFactory<UnaryOp::Sqrt>());
    r.add("", "Exp", 1, 13, unaryFactory<UnaryOp::Exp>());
    r.add("", "Log", 1, 13, unaryFactory<UnaryOp::Log>());
    r.add("", "Sin", 7, 22, unaryFactory<UnaryOp::Sin>());
    r.add("", "Cos", 7, 22, unaryFactory<UnaryOp::Cos>());
    r.add("", "Tan", 7, 22, unaryFactory<UnaryOp::Tan>());
    r.add("", "Asin", 7, 22, unaryFactory<UnaryOp::Asin>());
    r.add("", "Acos", 7, 22, unaryFactory<UnaryOp::Acos>());
    r.add("", "Atan", 7, 22, unaryFactory<UnaryOp::Atan>());
    r.add("", "Sinh", 9, 22, unaryFactory<UnaryOp::Sinh>());
    r.add("", "Cosh", 9, 22, unaryFactory<UnaryOp::Cosh>());
    r.add("", "Asinh", 9, 22, unaryFactory<UnaryOp::Asinh>());
    r.add("", "Acosh", 9, 22, unaryFactory<UnaryOp::Acosh>());
    r.add("", "Atanh", 9, 22, unaryFactory<UnaryOp::Atanh>());
    r.add("", "IsNaN", 9, 20, unaryFactory<UnaryOp::IsNaN>());
    r.add("", "IsInf", 10, 20, unaryFactory<UnaryOp::IsInf>());
    r.add("", "Not", 1, 1, makeFactory<Not>());
}

} // namespace onnxscope
