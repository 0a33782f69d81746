// SPDX-License-Identifier: MIT
#include "engine/kernels/common/dispatch.h"
#include "engine/kernels/kernel_registry.h"

#include <cmath>

namespace onnxscope {

namespace {

/// Imputer (ai.onnx.ml 1): replaces every element equal to the replaced value (replaced_value_float, NaN matching
/// NaN, or replaced_value_int64) by the imputed value of its column (imputed_value_floats / imputed_value_int64s, one
/// value for every column or one per column of the last axis). float and double use the float attributes (onnxruntime
/// has no double kernel; the spec allows it), int32 and int64 the int64 ones. Same type and shape as X.
class Imputer final : public Kernel {
public:
    explicit Imputer(const KernelInit& init)
    {
        const auto& a = init.attributes();
        m_floats = a.getFloats("imputed_value_floats");
        m_ints = a.getInts("imputed_value_int64s");
        m_replacedFloat = a.getFloat("replaced_value_float", 0.0f);
        m_replacedInt = a.getInt("replaced_value_int64", 0);
        if (m_floats.empty() == m_ints.empty())
            throw init.error("exactly one of 'imputed_value_floats' and 'imputed_value_int64s' must be given");
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        const int64_t cols = x.rank() == 0 ? 1 : x.dim(x.rank() - 1);
        Tensor& out = ctx.allocateOutput(0, x.dtype(), x.shape());
        auto run = [&]<class T, class V>(const std::vector<V>& values, auto isReplaced) {
            if (values.size() != 1 && static_cast<int64_t>(values.size()) != cols)
                throw ctx.error("has " + std::to_string(values.size()) + " imputed values, expected 1 or "
                    + std::to_string(cols) + " (the last dimension of X " + shapeToString(x.shape()) + ")");
            auto src = x.data<T>();
            auto dst = out.data<T>();
            for (size_t i = 0; i < src.size(); ++i) {
                const size_t col = values.size() == 1 ? 0 : i % static_cast<size_t>(cols);
                dst[i] = isReplaced(src[i]) ? static_cast<T>(values[col]) : src[i];
            }
        };
        const bool nanReplaced = std::isnan(m_replacedFloat);
        dispatch<TypeList<float, double, int32_t, int64_t>>(x.dtype(), ctx.node(), [&]<class T>() {
            if constexpr (std::is_floating_point_v<T>) {
                if (m_floats.empty())
                    throw ctx.error("input is floating point but only 'imputed_value_int64s' is given");
                run.template operator()<T>(
                    m_floats, [&](T v) { return nanReplaced ? std::isnan(v) : v == static_cast<T>(m_replacedFloat); });
            } else {
                if (m_ints.empty())
                    throw ctx.error("input is integer but only 'imputed_value_floats' is given");
                run.template operator()<T>(m_ints, [&](T v) { return static_cast<int64_t>(v) == m_replacedInt; });
            }
        });
    }

private:
    std::vector<float> m_floats;
    std::vector<int64_t> m_ints;
    float m_replacedFloat = 0;
    int64_t m_replacedInt = 0;
};

} // namespace

void registerImputer(KernelRegistry& r)
{
    r.add("ai.onnx.ml", "Imputer", 1, 1, makeFactory<Imputer>());
}

} // namespace onnxscope
