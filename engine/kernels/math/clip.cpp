// SPDX-License-Identifier: MIT
#include "engine/kernels/common/dispatch.h"
#include "engine/kernels/common/elementwise.h"
#include "engine/kernels/kernel_registry.h"
#include "engine/kernels/simd/simd.h"

#include <limits>
#include <optional>
#include <type_traits>

namespace onnxscope {

namespace {

/// Clip 1, 6 (bounds from the float attributes `min`/`max`), 11, 12, 13 (bounds from the optional scalar inputs
/// 1 and 2, of the input's type). Every numeric type in every version. y = min(max(x, min), max) as numpy's clip:
/// NaN stays NaN and min > max gives max everywhere. An absent bound does not clip. Half types compare in float.
class Clip final : public Kernel {
public:
    explicit Clip(const KernelInit& init)
        : m_inputBounds(init.opset() >= 11)
    {
        if (!m_inputBounds) {
            if (init.attributes().has("min"))
                m_min = init.attributes().getFloat("min", 0.0f);
            if (init.attributes().has("max"))
                m_max = init.attributes().getFloat("max", 0.0f);
        }
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        Tensor& y = x.dtype() == DataType::Float ? ctx.reuseInputOrAllocate(0, 0, x.dtype(), x.shape())
                                                 : ctx.allocateOutputUninitialized(0, x.dtype(), x.shape());
        dispatch<NumericTypes>(x.dtype(), ctx.node(), [&]<class T>() { run<T>(ctx, x, y); });
    }

private:
    template <class T> void run(const KernelContext& ctx, const Tensor& x, Tensor& y) const
    {
        using C = std::conditional_t<std::is_integral_v<T>, T, MathType<T>>;
        std::optional<C> lo, hi;
        if (m_inputBounds) {
            lo = bound<T, C>(ctx, 1, "min");
            hi = bound<T, C>(ctx, 2, "max");
        } else {
            if (m_min)
                lo = attributeBound<T, C>(*m_min);
            if (m_max)
                hi = attributeBound<T, C>(*m_max);
        }
        const C l = lo ? *lo : lowest<C>();
        const C h = hi ? *hi : highest<C>();
        auto in = x.data<T>();
        auto out = y.data<T>();
        if constexpr (std::is_same_v<T, float>) {
            simd::parallelActivation(
                ctx.threadPool(), in.data(), out.data(), x.size(), { simd::Activation::Clip, l, h });
            return;
        }
        for (size_t i = 0; i < in.size(); ++i) {
            C v = static_cast<C>(in[i]);
            v = v < l ? l : v;
            v = v > h ? h : v;
            out[i] = static_cast<T>(v);
        }
    }

    template <class T, class C> static std::optional<C> bound(const KernelContext& ctx, size_t i, const char* name)
    {
        if (!ctx.hasInput(i))
            return std::nullopt;
        const Tensor& t = ctx.input(i);
        if (t.dtype() != ctx.input(0).dtype())
            throw ctx.error(std::string("input '") + name + "' has element type " + std::string(dataTypeName(t.dtype()))
                + ", the input has " + std::string(dataTypeName(ctx.input(0).dtype())));
        if (t.size() != 1)
            throw ctx.error(std::string("input '") + name + "' must be a scalar, got " + t.typeString());
        return static_cast<C>(t.data<T>()[0]);
    }

    template <class T, class C> static C attributeBound(float v)
    {
        if constexpr (std::is_integral_v<T>)
            return convertFromFloat<T>(v);
        else
            return static_cast<C>(v);
    }

    template <class C> static C lowest()
    {
        if constexpr (std::is_integral_v<C>)
            return std::numeric_limits<C>::lowest();
        else
            return -std::numeric_limits<C>::infinity();
    }
    template <class C> static C highest()
    {
        if constexpr (std::is_integral_v<C>)
            return std::numeric_limits<C>::max();
        else
            return std::numeric_limits<C>::infinity();
    }

    bool m_inputBounds;
    std::optional<float> m_min, m_max;
};

} // namespace

void registerClip(KernelRegistry& r)
{
    r.add("", "Clip", 1, 13, makeFactory<Clip>());
}

} // namespace onnxscope
