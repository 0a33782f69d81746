// SPDX-License-Identifier: MIT
#include "engine/kernels/kernel_registry.h"
#include "engine/kernels/tensor/indexing.h"

namespace onnxscope {

namespace {

using namespace indexing;

/// ReverseSequence, opset 10, every element type: for each batch entry b, reverses the first sequence_lens[b]
/// elements along the time axis and copies the rest. time_axis and batch_axis are 0 and 1 (either way round);
/// lengths must lie in [0, time steps].
class ReverseSequence final : public Kernel {
public:
    explicit ReverseSequence(const KernelInit& init)
        : m_batchAxis(init.attributes().getInt("batch_axis", 1))
        , m_timeAxis(init.attributes().getInt("time_axis", 0))
    {
        if (!((m_batchAxis == 0 && m_timeAxis == 1) || (m_batchAxis == 1 && m_timeAxis == 0)))
            throw init.error("attributes 'batch_axis' and 'time_axis' must be 0 and 1 in some order, got "
                + std::to_string(m_batchAxis) + " and " + std::to_string(m_timeAxis));
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        if (x.rank() < 2)
            throw ctx.error("input must have rank 2 or more, got " + x.typeString());
        const std::vector<int64_t> lens = intListInput(ctx, 1, "input 'sequence_lens'");
        const int64_t batch = x.dim(m_batchAxis), steps = x.dim(m_timeAxis);
        if (static_cast<int64_t>(lens.size()) != batch)
            throw ctx.error("input 'sequence_lens' has " + std::to_string(lens.size())
                + " values but the batch size of " + x.typeString() + " is " + std::to_string(batch));
        for (int64_t len : lens)
            if (len < 0 || len > steps)
                throw ctx.error(
                    "sequence length " + std::to_string(len) + " is out of range [0, " + std::to_string(steps) + "]");
        Tensor& out = ctx.allocateOutput(0, x.dtype(), x.shape());
        if (out.size() == 0)
            return;
        const int64_t inner = x.size() / (batch * steps);
        const auto strides = stridesOf(x.shape());
        const int64_t batchStride = strides[static_cast<size_t>(m_batchAxis)];
        const int64_t timeStride = strides[static_cast<size_t>(m_timeAxis)];
        byElementSize(x.dtype(), [&]<class W>() {
            const W* in = words<W>(x);
            W* o = mutableWords<W>(out);
            for (int64_t b = 0; b < batch; ++b)
                for (int64_t t = 0; t < steps; ++t) {
                    const int64_t src = t < lens[static_cast<size_t>(b)] ? lens[static_cast<size_t>(b)] - 1 - t : t;
                    std::copy(in + b * batchStride + src * timeStride, in + b * batchStride + src * timeStride + inner,
                        o + b * batchStride + t * timeStride);
                }
        });
    }

private:
    int64_t m_batchAxis, m_timeAxis;
};

} // namespace

void registerReverseSequence(KernelRegistry& r)
{
    r.add("", "ReverseSequence", 10, 28, makeFactory<ReverseSequence>());
}

} // namespace onnxscope
