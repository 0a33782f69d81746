// SPDX-License-Identifier: MIT
#include "engine/kernels/common/broadcast.h"
#include "engine/kernels/common/dispatch.h"
#include "engine/kernels/common/elementwise.h"
#include "engine/kernels/kernel_registry.h"

namespace onnxscope {

namespace {

/// BitShift 11: X shifted by Y bits (numpy broadcasting), uint8, uint16, uint32, uint64. `direction` is required,
/// "LEFT" or "RIGHT". A shift by the element width or more gives 0 (in C++ it would be undefined).
class BitShift final : public Kernel {
public:
    explicit BitShift(const KernelInit& init)
    {
        const std::string dir = init.attributes().requireString("direction");
        if (dir != "LEFT" && dir != "RIGHT")
            throw init.attributes().error("direction", "expected \"LEFT\" or \"RIGHT\", got \"" + dir + "\"");
        m_left = dir == "LEFT";
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        const Tensor& y = ctx.input(1);
        if (x.dtype() != y.dtype())
            throw typeMismatch(ctx, x, y);
        Shape outShape;
        try {
            outShape = broadcastShapes(x.shape(), y.shape());
        } catch (const Error& e) {
            throw ctx.error(e.what());
        }
        Tensor& out = ctx.allocateOutput(0, x.dtype(), outShape);
        dispatch<UnsignedIntTypes>(x.dtype(), ctx.node(), [&]<class T>() {
            constexpr T bits = static_cast<T>(sizeof(T) * 8);
            if (m_left)
                broadcastBinary<T, T, T>(x, y, out, [](T v, T s) { return s >= bits ? T(0) : static_cast<T>(v << s); });
            else
                broadcastBinary<T, T, T>(x, y, out, [](T v, T s) { return s >= bits ? T(0) : static_cast<T>(v >> s); });
        });
    }

private:
    bool m_left = true;
};

} // namespace

void registerBitShift(KernelRegistry& r)
{
    r.add("", "BitShift", 11, 11, makeFactory<BitShift>());
}

} // namespace onnxscope
