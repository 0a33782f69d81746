// SPDX-License-Identifier: MIT
#include "engine/kernels/kernel_registry.h"
#include "engine/kernels/tensor/indexing.h"

namespace onnxscope {

namespace {

using namespace indexing;

/// SpaceToDepth (opsets 1, 13, 28 with mode DCR/CRD) and DepthToSpace (opsets 1, 11 with mode DCR/CRD, 13, 28), every
/// element type, on [N, C, H, W] inputs. Both are a reshape to 6-D, a transpose and a reshape, done here as one strided
/// copy.
class SpaceDepth final : public Kernel {
public:
    SpaceDepth(const KernelInit& init, bool toDepth)
        : m_toDepth(toDepth)
    {
        m_block = init.attributes().requireInt("blocksize");
        if (m_block < 1)
            throw init.attributes().error("blocksize", "must be positive, got " + std::to_string(m_block));
        if (init.opset() >= (toDepth ? 28 : 11)) {
            const std::string mode = init.attributes().getString("mode", "DCR");
            if (mode != "DCR" && mode != "CRD")
                throw init.attributes().error("mode", "expected DCR or CRD, got \"" + mode + "\"");
            m_crd = mode == "CRD";
        }
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        if (x.rank() != 4)
            throw ctx.error("input must be 4-D [N, C, H, W], got " + x.typeString());
        const int64_t n = x.dim(0), c = x.dim(1), h = x.dim(2), w = x.dim(3), b = m_block;
        int64_t bb = 0, depth = 0;
        if (__builtin_mul_overflow(b, b, &bb) || (m_toDepth && __builtin_mul_overflow(c, bb, &depth)))
            throw ctx.error("blocksize " + std::to_string(b) + " is too large for " + x.typeString());
        Shape view; // the 6-D input view
        std::vector<int> perm; // output dims of the transposed view, as input view dims
        Shape outShape;
        if (m_toDepth) {
            if (h % b || w % b)
                throw ctx.error(
                    "H and W of " + x.typeString() + " must be multiples of blocksize " + std::to_string(b));
            view = { n, c, h / b, b, w / b, b };
            perm = m_crd ? std::vector<int> { 0, 1, 3, 5, 2, 4 } : std::vector<int> { 0, 3, 5, 1, 2, 4 };
            outShape = { n, depth, h / b, w / b };
        } else {
            if (c % bb)
                throw ctx.error(
                    "C of " + x.typeString() + " must be a multiple of blocksize^2 = " + std::to_string(bb));
            const int64_t cc = c / bb;
            if (m_crd) {
                view = { n, cc, b, b, h, w };
                perm = { 0, 1, 4, 2, 5, 3 };
            } else {
                view = { n, b, b, cc, h, w };
                perm = { 0, 3, 4, 1, 5, 2 };
            }
            try {
                outShape = { n, cc, checkedMul(h, b), checkedMul(w, b) };
            } catch (const Error& e) {
                throw ctx.error(e.what());
            }
        }
        Tensor& out = ctx.allocateOutput(0, x.dtype(), outShape);
        if (out.size() == 0)
            return;
        const auto viewStrides = stridesOf(view);
        Shape tShape(6);
        std::vector<int64_t> tStrides(6);
        for (size_t i = 0; i < 6; ++i) {
            tShape[i] = view[static_cast<size_t>(perm[i])];
            tStrides[i] = viewStrides[static_cast<size_t>(perm[i])];
        }
        byElementSize(
            x.dtype(), [&]<class W>() { stridedCopy(words<W>(x), mutableWords<W>(out), tShape, tStrides, 0); });
    }

private:
    bool m_toDepth;
    bool m_crd = false;
    int64_t m_block = 1;
};

} // namespace

void registerSpaceDepth(KernelRegistry& r)
{
    r.add("", "SpaceToDepth", 1, 28,
        [](const KernelInit& init) -> std::unique_ptr<Kernel> { return std::make_unique<SpaceDepth>(init, true); });
    r.add("", "DepthToSpace", 1, 28,
        [](const KernelInit& init) -> std::unique_ptr<Kernel> { return std::make_unique<SpaceDepth>(init, false); });
}

} // namespace onnxscope
