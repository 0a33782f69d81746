// SPDX-License-Identifier: MIT
#include "engine/kernels/common/element_copy.h"
#include "engine/kernels/kernel_registry.h"

#include <algorithm>
#include <vector>

namespace onnxscope {

namespace {

/// TensorScatter 24: a copy of past_cache with `update` written along `axis` (not 0, default -2) from
/// write_indices[batch] (default 0) on, per batch; "linear" mode needs the write to fit, "circular" wraps around the
/// axis. Every element type.
class TensorScatter final : public Kernel {
public:
    explicit TensorScatter(const KernelInit& init)
        : m_axis(init.attributes().getInt("axis", -2))
    {
        const std::string mode = init.attributes().getString("mode", "linear");
        if (mode != "linear" && mode != "circular")
            throw init.attributes().error("mode", "expected \"linear\" or \"circular\", got \"" + mode + "\"");
        m_circular = mode == "circular";
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& past = ctx.input(0);
        const Tensor& update = ctx.input(1);
        int64_t axis = 0;
        try {
            axis = normalizeAxis(m_axis, past.rank());
        } catch (const Error& e) {
            throw ctx.error(e.what());
        }
        if (axis == 0)
            throw ctx.error("axis must not be the batch axis 0");
        if (update.dtype() != past.dtype() || update.rank() != past.rank())
            throw ctx.error("update " + update.typeString() + " does not fit past_cache " + past.typeString());
        for (int64_t d = 0; d < past.rank(); ++d)
            if (d == axis ? update.dim(d) > past.dim(d) : update.dim(d) != past.dim(d))
                throw ctx.error("update " + shapeToString(update.shape()) + " does not fit past_cache "
                    + shapeToString(past.shape()) + " along axis " + std::to_string(d));
        const int64_t batch = past.dim(0), maxLen = past.dim(axis), len = update.dim(axis);
        std::vector<int64_t> starts(static_cast<size_t>(batch), 0);
        if (ctx.hasInput(2)) {
            const Tensor& w = ctx.input(2);
            if (w.dtype() != DataType::Int64 || w.shape() != Shape { batch })
                throw ctx.error(
                    "write_indices must be int64 of shape [" + std::to_string(batch) + "], got " + w.typeString());
            std::copy(w.data<int64_t>().begin(), w.data<int64_t>().end(), starts.begin());
        }
        for (const int64_t s : starts)
            if (s < 0 || (!m_circular && s + len > maxLen))
                throw ctx.error("write index " + std::to_string(s) + " with " + std::to_string(len)
                    + " updates does not fit the cache length " + std::to_string(maxLen));
        int64_t inner = 1, outerPerBatch = 1;
        for (int64_t d = axis + 1; d < past.rank(); ++d)
            inner *= past.dim(d);
        for (int64_t d = 1; d < axis; ++d)
            outerPerBatch *= past.dim(d);
        Tensor& out = ctx.allocateOutputUninitialized(0, past.dtype(), past.shape());
        dispatchByElementSize(past.dtype(), [&]<class W>() {
            const W* src = elementsOf<W>(past);
            const W* upd = elementsOf<W>(update);
            W* dst = mutableElementsOf<W>(out);
            std::copy(src, src + past.size(), dst);
            for (int64_t b = 0; b < batch; ++b)
                for (int64_t o = 0; o < outerPerBatch; ++o) {
                    const int64_t block = b * outerPerBatch + o;
                    for (int64_t i = 0; i < len; ++i) {
                        int64_t at = starts[static_cast<size_t>(b)] + i;
                        if (m_circular)
                            at %= maxLen;
                        std::copy_n(upd + (block * len + i) * inner, inner, dst + (block * maxLen + at) * inner);
                    }
                }
        });
    }

private:
    int64_t m_axis;
    bool m_circular = false;
};

} // namespace

void registerTensorScatter(KernelRegistry& r)
{
    r.add("", "TensorScatter", 24, 24, makeFactory<TensorScatter>());
}

} // namespace onnxscope
