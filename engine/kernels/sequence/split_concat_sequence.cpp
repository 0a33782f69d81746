// SPDX-License-Identifier: MIT
#include "engine/kernels/common/element_copy.h"
#include "engine/kernels/kernel_registry.h"

#include <algorithm>

namespace onnxscope {

namespace {

/// Rows [start, start + count) of `t` along `axis`, keeping the axis.
Tensor rangeAlongAxis(const Tensor& t, int64_t axis, int64_t start, int64_t count)
{
    Shape shape = t.shape();
    const int64_t n = shape[static_cast<size_t>(axis)];
    int64_t outer = 1, inner = 1;
    for (int64_t i = 0; i < axis; ++i)
        outer *= shape[static_cast<size_t>(i)];
    for (int64_t i = axis + 1; i < t.rank(); ++i)
        inner *= shape[static_cast<size_t>(i)];
    shape[static_cast<size_t>(axis)] = count;
    Tensor out(t.dtype(), shape);
    dispatchByElementSize(t.dtype(), [&]<class W>() {
        const W* src = elementsOf<W>(t);
        W* dst = mutableElementsOf<W>(out);
        for (int64_t o = 0; o < outer; ++o)
            std::copy_n(src + (o * n + start) * inner, count * inner, dst + o * count * inner);
    });
    return out;
}

/// SplitToSequence-11: splits along `axis` into equal parts of size `split` (a scalar; the last part may be
/// shorter), into the sizes of a 1-D `split`, or, without `split`, into parts of size 1 that are squeezed unless
/// keepdims=1.
class SplitToSequence final : public Kernel {
public:
    explicit SplitToSequence(const KernelInit& init)
        : m_axis(init.attributes().getInt("axis", 0))
        , m_keepDims(init.attributes().getInt("keepdims", 1) != 0)
    {
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& in = ctx.input(0);
        if (in.rank() == 0)
            throw ctx.error("cannot split a scalar");
        int64_t axis;
        try {
            axis = normalizeAxis(m_axis, in.rank());
        } catch (const Error& e) {
            throw ctx.error(e.what());
        }
        const int64_t n = in.dim(axis);
        std::vector<int64_t> sizes;
        bool squeeze = false;
        if (ctx.hasInput(1)) {
            const Tensor& s = ctx.input(1);
            if (s.dtype() != DataType::Int64 && s.dtype() != DataType::Int32)
                throw ctx.error("split must be int32 or int64, got " + s.typeString());
            if (s.rank() == 0) {
                int64_t size = static_cast<int64_t>(s.toDouble(0));
                if (size <= 0)
                    throw ctx.error("split size must be positive, got " + std::to_string(size));
                for (int64_t p = 0; p < n; p += size)
                    sizes.push_back(std::min(size, n - p));
            } else {
                int64_t total = 0;
                for (int64_t i = 0; i < s.size(); ++i) {
                    int64_t v = static_cast<int64_t>(s.toDouble(i));
                    if (v < 0)
                        throw ctx.error("split sizes must not be negative");
                    sizes.push_back(v);
                    total += v;
                }
                if (total != n)
                    throw ctx.error("split sizes add up to " + std::to_string(total) + " but axis "
                        + std::to_string(axis) + " has " + std::to_string(n));
            }
        } else {
            sizes.assign(static_cast<size_t>(n), 1);
            squeeze = !m_keepDims;
        }
        Sequence seq { in.dtype(), {} };
        int64_t start = 0;
        for (int64_t size : sizes) {
            Tensor part = rangeAlongAxis(in, axis, start, size);
            if (squeeze) {
                Shape s = part.shape();
                s.erase(s.begin() + axis);
                part = part.reshaped(s);
            }
            seq.items.emplace_back(std::move(part));
            start += size;
        }
        ctx.setOutput(0, Value(std::move(seq)));
    }

private:
    int64_t m_axis;
    bool m_keepDims;
};

/// ConcatFromSequence-11: concatenates the sequence's tensors along `axis`, or stacks them along a new axis when
/// new_axis=1 (then axis may be in [-rank-1, rank]).
class ConcatFromSequence final : public Kernel {
public:
    explicit ConcatFromSequence(const KernelInit& init)
        : m_axis(init.attributes().requireInt("axis"))
        , m_newAxis(init.attributes().getInt("new_axis", 0) != 0)
    {
    }

    void compute(KernelContext& ctx) const override
    {
        const Sequence& seq = ctx.inputValue(0).sequence(ctx.node().label() + ": input 0");
        if (seq.items.empty())
            throw ctx.error("cannot concatenate an empty sequence");
        std::vector<Tensor> parts;
        for (const auto& item : seq.items)
            parts.push_back(item.tensor(ctx.node().label() + ": sequence item"));
        const Tensor& first = parts[0];
        const int64_t rank = first.rank() + (m_newAxis ? 1 : 0);
        int64_t axis;
        try {
            axis = normalizeAxis(m_axis, rank);
        } catch (const Error& e) {
            throw ctx.error(e.what());
        }
        if (m_newAxis)
            for (auto& p : parts) {
                Shape s = p.shape();
                s.insert(s.begin() + axis, 1);
                p = p.reshaped(s);
            }
        Shape outShape = parts[0].shape();
        int64_t total = 0;
        for (const auto& p : parts) {
            if (p.dtype() != first.dtype() || p.rank() != parts[0].rank())
                throw ctx.error(
                    "sequence items " + first.typeString() + " and " + p.typeString() + " cannot be joined");
            for (int64_t d = 0; d < p.rank(); ++d)
                if (d != axis && p.dim(d) != parts[0].dim(d))
                    throw ctx.error("sequence items " + parts[0].typeString() + " and " + p.typeString()
                        + " differ outside axis " + std::to_string(axis));
            total += p.dim(axis);
        }
        outShape[static_cast<size_t>(axis)] = total;
        Tensor& out = ctx.allocateOutput(0, first.dtype(), outShape);
        int64_t outer = 1, inner = 1;
        for (int64_t i = 0; i < axis; ++i)
            outer *= outShape[static_cast<size_t>(i)];
        for (int64_t i = axis + 1; i < static_cast<int64_t>(outShape.size()); ++i)
            inner *= outShape[static_cast<size_t>(i)];
        dispatchByElementSize(first.dtype(), [&]<class W>() {
            W* dst = mutableElementsOf<W>(out);
            int64_t offset = 0;
            for (const auto& p : parts) {
                const W* src = elementsOf<W>(p);
                const int64_t rows = p.dim(axis);
                for (int64_t o = 0; o < outer; ++o)
                    std::copy_n(src + o * rows * inner, rows * inner, dst + (o * total + offset) * inner);
                offset += rows;
            }
        });
    }

private:
    int64_t m_axis;
    bool m_newAxis;
};

} // namespace

void registerSplitConcatSequence(KernelRegistry& r)
{
    r.add("", "SplitToSequence", 11, 24, makeFactory<SplitToSequence>());
    r.add("", "ConcatFromSequence", 11, 11, makeFactory<ConcatFromSequence>());
}

} // namespace onnxscope
