// SPDX-License-Identifier: MIT
#include "engine/core/thread_pool.h"
#include "engine/kernels/common/half_convert.h"
#include "engine/kernels/kernel_registry.h"
#include "engine/kernels/quant/integer_product.h"
#include "engine/kernels/rnn/rnn_common.h"
#include "engine/kernels/simd/simd.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>

namespace onnxscope {

namespace {

/// A float matrix [rows, k] quantized to uint8 as onnxruntime's recurrent kernels do before each integer GEMM: range
/// [min, max] widened to hold 0, scale (max - min) / 255 (1 when the range is empty), zero point
/// round_half_even(-min / scale) in [0, 255], values round_half_even(x / scale) + zero point, saturated (NaN: the zero
/// point), then packed as the columns of the integer product (`sums`: with their sums).
struct DynamicQuantized {
    std::vector<uint8_t> values;
    intprod::Columns columns;
    float scale = 1.0f;
    int32_t zeroPoint = 0;

    void quantize(const float* x, int64_t rows, int64_t k, bool sums)
    {
        const int64_t n = rows * k;
        // Sixteen lanes of running extremes (a form the compiler vectorizes), NaN skipped as std::min/max skip it.
        constexpr int kLanes = 16;
        float lo[kLanes] = {}, hi[kLanes] = {};
        int64_t i = 0;
        for (; i + kLanes <= n; i += kLanes)
            for (int l = 0; l < kLanes; ++l) {
                const float v = x[i + l];
                lo[l] = v < lo[l] ? v : lo[l];
                hi[l] = v > hi[l] ? v : hi[l];
            }
        for (; i < n; ++i) {
            lo[0] = x[i] < lo[0] ? x[i] : lo[0];
            hi[0] = x[i] > hi[0] ? x[i] : hi[0];
        }
        const float mn = *std::min_element(lo, lo + kLanes), mx = *std::max_element(hi, hi + kLanes);
        scale = mx == mn ? 1.0f : (mx - mn) / 255.0f;
        zeroPoint = static_cast<int32_t>(std::nearbyint(std::clamp(0.0f - mn / scale, 0.0f, 255.0f)));
        values.resize(static_cast<size_t>(n));
        const float qlo = static_cast<float>(-zeroPoint), qhi = static_cast<float>(255 - zeroPoint);
        constexpr float kRound = 12582912.0f; // 1.5 * 2^23: adding and taking it away rounds half to even
        for (int64_t j = 0; j < n; ++j) {
            const float v = x[j] / scale;
            float c = v > qlo ? v : qlo;
            c = c < qhi ? c : qhi;
            const int32_t r = static_cast<int32_t>((c + kRound) - kRound) + zeroPoint;
            values[static_cast<size_t>(j)] = static_cast<uint8_t>(v != v ? zeroPoint : r);
        }
        intprod::packColumns(DataType::UInt8, values.data(), k, rows, 1, k, columns, sums);
    }
};

/// One direction's quantized weight [K, 4H], prepared as the integer product's rows (one per gate column), with its
/// scale per column.
struct QuantWeight {
    intprod::Weights rows;
    std::vector<float> scale; // [4H]

