// SPDX-License-Identifier: MIT
#include "engine/kernels/common/dispatch.h"
#include "engine/kernels/kernel_registry.h"

#include <cmath>

namespace onnxscope {

namespace {

/// Range 11, 27: start, start + delta, ... while short of limit (numpy.arange), for float, double, int16, int32
/// and int64 scalars; 27 adds float16 and bfloat16, computed in the type named by `stash_type` (1 float, the
/// default, or 11 double) and rounded back. The element count, max(ceil((limit - start) / delta), 0), is computed
/// without overflow and checked against the allocation limit before allocation; delta = 0 is an error.
class Range final : public Kernel {
public:
    explicit Range(const KernelInit& init)
    {
        const int64_t stash = init.attributes().getInt("stash_type", 1);
        if (stash != 1 && stash != 11)
            throw init.attributes().error(
                "stash_type", "expected 1 (float) or 11 (double), got " + std::to_string(stash));
        m_stashDouble = stash == 11;
    }

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
        const DataType type = start.dtype();
        if (type == DataType::Float16 || type == DataType::BFloat16) {
            dispatch<TypeList<Float16, BFloat16>>(type, ctx.node(), [&]<class H>() {
                if (m_stashDouble)
                    run<double>(ctx, static_cast<double>(start.data<H>()[0]), static_cast<double>(limit.data<H>()[0]),
                        static_cast<double>(delta.data<H>()[0]), type, [](double v) { return static_cast<H>(v); });
                else
                    run<float>(ctx, static_cast<float>(start.data<H>()[0]), static_cast<float>(limit.data<H>()[0]),
                        static_cast<float>(delta.data<H>()[0]), type, [](float v) { return static_cast<H>(v); });
            });
            return;
        }
        dispatch<TypeList<float, double, int16_t, int32_t, int64_t>>(type, ctx.node(), [&]<class T>() {
            run<T>(ctx, start.data<T>()[0], limit.data<T>()[0], delta.data<T>()[0], type, [](T v) { return v; });
        });
    }

private:
    /// Fills the output of element type `type` with store(s + i * d), the values computed in T.
    template <class T, class Store>
    void run(KernelContext& ctx, const T s, const T l, const T d, DataType type, Store store) const
    {
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
        using R = decltype(store(T {}));
        auto o = ctx.allocateOutput(0, type, { count }).template data<R>();
        for (int64_t i = 0; i < count; ++i) {
            if constexpr (std::is_integral_v<T>)
                o[static_cast<size_t>(i)]
                    = store(static_cast<T>(static_cast<__int128>(s) + static_cast<__int128>(i) * d));
            else
                o[static_cast<size_t>(i)] = store(static_cast<T>(s + static_cast<T>(i) * d));
        }
    }

    bool m_stashDouble = false;
};

} // namespace

void registerRange(KernelRegistry& r)
{
    r.add("", "Range", 11, 27, makeFactory<Range>());
}

} // namespace onnxscope
