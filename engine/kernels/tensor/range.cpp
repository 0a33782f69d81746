// SPDX-License-Identifier: MIT
#include "engine/kernels/common/dispatch.h"
#include "engine/kernels/kernel_registry.h"

#include <cmath>

namespace onnxscope {

namespace {

/// Range, opset 11: start, start + delta, ... while short of limit (numpy.arange), for float, double, int16, int32
/// and int64 scalars. The element count, max(ceil((limit - start) / delta), 0), is computed without overflow and
/// checked against the allocation limit before allocation; delta = 0 is an error.
class Range final : public Kernel {
public:
    explicit Range(const KernelInit&) { }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& start = ctx.input(0);
        const Tensor& limit = ctx.input(1);
        const Tensor& delta = ctx.input(2);
        for (const Tensor* t : { &start, &limit, &delta })
            if (t->size() != 1 || t->rank() > 1)
                throw ctx.error("start, limit and delta must be scalars, got " + t->typeString());
        if (start.dtype() != limit.dtype() || start.dtype() != delta.dtype())
            throw ctx.error("start, limit and delta must have the same element type, got " + start.typeString() + ", "
                + limit.typeString() + " and " + delta.typeString());
        dispatch<TypeList<float, double, int16_t, int32_t, int64_t>>(start.dtype(), ctx.node(), [&]<class T>() {
            const T s = start.data<T>()[0], l = limit.data<T>()[0], d = delta.data<T>()[0];
            if (d == T(0))
                throw ctx.error("delta is 0");
            int64_t count = 0;
            if constexpr (std::is_integral_v<T>) {
                const __int128 diff = static_cast<__int128>(l) - s, step = d;
                if ((diff > 0 && step > 0) || (diff < 0 && step < 0)) {
                    const __int128 a = diff > 0 ? diff : -diff, b = step > 0 ? step : -step;
                    count = static_cast<int64_t>((a + b - 1) / b); // at most 2^64 / 1, fits after the check below
                }
            } else {
                const double n = std::ceil((static_cast<double>(l) - static_cast<double>(s)) / static_cast<double>(d));
                if (std::isnan(n) || n > 9.0e18)
                    throw ctx.error("Range(" + std::to_string(s) + ", " + std::to_string(l) + ", " + std::to_string(d)
                        + ") does not have a finite element count that fits in int64");
                count = n > 0 ? static_cast<int64_t>(n) : 0;
            }
            if (count < 0)
                throw ctx.error("Range(" + std::to_string(s) + ", " + std::to_string(l) + ", " + std::to_string(d)
                    + ") has too many elements");
            auto o = ctx.allocateOutput(0, start.dtype(), { count }).template data<T>();
            for (int64_t i = 0; i < count; ++i) {
                if constexpr (std::is_integral_v<T>)
                    o[static_cast<size_t>(i)] = static_cast<T>(static_cast<__int128>(s) + static_cast<__int128>(i) * d);
                else
                    o[static_cast<size_t>(i)] = static_cast<T>(s + static_cast<T>(i) * d);
            }
        });
    }
};

} // namespace

void registerRange(KernelRegistry& r)
{
    r.add("", "Range", 11, 11, makeFactory<Range>());
}

} // namespace onnxscope
