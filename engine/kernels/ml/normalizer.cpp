// SPDX-License-Identifier: MIT
#include "engine/kernels/kernel_registry.h"
#include "engine/kernels/ml/ml_common.h"

#include <cmath>

namespace onnxscope {

namespace {

enum class Norm { Max, L1, L2 };

/// Normalizer (ai.onnx.ml 1): normalises each row of X ([N, C] or [C]) by MAX, L1 or L2; output float.
/// MAX divides by max(|x|), as scikit-learn and onnx's reference implementation do (onnxruntime divides by max(x),
/// which differs on rows whose largest magnitude is negative). A row whose norm is 0 is left as is.
class Normalizer final : public Kernel {
public:
    explicit Normalizer(const KernelInit& init)
    {
        const std::string n = init.attributes().getString("norm", "MAX");
        if (n == "MAX")
            m_norm = Norm::Max;
        else if (n == "L1")
            m_norm = Norm::L1;
        else if (n == "L2")
            m_norm = Norm::L2;
        else
            throw init.attributes().error("norm", "unknown value \"" + n + "\" (expected MAX, L1 or L2)");
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        ml::Rows rows = ml::readRows(ctx, x);
        Tensor& out = ctx.allocateOutput(0, DataType::Float, x.shape());
        auto dst = out.data<float>();
        for (int64_t r = 0; r < rows.n; ++r) {
            const double* row = rows.values.data() + r * rows.features;
            double norm = 0;
            for (int64_t j = 0; j < rows.features; ++j) {
                const double v = row[j];
                if (m_norm == Norm::Max)
                    norm = std::max(norm, std::abs(v));
                else if (m_norm == Norm::L1)
                    norm += std::abs(v);
                else
                    norm += v * v;
            }
            if (m_norm == Norm::L2)
                norm = std::sqrt(norm);
            for (int64_t j = 0; j < rows.features; ++j)
                dst[static_cast<size_t>(r * rows.features + j)]
                    = static_cast<float>(norm != 0 ? row[j] / norm : row[j]);
        }
    }

private:
    Norm m_norm = Norm::Max;
};

} // namespace

void registerNormalizer(KernelRegistry& r)
{
    r.add("ai.onnx.ml", "Normalizer", 1, 1, makeFactory<Normalizer>());
}

} // namespace onnxscope
