// SPDX-License-Identifier: MIT
#include "engine/core/half.h"
#include "engine/kernels/contrib/contrib_util.h"
#include "engine/kernels/kernel_registry.h"

#include <cmath>
#include <string>
#include <vector>

namespace onnxscope {

namespace {

/// v rounded to the element type `type` (float16, bfloat16; others unchanged).
float roundTo(DataType type, float v)
{
    if (type == DataType::Float16)
        return static_cast<float>(Float16(v));
    if (type == DataType::BFloat16)
        return static_cast<float>(BFloat16(v));
    return v;
}

float sigmoid(float z)
{
    return 1.0f / (1.0f + std::exp(-z));
}

/// GatedRMSNorm (com.microsoft 1): Y = X * rsqrt(mean(X²) + epsilon) * scale * act(gate), the mean over each
/// contiguous group of C = len(scale) elements of X's last axis (a multiple of C), act silu (alias swish) or
/// sigmoid. float, float16, bfloat16, computed in float.
class GatedRMSNorm final : public Kernel {
public:
    explicit GatedRMSNorm(const KernelInit& init)
    {
        const auto& a = init.attributes();
        m_epsilon = a.getFloat("epsilon", 1e-5f);
        const std::string act = a.getString("activation", "silu");
        if (act != "silu" && act != "swish" && act != "sigmoid")
            throw a.error("activation", "must be 'silu', 'swish' or 'sigmoid', got '" + act + "'");
        m_sigmoid = act == "sigmoid";
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        const Tensor& scale = ctx.input(1);
        const Tensor& gate = ctx.input(2);
        contrib::requireSameType(ctx, x.dtype(), { 1, 2 });
        if (x.rank() < 1 || scale.rank() != 1 || scale.dim(0) <= 0 || x.dim(x.rank() - 1) % scale.dim(0))
            throw ctx.error("scale must be 1-D [C] with X's last dimension a multiple of C, got X "
                + shapeToString(x.shape()) + " and scale " + shapeToString(scale.shape()));
        if (gate.shape() != x.shape())
            throw ctx.error(
                "gate must have X's shape " + shapeToString(x.shape()) + ", got " + shapeToString(gate.shape()));
        std::vector<float> xb, sb, gb;
        const float* in = contrib::floats(ctx, x, xb, "X");
        const float* w = contrib::floats(ctx, scale, sb, "scale");
        const float* g = contrib::floats(ctx, gate, gb, "gate");
        const int64_t c = scale.dim(0), groups = static_cast<int64_t>(x.size()) / c;
        std::vector<float> y(x.size());
        for (int64_t r = 0; r < groups; ++r) {
            const float* row = in + r * c;
            double sum = 0;
            for (int64_t i = 0; i < c; ++i)
                sum += static_cast<double>(row[i]) * row[i];
            const float inv = 1.0f / std::sqrt(static_cast<float>(sum / static_cast<double>(c)) + m_epsilon);
            for (int64_t i = 0; i < c; ++i) {
                const float z = g[r * c + i];
                const float act = m_sigmoid ? sigmoid(z) : z * sigmoid(z);
                y[static_cast<size_t>(r * c + i)] = row[i] * inv * w[i] * act;
            }
        }
        contrib::storeOutput(ctx, 0, x.dtype(), x.shape(), y.data());
    }

private:
    float m_epsilon = 1e-5f;
    bool m_sigmoid = false;
};

/// BranchwiseRMSNorm (com.microsoft 1): RMS normalisation of each of C branches of H elements, X grouped
/// [..., C, H] (num_branches 0) or flattened [..., C*H] (num_branches C); optional scale [C*H], [C, H] (one per
/// branch) or [H] (shared), of a floating type of its own. Computed in float.
class BranchwiseRMSNorm final : public Kernel {
public:
    explicit BranchwiseRMSNorm(const KernelInit& init)
    {
        const auto& a = init.attributes();
        m_epsilon = a.getFloat("epsilon", 1e-5f);
        m_branches = a.getInt("num_branches", 0);
        if (m_branches < 0)
            throw a.error("num_branches", "must be 0 (grouped input) or positive, got " + std::to_string(m_branches));
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        const int64_t rank = static_cast<int64_t>(x.rank());
        int64_t c = 0, h = 0;
        if (m_branches == 0) {
            if (rank < 2)
                throw ctx.error("grouped X must be [..., C, H] (rank 2 or more), got " + shapeToString(x.shape())
                    + "; set num_branches for flattened input");
            c = x.dim(rank - 2);
            h = x.dim(rank - 1);
        } else {
            if (rank < 1 || x.dim(rank - 1) % m_branches)
                throw ctx.error("flattened X's last dimension must be a multiple of num_branches "
                    + std::to_string(m_branches) + ", got " + shapeToString(x.shape()));
            c = m_branches;
            h = x.dim(rank - 1) / m_branches;
        }
        std::vector<float> xb, sb;
        const float* in = contrib::floats(ctx, x, xb, "X");
        const float* w = nullptr;
        bool perBranch = false;
        if (ctx.hasInput(1)) {
            const Tensor& scale = ctx.input(1);
            if (scale.shape() == Shape { c * h } || scale.shape() == Shape { c, h })
                perBranch = true;
            else if (scale.shape() != Shape { h })
                throw ctx.error("scale must be [C*H], [C, H] or [H] with C = " + std::to_string(c)
                    + ", H = " + std::to_string(h) + ", got " + shapeToString(scale.shape()));
            w = contrib::floats(ctx, scale, sb, "scale");
        }
        const int64_t rows = h ? static_cast<int64_t>(x.size()) / h : 0;
        std::vector<float> y(x.size());
        for (int64_t r = 0; r < rows; ++r) {
            const float* row = in + r * h;
            double sum = 0;
            for (int64_t i = 0; i < h; ++i)
                sum += static_cast<double>(row[i]) * row[i];
            const float inv = 1.0f / std::sqrt(static_cast<float>(sum / static_cast<double>(h)) + m_epsilon);
            const float* wr = w ? (perBranch ? w + (r % c) * h : w) : nullptr;
            for (int64_t i = 0; i < h; ++i)
                y[static_cast<size_t>(r * h + i)] = row[i] * inv * (wr ? wr[i] : 1.0f);
        }
        contrib::storeOutput(ctx, 0, x.dtype(), x.shape(), y.data());
    }

private:
    float m_epsilon = 1e-5f;
    int64_t m_branches = 0;
};

/// GatedAdd (com.microsoft 1): output = X + round_T(Y * gate) with gate [..., 1] (the leading dimensions of X);
/// with gate_weight [K, 1], gate [..., K] is projected per row: s = round_T(sigmoid(round_T(gate · gate_weight))),
/// output = round_T(X + round_T(Y * s)), in float (the schema's projected mode; onnxruntime implements it for
/// bfloat16 on CUDA only). float, float16, bfloat16.
class GatedAdd final : public Kernel {
public:
    explicit GatedAdd(const KernelInit&) { }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        const Tensor& yT = ctx.input(1);
        const Tensor& gate = ctx.input(2);
        contrib::requireSameType(ctx, x.dtype(), { 1, 2, 3 });
        if (yT.shape() != x.shape())
            throw ctx.error("Y must have X's shape " + shapeToString(x.shape()) + ", got " + shapeToString(yT.shape()));
        const size_t rank = x.rank();
        bool leadingMatch = rank >= 1 && gate.rank() == rank;
        for (size_t i = 0; leadingMatch && i + 1 < rank; ++i)
            leadingMatch = gate.dim(i) == x.dim(i);
        const bool projected = ctx.hasInput(3);
        const int64_t k = leadingMatch ? gate.dim(rank - 1) : 0;
        if (!leadingMatch || (!projected && k != 1))
            throw ctx.error(std::string("gate must be [..., ") + (projected ? "K" : "1")
                + "] with X's leading dimensions " + shapeToString(x.shape()) + ", got " + shapeToString(gate.shape()));
        if (projected && ctx.input(3).shape() != Shape { k, 1 })
            throw ctx.error("gate_weight must be [K, 1] = [" + std::to_string(k) + ", 1], got "
                + shapeToString(ctx.input(3).shape()));
        std::vector<float> xb, yb, gb, wb;
        const float* a = contrib::floats(ctx, x, xb, "X");
        const float* b = contrib::floats(ctx, yT, yb, "Y");
        const float* g = contrib::floats(ctx, gate, gb, "gate");
        const float* w = projected ? contrib::floats(ctx, ctx.input(3), wb, "gate_weight") : nullptr;
        const DataType t = x.dtype();
        const int64_t c = x.dim(rank - 1), rows = c ? static_cast<int64_t>(x.size()) / c : 0;
        std::vector<float> out(x.size());
        for (int64_t r = 0; r < rows; ++r) {
            float s = g[r];
            if (projected) {
                float p = 0;
                for (int64_t i = 0; i < k; ++i)
                    p += g[r * k + i] * w[i];
                s = roundTo(t, sigmoid(roundTo(t, p)));
            }
            for (int64_t i = 0; i < c; ++i)
                out[static_cast<size_t>(r * c + i)] = a[r * c + i] + roundTo(t, b[r * c + i] * s);
        }
        contrib::storeOutput(ctx, 0, t, x.shape(), out.data());
    }
};

} // namespace

void registerLlmNorms(KernelRegistry& r)
{
    r.add("com.microsoft", "GatedRMSNorm", 1, KernelRegistry::kLatest, makeFactory<GatedRMSNorm>());
    r.add("com.microsoft", "BranchwiseRMSNorm", 1, KernelRegistry::kLatest, makeFactory<BranchwiseRMSNorm>());
    r.add("com.microsoft", "GatedAdd", 1, KernelRegistry::kLatest, makeFactory<GatedAdd>());
}

} // namespace onnxscope
