// SPDX-License-Identifier: MIT
#include "engine/kernels/common/dispatch.h"
#include "engine/kernels/kernel_registry.h"
#include "engine/kernels/tensor/indexing.h"

#include <algorithm>
#include <cmath>
#include <optional>

namespace onnxscope {

namespace {

using namespace indexing;

/// Numpy's sort order: NaN after every number and equal to NaN; complex numbers by real part, then imaginary.
template <class T> bool sortLess(const T& x, const T& y)
{
    if constexpr (std::is_same_v<T, Complex64> || std::is_same_v<T, Complex128>) {
        if (sortLess(x.real(), y.real()))
            return true;
        if (sortLess(y.real(), x.real()))
            return false;
        return sortLess(x.imag(), y.imag());
    } else if constexpr (std::is_integral_v<T> || std::is_same_v<T, std::string>) {
        return x < y;
    } else {
        const double a = static_cast<double>(x), b = static_cast<double>(y);
        if (std::isnan(a))
            return false;
        return std::isnan(b) || a < b;
    }
}

/// Unique, opset 11, every element type, as numpy.unique(return_index, return_inverse, return_counts) does it:
/// Y holds the distinct elements of the flattened input, or with `axis` the distinct slices along that axis
/// (compared lexicographically); sorted ascending, or (sorted=0) in order of first occurrence. indices: first
/// occurrence of each; inverse_indices: for each input element (or slice) its position in Y; counts: occurrences.
/// All NaNs count as one value, as in numpy 1.21+.
class Unique final : public Kernel {
public:
    explicit Unique(const KernelInit& init)
        : m_sorted(init.attributes().getInt("sorted", 1) != 0)
    {
        if (init.attributes().has("axis"))
            m_axis = init.attributes().getInt("axis", 0);
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& data = ctx.input(0);
        int64_t axis = 0;
        Tensor view = data;
        if (m_axis) {
            if (data.rank() == 0)
                throw ctx.error("attribute 'axis' is given but the input is a scalar");
            try {
                axis = normalizeAxis(*m_axis, data.rank());
            } catch (const Error& e) {
                throw ctx.error(e.what());
            }
        } else {
            view = data.reshaped({ data.size() });
        }
        const int64_t n = view.dim(axis);
        int64_t outer = 1, inner = 1;
        for (int64_t d = 0; d < axis; ++d)
            outer *= view.dim(d);
        for (int64_t d = axis + 1; d < view.rank(); ++d)
            inner *= view.dim(d);

        // order: item numbers sorted (stably) by their slices; group[i]: the unique group of sorted position i.
        std::vector<int64_t> order(static_cast<size_t>(n));
        for (int64_t i = 0; i < n; ++i)
            order[static_cast<size_t>(i)] = i;
        std::vector<bool> startsGroup(static_cast<size_t>(n), true);
        dispatch<AllTypes>(data.dtype(), ctx.node(), [&]<class T>() {
            auto in = view.data<T>();
            auto less = [&](int64_t x, int64_t y) {
                for (int64_t b = 0; b < outer; ++b)
                    for (int64_t j = 0; j < inner; ++j) {
                        const T& vx = in[static_cast<size_t>((b * n + x) * inner + j)];
                        const T& vy = in[static_cast<size_t>((b * n + y) * inner + j)];
                        if (sortLess(vx, vy))
                            return true;
                        if (sortLess(vy, vx))
                            return false;
                    }
                return false;
            };
            std::stable_sort(order.begin(), order.end(), less);
            for (size_t i = 1; i < order.size(); ++i)
                startsGroup[i] = less(order[i - 1], order[i]);
        });

        // Groups in sorted order: first occurrence (the stable sort puts it first), count, members.
        std::vector<int64_t> first, counts, groupOf(static_cast<size_t>(n));
        for (size_t i = 0; i < order.size(); ++i) {
            if (startsGroup[i]) {
                first.push_back(order[i]);
                counts.push_back(0);
            }
            ++counts.back();
            groupOf[static_cast<size_t>(order[i])] = static_cast<int64_t>(first.size()) - 1;
        }
        const int64_t groups = static_cast<int64_t>(first.size());
        std::vector<int64_t> position(static_cast<size_t>(groups)); // group -> index in Y
        std::vector<int64_t> byPosition(static_cast<size_t>(groups)); // index in Y -> group
        for (int64_t g = 0; g < groups; ++g)
            byPosition[static_cast<size_t>(g)] = g;
        if (!m_sorted)
            std::sort(byPosition.begin(), byPosition.end(),
                [&](int64_t a, int64_t b) { return first[static_cast<size_t>(a)] < first[static_cast<size_t>(b)]; });
        for (int64_t p = 0; p < groups; ++p)
            position[static_cast<size_t>(byPosition[static_cast<size_t>(p)])] = p;

        Shape yShape = view.shape();
        yShape[static_cast<size_t>(axis)] = groups;
        Tensor& y = ctx.allocateOutput(0, data.dtype(), yShape);
        byElementSize(data.dtype(), [&]<class W>() {
            const W* in = words<W>(view);
            W* o = mutableWords<W>(y);
            for (int64_t b = 0; b < outer; ++b)
                for (int64_t p = 0; p < groups; ++p) {
                    const W* src
                        = in + (b * n + first[static_cast<size_t>(byPosition[static_cast<size_t>(p)])]) * inner;
                    std::copy(src, src + inner, o + (b * groups + p) * inner);
                }
        });
        if (ctx.hasOutput(1)) {
            auto o = ctx.allocateOutput(1, DataType::Int64, { groups }).data<int64_t>();
            for (int64_t p = 0; p < groups; ++p)
                o[static_cast<size_t>(p)] = first[static_cast<size_t>(byPosition[static_cast<size_t>(p)])];
        }
        if (ctx.hasOutput(2)) {
            auto o = ctx.allocateOutput(2, DataType::Int64, { n }).data<int64_t>();
            for (int64_t i = 0; i < n; ++i)
                o[static_cast<size_t>(i)] = position[static_cast<size_t>(groupOf[static_cast<size_t>(i)])];
        }
        if (ctx.hasOutput(3)) {
            auto o = ctx.allocateOutput(3, DataType::Int64, { groups }).data<int64_t>();
            for (int64_t p = 0; p < groups; ++p)
                o[static_cast<size_t>(p)] = counts[static_cast<size_t>(byPosition[static_cast<size_t>(p)])];
        }
    }

private:
    bool m_sorted;
    std::optional<int64_t> m_axis;
};

} // namespace

void registerUnique(KernelRegistry& r)
{
    r.add("", "Unique", 11, 28, makeFactory<Unique>());
}

} // namespace onnxscope
