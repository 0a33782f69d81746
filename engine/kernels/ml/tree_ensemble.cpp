// SPDX-License-Identifier: MIT
#include "engine/kernels/common/dispatch.h"
#include "engine/kernels/kernel_registry.h"
#include "engine/kernels/ml/ml_common.h"
#include "engine/kernels/ml/tree_model.h"

namespace onnxscope {

namespace {

using ml::Aggregate;
using ml::PostTransform;
using ml::TreeModel;

/// Runs the trees on X (float, double, int32, int64; [N, F] or [F]) into per-row scores and has-score flags.
void runTrees(const KernelContext& ctx, const TreeModel& model, Aggregate agg, std::vector<double>& scores,
    std::vector<uint8_t>& has, int64_t& n)
{
    const Tensor& x = ctx.input(0);
    // Not a structured binding: clang 14 (the fuzzing and sanitizer builds) cannot capture those in the lambda below.
    const auto shape = ml::rowsAndFeatures(ctx, x);
    const int64_t rows = shape.first, features = shape.second;
    if (model.maxFeature >= features)
        throw ctx.error("the trees read feature " + std::to_string(model.maxFeature) + " but X " + x.typeString()
            + " has " + std::to_string(features) + " features");
    n = rows;
    const size_t size = static_cast<size_t>(checkedMul(rows, model.targets, "score count"));
    scores.assign(size, 0.0);
    has.assign(size, 0);
    dispatch<TypeList<float, double, int32_t, int64_t>>(x.dtype(), ctx.node(), ", input X",
        [&]<class T>() { model.evaluate<T>(x.data<T>().data(), rows, features, agg, scores.data(), has.data()); });
}

template <class T> void writeScores(Tensor& out, const std::vector<double>& scores)
{
    auto dst = out.data<T>();
    for (size_t i = 0; i < scores.size(); ++i)
        dst[i] = static_cast<T>(scores[i]);
}

/// TreeEnsembleRegressor, ai.onnx.ml 1 and 3 (v3 adds the *_as_tensor attributes), and mlprodict's
/// TreeEnsembleRegressorDouble. Y = aggregate (SUM, AVERAGE over all trees, MIN, MAX) of the reached leaves' weights
/// per target, plus base_values, then post_transform. Every BRANCH_* mode; NaN features go to the true child where
/// nodes_missing_value_tracks_true is set, else wherever the comparison with NaN sends them (false, except NEQ).
/// Y is float per the spec; when the model declares it double (skl2onnx does so for float64 inputs; onnxruntime refuses
/// such models) the declared type is followed. The *Double op outputs double. Deviation from onnxruntime: a single
/// target gets every post_transform (onnxruntime applies only PROBIT there).
class TreeEnsembleRegressor final : public Kernel {
public:
    TreeEnsembleRegressor(const KernelInit& init, bool doubleOp)
    {
        const auto& a = init.attributes();
        const int64_t targets = a.getInt("n_targets", 1);
        if (targets < 1)
            throw a.error("n_targets", "must be at least 1, got " + std::to_string(targets));
        m_model = TreeModel::build(init, "target", targets);
        m_agg = ml::readAggregate(a);
        m_transform = ml::readPostTransform(a);
        m_base = ml::readFloatsOrTensor(a, "base_values");
        if (!m_base.empty() && static_cast<int64_t>(m_base.size()) != targets)
            throw a.error("base_values",
                "has " + std::to_string(m_base.size()) + " values, expected n_targets = " + std::to_string(targets));
        m_outType = ml::declaredElementType(init, 0, doubleOp ? DataType::Double : DataType::Float);
        if (m_outType != DataType::Float && m_outType != DataType::Double)
            throw init.error("output Y is declared " + std::string(dataTypeName(m_outType)) + ", expected float");
    }

