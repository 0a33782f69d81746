// SPDX-License-Identifier: MIT
#include "engine/kernels/common/dispatch.h"
#include "engine/kernels/kernel_registry.h"
#include "engine/kernels/ml/ml_common.h"

#include <algorithm>
#include <cmath>

namespace onnxscope {

namespace {

enum class Mode : uint8_t { Leq, Lt, Gte, Gt, Eq, Neq, Member };

/// TreeEnsemble, ai.onnx.ml 5: X [N, F] (or [F]) of float, double or float16 -> Y [N, n_targets] of X's type. Each
/// tree starts at its tree_roots entry; a node compares feature nodes_featureids with nodes_splits (modes 0-5:
/// LEQ, LT, GTE, GT, EQ, NEQ) or tests membership in its set of membership_values (mode 6; the sets are listed in
/// node order, each ended by NaN); a NaN feature goes to the true branch where nodes_missing_value_tracks_true is 1.
/// The branches point at nodes, or at leaves (leaf_weights, leaf_targetids) where nodes_trueleafs/falseleafs is 1.
/// Leaf weights are aggregated per target (aggregate_function 0 AVERAGE, 1 SUM, 2 MIN, 3 MAX), then post_transform
/// (0 NONE, 1 SOFTMAX, 2 LOGISTIC, 3 SOFTMAX_ZERO, 4 PROBIT). Computed in double. A MIN/MAX target no leaf reaches
/// is 0.
class TreeEnsemble final : public Kernel {
public:
    explicit TreeEnsemble(const KernelInit& init)
    {
        const auto& a = init.attributes();
        m_targets = a.requireInt("n_targets");
        if (m_targets < 1)
            throw a.error("n_targets", "must be at least 1, got " + std::to_string(m_targets));
        m_agg = a.getInt("aggregate_function", 1);
        if (m_agg < 0 || m_agg > 3)
            throw a.error("aggregate_function", "expected 0 to 3, got " + std::to_string(m_agg));
        static constexpr ml::PostTransform transforms[] = { ml::PostTransform::None, ml::PostTransform::Softmax,
            ml::PostTransform::Logistic, ml::PostTransform::SoftmaxZero, ml::PostTransform::Probit };
        const int64_t post = a.getInt("post_transform", 0);
        if (post < 0 || post > 4)
            throw a.error("post_transform", "expected 0 to 4, got " + std::to_string(post));
        m_transform = transforms[post];
        m_splits = doubles(a.requireTensor("nodes_splits"));
        m_features = a.getInts("nodes_featureids");
        const std::vector<double> modes = doubles(a.requireTensor("nodes_modes"));
        m_trueIds = a.getInts("nodes_truenodeids");
        m_falseIds = a.getInts("nodes_falsenodeids");
        m_trueLeaf = a.getInts("nodes_trueleafs");
        m_falseLeaf = a.getInts("nodes_falseleafs");
        m_missingTrue = a.getInts("nodes_missing_value_tracks_true");
        m_roots = a.getInts("tree_roots");
        m_leafTargets = a.getInts("leaf_targetids");
        m_leafWeights = doubles(a.requireTensor("leaf_weights"));
        const size_t nodes = modes.size();
        for (size_t size : { m_splits.size(), m_features.size(), m_trueIds.size(), m_falseIds.size(), m_trueLeaf.size(),
                 m_falseLeaf.size() })
            if (size != nodes)
                throw init.error("the nodes_* attributes must all have " + std::to_string(nodes) + " values");
        if (m_missingTrue.empty())
            m_missingTrue.assign(nodes, 0);
        if (m_missingTrue.size() != nodes || m_leafTargets.size() != m_leafWeights.size())
            throw init.error("nodes_missing_value_tracks_true, leaf_targetids and leaf_weights have wrong lengths");
        std::vector<double> members
            = a.has("membership_values") ? doubles(a.requireTensor("membership_values")) : std::vector<double> {};
        size_t next = 0;
        m_sets.resize(nodes);
        for (size_t i = 0; i < nodes; ++i) {
            if (modes[i] < 0 || modes[i] > 6)
                throw a.error("nodes_modes", "expected 0 to 6, got " + std::to_string(modes[i]));
            m_modes.push_back(static_cast<Mode>(modes[i]));
            if (m_modes.back() == Mode::Member) {
                for (; next < members.size() && !std::isnan(members[next]); ++next)
                    m_sets[i].push_back(members[next]);
                if (next++ >= members.size())
                    throw a.error("membership_values", "has fewer NaN-ended sets than BRANCH_MEMBER nodes");
            }
            if (m_features[i] < 0)
                throw a.error("nodes_featureids", "negative feature " + std::to_string(m_features[i]));
            m_maxFeature = std::max(m_maxFeature, m_features[i]);
            checkTarget(init, m_trueIds[i], m_trueLeaf[i] != 0);
            checkTarget(init, m_falseIds[i], m_falseLeaf[i] != 0);
        }
        for (int64_t root : m_roots)
            checkTarget(init, root, false);
        for (int64_t t : m_leafTargets)
            if (t < 0 || t >= m_targets)
                throw a.error("leaf_targetids", "target " + std::to_string(t) + " is out of range");
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        const auto [rows, features] = ml::rowsAndFeatures(ctx, x);
        if (m_maxFeature >= features)
            throw ctx.error("the trees read feature " + std::to_string(m_maxFeature) + " but X " + x.typeString()
                + " has " + std::to_string(features) + " features");
        Tensor& y = ctx.allocateOutput(0, x.dtype(), { rows, m_targets });
        std::vector<double> row(static_cast<size_t>(features)), score(static_cast<size_t>(m_targets));
        std::vector<uint8_t> has(static_cast<size_t>(m_targets));
        const int64_t n = rows, f = features;
        dispatch<TypeList<float, double, Float16>>(x.dtype(), ctx.node(), [&]<class T>() {
            auto in = x.data<T>();
            auto out = y.data<T>();
            for (int64_t r = 0; r < n; ++r) {
                for (int64_t j = 0; j < f; ++j)
                    row[static_cast<size_t>(j)] = static_cast<double>(in[static_cast<size_t>(r * f + j)]);
                std::fill(score.begin(), score.end(), 0.0);
                std::fill(has.begin(), has.end(), uint8_t(0));
                for (int64_t root : m_roots) {
                    const auto leaf = static_cast<size_t>(findLeaf(row, root));
                    const auto t = static_cast<size_t>(m_leafTargets[leaf]);
                    const double w = m_leafWeights[leaf];
                    if (m_agg == 2)
                        score[t] = has[t] ? std::min(score[t], w) : w;
                    else if (m_agg == 3)
                        score[t] = has[t] ? std::max(score[t], w) : w;
                    else
                        score[t] += w;
                    has[t] = 1;
                }
                if (m_agg == 0 && !m_roots.empty())
                    for (double& s : score)
                        s /= static_cast<double>(m_roots.size());
                ml::applyPostTransform(m_transform, score.data(), m_targets);
                for (int64_t t = 0; t < m_targets; ++t)
                    out[static_cast<size_t>(r * m_targets + t)] = static_cast<T>(score[static_cast<size_t>(t)]);
            }
        });
    }

private:
    static std::vector<double> doubles(const Tensor& t)
    {
        std::vector<double> v(static_cast<size_t>(t.size()));
        for (int64_t i = 0; i < t.size(); ++i)
            v[static_cast<size_t>(i)] = t.toDouble(i);
        return v;
    }

