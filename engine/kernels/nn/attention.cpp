// SPDX-License-Identifier: MIT
#include "engine/core/half.h"
#include "engine/kernels/common/dispatch.h"
#include "engine/kernels/kernel_registry.h"
#include "engine/kernels/nn/attention_core.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <vector>

namespace onnxscope {

namespace {

/// Attention 23, 24, 25: scaled dot-product attention of Q [B, Hq, Lq, D] (or 3-D [B, Lq, Hq*D] with q_num_heads,
/// kv_num_heads), K [B, Hkv, Lkv, D], V [B, Hkv, Lkv, Dv], with grouped-query heads, past_key/past_value
/// concatenated before K/V (present_key/present_value, always 4-D), an attn_mask (bool: true attends; numeric: added;
/// a last dimension shorter than the total length is padded with -inf), bottom-right causal masking, softcap and the
/// qk_matmul_output tap of qk_matmul_output_mode 0-3. 24 adds nonpad_kv_seqlen (keys at or past it are masked, and
/// the causal offset is nonpad_kv_seqlen - Lq); 25 adds left_window_size/right_window_size. A query row with no
/// attendable key gives zeros. Q, K, V float, double, float16, bfloat16; half types are computed in float, and the
/// softmax runs in float or double whatever softmax_precision asks (never in less than float).
class Attention final : public Kernel {
public:
    explicit Attention(const KernelInit& init)
        : m_opset(init.opset())
    {
        const NodeAttributes& a = init.attributes();
        m_causal = a.getInt("is_causal", 0) != 0;
        if (a.has("q_num_heads"))
            m_qHeads = a.requireInt("q_num_heads");
        if (a.has("kv_num_heads"))
            m_kvHeads = a.requireInt("kv_num_heads");
        if (a.has("scale"))
            m_scale = a.requireFloat("scale");
        m_softcap = a.getFloat("softcap", 0.0f);
        const int64_t mode = a.getInt("qk_matmul_output_mode", 0);
        if (mode < 0 || mode > 3)
            throw a.error("qk_matmul_output_mode", "expected 0, 1, 2 or 3, got " + std::to_string(mode));
        m_tap = static_cast<attention::ScoresTap>(mode + 1);
        if (a.has("softmax_precision")) {
            const int64_t p = a.requireInt("softmax_precision");
            if (p != 1 && p != 10 && p != 11 && p != 16)
                throw a.error("softmax_precision", "expected 1, 10, 11 or 16, got " + std::to_string(p));
        }
        if (m_opset >= 25) {
            m_left = a.getInt("left_window_size", -1);
            m_right = a.getInt("right_window_size", -1);
            if (m_left < -1 || m_right < -1)
                throw init.error("left_window_size and right_window_size must be -1 or non-negative");
        }
        for (const char* name : { "q_num_heads", "kv_num_heads" })
            if (a.has(name) && a.requireInt(name) <= 0)
                throw a.error(name, "must be positive");
    }

    void compute(KernelContext& ctx) const override
    {
        const DataType t = ctx.input(0).dtype();
        if (t == DataType::Double)
            run<double>(ctx);
        else if (isFloatingPoint(t))
            run<float>(ctx);
        else
            throw ctx.error("Q: element type " + std::string(dataTypeName(t)) + " is not supported");
    }

private:
    struct Dims {
        int64_t b = 0, hq = 0, hkv = 0, lq = 0, lkv = 0, past = 0, total = 0, d = 0, dv = 0;
        bool packed = false; // 3-D inputs
    };

