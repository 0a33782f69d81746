// SPDX-License-Identifier: MIT
#include "engine/kernels/common/dispatch.h"
#include "engine/kernels/kernel_registry.h"

#include <cmath>
#include <unordered_map>

namespace onnxscope {

namespace {

/// OneHotEncoder (ai.onnx.ml 1): output [..., len(categories)] float, 1 where the input equals a category (cats_int64s
/// for int64, int32, float and double inputs, whose values are truncated to int64 as onnxruntime does; cats_strings
/// for strings). A value in no category gives an all-zero row when zeros=1 (default) and is an error otherwise.
class OneHotEncoder final : public Kernel {
public:
    explicit OneHotEncoder(const KernelInit& init)
    {
        const auto& a = init.attributes();
        auto ints = a.getInts("cats_int64s");
        auto strings = a.getStrings("cats_strings");
        if (ints.empty() == strings.empty())
            throw init.error("exactly one of 'cats_int64s' and 'cats_strings' must be given");
        for (size_t i = 0; i < ints.size(); ++i)
            m_ints.emplace(ints[i], static_cast<int64_t>(i));
        for (size_t i = 0; i < strings.size(); ++i)
            m_strings.emplace(strings[i], static_cast<int64_t>(i));
        m_count = static_cast<int64_t>(ints.size() + strings.size());
        m_zeros = a.getInt("zeros", 1) != 0;
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        Shape shape = x.shape();
        shape.push_back(m_count);
        Tensor& out = ctx.allocateOutput(0, DataType::Float, shape);
        auto dst = out.data<float>();
        auto place = [&](size_t i, int64_t category, const std::string& what) {
            if (category >= 0)
                dst[i * static_cast<size_t>(m_count) + static_cast<size_t>(category)] = 1.0f;
            else if (!m_zeros)
                throw ctx.error(
                    "value " + what + " at index " + std::to_string(i) + " is not a known category (zeros=0)");
        };
        if (x.dtype() == DataType::String) {
            if (m_strings.empty())
                throw ctx.error("string input needs 'cats_strings'");
            auto src = x.data<std::string>();
            for (size_t i = 0; i < src.size(); ++i) {
                auto it = m_strings.find(src[i]);
                place(i, it == m_strings.end() ? -1 : it->second, "\"" + src[i] + "\"");
            }
            return;
        }
        if (m_ints.empty())
            throw ctx.error("numeric input needs 'cats_int64s'");
        dispatch<TypeList<int64_t, int32_t, float, double>>(x.dtype(), ctx.node(), [&]<class T>() {
            auto src = x.data<T>();
            for (size_t i = 0; i < src.size(); ++i) {
                int64_t category = -1;
                bool representable = true;
                if constexpr (std::is_floating_point_v<T>)
                    representable = std::isfinite(src[i]) && std::abs(src[i]) < 9.2e18;
                if (representable) {
                    auto it = m_ints.find(static_cast<int64_t>(src[i]));
                    category = it == m_ints.end() ? -1 : it->second;
                }
                place(i, category, std::to_string(src[i]));
            }
        });
    }

private:
    std::unordered_map<int64_t, int64_t> m_ints;
    std::unordered_map<std::string, int64_t> m_strings;
    int64_t m_count = 0;
    bool m_zeros = true;
};

} // namespace

void registerOneHotEncoder(KernelRegistry& r)
{
    r.add("ai.onnx.ml", "OneHotEncoder", 1, 1, makeFactory<OneHotEncoder>());
}

} // namespace onnxscope
