// SPDX-License-Identifier: MIT
#include "engine/kernels/kernel_registry.h"
#include "engine/kernels/rnn/rnn_common.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace onnxscope {

namespace {

/// A float matrix quantized to uint8 as onnxruntime's recurrent kernels do before each integer GEMM: range [min, max]
/// widened to hold 0, scale (max - min) / 255 (1 when the range is empty), zero point round_half_even(-min / scale)
/// in [0, 255], values round_half_even(x / scale) + zero point, saturated.
struct DynamicQuantized {
    std::vector<int32_t> values;
    float scale = 1.0f;
    int32_t zeroPoint = 0;

    DynamicQuantized(const float* x, int64_t n)
    {
        float lo = 0, hi = 0;
        for (int64_t i = 0; i < n; ++i) {
            lo = std::min(lo, x[i]);
            hi = std::max(hi, x[i]);
        }
        scale = hi == lo ? 1.0f : (hi - lo) / 255.0f;
        zeroPoint = static_cast<int32_t>(std::nearbyint(std::clamp(0.0f - lo / scale, 0.0f, 255.0f)));
        values.resize(static_cast<size_t>(n));
        const float qlo = static_cast<float>(-zeroPoint), qhi = static_cast<float>(255 - zeroPoint);
        for (int64_t i = 0; i < n; ++i)
            values[static_cast<size_t>(i)]
                = static_cast<int32_t>(std::nearbyint(std::clamp(x[i] / scale, qlo, qhi))) + zeroPoint;
    }
};

/// One direction's quantized weight [K, 4H] with its scale and zero point per tensor or per column.
struct QuantWeight {
    std::vector<int32_t> values;
    std::vector<float> scale;
    std::vector<int32_t> zero;
    int64_t k = 0, n = 0;

    float scaleOf(int64_t c) const { return scale[scale.size() == 1 ? 0 : static_cast<size_t>(c)]; }
    int32_t zeroOf(int64_t c) const { return zero[zero.size() == 1 ? 0 : static_cast<size_t>(c)]; }