    Dims dims(const KernelContext& ctx) const
    {
        const Tensor& q = ctx.input(0);
        const Tensor& k = ctx.input(1);
        const Tensor& v = ctx.input(2);
        Dims s;
        if (q.rank() != k.rank() || q.rank() != v.rank() || (q.rank() != 3 && q.rank() != 4))
            throw ctx.error("Q, K and V must all be 3-D or all 4-D, got " + shapeToString(q.shape()) + ", "
                + shapeToString(k.shape()) + " and " + shapeToString(v.shape()));
        s.packed = q.rank() == 3;
        s.b = q.dim(0);
        if (s.packed) {
            if (!m_qHeads || !m_kvHeads)
                throw ctx.error("3-D inputs need the attributes q_num_heads and kv_num_heads");
            s.hq = *m_qHeads;
            s.hkv = *m_kvHeads;
            if (q.dim(2) % s.hq || k.dim(2) % s.hkv || v.dim(2) % s.hkv)
                throw ctx.error("hidden sizes " + shapeToString(q.shape()) + ", " + shapeToString(k.shape()) + ", "
                    + shapeToString(v.shape()) + " are not multiples of q_num_heads and kv_num_heads");
            s.lq = q.dim(1);
            s.lkv = k.dim(1);
            s.d = q.dim(2) / s.hq;
            s.dv = v.dim(2) / s.hkv;
            if (k.dim(2) / s.hkv != s.d)
                throw ctx.error("Q and K have different head sizes");
            if (v.dim(1) != s.lkv)
                throw ctx.error("K and V have different sequence lengths");
        } else {
            if (m_opset >= 25 && (m_qHeads || m_kvHeads))
                throw ctx.error("q_num_heads and kv_num_heads must not be given with 4-D inputs");
            s.hq = q.dim(1);
            s.hkv = k.dim(1);
            s.lq = q.dim(2);
            s.lkv = k.dim(2);
            s.d = q.dim(3);
            s.dv = v.dim(3);
            if (k.dim(3) != s.d || v.dim(1) != s.hkv || v.dim(2) != s.lkv)
                throw ctx.error("shapes of Q " + shapeToString(q.shape()) + ", K " + shapeToString(k.shape())
                    + " and V " + shapeToString(v.shape()) + " do not fit together");
        }
        if (k.dim(0) != s.b || v.dim(0) != s.b)
            throw ctx.error("Q, K and V have different batch sizes");
        if (s.hkv <= 0 || s.hq % s.hkv)
            throw ctx.error("the query heads (" + std::to_string(s.hq) + ") are not a multiple of the key/value heads ("
                + std::to_string(s.hkv) + ")");
        const bool pk = ctx.hasInput(4), pv = ctx.hasInput(5);
        if (pk != pv)
            throw ctx.error("past_key and past_value must be given together");
        if (pk) {
            const Tensor& p = ctx.input(4);
            const Tensor& pvv = ctx.input(5);
            if (p.rank() != 4 || p.dim(0) != s.b || p.dim(1) != s.hkv || p.dim(3) != s.d || pvv.rank() != 4
                || pvv.dim(0) != s.b || pvv.dim(1) != s.hkv || pvv.dim(2) != p.dim(2) || pvv.dim(3) != s.dv)
                throw ctx.error("past_key " + shapeToString(p.shape()) + " or past_value " + shapeToString(pvv.shape())
                    + " does not fit K and V");
            s.past = p.dim(2);
        }
        s.total = s.past + s.lkv;
        return s;
    }

    /// past ++ new along the sequence, as [B, Hkv, total, width]; written to output `out` when the graph uses it.
    template <class F>
    static attention::HeadLayout<const F> present(KernelContext& ctx, size_t pastInput, size_t out,
        attention::HeadLayout<const F> now, const Dims& s, int64_t width, DataType type, std::vector<F>& buf)
    {
        if (!s.past && !ctx.hasOutput(out))
            return now;
        buf.resize(static_cast<size_t>(s.b * s.hkv * s.total * width));
        std::vector<F> pastBuf;
        const F* past = s.past ? attention::elementsAs<F>(ctx.input(pastInput), pastBuf) : nullptr;
        for (int64_t b = 0; b < s.b; ++b)
            for (int64_t h = 0; h < s.hkv; ++h) {
                F* dst = buf.data() + (b * s.hkv + h) * s.total * width;
                if (past)
                    std::copy_n(past + (b * s.hkv + h) * s.past * width, s.past * width, dst);
                const F* src = now.head(b, h);
                for (int64_t r = 0; r < s.lkv; ++r)
                    std::copy_n(src + r * now.rowStride, width, dst + (s.past + r) * width);
            }
        if (ctx.hasOutput(out)) {
            Tensor& o = ctx.allocateOutputUninitialized(out, type, { s.b, s.hkv, s.total, width });
            attention::storeAs<F>(buf.data(), o.size(), o);
        }
        return { buf.data(), s.hkv * s.total * width, s.total * width, width };
    }

