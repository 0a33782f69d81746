// SPDX-License-Identifier: MIT
#include "engine/kernels/common/broadcast.h"
#include "engine/kernels/common/elementwise.h"
#include "engine/kernels/kernel_registry.h"
#include "engine/kernels/quant/qlinear_common.h"

#include <cmath>

namespace onnxscope {

namespace {

/// The table requantizing bytes of type `t` from `from` to `to`, applying f to the real value in between.
template <class F> std::array<uint8_t, 256> tableFor(DataType t, qlinear::Params from, qlinear::Params to, F f)
{
    return t == DataType::UInt8 ? qlinear::lookupTable<uint8_t>(from, to, f)
                                : qlinear::lookupTable<int8_t>(from, to, f);
}

const auto identity = [](float v) { return v; };

/// QLinearSigmoid and QLinearLeakyRelu (com.microsoft 1): Y = quantize(f(dequantize(X))) element-wise, X and Y
/// uint8 or int8, scales and zero points per tensor (absent zero points are 0). As onnxruntime does, f runs in float
/// once per possible byte and the result is looked up. Sigmoid is 1 / (1 + exp(-x)); onnxruntime uses an
/// approximation of its own (MlasComputeLogistic), so a value whose quantization lies on a rounding boundary may
/// come out one unit apart. LeakyRelu: x if x >= 0, else alpha * x (`alpha`, default 0.01).
class QLinearActivation final : public Kernel {
public:
    QLinearActivation(const KernelInit& init, bool sigmoid)
        : m_sigmoid(sigmoid)
        , m_alpha(sigmoid ? 0.0f : init.attributes().getFloat("alpha", 0.01f))
    {
    }

    void compute(KernelContext& ctx) const override
    {
        const DataType t = qlinear::requireByteType(ctx, 0, "X");
        const Tensor& x = ctx.input(0);
        const qlinear::Params px = qlinear::params(ctx, 1, 2, t, "X");
        const qlinear::Params py = qlinear::params(ctx, 3, 4, t, "Y");
        const float alpha = m_alpha;
        const auto table = m_sigmoid ? tableFor(t, px, py, [](float v) { return 1.0f / (1.0f + std::exp(-v)); })
                                     : tableFor(t, px, py, [alpha](float v) { return v >= 0.0f ? v : alpha * v; });
        Tensor& y = ctx.reuseInputOrAllocate(0, 0, t, x.shape());
        qlinear::applyTable(table, x.raw(), y.mutableRaw(), x.size());
    }

private:
    bool m_sigmoid;
    float m_alpha;
};

/// QLinearConcat (com.microsoft 1): inputs Y_scale, Y_zero_point, then one (X, X_scale, X_zero_point) triple per
/// tensor; Y is the concatenation along `axis` (required; negative counts from the end) of every X requantized to
/// Y's scale and zero point (onnxruntime's float rule, through a table; an X with Y's parameters is copied). Every X
/// and zero point has Y_zero_point's type, uint8 or int8.
class QLinearConcat final : public Kernel {
public:
    explicit QLinearConcat(const KernelInit& init)
        : m_axis(init.attributes().requireInt("axis"))
    {
        const size_t n = init.node.inputs.size();
        if (n < 5 || (n - 2) % 3 != 0)
            throw init.error("expected Y_scale, Y_zero_point and (X, X_scale, X_zero_point) triples, got "
                + std::to_string(n) + " inputs");
    }

