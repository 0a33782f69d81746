// SPDX-License-Identifier: MIT
#include "engine/kernels/common/broadcast.h"
#include "engine/kernels/common/dispatch.h"
#include "engine/kernels/common/elementwise.h"
#include "engine/kernels/kernel_registry.h"

#include <type_traits>

namespace onnxscope {

namespace {

template <class T> bool isNegative(T v)
{
    if constexpr (std::is_signed_v<T>)
        return v < 0;
    else
        return false;
}

template <class T> bool outOfRange(T shift, T bits)
{
    return isNegative(shift) || shift >= bits;
}

/// BitShift 11, 28: X shifted by Y bits (numpy broadcasting). `direction` is required, "LEFT" or "RIGHT". 11: uint8,
/// uint16, uint32, uint64; 28 adds int8, int16, int32, int64, where a right shift is arithmetic (sign-extending) and
/// a left shift drops the bits shifted past the sign bit. A shift by a negative amount or by the element width or
/// more gives what the sign fill alone gives: -1 for a right shift of a negative X, else 0.
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
        Tensor& out = allocateBinaryOutput(ctx, x, y);
        if (ctx.node().opset < 28 && isSignedInteger(x.dtype()))
            throw ctx.error("signed element types need opset 28, got " + x.typeString());
        dispatch<IntTypes>(x.dtype(), ctx.node(), [&]<class T>() {
            using U = std::make_unsigned_t<T>;
            constexpr T bits = static_cast<T>(sizeof(T) * 8);
            if (m_left)
                broadcastBinary<T, T, T>(x, y, out,
                    [](T v, T s) { return outOfRange(s, bits) ? T(0) : static_cast<T>(static_cast<U>(v) << s); });
            else
                broadcastBinary<T, T, T>(x, y, out, [](T v, T s) {
                    if (outOfRange(s, bits))
                        return isNegative(v) ? static_cast<T>(-1) : T(0);
                    return static_cast<T>(v >> s); // arithmetic for signed T (C++20)
                });
        });
    }

private:
    bool m_left = true;
};

} // namespace

void registerBitShift(KernelRegistry& r)
{
    r.add("", "BitShift", 11, 28, makeFactory<BitShift>());
}

} // namespace onnxscope
