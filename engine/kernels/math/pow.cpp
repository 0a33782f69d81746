// SPDX-License-Identifier: MIT
#include "engine/kernels/common/broadcast.h"
#include "engine/kernels/common/dispatch.h"
#include "engine/kernels/common/elementwise.h"
#include "engine/kernels/kernel_registry.h"
#include "engine/kernels/simd/simd.h"

#include "engine/core/thread_pool.h"

#include <cmath>
#include <type_traits>

namespace onnxscope {

namespace {

/// Pow 1, 7, 12, 13, 15: X ^ Y element-wise, output of X's type. X: every numeric type; Y: every numeric type, in
/// every version (opsets before 12 require both to be the same floating type, a subset of this). Opset 1 has the
/// legacy `broadcast`/`axis` attributes; 7+ broadcast as numpy. Floating bases are computed in double. An integer
/// base with an integer exponent is computed exactly (overflow wraps); a negative exponent gives the truncated
/// quotient 1 / X^-Y (0 unless |X| = 1) and zero to a negative power is an error. An integer base with a floating
/// exponent is computed in double and converted back saturating (NaN becomes 0). A float base squared by a one-element
/// exponent of 2 (a spectrogram's power) is x * x on the SIMD loop: the same float, as the double square is exact;
/// cubed, it is x * x * x in double.
class Pow final : public Kernel {
public:
    explicit Pow(const KernelInit& init)
        : m_legacy(LegacyBroadcast::parse(init))
    {
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        Tensor y = ctx.input(1);
        const Shape outShape = m_legacy.apply(ctx, x, y);
        const bool intExponent = isInteger(y.dtype()) || y.dtype() == DataType::Bool;
        if (x.dtype() == DataType::Float && y.size() == 1
            && (intExponent || y.dtype() == DataType::Float || y.dtype() == DataType::Double) && y.toDouble(0) == 2.0) {
            Tensor& out = ctx.allocateOutputUninitialized(0, x.dtype(), outShape);
            const float* in = x.data<float>().data();
            simd::parallelBinary(
                ctx.threadPool(), simd::BinaryOp::Mul, in, 1, in, 1, out.data<float>().data(), x.size());
            return;
        }
        if (x.dtype() == DataType::Float && y.size() == 1
            && (intExponent || y.dtype() == DataType::Float || y.dtype() == DataType::Double) && y.toDouble(0) == 3.0) {
            // Cubed (GPT-2's tanh GELU): x * x exactly in double, times x rounded once to double, as pow in double
            // gives it, then to float; a loop the compiler vectorizes instead of a call per element.
            Tensor& out = ctx.allocateOutputUninitialized(0, x.dtype(), outShape);
            const float* in = x.data<float>().data();
            float* o = out.data<float>().data();
            parallelFor(ctx.threadPool(), x.size(), simd::kGrainElements, [&](int64_t b, int64_t e) {
                for (int64_t i = b; i < e; ++i) {
                    const double v = in[i];
                    o[i] = static_cast<float>(v * v * v);
                }
            });
            return;
        }
        // The exponent is widened once to int64 or double so the loop is instantiated per base type only.
        Tensor e(intExponent ? DataType::Int64 : DataType::Double, y.shape());
        dispatch<NumericTypes>(y.dtype(), ctx.node(), ", exponent", [&]<class E>() {
            auto in = y.data<E>();
            if (intExponent) {
                auto out = e.data<int64_t>();
                for (size_t i = 0; i < in.size(); ++i)
                    out[i] = static_cast<int64_t>(in[i]); // uint64 above 2^63 wraps; only its parity matters
            } else {
                auto out = e.data<double>();
                for (size_t i = 0; i < in.size(); ++i)
                    out[i] = static_cast<double>(in[i]);
            }
        });
        Tensor& out = ctx.allocateOutput(0, x.dtype(), outShape);
        dispatch<NumericTypes>(x.dtype(), ctx.node(), [&]<class T>() {
            if (intExponent)
                run<T, int64_t>(ctx, x, e, out);
            else
                run<T, double>(ctx, x, e, out);
        });
    }

private:
    template <class T, class E> static void run(const KernelContext& ctx, const Tensor& x, const Tensor& e, Tensor& out)
    {
        if constexpr (std::is_integral_v<T> && std::is_integral_v<E>) {
            bool zeroToNegative = false;
            broadcastBinary<T, E, T>(x, e, out, [&](T b, E p) { return intPow(b, p, zeroToNegative); });
            if (zeroToNegative)
                throw ctx.error("integer zero raised to a negative power");
        } else if constexpr (std::is_integral_v<T>) {
            broadcastBinary<T, E, T>(
                x, e, out, [](T b, E p) { return convertFromFloat<T>(std::pow(static_cast<double>(b), p)); });
        } else {
            broadcastBinary<T, E, T>(x, e, out,
                [](T b, E p) { return static_cast<T>(std::pow(static_cast<double>(b), static_cast<double>(p))); });
        }
    }

    template <class T> static T intPow(T base, int64_t p, bool& zeroToNegative)
    {
        if (p < 0) {
            if (base == 0)
                zeroToNegative = true;
            if (base == 1)
                return 1;
            if constexpr (std::is_signed_v<T>)
                if (base == -1)
                    return (p & 1) ? T(-1) : T(1);
            return 0;
        }
        using U = std::make_unsigned_t<T>;
        U result = 1, b = static_cast<U>(base);
        auto n = static_cast<uint64_t>(p);
        while (n) {
            if (n & 1)
                result = static_cast<U>(result * b);
            b = static_cast<U>(b * b);
            n >>= 1;
        }
        return static_cast<T>(result);
    }

    LegacyBroadcast m_legacy;
};

} // namespace

void registerPow(KernelRegistry& r)
{
    r.add("", "Pow", 1, 15, makeFactory<Pow>());
}

} // namespace onnxscope
