// SPDX-License-Identifier: MIT
#include "engine/kernels/kernel_registry.h"
#include "engine/kernels/quant/qlinear_common.h"

#include <cmath>
#include <limits>

namespace onnxscope {

namespace {

/// QLinearSoftmax (com.microsoft 1): the Softmax of a uint8 or int8 tensor, requantized, as onnxruntime computes
/// it. `opset` (required) is the Softmax version it replaced: below 13 the input is seen as a matrix [N, D] split
/// at `axis`; from 13 the softmax runs along `axis` alone. `axis` defaults to -1 at every opset (the schema's
/// default, which onnxruntime applies; Softmax below 13 defaulted to 1). In each row, with m its
/// largest value, e(x) = exp((x - m) * X_scale + s) in double rounded to float, where the shift s =
/// max(0, ln(FLT_MAX / D) - 5) keeps the sum of D terms finite; Y = round_half_even(e(x) * floor(1 / y_scale) /
/// sum e) + y_zero_point, the sum and the quotient in float. X's zero point cancels out; y_scale enters only as
/// floor(1 / y_scale), as in onnxruntime. Y saturates to its type (onnxruntime wraps an int8 result above 127, e.g.
/// one element taking the whole row with y_scale 1/256 and y_zero_point -128: 128 becomes -128; this kernel gives
/// 127).
class QLinearSoftmax final : public Kernel {
public:
    explicit QLinearSoftmax(const KernelInit& init)
    {
        const auto& a = init.attributes();
        if (!a.has("opset"))
            throw a.error("opset", "is required (the version of the Softmax it replaced)");
        m_opset = a.requireInt("opset");
        m_axis = a.getInt("axis", -1); // the schema's default at every `opset`, as onnxruntime reads it
    }

    void compute(KernelContext& ctx) const override
    {
        const DataType t = qlinear::requireByteType(ctx, 0, "X");
        const Tensor& x = ctx.input(0);
        const qlinear::Params px = qlinear::params(ctx, 1, 2, t, "X");
        const qlinear::Params py = qlinear::params(ctx, 3, 4, t, "Y");
        Tensor& y = ctx.allocateOutputUninitialized(0, t, x.shape());
        if (x.size() == 0)
            return;
        int64_t axis;
        try {
            axis = normalizeAxis(m_axis, x.rank());
        } catch (const Error& e) {
            throw ctx.error(std::string("attribute 'axis': ") + e.what());
        }
        int64_t inner = 1, length = x.dim(axis);
        for (int64_t d = axis + 1; d < x.rank(); ++d)
            inner *= x.dim(d);
        if (m_opset < 13) {
            length *= inner;
            inner = 1;
        }
        const int64_t outer = x.size() / (length * inner);
        // exp of -k steps below the row's maximum, k = 0..255.
        double shift = std::log(std::numeric_limits<float>::max() / static_cast<float>(length));
        shift = std::max(0.0, shift - 5.0) / static_cast<double>(px.scale);
        std::array<float, 256> table {};
        for (int k = 0; k < 256; ++k)
            table[static_cast<size_t>(k)] = static_cast<float>(
                std::exp((static_cast<double>(255 - k) - 255 + shift) * static_cast<double>(px.scale)));
        const float yScale = std::floor(1.0f / py.scale);
        if (t == DataType::UInt8)
            run<uint8_t>(x, y, outer, length, inner, table, yScale, py.zeroPoint);
        else
            run<int8_t>(x, y, outer, length, inner, table, yScale, py.zeroPoint);
    }

private:
    template <class T>
    static void run(const Tensor& x, Tensor& y, int64_t outer, int64_t length, int64_t inner,
        const std::array<float, 256>& table, float yScale, int32_t yZero)
    {
        const T* in = x.data<T>().data();
        T* out = y.data<T>().data();
        for (int64_t o = 0; o < outer; ++o) {
            for (int64_t i = 0; i < inner; ++i) {
                const int64_t base = o * length * inner + i;
                T top = in[base];
                for (int64_t j = 1; j < length; ++j)
                    top = std::max(top, in[base + j * inner]);
                float sum = 0;
                for (int64_t j = 0; j < length; ++j)
                    sum += table[static_cast<size_t>(int32_t(top) - int32_t(in[base + j * inner]))];
                for (int64_t j = 0; j < length; ++j) {
                    const float e = table[static_cast<size_t>(int32_t(top) - int32_t(in[base + j * inner]))];
                    const auto q = static_cast<int64_t>(std::nearbyint(e * yScale / sum)) + yZero;
                    out[base + j * inner] = qlinear::saturate<T>(q);
                }
            }
        }
    }

    int64_t m_opset = 13;
    int64_t m_axis = -1;
};

} // namespace

void registerQLinearSoftmax(KernelRegistry& r)
{
    r.add("com.microsoft", "QLinearSoftmax", 1, KernelRegistry::kLatest, makeFactory<QLinearSoftmax>());
}

} // namespace onnxscope