    /// out[m, c] = float(sum_k (a[m, k] - a.zeroPoint)(w[k, c] - zero[c])) * (a.scale * scale[c]) for m < a's rows.
    /// The int32 sums wrap as onnxruntime's accumulators.
    void multiply(const DynamicQuantized& a, float* out, std::vector<int32_t>& acc, std::vector<float>& mult) const
    {
        const int64_t n = rows.rows, m = a.columns.n;
        acc.resize(static_cast<size_t>(m * n));
        mult.resize(static_cast<size_t>(n));
        intprod::product(rows, 0, n, a.columns, a.zeroPoint, acc.data(), 1, n);
        for (int64_t c = 0; c < n; ++c)
            mult[static_cast<size_t>(c)] = a.scale * scale[static_cast<size_t>(c)];
        for (int64_t r = 0; r < m; ++r) {
            const int32_t* src = acc.data() + r * n;
            float* dst = out + r * n;
            for (int64_t c = 0; c < n; ++c)
                dst[c] = static_cast<float>(src[c]) * mult[static_cast<size_t>(c)];
        }
    }
};

/// The activation as a vector loop of simd::Ops where it has one.
std::optional<simd::ActivationParams> vectorActivation(const rnn::Activation& a)
{
    using K = rnn::Activation::Kind;
    switch (a.kind) {
    case K::Sigmoid:
        return simd::ActivationParams { simd::Activation::Sigmoid };
    case K::Tanh:
        return simd::ActivationParams { simd::Activation::Tanh };
    case K::Relu:
        return simd::ActivationParams { simd::Activation::Relu };
    case K::LeakyRelu:
        return simd::ActivationParams { simd::Activation::LeakyRelu, a.alpha };
    case K::HardSigmoid:
        return simd::ActivationParams { simd::Activation::HardSigmoid, a.alpha, a.beta };
    default:
        return std::nullopt;
    }
}

/// y[i] = act(y[i]) for i < n, on simd::Ops where the activation has a vector loop.
void applyActivation(const rnn::Activation& act, float* y, int64_t n)
{
    if (const auto v = vectorActivation(act)) {
        simd::ops().activation(y, y, n, *v);
        return;
    }
    for (int64_t i = 0; i < n; ++i)
        y[i] = act(y[i]);
}

/// DynamicQuantizeLSTM (com.microsoft 1), the LSTM that onnxruntime's dynamic quantizer writes: ONNX LSTM's gates
/// (i, o, f, c), peepholes P, input_forget, clip, activations, directions and sequence_lens, with W [dirs, input,
/// 4H] and R [dirs, H, 4H] (note: transposed from LSTM's layout) uint8 or int8, each with scale and zero point per
/// direction ([dirs]) or per column ([dirs, 4H]). As onnxruntime computes it, X (the whole sequence, once per
/// direction, its first max(sequence_lens) steps) and the hidden state (every step, rows past their length as 0)
/// are quantized to uint8 dynamically (DynamicQuantizeLinear's rule), multiplied in integers with W and R (exact
/// int32 sums on the shared integer product, intprod) and scaled back by the two scales; the gates run in float on
/// simd::Ops' vector loops. Outputs Y, Y_h, Y_c as LSTM's (float; a row of length 0 ends with zero states, as in
/// onnxruntime). The directions run in parallel on the pool.
class DynamicQuantizeLstm final : public Kernel {
public:
    explicit DynamicQuantizeLstm(const KernelInit& init)
        : m_attrs(init, { "Sigmoid", "Tanh", "Tanh" })
        , m_inputForget(init.attributes().getInt("input_forget", 0) != 0)
    {
        m_constantWeights = true;
        for (size_t i : { 1, 2, 8, 9, 10, 11 })
            m_constantWeights = m_constantWeights && isConstantInput(init, i);
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        if (x.dtype() != DataType::Float || x.rank() != 3)
            throw ctx.error("X must be float [seq_length, batch_size, input_size], got " + x.typeString());
        const int64_t nd = m_attrs.numDirections, H = m_attrs.hiddenSize, G = 4 * H;
        rnn::Dims d;
        d.seq = x.dim(0);
        d.batch = x.dim(1);
        d.input = x.dim(2);
        d.hidden = H;
        const auto weights = preparedWeights(ctx, d);
        const auto floatInput = [&](size_t i, const Shape& shape, const char* what) -> const float* {
            if (!ctx.hasInput(i))
                return nullptr;
            const Tensor& t = ctx.input(i);
            if (t.dtype() != DataType::Float || t.shape() != shape)
                throw ctx.error(
                    std::string(what) + " must be float " + shapeToString(shape) + ", got " + t.typeString());
            return t.data<float>().data();
        };
        const float* bias = floatInput(3, { nd, 2 * G }, "B");
        const float* h0 = floatInput(5, { nd, d.batch, H }, "initial_h");
        const float* c0 = floatInput(6, { nd, d.batch, H }, "initial_c");
        const float* peep = floatInput(7, { nd, 3 * H }, "P");
        const auto lens = rnn::sequenceLengths(ctx, d);

        Tensor y(DataType::Float, { d.seq, nd, d.batch, H }), yh(DataType::Float, { nd, d.batch, H }),
            yc(DataType::Float, { nd, d.batch, H });
        // onnxruntime multiplies (and so quantizes) X's first max(sequence_lens) steps only.
        const int64_t steps = lens.empty() ? 0 : *std::max_element(lens.begin(), lens.end());
        DynamicQuantized qx;
        const bool sums = std::any_of(
            weights->begin(), weights->end(), [](const Direction& w) { return w.w.rows.needsColumnSums; });
        qx.quantize(x.data<float>().data(), steps * d.batch, d.input, sums);
        const Inputs in { bias, h0, c0, peep, &lens, &qx, steps };
        parallelFor(ctx.threadPool(), nd, 1, [&](int64_t b, int64_t e) {
            for (int64_t dir = b; dir < e; ++dir)
                runDirection(d, dir, (*weights)[static_cast<size_t>(dir)], in, y, yh, yc);
        });
        rnn::setOutput(ctx, 0, y, 0, true);
        rnn::setOutput(ctx, 1, yh, 0, false);
        rnn::setOutput(ctx, 2, yc, 0, false);
    }

private:
    struct Direction {
        QuantWeight w, r;
    };
    using Prepared = std::vector<Direction>;

