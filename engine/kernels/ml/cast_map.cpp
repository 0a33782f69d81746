// SPDX-License-Identifier: MIT
#include "engine/kernels/kernel_registry.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <numeric>

namespace onnxscope {

namespace {

enum class CastTo { Float, String, Int64 };

/// CastMap (ai.onnx.ml 1): map(int64, string | float) -> tensor [1, n] of float, string or int64, values in ascending
/// key order. DENSE packs the map's values (n = map size); SPARSE puts the value of key k at column k (n = max_map,
/// missing keys padded with 0, or "0.f" for strings as onnxruntime does; a key outside [0, max_map) is an error).
/// Strings are parsed as numbers (an unparsable string is an error); floats become strings with std::to_string.
class CastMap final : public Kernel {
public:
    explicit CastMap(const KernelInit& init)
    {
        const auto& a = init.attributes();
        const std::string to = a.getString("cast_to", "TO_FLOAT");
        if (to == "TO_FLOAT")
            m_to = CastTo::Float;
        else if (to == "TO_STRING")
            m_to = CastTo::String;
        else if (to == "TO_INT64")
            m_to = CastTo::Int64;
        else
            throw a.error("cast_to", "unknown value \"" + to + "\" (expected TO_FLOAT, TO_STRING or TO_INT64)");
        const std::string form = a.getString("map_form", "DENSE");
        if (form != "DENSE" && form != "SPARSE")
            throw a.error("map_form", "unknown value \"" + form + "\" (expected DENSE or SPARSE)");
        m_sparse = form == "SPARSE";
        m_maxMap = a.getInt("max_map", 1);
        if (m_sparse && m_maxMap < 0)
            throw a.error("max_map", "must not be negative, got " + std::to_string(m_maxMap));
    }

    void compute(KernelContext& ctx) const override
    {
        const Map& m = ctx.inputValue(0).map("input X");
        if (m.keys.dtype() != DataType::Int64)
            throw ctx.error("map keys must be int64");
        if (m.values.dtype() != DataType::String && m.values.dtype() != DataType::Float)
            throw ctx.error("map values must be string or float, got " + std::string(dataTypeName(m.values.dtype())));
        auto keys = m.keys.data<int64_t>();
        std::vector<size_t> order(keys.size());
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) { return keys[x] < keys[y]; });
        const int64_t n = m_sparse ? m_maxMap : static_cast<int64_t>(keys.size());
        const DataType outType
            = m_to == CastTo::Float ? DataType::Float : (m_to == CastTo::Int64 ? DataType::Int64 : DataType::String);
        Tensor& out = ctx.allocateOutput(0, outType, { 1, n });
        if (m_sparse && m_to == CastTo::String)
            std::fill(out.data<std::string>().begin(), out.data<std::string>().end(), "0.f");
        for (size_t k = 0; k < order.size(); ++k) {
            const size_t src = order[k];
            int64_t col = static_cast<int64_t>(k);
            if (m_sparse) {
                col = keys[src];
                if (col < 0 || col >= m_maxMap)
                    throw ctx.error(
                        "map key " + std::to_string(col) + " is outside [0, max_map=" + std::to_string(m_maxMap) + ")");
            }
            write(ctx, m.values, src, out, static_cast<size_t>(col));
        }
    }

private:
    void write(const KernelContext& ctx, const Tensor& values, size_t src, Tensor& out, size_t col) const
    {
        if (values.dtype() == DataType::Float) {
            const float v = values.data<float>()[src];
            if (m_to == CastTo::Float)
                out.data<float>()[col] = v;
            else if (m_to == CastTo::Int64)
                out.data<int64_t>()[col] = std::isfinite(v) && std::abs(v) < 9.2e18f ? static_cast<int64_t>(v) : 0;
            else
                out.data<std::string>()[col] = std::to_string(v);
            return;
        }
        const std::string& s = values.data<std::string>()[src];
        if (m_to == CastTo::String) {
            out.data<std::string>()[col] = s;
            return;
        }
        char* end = nullptr;
        errno = 0;
        if (m_to == CastTo::Float) {
            const float v = std::strtof(s.c_str(), &end);
            if (end == s.c_str())
                throw ctx.error("map value \"" + s + "\" is not a number");
            out.data<float>()[col] = v;
        } else {
            const long long v = std::strtoll(s.c_str(), &end, 10);
            if (end == s.c_str() || errno == ERANGE)
                throw ctx.error("map value \"" + s + "\" is not an int64");
            out.data<int64_t>()[col] = v;
        }
    }

    CastTo m_to = CastTo::Float;
    bool m_sparse = false;
    int64_t m_maxMap = 1;
};

} // namespace

void registerCastMap(KernelRegistry& r)
{
    r.add("ai.onnx.ml", "CastMap", 1, 1, makeFactory<CastMap>());
}

} // namespace onnxscope
