// SPDX-License-Identifier: MIT
#include "engine/kernels/kernel_registry.h"
#include "engine/kernels/ml/ml_common.h"

namespace onnxscope {

namespace {

/// Scaler (ai.onnx.ml 1): Y = (X - offset) * scale, with offset and scale of length 1 (every column) or C (one per
/// column of the last axis). Input float, double, int32 or int64; output float.
class Scaler final : public Kernel {
public:
    explicit Scaler(const KernelInit& init)
        : m_offset(init.attributes().getFloats("offset"))
        , m_scale(init.attributes().getFloats("scale"))
    {
        if (m_offset.empty())
            m_offset = { 0.0f };
        if (m_scale.empty())
            m_scale = { 1.0f };
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        ml::Rows rows = ml::readRows(ctx, x);
        const int64_t c = rows.features;
        auto check = [&](const std::vector<float>& v, const char* name) {
            if (v.size() != 1 && static_cast<int64_t>(v.size()) != c)
                throw ctx.error(std::string("attribute '") + name + "' has " + std::to_string(v.size())
                    + " values, expected 1 or " + std::to_string(c) + " (the number of columns)");
        };
        check(m_offset, "offset");
        check(m_scale, "scale");
        Tensor& out = ctx.allocateOutput(0, DataType::Float, x.shape());
        auto dst = out.data<float>();
        for (size_t i = 0; i < rows.values.size(); ++i) {
            const size_t col = c ? i % static_cast<size_t>(c) : 0;
            const double o = m_offset.size() == 1 ? m_offset[0] : m_offset[col];
            const double s = m_scale.size() == 1 ? m_scale[0] : m_scale[col];
            dst[i] = static_cast<float>((rows.values[i] - o) * s);
        }
    }

private:
    std::vector<float> m_offset, m_scale;
};

} // namespace

void registerScaler(KernelRegistry& r)
{
    r.add("ai.onnx.ml", "Scaler", 1, 1, makeFactory<Scaler>());
}

} // namespace onnxscope
