// SPDX-License-Identifier: MIT
#include "engine/kernels/common/dispatch.h"
#include "engine/kernels/kernel_registry.h"

#include <cmath>
#include <unordered_map>

namespace onnxscope {

namespace {

/// One key -> value table of LabelEncoder: keys and values as 1-D tensors, and the default value.
struct LabelTable {
    Tensor keys, values, fallback;
    std::unordered_map<std::string, int64_t> byString;
    std::unordered_map<int64_t, int64_t> byInt;
    std::unordered_map<double, int64_t> byFloat;
    int64_t nanIndex = -1;

    void index()
    {
        for (int64_t i = keys.size() - 1; i >= 0; --i) { // the first occurrence of a key wins
            if (keys.dtype() == DataType::String)
                byString[keys.data<std::string>()[static_cast<size_t>(i)]] = i;
            else if (isInteger(keys.dtype()))
                byInt[static_cast<int64_t>(keys.toDouble(i))] = i;
            else if (std::isnan(keys.toDouble(i)))
                nanIndex = i;
            else
                byFloat[keys.toDouble(i)] = i;
        }
        if (keys.dtype() == DataType::Int64) { // exact for values beyond 2^53
            byInt.clear();
            for (int64_t i = keys.size() - 1; i >= 0; --i)
                byInt[keys.data<int64_t>()[static_cast<size_t>(i)]] = i;
        }
    }
};

/// LabelEncoder, ai.onnx.ml 1, 2 and 4. v1: string -> int64 (the index of the string in classes_strings, else
/// default_int64) and int64 -> string (classes_strings[x], else default_string). v2: keys_* -> values_* for strings,
/// int64s and floats, defaults default_*; v4 also keys_tensor / values_tensor / default_tensor of any of string, int64,
/// int32, int16, float, double. Float keys match bit-wise equal values, and NaN matches NaN. Same shape as X.
class LabelEncoder final : public Kernel {
public:
    explicit LabelEncoder(const KernelInit& init)
    {
        const auto& a = init.attributes();
        if (init.opset() < 2) {
            auto classes = a.getStrings("classes_strings");
            std::vector<int64_t> ids(classes.size());
            for (size_t i = 0; i < ids.size(); ++i)
                ids[i] = static_cast<int64_t>(i);
            m_stringToInt.keys = m_intToString.values = Tensor::vector1D(classes);
            m_stringToInt.values = m_intToString.keys = Tensor::vector1D(ids);
            m_stringToInt.fallback = Tensor::scalar<int64_t>(a.getInt("default_int64", -1));
            m_intToString.fallback = Tensor::scalar<std::string>(a.getString("default_string", "_Unused"));
            m_stringToInt.index();
            m_intToString.index();
            m_v1 = true;
            return;
        }
        m_table.keys = readSide(a, "keys", init);
        m_table.values = readSide(a, "values", init);
        if (m_table.keys.size() != m_table.values.size())
            throw init.error("has " + std::to_string(m_table.keys.size()) + " keys but "
                + std::to_string(m_table.values.size()) + " values");
        Tensor def = a.getTensor("default_tensor");
        if (def.defined()) {
            if (def.dtype() != m_table.values.dtype() || def.size() != 1)
                throw a.error("default_tensor",
                    "expected one value of the values' type " + std::string(dataTypeName(m_table.values.dtype()))
                        + ", got " + def.typeString());
            m_table.fallback = def.reshaped({});
        } else {
            switch (m_table.values.dtype()) {
            case DataType::String:
                m_table.fallback = Tensor::scalar<std::string>(a.getString("default_string", "_Unused"));
                break;
            case DataType::Float:
                m_table.fallback = Tensor::scalar<float>(a.getFloat("default_float", -0.0f));
                break;
            case DataType::Int64:
                m_table.fallback = Tensor::scalar<int64_t>(a.getInt("default_int64", -1));
                break;
            default:
                m_table.fallback = Tensor(m_table.values.dtype(), {}); // zero, as v4 specifies for other types
            }
        }
        m_table.index();
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        const LabelTable* t = &m_table;
        if (m_v1) {
            if (x.dtype() == DataType::String)
                t = &m_stringToInt;
            else if (x.dtype() == DataType::Int64)
                t = &m_intToString;
            else
                throw ctx.error("input must be string or int64, got " + x.typeString());
        } else if (x.dtype() != t->keys.dtype()) {
            throw ctx.error("input is " + std::string(dataTypeName(x.dtype())) + " but the keys are "
                + std::string(dataTypeName(t->keys.dtype())));
        }
        std::vector<int64_t> found(static_cast<size_t>(x.size()), -1);
        if (x.dtype() == DataType::String) {
            auto src = x.data<std::string>();
            for (size_t i = 0; i < src.size(); ++i)
                if (auto it = t->byString.find(src[i]); it != t->byString.end())
                    found[i] = it->second;
        } else if (x.dtype() == DataType::Int64) {
            auto src = x.data<int64_t>();
            for (size_t i = 0; i < src.size(); ++i)
                if (auto it = t->byInt.find(src[i]); it != t->byInt.end())
                    found[i] = it->second;
        } else {
            for (int64_t i = 0; i < x.size(); ++i) {
                const double v = x.toDouble(i);
                if (isInteger(x.dtype())) {
                    if (auto it = t->byInt.find(static_cast<int64_t>(v)); it != t->byInt.end())
                        found[static_cast<size_t>(i)] = it->second;
                } else if (std::isnan(v)) {
                    found[static_cast<size_t>(i)] = t->nanIndex;
                } else if (auto it = t->byFloat.find(v); it != t->byFloat.end()) {
                    found[static_cast<size_t>(i)] = it->second;
                }
            }
        }
        Tensor& out = ctx.allocateOutput(0, t->values.dtype(), x.shape());
        dispatch<AllTypes>(t->values.dtype(), ctx.node(), [&]<class T>() {
            auto values = t->values.data<T>();
            const T fallback = t->fallback.data<T>()[0];
            auto dst = out.data<T>();
            for (size_t i = 0; i < found.size(); ++i)
                dst[i] = found[i] >= 0 ? values[static_cast<size_t>(found[i])] : fallback;
        });
    }

private:
    static Tensor readSide(const NodeAttributes& a, const std::string& side, const KernelInit& init)
    {
        std::vector<Tensor> given;
        if (a.has(side + "_strings"))
            given.push_back(Tensor::vector1D(a.getStrings(side + "_strings")));
        if (a.has(side + "_int64s"))
            given.push_back(Tensor::vector1D(a.getInts(side + "_int64s")));
        if (a.has(side + "_floats"))
            given.push_back(Tensor::vector1D(a.getFloats(side + "_floats")));
        if (a.has(side + "_tensor")) {
            Tensor t = a.requireTensor(side + "_tensor");
            given.push_back(t.reshaped({ t.size() }));
        }
        if (given.size() != 1)
            throw init.error("exactly one of '" + side + "_strings', '" + side + "_int64s', '" + side + "_floats', '"
                + side + "_tensor' must be given (got " + std::to_string(given.size()) + ")");
        return given[0];
    }

    bool m_v1 = false;
    LabelTable m_table, m_stringToInt, m_intToString;
};

} // namespace

void registerLabelEncoder(KernelRegistry& r)
{
    r.add("ai.onnx.ml", "LabelEncoder", 1, 4, makeFactory<LabelEncoder>());
}

} // namespace onnxscope