    void compute(KernelContext& ctx) const override
    {
        std::vector<double> scores;
        std::vector<uint8_t> has;
        int64_t n = 0;
        runTrees(ctx, m_model, m_agg, scores, has, n);
        const int64_t t = m_model.targets;
        const double trees = static_cast<double>(m_model.roots.size());
        for (int64_t r = 0; r < n; ++r) {
            double* s = scores.data() + r * t;
            for (int64_t j = 0; j < t; ++j) {
                if (m_agg == Aggregate::Average && trees > 0)
                    s[j] /= trees;
                if (!has[static_cast<size_t>(r * t + j)])
                    s[j] = 0;
                if (!m_base.empty())
                    s[j] += m_base[static_cast<size_t>(j)];
            }
            ml::applyPostTransform(m_transform, s, t);
        }
        Tensor& out = ctx.allocateOutput(0, m_outType, { n, t });
        if (m_outType == DataType::Double)
            writeScores<double>(out, scores);
        else
            writeScores<float>(out, scores);
    }

private:
    TreeModel m_model;
    Aggregate m_agg = Aggregate::Sum;
    PostTransform m_transform = PostTransform::None;
    std::vector<double> m_base;
    DataType m_outType = DataType::Float;
};

/// TreeEnsembleClassifier, ai.onnx.ml 1 and 3, and mlprodict's TreeEnsembleClassifierDouble. Class scores are the sums
/// of the reached leaves' class weights plus base_values, then post_transform; the label is the class of the highest
/// score (first on ties). Two classes whose weights all name one class id (how skl2onnx writes binary models) follow
/// onnxruntime: the score s is the positive class's, the label is positive when s > 0.5 (all weights >= 0) or s > 0
/// (mixed weights), and Z is [1 - s, s] (positive weights) or [-s, s] ([logistic(-s), logistic(s)] with LOGISTIC).
/// Z is float (double for the *Double op, or when declared double); labels int64 or string.
class TreeEnsembleClassifier final : public Kernel {
public:
    TreeEnsembleClassifier(const KernelInit& init, bool doubleOp)
    {
        const auto& a = init.attributes();
        m_intLabels = a.getInts("classlabels_int64s");
        m_stringLabels = a.getStrings("classlabels_strings");
        if (m_intLabels.empty() == m_stringLabels.empty())
            throw init.error("exactly one of 'classlabels_int64s' and 'classlabels_strings' must be given");
        const int64_t classes = static_cast<int64_t>(m_intLabels.size() + m_stringLabels.size());
        m_model = TreeModel::build(init, "class", classes);
        m_transform = ml::readPostTransform(a);
        m_base = ml::readFloatsOrTensor(a, "base_values");
        if (!m_base.empty() && static_cast<int64_t>(m_base.size()) != classes && !(classes == 2 && m_base.size() == 1))
            throw a.error("base_values",
                "has " + std::to_string(m_base.size()) + " values, expected one per class (" + std::to_string(classes)
                    + ")");
        std::vector<bool> seen(static_cast<size_t>(classes), false);
        size_t distinct = 0;
        for (const auto& w : m_model.weights) {
            if (!seen[static_cast<size_t>(w.target)])
                ++distinct;
            seen[static_cast<size_t>(w.target)] = true;
            m_allPositive = m_allPositive && w.value >= 0;
        }
        m_binary = classes == 2 && distinct == 1;
        m_scoreType = ml::declaredElementType(init, 1, doubleOp ? DataType::Double : DataType::Float);
        if (m_scoreType != DataType::Float && m_scoreType != DataType::Double)
            throw init.error("output Z is declared " + std::string(dataTypeName(m_scoreType)) + ", expected float");
    }