    /// What every direction reads.
    struct Inputs {
        const float *bias, *h0, *c0, *peep;
        const std::vector<int64_t>* lens;
        const DynamicQuantized* qx;
        int64_t steps;
    };

    /// W and R checked and prepared for the integer product; constant ones once, while their storage stays the same.
    std::shared_ptr<const Prepared> preparedWeights(KernelContext& ctx, const rnn::Dims& d) const
    {
        if (!m_constantWeights)
            return prepare(ctx, d);
        std::lock_guard lock(m_cacheMutex);
        if (!m_cached || m_cachedKey[0] != ctx.input(1).raw() || m_cachedKey[1] != ctx.input(2).raw()
            || m_cached->front().w.rows.k != d.input) {
            m_cached = prepare(ctx, d);
            m_cachedKey = { ctx.input(1).raw(), ctx.input(2).raw() };
        }
        return m_cached;
    }

    std::shared_ptr<const Prepared> prepare(KernelContext& ctx, const rnn::Dims& d) const
    {
        const int64_t nd = m_attrs.numDirections, G = 4 * d.hidden;
        auto out = std::make_shared<Prepared>(static_cast<size_t>(nd));
        const auto weight = [&](size_t wi, size_t si, size_t zi, int64_t k, const char* what, auto member) {
            const Tensor& w = ctx.input(wi);
            if ((w.dtype() != DataType::UInt8 && w.dtype() != DataType::Int8) || w.shape() != Shape { nd, k, G })
                throw ctx.error(std::string(what) + " must be uint8 or int8 [" + std::to_string(nd) + ", "
                    + std::to_string(k) + ", " + std::to_string(G) + "], got " + w.typeString());
            const Tensor& s = ctx.input(si);
            const Tensor& z = ctx.input(zi);
            const bool perColumn = s.shape() == Shape { nd, G };
            if (s.dtype() != DataType::Float || (!perColumn && s.shape() != Shape { nd }))
                throw ctx.error(std::string(what) + "_scale must be float [" + std::to_string(nd) + "] or ["
                    + std::to_string(nd) + ", " + std::to_string(G) + "], got " + s.typeString());
            if (z.dtype() != w.dtype() || z.shape() != s.shape())
                throw ctx.error(std::string(what) + "_zero_point must have " + what
                    + "'s type and the scale's shape, got " + z.typeString());
            const int64_t per = perColumn ? G : 1;
            const bool sgn = w.dtype() == DataType::Int8;
            for (int64_t dir = 0; dir < nd; ++dir) {
                QuantWeight& q = (*out)[static_cast<size_t>(dir)].*member;
                const auto* zraw = static_cast<const uint8_t*>(z.raw()) + dir * per;
                std::vector<int32_t> zero;
                for (int64_t i = 0; i < per; ++i)
                    zero.push_back(sgn ? int32_t(static_cast<int8_t>(zraw[i])) : int32_t(zraw[i]));
                // The weight's columns are the product's rows: row c reads w[k][c].
                q.rows = intprod::prepareWeights(
                    w.dtype(), static_cast<const uint8_t*>(w.raw()) + dir * k * G, G, k, 1, G, zero);
                q.scale.resize(static_cast<size_t>(G));
                for (int64_t c = 0; c < G; ++c)
                    q.scale[static_cast<size_t>(c)] = s.data<float>()[static_cast<size_t>(dir * per + c % per)];
            }
        };
        weight(1, 8, 9, d.input, "W", &Direction::w);
        weight(2, 10, 11, d.hidden, "R", &Direction::r);
        return out;
    }

