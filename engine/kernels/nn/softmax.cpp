// SPDX-License-Identifier: MIT
#include "engine/core/thread_pool.h"
#include "engine/kernels/common/dispatch.h"
#include "engine/kernels/kernel_registry.h"
#include "engine/kernels/simd/simd.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

namespace onnxscope {

namespace {

/// Softmax 1, 11, 13. Opsets 1 and 11 coerce the input to 2-D at `axis` (default 1): [d0*...*d(axis-1),
/// d(axis)*...*d(n-1)] and normalise each row. Opset 13 normalises along the single axis `axis` (default -1).
/// float, double, float16, bfloat16; half types are computed in float. The maximum is subtracted first, so large
/// inputs do not overflow.
class Softmax final : public Kernel {
public:
    explicit Softmax(const KernelInit& init)
        : m_perAxis(init.opset() >= 13)
    {
        m_axis = init.attributes().getInt("axis", m_perAxis ? -1 : 1);
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        const int64_t rank = x.rank();
        int64_t axis = m_axis;
        // Opset 1/11 accept axis in [-r, r]; opset 13 in [-r, r-1].
        if (rank == 0)
            throw ctx.error("input must have rank 1 or more, got a scalar");
        if (axis < -rank || axis > (m_perAxis ? rank - 1 : rank))
            throw ctx.error("attribute 'axis' " + std::to_string(m_axis) + " is out of range for input "
                + shapeToString(x.shape()));
        if (axis < 0)
            axis += rank;
        int64_t outer = 1, len = 1, inner = 1;
        for (int64_t d = 0; d < rank; ++d) {
            if (d < axis)
                outer *= x.dim(d);
            else if (d == axis || !m_perAxis)
                len *= x.dim(d);
            else
                inner *= x.dim(d);
        }
        Tensor& y = ctx.allocateOutputUninitialized(0, x.dtype(), x.shape());
        if (x.dtype() == DataType::Float && inner == 1 && x.size() > 0) {
            const simd::Ops& ops = simd::ops();
            const float* in = x.data<float>().data();
            float* out = y.data<float>().data();
            parallelFor(ctx.threadPool(), outer, std::max<int64_t>(1, simd::kGrainElements / (4 * len)),
                [&](int64_t r0, int64_t r1) { ops.softmaxRows(in + r0 * len, out + r0 * len, r1 - r0, len, false); });
            return;
        }
        dispatch<FloatTypes>(x.dtype(), ctx.node(), [&]<class T>() { run<T>(x, y, outer, len, inner); });
    }

private:
    template <class T> static void run(const Tensor& x, Tensor& y, int64_t outer, int64_t len, int64_t inner)
    {
        using F = std::conditional_t<std::is_same_v<T, double>, double, float>;
        if (x.size() == 0)
            return;
        const T* in = x.data<T>().data();
        T* out = y.data<T>().data();
        std::vector<F> buf(static_cast<size_t>(len));
        for (int64_t o = 0; o < outer; ++o)
            for (int64_t i = 0; i < inner; ++i) {
                const int64_t base = o * len * inner + i;
                F mx = -std::numeric_limits<F>::infinity();
                for (int64_t j = 0; j < len; ++j)
                    mx = std::max(mx, static_cast<F>(in[base + j * inner]));
                F sum = 0;
                for (int64_t j = 0; j < len; ++j) {
                    buf[static_cast<size_t>(j)] = std::exp(static_cast<F>(in[base + j * inner]) - mx);
                    sum += buf[static_cast<size_t>(j)];
                }
                for (int64_t j = 0; j < len; ++j)
                    out[base + j * inner] = static_cast<T>(buf[static_cast<size_t>(j)] / sum);
            }
    }

    bool m_perAxis;
    int64_t m_axis;
};

} // namespace

void registerSoftmax(KernelRegistry& r)
{
    r.add("", "Softmax", 1, 13, makeFactory<Softmax>());
}

} // namespace onnxscope
