// SPDX-License-Identifier: MIT
#include "engine/kernels/contrib/contrib_util.h"
#include "engine/kernels/kernel_registry.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace onnxscope {

namespace {

/// The streams input of the hyper-connection ops: grouped [..., C, H] (num_branches 0) or flattened [..., C*H].
struct Streams {
    Shape lead; // the leading dimensions "..."
    int64_t c = 0, h = 0, rows = 0; // rows: the product of lead
};

Streams streamsOf(const KernelContext& ctx, const Tensor& x, int64_t branches)
{
    Streams s;
    const size_t rank = x.rank();
    if (branches == 0) {
        if (rank < 2)
            throw ctx.error("grouped streams must be [..., C, H] (rank 2 or more), got " + shapeToString(x.shape())
                + "; set num_branches for flattened streams");
        s.c = x.dim(rank - 2);
        s.h = x.dim(rank - 1);
        s.lead.assign(x.shape().begin(), x.shape().end() - 2);
    } else {
        if (rank < 1 || x.dim(rank - 1) % branches)
            throw ctx.error("flattened streams' last dimension must be a multiple of num_branches "
                + std::to_string(branches) + ", got " + shapeToString(x.shape()));
        s.c = branches;
        s.h = x.dim(rank - 1) / branches;
        s.lead.assign(x.shape().begin(), x.shape().end() - 1);
    }
    s.rows = 1;
    for (int64_t d : s.lead)
        s.rows *= d;
    return s;
}

Shape withTail(const Shape& lead, std::initializer_list<int64_t> tail)
{
    Shape out = lead;
    out.insert(out.end(), tail.begin(), tail.end());
    return out;
}

/// The gate input of the mixes: [..., C], [..., C, 1], [..., C, H] (and [..., C*H] when `flatAllowed`) → per-row
/// stride of its values and whether it varies along H.
void gateForm(
    const KernelContext& ctx, const Tensor& g, const Streams& s, bool flatAllowed, const char* name, bool& perFeature)
{
    if (g.shape() == withTail(s.lead, { s.c }) || g.shape() == withTail(s.lead, { s.c, 1 })) {
        perFeature = false;
        return;
    }
    if (g.shape() == withTail(s.lead, { s.c, s.h }) || (flatAllowed && g.shape() == withTail(s.lead, { s.c * s.h }))) {
        perFeature = true;
        return;
    }
    throw ctx.error(std::string(name) + " must be [..., C], [..., C, 1], [..., C, H]"
        + (flatAllowed ? ", or [..., C*H]" : "") + " with ... = " + shapeToString(s.lead)
        + ", C = " + std::to_string(s.c) + ", H = " + std::to_string(s.h) + ", got " + shapeToString(g.shape()));
}

/// HyperConnectionPreMix (com.microsoft 1): Y[..., h] = reduction_scale * sum_c X[..., c, h] * pre_mix[..., c, h],
/// streams grouped or flattened (num_branches), pre_mix [..., C], [..., C, 1], [..., C, H] or [..., C*H], of a
/// floating type of its own. float, float16, bfloat16, computed in float.
class HyperConnectionPreMix final : public Kernel {
public:
    explicit HyperConnectionPreMix(const KernelInit& init)
    {
        const auto& a = init.attributes();
        m_scale = a.getFloat("reduction_scale", 1.0f);
        m_branches = a.getInt("num_branches", 0);
        if (m_branches < 0)
            throw a.error("num_branches", "must be 0 (grouped streams) or positive");
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        const Tensor& mix = ctx.input(1);
        const Streams s = streamsOf(ctx, x, m_branches);
        bool perFeature = false;
        gateForm(ctx, mix, s, true, "pre_mix", perFeature);
        std::vector<float> xb, mb;
        const float* in = contrib::floats(ctx, x, xb, "streams");
        const float* m = contrib::floats(ctx, mix, mb, "pre_mix");
        std::vector<float> y(static_cast<size_t>(s.rows * s.h), 0.0f);
        for (int64_t r = 0; r < s.rows; ++r)
            for (int64_t h = 0; h < s.h; ++h) {
                float acc = 0;
                for (int64_t c = 0; c < s.c; ++c)
                    acc += in[(r * s.c + c) * s.h + h] * (perFeature ? m[(r * s.c + c) * s.h + h] : m[r * s.c + c]);
                y[static_cast<size_t>(r * s.h + h)] = m_scale * acc;
            }
        contrib::storeOutput(ctx, 0, x.dtype(), withTail(s.lead, { s.h }), y.data());
    }

private:
    float m_scale = 1.0f;
    int64_t m_branches = 0;
};

/// HyperConnectionPostMix (com.microsoft 1): Y[..., k, h] = sum_c stream_mix[..., c, k] * streams[..., c, h]
/// + post_mix[..., k, h] * block_output[..., h]; stream_mix [..., C, C] (absent: identity), post_mix [..., C],
/// [..., C, 1] or [..., C, H], both of a floating type of their own. Output of the streams' shape. float, float16,
/// bfloat16, computed in float.
class HyperConnectionPostMix final : public Kernel {
public:
    explicit HyperConnectionPostMix(const KernelInit& init)
    {
        m_branches = init.attributes().getInt("num_branches", 0);
        if (m_branches < 0)
            throw init.attributes().error("num_branches", "must be 0 (grouped streams) or positive");
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        const Tensor& block = ctx.input(1);
        const Tensor& post = ctx.input(2);
        contrib::requireSameType(ctx, x.dtype(), { 1 });
        const Streams s = streamsOf(ctx, x, m_branches);
        if (block.shape() != withTail(s.lead, { s.h }))
            throw ctx.error("block_output must be [..., H] = " + shapeToString(withTail(s.lead, { s.h })) + ", got "
                + shapeToString(block.shape()));
        bool perFeature = false;
        gateForm(ctx, post, s, false, "post_mix", perFeature);
        if (ctx.hasInput(3) && ctx.input(3).shape() != withTail(s.lead, { s.c, s.c }))
            throw ctx.error("stream_mix must be [..., C, C] = " + shapeToString(withTail(s.lead, { s.c, s.c }))
                + ", got " + shapeToString(ctx.input(3).shape()));
        if (ctx.hasInput(3) && ctx.input(3).dtype() != post.dtype())
            throw ctx.error("stream_mix is " + ctx.input(3).typeString() + " but post_mix is " + post.typeString());
        std::vector<float> xb, bb, pb, sb;
        const float* in = contrib::floats(ctx, x, xb, "streams");
        const float* bo = contrib::floats(ctx, block, bb, "block_output");
        const float* pm = contrib::floats(ctx, post, pb, "post_mix");
        const float* sm = ctx.hasInput(3) ? contrib::floats(ctx, ctx.input(3), sb, "stream_mix") : nullptr;
        std::vector<float> y(x.size());
        for (int64_t r = 0; r < s.rows; ++r)
            for (int64_t k = 0; k < s.c; ++k)
                for (int64_t h = 0; h < s.h; ++h) {
                    float acc = 0;
                    if (sm)
                        for (int64_t c = 0; c < s.c; ++c)
                            acc += sm[(r * s.c + c) * s.c + k] * in[(r * s.c + c) * s.h + h];
                    else
                        acc = in[(r * s.c + k) * s.h + h];
                    const float g = perFeature ? pm[(r * s.c + k) * s.h + h] : pm[r * s.c + k];
                    y[static_cast<size_t>((r * s.c + k) * s.h + h)] = acc + g * bo[r * s.h + h];
                }
        contrib::storeOutput(ctx, 0, x.dtype(), x.shape(), y.data());
    }

private:
    int64_t m_branches = 0;
};

float sigmoid(float z)
{
    return 1.0f / (1.0f + std::exp(-z));
}

/// x[0..n) scaled by rsqrt(mean(x²) + eps) and w into out.
void rmsNorm(const float* x, const float* w, int64_t n, float eps, float* out)
{
    double sum = 0;
    for (int64_t i = 0; i < n; ++i)
        sum += static_cast<double>(x[i]) * x[i];
    const float inv = 1.0f / std::sqrt(static_cast<float>(sum / static_cast<double>(n)) + eps);
    for (int64_t i = 0; i < n; ++i)
        out[i] = x[i] * inv * w[i];
}

/// EngramGate (com.microsoft 1): for key and query [B, S, M, H] and value [B, S, H], dot = sum(RMSNorm(key) *
/// RMSNorm(query)) / sqrt(H) (scales key_norm_scale, query_norm_scale [M, H]), gate = sigmoid(sign(dot) *
/// sqrt(max(|dot|, 1e-6))), output [B, S, M, H] = gate * value; gated_value_normed = RMSNorm(output) with
/// conv_norm_scale [M, H]. epsilon for both norms. float, float16, computed in float.
class EngramGate final : public Kernel {
public:
    explicit EngramGate(const KernelInit& init) { m_epsilon = init.attributes().getFloat("epsilon", 1e-5f); }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& key = ctx.input(0);
        const Tensor& query = ctx.input(1);
        const Tensor& value = ctx.input(2);
        contrib::requireSameType(ctx, key.dtype(), { 1, 2, 3, 4, 5 });
        if (key.rank() != 4 || query.shape() != key.shape() || value.rank() != 3 || value.dim(0) != key.dim(0)
            || value.dim(1) != key.dim(1) || value.dim(2) != key.dim(3))
            throw ctx.error("key and query must be [B, S, hc_mult, H] and value [B, S, H], got "
                + shapeToString(key.shape()) + ", " + shapeToString(query.shape()) + " and "
                + shapeToString(value.shape()));
        const int64_t m = key.dim(2), h = key.dim(3), rows = key.dim(0) * key.dim(1);
        const Shape scaleShape { m, h };
        for (size_t i : { 3, 4, 5 })
            if (ctx.hasInput(i) && ctx.input(i).shape() != scaleShape)
                throw ctx.error(
                    std::string(i == 3 ? "key_norm_scale" : (i == 4 ? "query_norm_scale" : "conv_norm_scale"))
                    + " must be [hc_mult, H] = " + shapeToString(scaleShape) + ", got "
                    + shapeToString(ctx.input(i).shape()));
        const bool normed = ctx.hasOutput(1);
        if (normed && !ctx.hasInput(5))
            throw ctx.error("the gated_value_normed output needs the conv_norm_scale input");
        std::vector<float> kb, qb, vb, ksb, qsb, csb;
        const float* k = contrib::floats(ctx, key, kb, "key");
        const float* q = contrib::floats(ctx, query, qb, "query");
        const float* v = contrib::floats(ctx, value, vb, "value");
        const float* ks = contrib::floats(ctx, ctx.input(3), ksb, "key_norm_scale");
        const float* qs = contrib::floats(ctx, ctx.input(4), qsb, "query_norm_scale");
        const float* cs = normed ? contrib::floats(ctx, ctx.input(5), csb, "conv_norm_scale") : nullptr;
        std::vector<float> out(key.size()), outNormed(normed ? key.size() : 0), nk(static_cast<size_t>(h)),
            nq(static_cast<size_t>(h));
        const float invSqrtH = 1.0f / std::sqrt(static_cast<float>(h));
        for (int64_t r = 0; r < rows; ++r)
            for (int64_t j = 0; j < m; ++j) {
                const int64_t off = (r * m + j) * h;
                rmsNorm(k + off, ks + j * h, h, m_epsilon, nk.data());
                rmsNorm(q + off, qs + j * h, h, m_epsilon, nq.data());
                float dot = 0;
                for (int64_t i = 0; i < h; ++i)
                    dot += nk[static_cast<size_t>(i)] * nq[static_cast<size_t>(i)];
                dot *= invSqrtH;
                const float sign = dot > 0 ? 1.0f : (dot < 0 ? -1.0f : 0.0f);
                const float gate = sigmoid(sign * std::sqrt(std::max(std::fabs(dot), 1e-6f)));
                for (int64_t i = 0; i < h; ++i)
                    out[static_cast<size_t>(off + i)] = gate * v[r * h + i];
                if (normed)
                    rmsNorm(out.data() + off, cs + j * h, h, m_epsilon, outNormed.data() + off);
            }
        contrib::storeOutput(ctx, 0, key.dtype(), key.shape(), out.data());
        if (normed)
            contrib::storeOutput(ctx, 1, key.dtype(), key.shape(), outNormed.data());
    }

private:
    float m_epsilon = 1e-5f;
};