    /// out[m, c] (+)= float(sum_k (a[m, k] - a.zeroPoint)(w[k, c] - zero[c])) * (a.scale * scale[c]).
    void multiply(const DynamicQuantized& a, int64_t rows, float* out, bool accumulate) const
    {
        for (int64_t m = 0; m < rows; ++m)
            for (int64_t c = 0; c < n; ++c) {
                int64_t acc = 0;
                const int32_t zc = zeroOf(c);
                for (int64_t i = 0; i < k; ++i)
                    acc += int64_t(a.values[static_cast<size_t>(m * k + i)] - a.zeroPoint)
                        * (values[static_cast<size_t>(i * n + c)] - zc);
                const float v = static_cast<float>(static_cast<int32_t>(acc)) * (a.scale * scaleOf(c));
                out[m * n + c] = accumulate ? out[m * n + c] + v : v;
            }
    }
};

/// DynamicQuantizeLSTM (com.microsoft 1), the LSTM that onnxruntime's dynamic quantizer writes: ONNX LSTM's gates
/// (i, o, f, c), peepholes P, input_forget, clip, activations, directions and sequence_lens, with W [dirs, input,
/// 4H] and R [dirs, H, 4H] (note: transposed from LSTM's layout) uint8 or int8, each with scale and zero point per
/// direction ([dirs]) or per column ([dirs, 4H]). As onnxruntime computes it, X (the whole sequence, once per
/// direction, its first max(sequence_lens) steps) and the hidden state (every step, rows past their length as 0)
/// are quantized to uint8 dynamically (DynamicQuantizeLinear's rule), multiplied in integers with W and R and scaled
/// back by the two scales; the gates run in float. Outputs Y, Y_h, Y_c as LSTM's (float; a row of length 0 ends
/// with zero states, as in onnxruntime).
class DynamicQuantizeLstm final : public Kernel {
public:
    explicit DynamicQuantizeLstm(const KernelInit& init)
        : m_attrs(init, { "Sigmoid", "Tanh", "Tanh" })
        , m_inputForget(init.attributes().getInt("input_forget", 0) != 0)
    {
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
        const auto weight = [&](size_t wi, size_t si, size_t zi, int64_t k, const char* what) {
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
            std::vector<QuantWeight> dirs(static_cast<size_t>(nd));
            const int64_t per = perColumn ? G : 1;
            for (int64_t dir = 0; dir < nd; ++dir) {
                QuantWeight& q = dirs[static_cast<size_t>(dir)];
                q.k = k;
                q.n = G;
                const auto* raw = static_cast<const uint8_t*>(w.raw()) + dir * k * G;
                const auto* zraw = static_cast<const uint8_t*>(z.raw()) + dir * per;
                const bool sgn = w.dtype() == DataType::Int8;
                for (int64_t i = 0; i < k * G; ++i)
                    q.values.push_back(sgn ? int32_t(static_cast<int8_t>(raw[i])) : int32_t(raw[i]));
                for (int64_t i = 0; i < per; ++i) {
                    q.scale.push_back(s.data<float>()[static_cast<size_t>(dir * per + i)]);
                    q.zero.push_back(sgn ? int32_t(static_cast<int8_t>(zraw[i])) : int32_t(zraw[i]));
                }
            }
            return dirs;
        };
        const auto W = weight(1, 8, 9, d.input, "W");
        const auto R = weight(2, 10, 11, H, "R");
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
        const size_t perDir = m_attrs.activations.size() / static_cast<size_t>(nd);

        Tensor y(DataType::Float, { d.seq, nd, d.batch, H }), yh(DataType::Float, { nd, d.batch, H }),
            yc(DataType::Float, { nd, d.batch, H });
        std::vector<float> xw(static_cast<size_t>(d.seq * d.batch * G)), hr(static_cast<size_t>(d.batch * G));
        // onnxruntime multiplies (and so quantizes) X's first max(sequence_lens) steps only.
        const int64_t steps = lens.empty() ? 0 : *std::max_element(lens.begin(), lens.end());
        const DynamicQuantized qx(x.data<float>().data(), steps * d.batch * d.input);
        for (int64_t dir = 0; dir < nd; ++dir) {
            const bool backward = nd == 2 ? dir == 1 : m_attrs.reverse;
            W[static_cast<size_t>(dir)].multiply(qx, steps * d.batch, xw.data(), false);
            std::vector<float> h(static_cast<size_t>(d.batch * H), 0.0f), c(h.size(), 0.0f);
            if (h0)
                std::copy_n(h0 + dir * d.batch * H, d.batch * H, h.begin());
            if (c0)
                std::copy_n(c0 + dir * d.batch * H, d.batch * H, c.begin());
            const rnn::Activation* act = m_attrs.activations.data() + dir * static_cast<int64_t>(perDir);
            const float* wb = bias ? bias + dir * 2 * G : nullptr;
            const float* rb = bias ? wb + G : nullptr;
            const float* p = peep ? peep + dir * 3 * H : nullptr;
            float* yd = y.data<float>().data();
            std::vector<float> hIn(h.size());
            for (int64_t s = 0; s < steps; ++s) {
                // The state multiplied is the previous step's output, where onnxruntime has zeroed finished rows.
                for (int64_t b = 0; b < d.batch; ++b) {
                    const bool finished = s > lens[static_cast<size_t>(b)];
                    for (int64_t j = 0; j < H; ++j)
                        hIn[static_cast<size_t>(b * H + j)] = finished ? 0.0f : h[static_cast<size_t>(b * H + j)];
                }
                const DynamicQuantized qh(hIn.data(), d.batch * H);
                R[static_cast<size_t>(dir)].multiply(qh, d.batch, hr.data(), false);
                for (int64_t b = 0; b < d.batch; ++b) {
                    const int64_t len = lens[static_cast<size_t>(b)];
                    if (s >= len)
                        continue;
                    const int64_t t = backward ? len - 1 - s : s;
                    cell(xw.data() + (t * d.batch + b) * G, hr.data() + b * G, wb, rb, p, act, H, h.data() + b * H,
                        c.data() + b * H);
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
        rnn::setOutput(ctx, 0, y, 0, true);
        rnn::setOutput(ctx, 1, yh, 0, false);
        rnn::setOutput(ctx, 2, yc, 0, false);
    }

private:
    void cell(const float* xw, const float* hr, const float* wb, const float* rb, const float* p,
        const rnn::Activation* act, int64_t H, float* h, float* c) const
    {
        const rnn::Activation &f = act[0], &g = act[1], &hAct = act[2];
        const float clip = m_attrs.clip;
        const auto clipped = [clip](float v) { return clip > 0 ? std::clamp(v, -clip, clip) : v; };
        for (int64_t j = 0; j < H; ++j) {
            const auto gate = [&](int64_t k) {
                const int64_t i = k * H + j;
                return xw[i] + hr[i] + (wb ? wb[i] + rb[i] : 0.0f);
            };
            const float cPrev = c[j];
            float iPre = gate(0), oPre = gate(1), fPre = gate(2), cPre = gate(3);
            if (p) {
                iPre += p[j] * cPrev;
                fPre += p[2 * H + j] * cPrev;
            }
            const float i = f(clipped(iPre));
            const float ft = m_inputForget ? 1.0f - i : f(clipped(fPre));
            const float cNew = ft * cPrev + i * g(clipped(cPre));
            if (p)
                oPre += p[H + j] * cNew;
            c[j] = cNew;
            h[j] = f(clipped(oPre)) * hAct(cNew);
        }
    }

    rnn::Attributes m_attrs;
    bool m_inputForget;
};

} // namespace

void registerDynamicQuantizeLstm(KernelRegistry& r)
{
    r.add("com.microsoft", "DynamicQuantizeLSTM", 1, KernelRegistry::kLatest, makeFactory<DynamicQuantizeLstm>());
}

} // namespace onnxscope
