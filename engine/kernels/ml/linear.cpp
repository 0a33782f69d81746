// SPDX-License-Identifier: MIT
#include "engine/kernels/kernel_registry.h"
#include "engine/kernels/ml/ml_common.h"

namespace onnxscope {

namespace {

using ml::PostTransform;

/// scores[r, t] = X[r] . coefficients[t] + intercepts[t], in double.
std::vector<double> linearScores(const KernelContext& ctx, const ml::Rows& x, const std::vector<float>& coef,
    const std::vector<float>& intercepts, int64_t targets)
{
    if (x.features * targets != static_cast<int64_t>(coef.size()))
        throw ctx.error("X has " + std::to_string(x.features) + " features but the " + std::to_string(coef.size())
            + " coefficients are for " + std::to_string(targets) + " target(s)");
    std::vector<double> s(static_cast<size_t>(checkedMul(x.n, targets)));
    for (int64_t r = 0; r < x.n; ++r)
        for (int64_t t = 0; t < targets; ++t) {
            double acc = intercepts.empty() ? 0.0 : intercepts[static_cast<size_t>(t)];
            const double* row = x.values.data() + r * x.features;
            const float* w = coef.data() + t * x.features;
            for (int64_t f = 0; f < x.features; ++f)
                acc += row[f] * w[f];
            s[static_cast<size_t>(r * targets + t)] = acc;
        }
    return s;
}

/// LinearRegressor (ai.onnx.ml 1): Y [N, targets] float = X . coefficientsᵀ + intercepts, then post_transform.
/// X float, double, int32 or int64, [N, F] or [F].
class LinearRegressor final : public Kernel {
public:
    explicit LinearRegressor(const KernelInit& init)
    {
        const auto& a = init.attributes();
        m_coef = a.getFloats("coefficients");
        m_intercepts = a.getFloats("intercepts");
        m_targets = a.getInt("targets", 1);
        m_transform = ml::readPostTransform(a);
        if (m_targets < 1)
            throw a.error("targets", "must be at least 1, got " + std::to_string(m_targets));
        if (m_coef.size() % static_cast<size_t>(m_targets) != 0)
            throw a.error("coefficients",
                std::to_string(m_coef.size()) + " values are not a multiple of targets = " + std::to_string(m_targets));
        if (!m_intercepts.empty() && static_cast<int64_t>(m_intercepts.size()) != m_targets)
            throw a.error("intercepts",
                "has " + std::to_string(m_intercepts.size()) + " values, expected " + std::to_string(m_targets));
    }

    void compute(KernelContext& ctx) const override
    {
        ml::Rows x = ml::readRows(ctx, ctx.input(0));
        auto s = linearScores(ctx, x, m_coef, m_intercepts, m_targets);
        for (int64_t r = 0; r < x.n; ++r)
            ml::applyPostTransform(m_transform, s.data() + r * m_targets, m_targets);
        auto y = ctx.allocateOutput(0, DataType::Float, { x.n, m_targets }).data<float>();
        for (size_t i = 0; i < s.size(); ++i)
            y[i] = static_cast<float>(s[i]);
    }

private:
    std::vector<float> m_coef, m_intercepts;
    int64_t m_targets = 1;
    PostTransform m_transform = PostTransform::None;
};

/// LinearClassifier (ai.onnx.ml 1): scores = X . coefficientsᵀ + intercepts (one row of coefficients per class), then
/// post_transform; the label is the class of the highest raw score (first on ties). With one row of coefficients
/// and two labels (binary), as onnxruntime: the label is the second when the score s > 0, and Z is [-s, s]
/// ([1 - logistic(s), logistic(s)] with LOGISTIC); with one row and other labels, Z is [N, 1] and the label is
/// 1 / 0 (or "1" / "0"). multi_class is accepted and, as in onnxruntime, does not change the result.
class LinearClassifier final : public Kernel {
public:
    explicit LinearClassifier(const KernelInit& init)
    {
        const auto& a = init.attributes();
        m_coef = a.getFloats("coefficients");
        m_intercepts = a.getFloats("intercepts");
        m_transform = ml::readPostTransform(a);
        m_intLabels = a.getInts("classlabels_ints");
        m_stringLabels = a.getStrings("classlabels_strings");
        a.getInt("multi_class", 0);
        if (m_intLabels.empty() == m_stringLabels.empty())
            throw init.error("exactly one of 'classlabels_ints' and 'classlabels_strings' must be given");
        m_classes = m_intercepts.empty() ? static_cast<int64_t>(m_intLabels.size() + m_stringLabels.size())
                                         : static_cast<int64_t>(m_intercepts.size());
        if (m_classes < 1 || m_coef.size() % static_cast<size_t>(m_classes) != 0)
            throw a.error("coefficients",
                std::to_string(m_coef.size()) + " values do not make " + std::to_string(m_classes)
                    + " rows (one per intercept)");
        const size_t labels = m_intLabels.size() + m_stringLabels.size();
        if (m_classes > 1 && static_cast<size_t>(m_classes) != labels)
            throw init.error("has " + std::to_string(m_classes) + " rows of coefficients but " + std::to_string(labels)
                + " class labels");
    }

