// SPDX-License-Identifier: MIT
#include "engine/kernels/common/dispatch.h"
#include "engine/kernels/kernel_registry.h"

#include <cmath>

namespace onnxscope {

namespace {

/// MeanVarianceNormalization 9, 13: y = (x - mean) / (sqrt(var) + 1e-9) with mean and population variance over
/// `axes` (default [0, 2, 3]), as the ONNX function body defines it. float, double, float16, bfloat16; statistics
/// in double (two-pass variance, so it is never negative).
class MeanVarianceNorm final : public Kernel {
public:
    explicit MeanVarianceNorm(const KernelInit& init)
        : m_axes(init.attributes().getInts("axes", { 0, 2, 3 }))
    {
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        const size_t rank = static_cast<size_t>(x.rank());
        std::vector<bool> reduced(rank, false);
        for (int64_t a : m_axes) {
            int64_t axis = 0;
            try {
                axis = normalizeAxis(a, x.rank(), "axes");
            } catch (const Error& e) {
                throw ctx.error(e.what());
            }
            reduced[static_cast<size_t>(axis)] = true;
        }
        // Index of each element's statistics slot: kept axes only, row-major.
        std::vector<int64_t> statStride(rank, 0);
        int64_t slots = 1;
        for (size_t d = rank; d-- > 0;)
            if (!reduced[d]) {
                statStride[d] = slots;
                slots *= x.dim(static_cast<int64_t>(d));
            }
        std::vector<int64_t> slot(static_cast<size_t>(x.size()));
        std::vector<int64_t> index(rank, 0);
        int64_t cur = 0;
        for (size_t i = 0; i < slot.size(); ++i) {
            slot[i] = cur;
            for (size_t d = rank; d-- > 0;) {
                cur += statStride[d];
                if (++index[d] < x.dim(static_cast<int64_t>(d)))
                    break;
                cur -= statStride[d] * x.dim(static_cast<int64_t>(d));
                index[d] = 0;
            }
        }
        Tensor& y = ctx.allocateOutput(0, x.dtype(), x.shape());
        dispatch<FloatTypes>(x.dtype(), ctx.node(), [&]<class T>() {
            auto in = x.data<T>();
            auto out = y.data<T>();
            std::vector<double> sum(static_cast<size_t>(slots)), sq(static_cast<size_t>(slots)),
                count(static_cast<size_t>(slots));
            for (size_t i = 0; i < slot.size(); ++i) {
                sum[static_cast<size_t>(slot[i])] += static_cast<double>(in[i]);
                count[static_cast<size_t>(slot[i])] += 1;
            }
            for (size_t s = 0; s < sum.size(); ++s)
                sum[s] /= count[s];
            for (size_t i = 0; i < slot.size(); ++i) {
                const double d = static_cast<double>(in[i]) - sum[static_cast<size_t>(slot[i])];
                sq[static_cast<size_t>(slot[i])] += d * d;
            }
            for (size_t s = 0; s < sq.size(); ++s)
                sq[s] = std::sqrt(sq[s] / count[s]) + 1e-9;
            for (size_t i = 0; i < slot.size(); ++i) {
                const auto s = static_cast<size_t>(slot[i]);
                out[i] = static_cast<T>((static_cast<double>(in[i]) - sum[s]) / sq[s]);
            }
        });
    }

private:
    std::vector<int64_t> m_axes;
};

} // namespace

void registerMeanVarianceNorm(KernelRegistry& r)
{
    r.add("", "MeanVarianceNormalization", 9, 13, makeFactory<MeanVarianceNorm>());
}

} // namespace onnxscope