    /// The additive bias [Bb, Hb, Lq, total] (Bb is 1 or B, Hb 1 or Hq), or an empty vector when nothing masks.
    template <class F> std::vector<F> bias(const KernelContext& ctx, const Dims& s, int64_t& bb, int64_t& hb) const
    {
        constexpr F ninf = -std::numeric_limits<F>::infinity();
        const bool hasMask = ctx.hasInput(3);
        const bool hasNonpad = m_opset >= 24 && ctx.hasInput(6);
        const bool window = m_left >= 0 || m_right >= 0;
        bb = 1;
        hb = 1;
        if (!hasMask && !hasNonpad && !m_causal && !window)
            return {};
        std::vector<int64_t> nonpad;
        if (hasNonpad) {
            if (s.past)
                throw ctx.error("nonpad_kv_seqlen cannot be used together with past_key and past_value");
            const Tensor& n = ctx.input(6);
            if (n.dtype() != DataType::Int64 || n.size() != s.b)
                throw ctx.error(
                    "nonpad_kv_seqlen must be int64 of shape [" + std::to_string(s.b) + "], got " + n.typeString());
            nonpad.assign(n.data<int64_t>().begin(), n.data<int64_t>().end());
            bb = s.b;
        }
        Shape m4 { 1, 1, 1, 1 };
        std::vector<F> mask;
        if (hasMask) {
            const Tensor& m = ctx.input(3);
            if (m.rank() < 1 || m.rank() > 4)
                throw ctx.error("attn_mask must have rank 1 to 4, got " + shapeToString(m.shape()));
            for (int64_t d = 0; d < m.rank(); ++d)
                m4[static_cast<size_t>(4 - m.rank() + d)] = m.dim(d);
            const Shape want { s.b, s.hq, s.lq, s.total };
            for (size_t d = 0; d < 4; ++d)
                if ((d < 3 && m4[d] != 1 && m4[d] != want[d]) || (d == 3 && m4[d] > s.total))
                    throw ctx.error(
                        "attn_mask " + shapeToString(m.shape()) + " does not broadcast to " + shapeToString(want));
            if (m4[0] == s.b)
                bb = s.b;
            if (m4[1] == s.hq)
                hb = s.hq;
            mask.resize(static_cast<size_t>(m.size()));
            if (m.dtype() == DataType::Bool) {
                auto in = m.data<bool>();
                for (size_t i = 0; i < mask.size(); ++i)
                    mask[i] = in[i] ? F(0) : ninf;
            } else {
                dispatch<NumericTypes>(m.dtype(), ctx.node(), " attn_mask", [&]<class T>() {
                    auto in = m.data<T>();
                    for (size_t i = 0; i < mask.size(); ++i)
                        mask[i] = static_cast<F>(static_cast<double>(in[i]));
                });
            }
        }
        std::vector<F> out(static_cast<size_t>(bb * hb * s.lq * s.total));
        for (int64_t b = 0; b < bb; ++b) {
            const int64_t offset = s.past ? s.past : hasNonpad ? nonpad[static_cast<size_t>(b)] - s.lq : 0;
            for (int64_t h = 0; h < hb; ++h)
                for (int64_t i = 0; i < s.lq; ++i) {
                    F* row = out.data() + ((b * hb + h) * s.lq + i) * s.total;
                    const int64_t mrow
                        = (((m4[0] == 1 ? 0 : b) * m4[1] + (m4[1] == 1 ? 0 : h)) * m4[2] + (m4[2] == 1 ? 0 : i))
                        * m4[3];
                    const int64_t p = i + offset;
                    for (int64_t j = 0; j < s.total; ++j) {
                        F v = 0;
                        if (hasMask)
                            v = j < m4[3] ? mask[static_cast<size_t>(mrow + j)] : ninf;
                        if (m_causal && j > p)
                            v += ninf;
                        if ((m_left >= 0 && p - j > m_left) || (m_right >= 0 && j - p > m_right))
                            v += ninf;
                        if (hasNonpad && j >= nonpad[static_cast<size_t>(b)])
                            v += ninf;
                        row[j] = v;
                    }
                }
        }
        return out;
    }

