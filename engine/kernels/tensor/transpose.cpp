// SPDX-License-Identifier: MIT
#include "engine/kernels/common/element_copy.h"
#include "engine/kernels/kernel_registry.h"

#include <algorithm>
#include <numeric>

namespace onnxscope {

namespace {

/// Transpose 1, 13: output dimension i is input dimension perm[i]; perm defaults to the reversed axes. Any element
/// type. Dimensions of size 1 are dropped and axes that stay adjacent are merged first, so the copy runs on the
/// smallest equivalent problem: whole rows when the last axis stays last, otherwise 2-D tiles over the last two
/// output axes (cache-friendly on both sides) under an odometer over the others.
class Transpose final : public Kernel {
public:
    explicit Transpose(const KernelInit& init)
    {
        if (init.attributes().has("perm")) {
            m_perm = init.attributes().getInts("perm");
            m_hasPerm = true;
            std::vector<int64_t> sorted = m_perm;
            std::sort(sorted.begin(), sorted.end());
            for (size_t i = 0; i < sorted.size(); ++i)
                if (sorted[i] != static_cast<int64_t>(i))
                    throw init.error("attribute 'perm' " + shapeToString(m_perm) + " is not a permutation of 0.."
                        + std::to_string(static_cast<int64_t>(m_perm.size()) - 1));
        }
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        const size_t rank = x.shape().size();
        std::vector<int64_t> perm = m_perm;
        if (!m_hasPerm) {
            perm.resize(rank);
            std::iota(perm.rbegin(), perm.rend(), int64_t(0));
        } else if (perm.size() != rank) {
            throw ctx.error("attribute 'perm' " + shapeToString(perm) + " has " + std::to_string(perm.size())
                + " axes, the input " + shapeToString(x.shape()) + " has " + std::to_string(rank));
        }
        Shape outShape(rank);
        for (size_t i = 0; i < rank; ++i)
            outShape[i] = x.shape()[static_cast<size_t>(perm[i])];
        Tensor& out = ctx.allocateOutput(0, x.dtype(), outShape);
        if (x.size() == 0)
            return;

        // Reduce: drop size-1 axes, then merge output axes whose input axes are adjacent and in order.
        std::vector<int64_t> keep(rank, -1);
        Shape inShape;
        for (size_t d = 0; d < rank; ++d)
            if (x.shape()[d] != 1) {
                keep[d] = static_cast<int64_t>(inShape.size());
                inShape.push_back(x.shape()[d]);
            }
        std::vector<int64_t> p;
        for (size_t i = 0; i < rank; ++i)
            if (keep[static_cast<size_t>(perm[i])] >= 0)
                p.push_back(keep[static_cast<size_t>(perm[i])]);
        const std::vector<int64_t> inStrides = stridesOf(inShape);
        std::vector<int64_t> dims, strides; // per reduced output axis: size and input stride
        for (size_t i = 0; i < p.size(); ++i) {
            const int64_t d = inShape[static_cast<size_t>(p[i])], s = inStrides[static_cast<size_t>(p[i])];
            if (i > 0 && p[i] == p[i - 1] + 1) {
                dims.back() *= d;
                strides.back() = s;
            } else {
                dims.push_back(d);
                strides.push_back(s);
            }
        }
        dispatchByElementSize(
            x.dtype(), [&]<class W>() { copy<W>(elementsOf<W>(x), mutableElementsOf<W>(out), dims, strides); });
    }

private:
    template <class W>
    static void copy(const W* in, W* out, const std::vector<int64_t>& dims, const std::vector<int64_t>& strides)
    {
        const size_t r = dims.size();
        if (r <= 1) {
            std::copy(in, in + (r ? dims[0] : 1), out);
            return;
        }
        if (strides[r - 1] == 1) {
            // The last axis stays innermost: copy whole rows.
            const int64_t row = dims[r - 1];
            odometer(dims, strides, r - 1, [&](int64_t off, int64_t& o) {
                std::copy(in + off, in + off + row, out + o);
                o += row;
            });
            return;
        }
        constexpr int64_t kTile = 32;
        const int64_t rows = dims[r - 2], cols = dims[r - 1];
        const int64_t rs = strides[r - 2], cs = strides[r - 1];
        odometer(dims, strides, r - 2, [&](int64_t off, int64_t& o) {
            for (int64_t i0 = 0; i0 < rows; i0 += kTile)
                for (int64_t j0 = 0; j0 < cols; j0 += kTile) {
                    const int64_t i1 = std::min(i0 + kTile, rows), j1 = std::min(j0 + kTile, cols);
                    for (int64_t i = i0; i < i1; ++i)
                        for (int64_t j = j0; j < j1; ++j)
                            out[o + i * cols + j] = in[off + i * rs + j * cs];
                }
            o += rows * cols;
        });
    }

    /// Calls f(input offset, output offset) for every index of the first `outer` output axes, in row-major order.
    template <class F>
    static void odometer(const std::vector<int64_t>& dims, const std::vector<int64_t>& strides, size_t outer, F f)
    {
        std::vector<int64_t> index(outer, 0);
        int64_t off = 0, o = 0;
        for (;;) {
            f(off, o);
            size_t d = outer;
            for (; d-- > 0;) {
                off += strides[d];
                if (++index[d] < dims[d])
                    break;
                off -= strides[d] * dims[d];
                index[d] = 0;
            }
            if (d == static_cast<size_t>(-1))
                return;
        }
    }

    bool m_hasPerm = false;
    std::vector<int64_t> m_perm;
};

} // namespace

void registerTranspose(KernelRegistry& r)
{
    r.add("", "Transpose", 1, 25, makeFactory<Transpose>());
}

} // namespace onnxscope
