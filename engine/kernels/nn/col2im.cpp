// SPDX-License-Identifier: MIT
#include "engine/kernels/common/dispatch.h"
#include "engine/kernels/common/int_input.h"
#include "engine/kernels/kernel_registry.h"

namespace onnxscope {

namespace {

/// Col2Im 18: the inverse of im2col. Input [N, C * prod(block_shape), L] holds, for each of the L sliding blocks
/// (row-major over the block grid), the block's C * prod(block_shape) values; they are summed into an image [N, C,
/// image_shape...] (the overlaps add up). Inputs 1 and 2 (int64) give image_shape and block_shape; `dilations`,
/// `pads` (begin values then end values) and `strides` as in Conv. Any number of spatial dimensions. float, double,
/// float16, bfloat16 (summed in the element type's maths type), int32, int64.
class Col2Im final : public Kernel {
public:
    explicit Col2Im(const KernelInit& init)
    {
        const auto& a = init.attributes();
        m_dilations = a.getInts("dilations");
        m_pads = a.getInts("pads");
        m_strides = a.getInts("strides");
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        const std::vector<int64_t> image = readIntList(ctx, 1, "image_shape");
        const std::vector<int64_t> block = readIntList(ctx, 2, "block_shape");
        const size_t dims = image.size();
        if (block.size() != dims || dims == 0)
            throw ctx.error("image_shape and block_shape must have the same, non-zero length");
        const std::vector<int64_t> dil = m_dilations.empty() ? std::vector<int64_t>(dims, 1) : m_dilations;
        const std::vector<int64_t> str = m_strides.empty() ? std::vector<int64_t>(dims, 1) : m_strides;
        const std::vector<int64_t> pads = m_pads.empty() ? std::vector<int64_t>(2 * dims, 0) : m_pads;
        if (dil.size() != dims || str.size() != dims || pads.size() != 2 * dims)
            throw ctx.error(
                "dilations and strides need " + std::to_string(dims) + " values and pads " + std::to_string(2 * dims));
        if (x.rank() != 3)
            throw ctx.error("input must be 3-D [N, C * prod(block_shape), L], got " + x.typeString());
        int64_t blockSize = 1, blocks = 1;
        std::vector<int64_t> grid(dims);
        for (size_t d = 0; d < dims; ++d) {
            if (block[d] < 1 || image[d] < 0 || dil[d] < 1 || str[d] < 1)
                throw ctx.error("block_shape, dilations and strides must be positive, image_shape not negative");
            blockSize *= block[d];
            grid[d] = (image[d] + pads[d] + pads[d + dims] - dil[d] * (block[d] - 1) - 1) / str[d] + 1;
            if (grid[d] < 1)
                throw ctx.error("the blocks do not fit in the padded image along spatial axis " + std::to_string(d));
            blocks *= grid[d];
        }
        if (x.dim(1) % blockSize || x.dim(2) != blocks)
            throw ctx.error("input " + x.typeString() + " does not match " + std::to_string(blocks) + " blocks of size "
                + std::to_string(blockSize));
        const int64_t n = x.dim(0), c = x.dim(1) / blockSize;
        Shape outShape { n, c };
        int64_t plane = 1;
        for (int64_t v : image) {
            outShape.push_back(v);
            plane *= v;
        }
        Tensor& y = ctx.allocateOutput(0, x.dtype(), outShape);
        dispatch<TypeList<float, double, Float16, BFloat16, int32_t, int64_t>>(x.dtype(), ctx.node(), [&]<class T>() {
            using A = std::conditional_t<std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>, float, T>;
            std::vector<A> acc(static_cast<size_t>(plane));
            const T* in = x.data<T>().data();
            T* out = y.data<T>().data();
            std::vector<int64_t> k(dims), b(dims);
            for (int64_t nc = 0; nc < n * c; ++nc) {
                std::fill(acc.begin(), acc.end(), A(0));
                for (int64_t kk = 0; kk < blockSize; ++kk) {
                    for (int64_t r = kk, d = static_cast<int64_t>(dims) - 1; d >= 0; --d) {
                        k[static_cast<size_t>(d)] = r % block[static_cast<size_t>(d)];
                        r /= block[static_cast<size_t>(d)];
                    }
                    const T* row = in + (nc * blockSize + kk) * blocks;
                    for (int64_t bb = 0; bb < blocks; ++bb) {
                        int64_t at = 0;
                        bool inside = true;
                        for (int64_t r = bb, d = static_cast<int64_t>(dims) - 1; d >= 0; --d) {
                            const auto u = static_cast<size_t>(d);
                            b[u] = r % grid[u];
                            r /= grid[u];
                        }
                        for (size_t d = 0; d < dims && inside; ++d) {
                            const int64_t p = b[d] * str[d] - pads[d] + k[d] * dil[d];
                            inside = p >= 0 && p < image[d];
                            at = at * image[d] + p;
                        }
                        if (inside)
                            acc[static_cast<size_t>(at)] += static_cast<A>(row[bb]);
                    }
                }
                for (int64_t i = 0; i < plane; ++i)
                    out[nc * plane + i] = static_cast<T>(acc[static_cast<size_t>(i)]);
            }
        });
    }

private:
    std::vector<int64_t> m_dilations, m_pads, m_strides;
};

} // namespace

void registerCol2Im(KernelRegistry& r)
{
    r.add("", "Col2Im", 18, 18, makeFactory<Col2Im>());
}

} // namespace onnxscope
