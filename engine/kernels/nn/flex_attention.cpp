// SPDX-License-Identifier: MIT
#include "engine/core/half.h"
#include "engine/kernels/common/dispatch.h"
#include "engine/kernels/kernel_registry.h"
#include "engine/kernels/nn/attention_core.h"

#include <cmath>
#include <optional>
#include <vector>

namespace onnxscope {

namespace {

/// FlexAttention 1 (ai.onnx.preview): Y = softmax(score_mod(Q·Kᵀ·scale)) then prob_mod, times V, over 4-D Q [B, Hq,
/// L, E], K [B, Hkv, S, E], V [B, Hkv, S, Ev] (query head h reads kv head h / (Hq / Hkv)). score_mod and prob_mod are
/// optional graphs of one [B, Hq, L, S] tensor in and one out, run as nested frames (the debugger can step into
/// them); their element type is softmax_precision (default float, double for double inputs). Q, K, V float, double,
/// float16, bfloat16. Deviation: a row whose scores are all -inf gives zeros instead of NaN.
class FlexAttention final : public SubgraphKernel {
public:
    explicit FlexAttention(const KernelInit& init)
        : m_scoreMod(init.node.subgraph("score_mod"))
        , m_probMod(init.node.subgraph("prob_mod"))
    {
        if (init.attributes().has("scale"))
            m_scale = init.attributes().requireFloat("scale");
        if (init.attributes().has("softmax_precision")) {
            m_precision = dataTypeFromOnnx(static_cast<int32_t>(init.attributes().requireInt("softmax_precision")));
            if (!isFloatingPoint(*m_precision))
                throw init.attributes().error("softmax_precision", "must be float, double, float16 or bfloat16");
        }
        for (const Graph* g : { m_scoreMod, m_probMod })
            if (g && (g->inputs().size() != 1 || g->outputs().size() != 1))
                throw init.error("graph \"" + g->name() + "\" must have exactly one input and one output");
    }

