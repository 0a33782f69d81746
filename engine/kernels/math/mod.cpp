// SPDX-License-Identifier: MIT
#include "engine/kernels/common/broadcast.h"
#include "engine/kernels/common/dispatch.h"
#include "engine/kernels/common/elementwise.h"
#include "engine/kernels/kernel_registry.h"

#include <cmath>
#include <limits>
#include <type_traits>

namespace onnxscope {

namespace {

/// Mod 10, 13: element-wise remainder with numpy broadcasting, every numeric type. fmod=1: the sign of the dividend
/// (C fmod / truncated division); fmod=0: the sign of the divisor, as Python's % and numpy.mod (for floats: a zero
/// result takes the divisor's sign, x % inf of the other sign is inf, x % 0 and inf % y are NaN; the spec asks for
/// fmod=1 on floats, onnx's own cases run fmod=0 with numpy.mod's meaning). Half types are computed in float. An
/// integer zero divisor is an error, not a crash; MIN % -1 is 0.
class Mod final : public Kernel {
public:
    explicit Mod(const KernelInit& init)
    {
        const int64_t fmod = init.attributes().getInt("fmod", 0);
        if (fmod != 0 && fmod != 1)
            throw init.attributes().error("fmod", "expected 0 or 1, got " + std::to_string(fmod));
        m_fmod = fmod == 1;
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& a = ctx.input(0);
        const Tensor& b = ctx.input(1);
        Tensor& out = allocateBinaryOutput(ctx, a, b);
        dispatch<NumericTypes>(a.dtype(), ctx.node(), [&]<class T>() { run<T>(ctx, a, b, out); });
    }

private:
    template <class T> void run(const KernelContext& ctx, const Tensor& a, const Tensor& b, Tensor& out) const
    {
        if constexpr (std::is_integral_v<T>) {
            for (T d : b.data<T>())
                if (d == 0)
                    throw ctx.error("integer modulo by zero");
            if constexpr (std::is_signed_v<T>) {
                const bool pythonSign = !m_fmod;
                broadcastBinary<T, T, T>(a, b, out, [pythonSign](T x, T y) {
                    if (y == T(-1)) // the lowest value % -1 overflows
                        return T(0);
                    T r = static_cast<T>(x % y);
                    if (pythonSign && r != 0 && ((r < 0) != (y < 0)))
                        r = static_cast<T>(r + y);
                    return r;
                });
            } else {
                broadcastBinary<T, T, T>(a, b, out, [](T x, T y) { return static_cast<T>(x % y); });
            }
        } else {
            using F = MathType<T>;
            if (m_fmod) {
                broadcastBinary<T, T, T>(a, b, out,
                    [](T x, T y) { return static_cast<T>(std::fmod(static_cast<F>(x), static_cast<F>(y))); });
                return;
            }
            broadcastBinary<T, T, T>(a, b, out, [](T x, T y) {
                const F fy = static_cast<F>(y);
                F r = std::fmod(static_cast<F>(x), fy);
                if (r == F(0))
                    r = std::copysign(F(0), fy);
                else if ((r < F(0)) != (fy < F(0)))
                    r += fy;
                return static_cast<T>(r);
            });
        }
    }

    bool m_fmod = false;
};

} // namespace

void registerMod(KernelRegistry& r)
{
    r.add("", "Mod", 10, 28, makeFactory<Mod>());
}

} // namespace onnxscope
