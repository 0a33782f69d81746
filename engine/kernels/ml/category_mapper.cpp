// SPDX-License-Identifier: MIT
#include "engine/kernels/kernel_registry.h"

#include <unordered_map>

namespace onnxscope {

namespace {

/// CategoryMapper (ai.onnx.ml 1): string -> int64 and int64 -> string through the parallel lists cats_strings /
/// cats_int64s; an unknown value maps to default_int64 (-1) or default_string ("_Unused"). Same shape as X.
class CategoryMapper final : public Kernel {
public:
    explicit CategoryMapper(const KernelInit& init)
    {
        const auto& a = init.attributes();
        auto strings = a.getStrings("cats_strings");
        auto ints = a.getInts("cats_int64s");
        if (strings.size() != ints.size())
            throw init.error("'cats_strings' has " + std::to_string(strings.size()) + " values but 'cats_int64s' has "
                + std::to_string(ints.size()));
        for (size_t i = 0; i < strings.size(); ++i) {
            m_toInt.emplace(strings[i], ints[i]);
            m_toString.emplace(ints[i], strings[i]);
        }
        m_defaultInt = a.getInt("default_int64", -1);
        m_defaultString = a.getString("default_string", "_Unused");
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        if (x.dtype() == DataType::String) {
            auto src = x.data<std::string>();
            auto dst = ctx.allocateOutput(0, DataType::Int64, x.shape()).data<int64_t>();
            for (size_t i = 0; i < src.size(); ++i) {
                auto it = m_toInt.find(src[i]);
                dst[i] = it == m_toInt.end() ? m_defaultInt : it->second;
            }
        } else if (x.dtype() == DataType::Int64) {
            auto src = x.data<int64_t>();
            auto dst = ctx.allocateOutput(0, DataType::String, x.shape()).data<std::string>();
            for (size_t i = 0; i < src.size(); ++i) {
                auto it = m_toString.find(src[i]);
                dst[i] = it == m_toString.end() ? m_defaultString : it->second;
            }
        } else {
            throw ctx.error("input must be string or int64, got " + x.typeString());
        }
    }

private:
    std::unordered_map<std::string, int64_t> m_toInt;
    std::unordered_map<int64_t, std::string> m_toString;
    int64_t m_defaultInt = -1;
    std::string m_defaultString;
};

} // namespace

void registerCategoryMapper(KernelRegistry& r)
{
    r.add("ai.onnx.ml", "CategoryMapper", 1, 1, makeFactory<CategoryMapper>());
}

} // namespace onnxscope