/// LinearAttentionGate (com.microsoft 1): decay = decay_scale * softplus(a + dt_bias), beta = sigmoid(b); a and b
/// [B, T, H] (float, float16, bfloat16), dt_bias and decay_scale [H] float; computed in float.
class LinearAttentionGate final : public Kernel {
public:
    explicit LinearAttentionGate(const KernelInit&) { }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& a = ctx.input(0);
        const Tensor& bias = ctx.input(1);
        const Tensor& scale = ctx.input(2);
        if (a.rank() != 3)
            throw ctx.error("a must be [B, T, H], got " + shapeToString(a.shape()));
        const int64_t h = a.dim(2);
        for (size_t i : { 1, 2 }) {
            const Tensor& t = ctx.input(i);
            if (t.dtype() != DataType::Float || t.shape() != Shape { h })
                throw ctx.error(std::string(i == 1 ? "dt_bias" : "decay_scale") + " must be float [H] = ["
                    + std::to_string(h) + "], got " + t.typeString() + " " + shapeToString(t.shape()));
        }
        if (ctx.hasOutput(1) && !ctx.hasInput(3))
            throw ctx.error("the beta output needs the b input");
        if (ctx.hasInput(3) && (ctx.input(3).shape() != a.shape() || ctx.input(3).dtype() != a.dtype()))
            throw ctx.error("b must be of a's type and shape " + shapeToString(a.shape()) + ", got "
                + ctx.input(3).typeString() + " " + shapeToString(ctx.input(3).shape()));
        std::vector<float> ab, bb;
        const float* av = contrib::floats(ctx, a, ab, "a");
        const float* db = bias.data<float>().data();
        const float* ds = scale.data<float>().data();
        std::vector<float> decay(a.size());
        for (size_t i = 0; i < a.size(); ++i) {
            const float z = av[i] + db[i % static_cast<size_t>(h)];
            const float softplus = z > 20.0f ? z : std::log1p(std::exp(z));
            decay[i] = ds[i % static_cast<size_t>(h)] * softplus;
        }
        contrib::storeOutput(ctx, 0, a.dtype(), a.shape(), decay.data());
        if (ctx.hasOutput(1)) {
            const float* bv = contrib::floats(ctx, ctx.input(3), bb, "b");
            std::vector<float> beta(a.size());
            for (size_t i = 0; i < a.size(); ++i)
                beta[i] = sigmoid(bv[i]);
            contrib::storeOutput(ctx, 1, a.dtype(), a.shape(), beta.data());
        }
    }
};

} // namespace

void registerLlmMixes(KernelRegistry& r)
{
    r.add("com.microsoft", "HyperConnectionPreMix", 1, KernelRegistry::kLatest, makeFactory<HyperConnectionPreMix>());
    r.add("com.microsoft", "HyperConnectionPostMix", 1, KernelRegistry::kLatest, makeFactory<HyperConnectionPostMix>());
    r.add("com.microsoft", "EngramGate", 1, KernelRegistry::kLatest, makeFactory<EngramGate>());
    r.add("com.microsoft", "LinearAttentionGate", 1, KernelRegistry::kLatest, makeFactory<LinearAttentionGate>());
}

} // namespace onnxscope
