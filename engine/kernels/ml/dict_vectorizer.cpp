// SPDX-License-Identifier: MIT
#include "engine/kernels/common/dispatch.h"
#include "engine/kernels/kernel_registry.h"

#include <unordered_map>

namespace onnxscope {

namespace {

/// DictVectorizer (ai.onnx.ml 1): map(string | int64, V) -> tensor [1, len(vocabulary)] of V (float, double, int64 or
/// string): the value of key k goes to the column of k in string_vocabulary / int64_vocabulary; absent keys give 0
/// (or ""). Keys not in the vocabulary are ignored, as onnxruntime does.
class DictVectorizer final : public Kernel {
public:
    explicit DictVectorizer(const KernelInit& init)
    {
        const auto& a = init.attributes();
        auto strings = a.getStrings("string_vocabulary");
        auto ints = a.getInts("int64_vocabulary");
        if (strings.empty() == ints.empty())
            throw init.error("exactly one of 'string_vocabulary' and 'int64_vocabulary' must be given");
        for (size_t i = 0; i < strings.size(); ++i)
            m_strings.emplace(strings[i], static_cast<int64_t>(i));
        for (size_t i = 0; i < ints.size(); ++i)
            m_ints.emplace(ints[i], static_cast<int64_t>(i));
        m_size = static_cast<int64_t>(strings.size() + ints.size());
    }

    void compute(KernelContext& ctx) const override
    {
        const Map& m = ctx.inputValue(0).map("input X");
        std::vector<int64_t> column(static_cast<size_t>(m.keys.size()), -1);
        if (m.keys.dtype() == DataType::String) {
            if (m_strings.empty())
                throw ctx.error("map keys are strings but the vocabulary is 'int64_vocabulary'");
            auto keys = m.keys.data<std::string>();
            for (size_t i = 0; i < keys.size(); ++i)
                if (auto it = m_strings.find(keys[i]); it != m_strings.end())
                    column[i] = it->second;
        } else if (m.keys.dtype() == DataType::Int64) {
            if (m_ints.empty())
                throw ctx.error("map keys are int64 but the vocabulary is 'string_vocabulary'");
            auto keys = m.keys.data<int64_t>();
            for (size_t i = 0; i < keys.size(); ++i)
                if (auto it = m_ints.find(keys[i]); it != m_ints.end())
                    column[i] = it->second;
        } else {
            throw ctx.error("map keys must be string or int64");
        }
        if (m.values.size() != m.keys.size())
            throw ctx.error("map has " + std::to_string(m.keys.size()) + " keys but " + std::to_string(m.values.size())
                + " values");
        Tensor& out = ctx.allocateOutput(0, m.values.dtype(), { 1, m_size });
        dispatch<TypeList<float, double, int64_t, std::string>>(m.values.dtype(), ctx.node(), [&]<class T>() {
            auto src = m.values.data<T>();
            auto dst = out.data<T>();
            for (size_t i = 0; i < column.size(); ++i)
                if (column[i] >= 0)
                    dst[static_cast<size_t>(column[i])] = src[i];
        });
    }

private:
    std::unordered_map<std::string, int64_t> m_strings;
    std::unordered_map<int64_t, int64_t> m_ints;
    int64_t m_size = 0;
};

} // namespace

void registerDictVectorizer(KernelRegistry& r)
{
    r.add("ai.onnx.ml", "DictVectorizer", 1, 1, makeFactory<DictVectorizer>());
}

} // namespace onnxscope