    std::unique_ptr<SubgraphRun> start(KernelContext& ctx) const override
    {
        const Tensor& q = ctx.input(0);
        const Tensor& k = ctx.input(1);
        const Tensor& v = ctx.input(2);
        if (q.rank() != 4 || k.rank() != 4 || v.rank() != 4)
            throw ctx.error("Q, K and V must be 4-D");
        if (k.dim(0) != q.dim(0) || v.dim(0) != q.dim(0) || k.dim(3) != q.dim(3) || v.dim(1) != k.dim(1)
            || v.dim(2) != k.dim(2))
            throw ctx.error("shapes of Q " + shapeToString(q.shape()) + ", K " + shapeToString(k.shape()) + " and V "
                + shapeToString(v.shape()) + " do not fit together");
        if (k.dim(1) <= 0 || q.dim(1) % k.dim(1))
            throw ctx.error("the query heads are not a multiple of the key/value heads");
        if (k.dtype() != q.dtype() || v.dtype() != q.dtype())
            throw ctx.error("Q, K and V must have one element type");
        const DataType precision
            = m_precision.value_or(q.dtype() == DataType::Double ? DataType::Double : DataType::Float);
        if (precision == DataType::Double)
            return std::make_unique<Run<double>>(*this, ctx, precision);
        return std::make_unique<Run<float>>(*this, ctx, precision);
    }

private:
    template <class F> class Run final : public SubgraphRun {
    public:
        Run(const FlexAttention& op, KernelContext& ctx, DataType precision)
            : m_op(op)
            , m_pool(ctx.threadPool())
            , m_precision(precision)
            , m_label("FlexAttention \"" + ctx.node().displayName() + "\" ")
        {
            const Tensor& q = ctx.input(0);
            m_q = ctx.input(0);
            m_k = ctx.input(1);
            m_v = ctx.input(2);
            attention::Problem<F>& p = m_p;
            p.batch = q.dim(0);
            p.qHeads = q.dim(1);
            p.kvHeads = m_k.dim(1);
            p.qLen = q.dim(2);
            p.kvLen = m_k.dim(2);
            p.headSize = q.dim(3);
            p.vHeadSize = m_v.dim(3);
            // As onnx: Q and K are each multiplied by sqrt(scale) (computed in float) rounded to Q's element type.
            const float root = std::sqrt(op.m_scale.value_or(1.0f / std::sqrt(static_cast<float>(p.headSize))));
            p.scale = static_cast<F>(attention::roundedScale(root, q.dtype()));
            const int64_t lq = p.qLen, lk = p.kvLen;
            p.q = attention::headsOf(attention::elementsAs<F>(m_q, m_qb), p.qHeads, lq, p.headSize);
            p.k = attention::headsOf(attention::elementsAs<F>(m_k, m_kb), p.kvHeads, lk, p.headSize);
            p.v = attention::headsOf(attention::elementsAs<F>(m_v, m_vb), p.kvHeads, lk, p.vHeadSize);
            m_scores.resize(static_cast<size_t>(p.batch * p.qHeads * lq * lk));
            p.scores = attention::headsOf(m_scores.data(), p.qHeads, lq, lk);
            attention::attentionScores<F>(m_pool, p);
            roundToPrecision();
            if (!op.m_scoreMod)
                softmax();
        }

        std::optional<SubgraphCall> next() override
        {
            if (m_stage == 0 && m_op.m_scoreMod)
                return call(m_op.m_scoreMod, "score_mod");
            if (m_stage <= 1 && m_op.m_probMod) {
                m_stage = 1;
                return call(m_op.m_probMod, "prob_mod");
            }
            return std::nullopt;
        }

        void finished(std::vector<Value> outputs) override
        {
            const Graph* g = m_stage == 0 && m_op.m_scoreMod ? m_op.m_scoreMod : m_op.m_probMod;
            const Tensor& t = outputs.at(0).tensor("output of graph \"" + g->name() + "\"");
            if (t.shape() != m_shape() || !isFloatingPoint(t.dtype()))
                throw Error(m_label + "graph \"" + g->name() + "\" returned " + t.typeString() + ", expected "
                    + std::string(dataTypeName(m_precision)) + shapeToString(m_shape()));
            std::vector<F> buf;
            const F* src = attention::elementsAs<F>(t, buf);
            std::copy(src, src + m_scores.size(), m_scores.begin());
            roundToPrecision();
            if (m_stage == 0 && m_op.m_scoreMod)
                softmax();
            m_stage = m_stage == 0 && m_op.m_scoreMod ? 1 : 2;
        }

        void complete(KernelContext& ctx) override
        {
            const attention::Problem<F>& p = m_p;
            Tensor& y = ctx.allocateOutputUninitialized(0, m_v.dtype(), { p.batch, p.qHeads, p.qLen, p.vHeadSize });
            std::vector<F> yb(static_cast<size_t>(y.size()));
            attention::Problem<F> out = p;
            out.y = attention::headsOf(yb.data(), p.qHeads, p.qLen, p.vHeadSize);
            attention::attentionOutput<F>(m_pool, out);
            attention::storeAs<F>(yb.data(), y.size(), y);
        }

    private:
        Shape m_shape() const { return { m_p.batch, m_p.qHeads, m_p.qLen, m_p.kvLen }; }

        SubgraphCall call(const Graph* g, const char* what)
        {
            Tensor t = Tensor::uninitialized(m_precision, m_shape());
            attention::storeAs<F>(m_scores.data(), t.size(), t);
            return SubgraphCall { g, { Value(std::move(t)) }, m_label + what, -1 };
        }

        void softmax() { attention::softmaxRows<F>(m_scores.data(), m_p.batch * m_p.qHeads * m_p.qLen, m_p.kvLen); }

        /// The scores as the softmax precision holds them (float16 and bfloat16 round; float and double are exact).
        void roundToPrecision()
        {
            if (m_precision != DataType::Float16 && m_precision != DataType::BFloat16)
                return;
            dispatch<TypeList<Float16, BFloat16>>(m_precision, "FlexAttention", [&]<class T>() {
                for (F& x : m_scores)
                    x = static_cast<F>(static_cast<float>(static_cast<T>(static_cast<float>(x))));
            });
        }

        const FlexAttention& m_op;
        ThreadPool* m_pool;
        DataType m_precision;
        std::string m_label;
        Tensor m_q, m_k, m_v;
        std::vector<F> m_qb, m_kb, m_vb, m_scores;
        attention::Problem<F> m_p;
        int m_stage = 0; // 0: score_mod next, 1: prob_mod next, 2: done
    };

    const Graph* m_scoreMod;
    const Graph* m_probMod;
    std::optional<float> m_scale;
    std::optional<DataType> m_precision;
};

} // namespace

void registerFlexAttention(KernelRegistry& r)
{
    r.add("ai.onnx.preview", "FlexAttention", 1, 1, makeFactory<FlexAttention>());
}

} // namespace onnxscope
