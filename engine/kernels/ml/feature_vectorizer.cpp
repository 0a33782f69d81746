// SPDX-License-Identifier: MIT
#include "engine/kernels/common/dispatch.h"
#include "engine/kernels/kernel_registry.h"

#include <limits>

namespace onnxscope {

namespace {

/// FeatureVectorizer (ai.onnx.ml 1): concatenates inputs [N, C_i] (1-D inputs are [1, C]) along the columns into a
/// float [N, sum(inputdimensions)]. Input i contributes inputdimensions[i] columns: extra columns are dropped and
/// missing ones are 0, as onnxruntime does. int32, int64, float, double inputs.
class FeatureVectorizer final : public Kernel {
public:
    explicit FeatureVectorizer(const KernelInit& init)
        : m_dims(init.attributes().getInts("inputdimensions"))
    {
        for (int64_t d : m_dims)
            if (d < 0)
                throw init.attributes().error("inputdimensions", "must not be negative");
        for (int64_t d : m_dims) {
            if (d > std::numeric_limits<int64_t>::max() - m_total)
                throw init.attributes().error("inputdimensions", "sum overflows int64");
            m_total += d;
        }
    }

    void compute(KernelContext& ctx) const override
    {
        if (ctx.inputCount() != m_dims.size())
            throw ctx.error("has " + std::to_string(ctx.inputCount()) + " inputs but 'inputdimensions' has "
                + std::to_string(m_dims.size()) + " values");
        int64_t n = -1;
        for (size_t i = 0; i < ctx.inputCount(); ++i) {
            const Tensor& x = ctx.input(i);
            const int64_t rows = x.rank() <= 1 ? 1 : x.dim(0);
            if (n >= 0 && rows != n)
                throw ctx.error("input " + std::to_string(i) + " has " + std::to_string(rows) + " rows, expected "
                    + std::to_string(n));
            n = rows;
        }
        Tensor& out = ctx.allocateOutput(0, DataType::Float, { std::max<int64_t>(n, 0), m_total });
        auto dst = out.data<float>();
        int64_t offset = 0;
        for (size_t i = 0; i < ctx.inputCount(); ++i) {
            const Tensor& x = ctx.input(i);
            const int64_t rows = x.rank() <= 1 ? 1 : x.dim(0);
            const int64_t cols = rows == 0 ? 0 : x.size() / rows;
            const int64_t take = std::min(cols, m_dims[i]);
            dispatch<TypeList<float, double, int32_t, int64_t>>(x.dtype(), ctx.node(), [&]<class T>() {
                auto src = x.data<T>();
                for (int64_t r = 0; r < rows; ++r)
                    for (int64_t c = 0; c < take; ++c)
                        dst[static_cast<size_t>(r * m_total + offset + c)]
                            = static_cast<float>(src[static_cast<size_t>(r * cols + c)]);
            });
            offset += m_dims[i];
        }
    }

private:
    std::vector<int64_t> m_dims;
    int64_t m_total = 0;
};

} // namespace

void registerFeatureVectorizer(KernelRegistry& r)
{
    r.add("ai.onnx.ml", "FeatureVectorizer", 1, 1, makeFactory<FeatureVectorizer>());
}

} // namespace onnxscope
