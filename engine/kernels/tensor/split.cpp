// SPDX-License-Identifier: MIT
#include "engine/kernels/kernel_registry.h"
#include "engine/kernels/tensor/indexing.h"

namespace onnxscope {

namespace {

using namespace indexing;

/// Split, every version (1, 2, 11, 13, 18), every element type. The part sizes come from the `split` attribute
/// (opsets 1-12; opset 1 also accepts it as a second input) or the `split` input (13+); without them the axis is
/// cut into as many equal parts as the node has outputs (which must divide it), or, from opset 18, into
/// `num_outputs` parts of ceil(dim / num_outputs) with a smaller last part.
class Split final : public Kernel {
public:
    explicit Split(const KernelInit& init)
        : m_opset(init.opset())
    {
        const auto& a = init.attributes();
        m_axis = a.getInt("axis", 0);
        if (m_opset < 13 && a.has("split"))
            m_split = a.getInts("split");
        if (m_opset >= 18 && a.has("num_outputs")) {
            m_numOutputs = a.getInt("num_outputs", 0);
            if (m_numOutputs < 1)
                throw init.error("attribute 'num_outputs' must be positive, got " + std::to_string(m_numOutputs));
            if (static_cast<size_t>(m_numOutputs) != init.node.outputs.size())
                throw init.error("attribute 'num_outputs' is " + std::to_string(m_numOutputs) + " but the node has "
                    + std::to_string(init.node.outputs.size()) + " outputs");
        }
        m_outputs = static_cast<int64_t>(init.node.outputs.size());
        if (m_outputs < 1)
            throw init.error("the node has no outputs");
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& data = ctx.input(0);
        int64_t axis;
        try {
            axis = normalizeAxis(m_axis, data.rank());
        } catch (const Error& e) {
            throw ctx.error(e.what());
        }
        if (data.rank() == 0)
            throw ctx.error("cannot split a scalar");
        const int64_t dim = data.dim(axis);

        std::vector<int64_t> parts = m_split;
        if ((m_opset >= 13 || m_opset == 1) && ctx.hasInput(1)) {
            if (m_numOutputs > 0)
                throw ctx.error("input 'split' and attribute 'num_outputs' cannot both be given");
            parts = intListInput(ctx, 1, "input 'split'");
        }
        if (parts.empty()) {
            if (m_numOutputs > 0) {
                const int64_t chunk = (dim + m_numOutputs - 1) / m_numOutputs;
                int64_t left = dim;
                for (int64_t i = 0; i < m_numOutputs; ++i) {
                    parts.push_back(std::min(chunk, left));
                    left -= parts.back();
                }
            } else {
                if (dim % m_outputs != 0)
                    throw ctx.error("dimension " + std::to_string(axis) + " of " + data.typeString()
                        + " cannot be split into " + std::to_string(m_outputs) + " equal parts");
                parts.assign(static_cast<size_t>(m_outputs), dim / m_outputs);
            }
        }
        if (static_cast<int64_t>(parts.size()) != m_outputs)
            throw ctx.error("split has " + std::to_string(parts.size()) + " parts but the node has "
                + std::to_string(m_outputs) + " outputs");
        int64_t total = 0;
        for (int64_t p : parts) {
            if (p < 0)
                throw ctx.error("split has a negative part size " + std::to_string(p));
            if (__builtin_add_overflow(total, p, &total))
                throw ctx.error("split sizes " + shapeToString(parts) + " overflow int64");
        }
        if (total != dim)
            throw ctx.error("split sizes add up to " + std::to_string(total) + " but dimension " + std::to_string(axis)
                + " of " + data.typeString() + " is " + std::to_string(dim));

        int64_t outer = 1, inner = 1;
        for (int64_t d = 0; d < axis; ++d)
            outer *= data.dim(d);
        for (int64_t d = axis + 1; d < data.rank(); ++d)
            inner *= data.dim(d);
        int64_t offset = 0;
        for (size_t i = 0; i < parts.size(); ++i) {
            Shape shape = data.shape();
            shape[static_cast<size_t>(axis)] = parts[i];
            Tensor& out = ctx.allocateOutput(i, data.dtype(), shape);
            byElementSize(data.dtype(), [&]<class W>() {
                const W* in = words<W>(data);
                W* o = mutableWords<W>(out);
                const int64_t block = parts[i] * inner;
                for (int64_t b = 0; b < outer; ++b)
                    std::copy(in + b * dim * inner + offset * inner, in + b * dim * inner + offset * inner + block,
                        o + b * block);
            });
            offset += parts[i];
        }
    }

private:
    int64_t m_opset;
    int64_t m_axis = 0;
    int64_t m_numOutputs = 0;
    int64_t m_outputs = 0;
    std::vector<int64_t> m_split;
};

} // namespace

void registerSplit(KernelRegistry& r)
{
    r.add("", "Split", 1, 18, makeFactory<Split>());
}

} // namespace onnxscope