    void compute(KernelContext& ctx) const override
    {
        ml::Rows x = ml::readRows(ctx, ctx.input(0));
        auto s = linearScores(ctx, x, m_coef, m_intercepts, m_classes);
        const bool binary = m_classes == 1 && m_intLabels.size() + m_stringLabels.size() == 2;
        const int64_t width = binary ? 2 : m_classes;
        std::vector<int64_t> label(static_cast<size_t>(x.n));
        std::vector<double> z(static_cast<size_t>(checkedMul(x.n, width)));
        for (int64_t r = 0; r < x.n; ++r) {
            double* row = s.data() + r * m_classes;
            double* out = z.data() + r * width;
            if (m_classes == 1) {
                label[static_cast<size_t>(r)] = row[0] > 0 ? 1 : 0;
                if (binary) {
                    const double v = row[0];
                    if (m_transform == PostTransform::Logistic) {
                        out[0] = 1 - ml::logistic(v);
                        out[1] = ml::logistic(v);
                    } else if (m_transform == PostTransform::Probit) {
                        out[1] = ml::probit(v);
                        out[0] = -out[1];
                    } else {
                        out[0] = -v;
                        out[1] = v;
                    }
                } else {
                    out[0] = row[0];
                    ml::applyPostTransform(m_transform, out, 1);
                }
                continue;
            }
            int64_t best = 0;
            for (int64_t j = 1; j < m_classes; ++j)
                if (row[j] > row[best])
                    best = j;
            label[static_cast<size_t>(r)] = best;
            std::copy(row, row + m_classes, out);
            ml::applyPostTransform(m_transform, out, m_classes);
        }
        auto zOut = ctx.allocateOutput(1, DataType::Float, { x.n, width }).data<float>();
        for (size_t i = 0; i < z.size(); ++i)
            zOut[i] = static_cast<float>(z[i]);
        const bool oneRowNoLabels = m_classes == 1 && !binary;
        if (!m_intLabels.empty()) {
            auto y = ctx.allocateOutput(0, DataType::Int64, { x.n }).data<int64_t>();
            for (size_t i = 0; i < label.size(); ++i)
                y[i] = oneRowNoLabels ? label[i] : m_intLabels[static_cast<size_t>(label[i])];
        } else {
            auto y = ctx.allocateOutput(0, DataType::String, { x.n }).data<std::string>();
            for (size_t i = 0; i < label.size(); ++i)
                y[i] = oneRowNoLabels ? std::to_string(label[i]) : m_stringLabels[static_cast<size_t>(label[i])];
        }
    }

private:
    std::vector<float> m_coef, m_intercepts;
    std::vector<int64_t> m_intLabels;
    std::vector<std::string> m_stringLabels;
    int64_t m_classes = 1;
    PostTransform m_transform = PostTransform::None;
};

} // namespace

void registerLinearModels(KernelRegistry& r)
{
    r.add("ai.onnx.ml", "LinearRegressor", 1, 1, makeFactory<LinearRegressor>());
    r.add("ai.onnx.ml", "LinearClassifier", 1, 1, makeFactory<LinearClassifier>());
}

} // namespace onnxscope