    void checkTarget(const KernelInit& init, int64_t id, bool leaf) const
    {
        const size_t count = leaf ? m_leafWeights.size() : m_splits.size();
        if (id < 0 || static_cast<size_t>(id) >= count)
            throw init.error(std::string(leaf ? "leaf" : "node") + " index " + std::to_string(id) + " is out of range");
    }

    /// The leaf the row reaches from node `pos`. The walk is bounded by the node count, so a cycle is an error.
    int64_t findLeaf(const std::vector<double>& row, int64_t pos) const
    {
        for (size_t steps = 0; steps <= m_modes.size(); ++steps) {
            const auto i = static_cast<size_t>(pos);
            const double v = row[static_cast<size_t>(m_features[i])], s = m_splits[i];
            bool go = false;
            switch (m_modes[i]) {
            case Mode::Leq:
                go = v <= s;
                break;
            case Mode::Lt:
                go = v < s;
                break;
            case Mode::Gte:
                go = v >= s;
                break;
            case Mode::Gt:
                go = v > s;
                break;
            case Mode::Eq:
                go = v == s;
                break;
            case Mode::Neq:
                go = v != s;
                break;
            case Mode::Member:
                go = std::find(m_sets[i].begin(), m_sets[i].end(), v) != m_sets[i].end();
                break;
            }
            go = go || (m_missingTrue[i] != 0 && std::isnan(v));
            const bool leaf = go ? m_trueLeaf[i] != 0 : m_falseLeaf[i] != 0;
            pos = go ? m_trueIds[i] : m_falseIds[i];
            if (leaf)
                return pos;
        }
        throw Error("TreeEnsemble: the trees have a cycle");
    }

    int64_t m_targets = 1, m_agg = 1, m_maxFeature = -1;
    ml::PostTransform m_transform = ml::PostTransform::None;
    std::vector<double> m_splits, m_leafWeights;
    std::vector<int64_t> m_features, m_trueIds, m_falseIds, m_trueLeaf, m_falseLeaf, m_missingTrue, m_roots,
        m_leafTargets;
    std::vector<Mode> m_modes;
    std::vector<std::vector<double>> m_sets;
};

} // namespace

void registerTreeEnsemble5(KernelRegistry& r)
{
    r.add("ai.onnx.ml", "TreeEnsemble", 5, 5, makeFactory<TreeEnsemble>());
}

} // namespace onnxscope