    void compute(KernelContext& ctx) const override
    {
        std::vector<double> scores;
        std::vector<uint8_t> has;
        int64_t n = 0;
        runTrees(ctx, m_model, Aggregate::Sum, scores, has, n);
        const int64_t c = m_model.targets;
        std::vector<int64_t> labels(static_cast<size_t>(n));
        for (int64_t r = 0; r < n; ++r) {
            double* s = scores.data() + r * c;
            const uint8_t* h = has.data() + r * c;
            labels[static_cast<size_t>(r)] = c == 2 ? binaryRow(s, h) : multiRow(s, h, c);
        }
        Tensor& z = ctx.allocateOutput(1, m_scoreType, { n, c });
        if (m_scoreType == DataType::Double)
            writeScores<double>(z, scores);
        else
            writeScores<float>(z, scores);
        if (!m_intLabels.empty()) {
            auto y = ctx.allocateOutput(0, DataType::Int64, { n }).data<int64_t>();
            for (int64_t r = 0; r < n; ++r)
                y[static_cast<size_t>(r)] = m_intLabels[static_cast<size_t>(labels[static_cast<size_t>(r)])];
        } else {
            auto y = ctx.allocateOutput(0, DataType::String, { n }).data<std::string>();
            for (int64_t r = 0; r < n; ++r)
                y[static_cast<size_t>(r)] = m_stringLabels[static_cast<size_t>(labels[static_cast<size_t>(r)])];
        }
    }

private:
    int64_t multiRow(double* s, const uint8_t* h, int64_t c) const
    {
        for (int64_t j = 0; j < c; ++j)
            if (!m_base.empty())
                s[j] += m_base[static_cast<size_t>(j)];
        int64_t best = -1;
        for (int64_t j = 0; j < c; ++j)
            if ((h[j] || !m_base.empty()) && (best < 0 || s[j] > s[best]))
                best = j;
        ml::applyPostTransform(m_transform, s, c);
        return best < 0 ? 0 : best;
    }

    int64_t binaryRow(double* s, const uint8_t* h) const
    {
        if (!m_binary) {
            // Both classes carry weights: binary as multiclass.
            return multiRow(s, h, 2);
        }
        // One score: that of the class the weights name, plus its base value.
        const int64_t id = h[1] ? 1 : 0;
        double score = s[id];
        if (m_base.size() == 2)
            score += m_base[static_cast<size_t>(id)];
        else if (m_base.size() == 1)
            score += m_base[0];
        const bool positive = m_allPositive ? score > 0.5 : score > 0;
        if (m_transform == PostTransform::Probit) {
            s[1] = ml::probit(score);
            s[0] = -s[1];
        } else if (m_allPositive) {
            s[0] = 1 - score;
            s[1] = score;
        } else if (m_transform == PostTransform::Logistic) {
            s[0] = ml::logistic(-score);
            s[1] = ml::logistic(score);
        } else {
            s[0] = -score;
            s[1] = score;
        }
        return positive ? 1 : 0;
    }

    TreeModel m_model;
    PostTransform m_transform = PostTransform::None;
    std::vector<double> m_base;
    std::vector<int64_t> m_intLabels;
    std::vector<std::string> m_stringLabels;
    bool m_binary = false;
    bool m_allPositive = true;
    DataType m_scoreType = DataType::Float;
};

template <class K, bool Double> KernelFactory treeFactory()
{
    return [](const KernelInit& init) -> std::unique_ptr<Kernel> { return std::make_unique<K>(init, Double); };
}

} // namespace

void registerTreeEnsembles(KernelRegistry& r)
{
    // Up to ai.onnx.ml 5, whose schema deprecates them in favour of TreeEnsemble: onnxruntime still runs them there
    // with version 3's meaning, and so does this build, with a warning (engine/exec/model_diagnostics.cpp).
    r.add("ai.onnx.ml", "TreeEnsembleRegressor", 1, 5, treeFactory<TreeEnsembleRegressor, false>());
    r.add("ai.onnx.ml", "TreeEnsembleClassifier", 1, 5, treeFactory<TreeEnsembleClassifier, false>());
    r.add("mlprodict", "TreeEnsembleRegressorDouble", 1, KernelRegistry::kLatest,
        treeFactory<TreeEnsembleRegressor, true>());
    r.add("mlprodict", "TreeEnsembleClassifierDouble", 1, KernelRegistry::kLatest,
        treeFactory<TreeEnsembleClassifier, true>());
}

} // namespace onnxscope