    void compute(KernelContext& ctx) const override
    {
        const DataType t = qlinear::requireByteType(ctx, 1, "Y_zero_point");
        const qlinear::Params py = qlinear::params(ctx, 0, 1, t, "Y", true);
        const size_t count = (ctx.inputCount() - 2) / 3;
        const Tensor& first = ctx.input(2);
        int64_t axis;
        try {
            axis = normalizeAxis(m_axis, first.rank());
        } catch (const Error& e) {
            throw ctx.error(std::string("attribute 'axis': ") + e.what());
        }
        Shape outShape = first.shape();
        outShape[static_cast<size_t>(axis)] = 0;
        for (size_t i = 0; i < count; ++i) {
            const Tensor& x = ctx.input(2 + 3 * i);
            const std::string name = "input " + std::to_string(2 + 3 * i);
            if (x.dtype() != t)
                throw ctx.error(
                    name + " is " + x.typeString() + " but Y_zero_point is " + std::string(dataTypeName(t)));
            bool same = x.rank() == first.rank();
            for (int64_t d = 0; same && d < x.rank(); ++d)
                same = d == axis || x.dim(d) == first.dim(d);
            if (!same)
                throw ctx.error("cannot concatenate " + shapeToString(x.shape()) + " with "
                    + shapeToString(first.shape()) + " along axis " + std::to_string(axis));
            outShape[static_cast<size_t>(axis)] += x.dim(axis);
        }
        Tensor& y = ctx.allocateOutputUninitialized(0, t, outShape);
        int64_t outer = 1;
        for (int64_t d = 0; d < axis; ++d)
            outer *= outShape[static_cast<size_t>(d)];
        const int64_t outRow = outer == 0 ? 0 : y.size() / outer;
        auto* dst = static_cast<uint8_t*>(y.mutableRaw());
        int64_t offset = 0;
        for (size_t i = 0; i < count; ++i) {
            const Tensor& x = ctx.input(2 + 3 * i);
            const qlinear::Params px = qlinear::params(ctx, 3 + 3 * i, 4 + 3 * i, t, "X", true);
            const bool copy = px.scale == py.scale && px.zeroPoint == py.zeroPoint;
            const auto table = tableFor(t, px, py, identity);
            const int64_t row = outer == 0 ? 0 : x.size() / outer;
            const auto* src = static_cast<const uint8_t*>(x.raw());
            for (int64_t o = 0; o < outer; ++o) {
                if (copy)
                    std::copy(src + o * row, src + (o + 1) * row, dst + o * outRow + offset);
                else
                    qlinear::applyTable(table, src + o * row, dst + o * outRow + offset, row);
            }
            offset += row;
        }
    }

private:
    int64_t m_axis;
};

/// QLinearWhere (com.microsoft 1): Z = condition ? requantize(X) : requantize(Y), the three broadcast as numpy
/// does; X, Y and Z of one type (uint8 or int8), each with its scale and zero point (per tensor, all required), X
/// and Y requantized to Z's parameters with onnxruntime's float rule (through a table; copied when they match).
class QLinearWhere final : public Kernel {
public:
    explicit QLinearWhere(const KernelInit&) { }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& cond = ctx.input(0);
        if (cond.dtype() != DataType::Bool)
            throw ctx.error("condition must be bool, got " + cond.typeString());
        const DataType t = qlinear::requireByteType(ctx, 1, "X");
        const Tensor& x = ctx.input(1);
        const Tensor& y = ctx.input(4);
        if (y.dtype() != t)
            throw ctx.error("Y is " + y.typeString() + " but X is " + x.typeString());
        const qlinear::Params px = qlinear::params(ctx, 2, 3, t, "X", true);
        const qlinear::Params py = qlinear::params(ctx, 5, 6, t, "Y", true);
        const qlinear::Params pz = qlinear::params(ctx, 7, 8, t, "Z", true);
        const Shape outShape = broadcastShapesOf(ctx, cond.shape(), broadcastShapesOf(ctx, x.shape(), y.shape()));
        const auto xt = tableFor(t, px, pz, identity);
        const auto yt = tableFor(t, py, pz, identity);
        Tensor xs(DataType::UInt8, outShape), ys(DataType::UInt8, outShape), cs(DataType::Bool, outShape);
        Tensor& z = ctx.allocateOutputUninitialized(0, t, outShape);
        broadcastTo<uint8_t>(reinterpretBytes(x), xs);
        broadcastTo<uint8_t>(reinterpretBytes(y), ys);
        broadcastTo<bool>(cond, cs);
        const auto* xp = static_cast<const uint8_t*>(xs.raw());
        const auto* yp = static_cast<const uint8_t*>(ys.raw());
        const auto c = cs.data<bool>();
        auto* zp = static_cast<uint8_t*>(z.mutableRaw());
        const bool copyX = px.scale == pz.scale && px.zeroPoint == pz.zeroPoint;
        const bool copyY = py.scale == pz.scale && py.zeroPoint == pz.zeroPoint;
        for (int64_t i = 0; i < z.size(); ++i) {
            const auto k = static_cast<size_t>(i);
            zp[i] = c[k] ? (copyX ? xp[i] : xt[xp[i]]) : (copyY ? yp[i] : yt[yp[i]]);
        }
    }

private:
    /// The bytes of an int8 tensor seen as uint8, so one broadcast copy serves both types.
    static Tensor reinterpretBytes(const Tensor& t)
    {
        if (t.dtype() == DataType::UInt8)
            return t;
        Tensor u(DataType::UInt8, t.shape());
        std::copy_n(static_cast<const uint8_t*>(t.raw()), t.size(), static_cast<uint8_t*>(u.mutableRaw()));
        return u;
    }
};

template <bool Sigmoid> KernelFactory activationFactory()
{
    return [](const KernelInit& init) -> std::unique_ptr<Kernel> {
        return std::make_unique<QLinearActivation>(init, Sigmoid);
    };
}

} // namespace

void registerQLinearLookup(KernelRegistry& r)
{
    r.add("com.microsoft", "QLinearSigmoid", 1, KernelRegistry::kLatest, activationFactory<true>());
    r.add("com.microsoft", "QLinearLeakyRelu", 1, KernelRegistry::kLatest, activationFactory<false>());
    r.add("com.microsoft", "QLinearConcat", 1, KernelRegistry::kLatest, makeFactory<QLinearConcat>());
    r.add("com.microsoft", "QLinearWhere", 1, KernelRegistry::kLatest, makeFactory<QLinearWhere>());
}

} // namespace onnxscope