    template <class F> void run(KernelContext& ctx) const
    {
        const Dims s = dims(ctx);
        const Tensor& qt = ctx.input(0);
        const DataType t1 = qt.dtype(), t2 = ctx.input(2).dtype();
        if (ctx.input(1).dtype() != t1)
            throw ctx.error("Q and K have different element types");
        std::vector<F> qb, kb, vb, pk, pv;
        attention::Problem<F> p;
        p.batch = s.b;
        p.qHeads = s.hq;
        p.kvHeads = s.hkv;
        p.qLen = s.lq;
        p.kvLen = s.total;
        p.headSize = s.d;
        p.vHeadSize = s.dv;
        p.q = attention::headsOf(attention::elementsAs<F>(qt, qb), s.hq, s.lq, s.d, s.packed);
        p.k = present<F>(ctx, 4, 1,
            attention::headsOf(attention::elementsAs<F>(ctx.input(1), kb), s.hkv, s.lkv, s.d, s.packed), s, s.d, t1,
            pk);
        p.v = present<F>(ctx, 5, 2,
            attention::headsOf(attention::elementsAs<F>(ctx.input(2), vb), s.hkv, s.lkv, s.dv, s.packed), s, s.dv, t2,
            pv);
        p.scale = static_cast<F>(
            attention::roundedScale(std::sqrt(m_scale ? double(*m_scale) : 1.0 / std::sqrt(double(s.d))), t1));
        p.softcap = static_cast<F>(m_softcap);
        int64_t bb = 1, hb = 1;
        const std::vector<F> bias = this->bias<F>(ctx, s, bb, hb);
        if (!bias.empty())
            p.bias = { bias.data(), bb > 1 ? hb * s.lq * s.total : 0, hb > 1 ? s.lq * s.total : 0, s.total };
        const Shape yShape = s.packed ? Shape { s.b, s.lq, s.hq * s.dv } : Shape { s.b, s.hq, s.lq, s.dv };
        Tensor& y = ctx.allocateOutputUninitialized(0, t1, yShape);
        std::vector<F> yb;
        F* yp = t1 == DataTypeOf<F>::value ? y.data<F>().data() : (yb.resize(static_cast<size_t>(y.size())), yb.data());
        p.y = attention::headsOf(yp, s.hq, s.lq, s.dv, s.packed);
        std::vector<F> scores;
        if (ctx.outputCount() > 3 && ctx.hasOutput(3)) {
            scores.resize(static_cast<size_t>(s.b * s.hq * s.lq * s.total));
            p.tap = m_tap;
            p.scores = attention::headsOf(scores.data(), s.hq, s.lq, s.total);
        }
        attention::scaledDotProductAttention<F>(ctx.threadPool(), p);
        if (!yb.empty())
            attention::storeAs<F>(yb.data(), y.size(), y);
        if (p.tap != attention::ScoresTap::None) {
            Tensor& o = ctx.allocateOutputUninitialized(3, t1, { s.b, s.hq, s.lq, s.total });
            attention::storeAs<F>(scores.data(), o.size(), o);
        }
    }

    int64_t m_opset;
    bool m_causal = false;
    std::optional<int64_t> m_qHeads, m_kvHeads;
    std::optional<float> m_scale;
    float m_softcap = 0;
    attention::ScoresTap m_tap = attention::ScoresTap::Raw;
    int64_t m_left = -1, m_right = -1;
};

} // namespace

void registerAttention(KernelRegistry& r)
{
    r.add("", "Attention", 23, 25, makeFactory<Attention>());
}

} // namespace onnxscope