    void runDirection(
        const rnn::Dims& d, int64_t dir, const Direction& wd, const Inputs& in, Tensor& y, Tensor& yh, Tensor& yc) const
    {
        const int64_t nd = m_attrs.numDirections, H = d.hidden, G = 4 * H;
        const auto& lens = *in.lens;
        const bool backward = nd == 2 ? dir == 1 : m_attrs.reverse;
        std::vector<int32_t> acc;
        std::vector<float> mult;
        std::vector<float> xw(static_cast<size_t>(in.steps * d.batch * G)), hr(static_cast<size_t>(d.batch * G));
        wd.w.multiply(*in.qx, xw.data(), acc, mult);
        std::vector<float> h(static_cast<size_t>(d.batch * H), 0.0f), c(h.size(), 0.0f);
        if (in.h0)
            std::copy_n(in.h0 + dir * d.batch * H, d.batch * H, h.begin());
        if (in.c0)
            std::copy_n(in.c0 + dir * d.batch * H, d.batch * H, c.begin());
        const size_t perDir = m_attrs.activations.size() / static_cast<size_t>(nd);
        const rnn::Activation* act = m_attrs.activations.data() + dir * static_cast<int64_t>(perDir);
        std::vector<float> gateBias;
        if (in.bias) {
            const float* wb = in.bias + dir * 2 * G;
            gateBias.resize(static_cast<size_t>(G));
            for (int64_t i = 0; i < G; ++i)
                gateBias[static_cast<size_t>(i)] = wb[i] + wb[G + i];
        }
        const float* p = in.peep ? in.peep + dir * 3 * H : nullptr;
        float* yd = y.data<float>().data();
        std::vector<float> hIn(h.size()), scratch(static_cast<size_t>(G + H));
        DynamicQuantized qh;
        for (int64_t s = 0; s < in.steps; ++s) {
            // The state multiplied is the previous step's output, where onnxruntime has zeroed finished rows.
            for (int64_t b = 0; b < d.batch; ++b) {
                if (s > lens[static_cast<size_t>(b)])
                    std::fill_n(hIn.begin() + b * H, H, 0.0f);
                else
                    std::copy_n(h.begin() + b * H, H, hIn.begin() + b * H);
            }
            qh.quantize(hIn.data(), d.batch, H, wd.r.rows.needsColumnSums);
            wd.r.multiply(qh, hr.data(), acc, mult);
            for (int64_t b = 0; b < d.batch; ++b) {
                const int64_t len = lens[static_cast<size_t>(b)];
                if (s >= len)
                    continue;
                const int64_t t = backward ? len - 1 - s : s;
                cell(xw.data() + (t * d.batch + b) * G, hr.data() + b * G, gateBias.empty() ? nullptr : gateBias.data(),
                    p, act, H, h.data() + b * H, c.data() + b * H, scratch.data());
                std::copy_n(h.data() + b * H, H, yd + ((t * nd + dir) * d.batch + b) * H);
            }
        }
        for (int64_t b = 0; b < d.batch; ++b)
            if (lens[static_cast<size_t>(b)] == 0) { // no step: onnxruntime gives zero states
                std::fill_n(h.begin() + b * H, H, 0.0f);
                std::fill_n(c.begin() + b * H, H, 0.0f);
            }
        std::copy(h.begin(), h.end(), yh.data<float>().begin() + dir * d.batch * H);
        std::copy(c.begin(), c.end(), yc.data<float>().begin() + dir * d.batch * H);
    }

    /// One batch row's step, gate by gate as whole vectors: pre-activations xw + hr + (Wb + Rb), peepholes, clip,
    /// activations. `scratch` holds 5H floats.
    void cell(const float* xw, const float* hr, const float* bias, const float* p, const rnn::Activation* act,
        int64_t H, float* h, float* c, float* scratch) const
    {
        const int64_t G = 4 * H;
        float* gates = scratch; // i, o, f, c
        float* tmp = scratch + G;
        for (int64_t i = 0; i < G; ++i)
            gates[i] = xw[i] + hr[i];
        if (bias)
            for (int64_t i = 0; i < G; ++i)
                gates[i] += bias[i];
        float *gi = gates, *go = gates + H, *gf = gates + 2 * H, *gc = gates + 3 * H;
        if (p)
            for (int64_t j = 0; j < H; ++j) {
                gi[j] += p[j] * c[j];
                gf[j] += p[2 * H + j] * c[j];
            }
        const float clip = m_attrs.clip;
        const auto clipRange = [clip](float* v, int64_t n) {
            if (clip > 0)
                for (int64_t j = 0; j < n; ++j) {
                    const float lo = v[j] > -clip ? v[j] : -clip;
                    v[j] = lo < clip ? lo : clip;
                }
        };
        clipRange(gi, H);
        clipRange(gf, 2 * H); // f and c
        applyActivation(act[0], gi, H);
        if (m_inputForget)
            for (int64_t j = 0; j < H; ++j)
                gf[j] = 1.0f - gi[j];
        else
            applyActivation(act[0], gf, H);
        applyActivation(act[1], gc, H);
        for (int64_t j = 0; j < H; ++j)
            c[j] = gf[j] * c[j] + gi[j] * gc[j];
        if (p)
            for (int64_t j = 0; j < H; ++j)
                go[j] += p[H + j] * c[j];
        clipRange(go, H);
        applyActivation(act[0], go, H);
        std::copy_n(c, H, tmp);
        applyActivation(act[2], tmp, H);
        for (int64_t j = 0; j < H; ++j)
            h[j] = go[j] * tmp[j];
    }

    rnn::Attributes m_attrs;
    bool m_inputForget;
    bool m_constantWeights = false;
    mutable std::mutex m_cacheMutex;
    mutable std::shared_ptr<const Prepared> m_cached;
    mutable std::array<const void*, 2> m_cachedKey {};
};

} // namespace

void registerDynamicQuantizeLstm(KernelRegistry& r)
{
    r.add("com.microsoft", "DynamicQuantizeLSTM", 1, KernelRegistry::kLatest, makeFactory<DynamicQuantizeLstm>());
}

} // namespace onnxscope
