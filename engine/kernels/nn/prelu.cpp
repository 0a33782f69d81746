// SPDX-License-Identifier: MIT
#include "engine/kernels/common/broadcast.h"
#include "engine/kernels/common/dispatch.h"
#include "engine/kernels/kernel_registry.h"

#include <type_traits>

namespace onnxscope {

namespace {

/// PRelu 1, 6, 7, 9, 16: y = x < 0 ? slope * x : x, slope broadcast to X (unidirectionally). Before opset 7 a 1-D
/// slope of X's channel count is applied per channel (axis 1), as those versions meant it. float, double, float16,
/// bfloat16, int32, int64, uint32, uint64.
class PRelu final : public Kernel {
public:
    explicit PRelu(const KernelInit& init)
        : m_legacy(init.opset() < 7)
    {
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        Tensor slope = ctx.input(1);
        if (slope.dtype() != x.dtype())
            throw ctx.error("slope " + slope.typeString() + " must have the element type of X " + x.typeString());
        if (m_legacy && slope.rank() == 1 && x.rank() > 2 && slope.dim(0) == x.dim(1) && slope.dim(0) != 1) {
            Shape s(static_cast<size_t>(x.rank() - 1), 1);
            s[0] = slope.dim(0);
            slope = slope.reshaped(s);
        }
        bool ok = slope.rank() <= x.rank();
        for (int64_t i = 0; ok && i < slope.rank(); ++i) {
            const int64_t d = slope.dim(slope.rank() - 1 - i);
            ok = d == 1 || d == x.dim(x.rank() - 1 - i);
        }
        if (!ok)
            throw ctx.error(
                "slope " + shapeToString(slope.shape()) + " does not broadcast to X " + shapeToString(x.shape()));
        Tensor& y = ctx.allocateOutput(0, x.dtype(), x.shape());
        dispatch<TypeList<float, double, Float16, BFloat16, int32_t, int64_t, uint32_t, uint64_t>>(
            x.dtype(), ctx.node(), [&]<class T>() {
                broadcastBinary<T, T, T>(x, slope, y, [](T v, T s) {
                    if constexpr (std::is_signed_v<T> && std::is_integral_v<T>) {
                        using U = std::make_unsigned_t<T>; // products wrap instead of overflowing
                        return v < T(0) ? static_cast<T>(static_cast<U>(s) * static_cast<U>(v)) : v;
                    } else {
                        return v < T(0) ? static_cast<T>(s * v) : v;
                    }
                });
            });
    }

private:
    bool m_legacy;
};

} // namespace

void registerPRelu(KernelRegistry& r)
{
    r.add("", "PRelu", 1, 16, makeFactory<PRelu>());
}

} // namespace onnxscope
