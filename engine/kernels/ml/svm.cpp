// SPDX-License-Identifier: MIT
#include "engine/kernels/kernel_registry.h"
#include "engine/kernels/ml/ml_common.h"

#include <algorithm>
#include <cmath>

namespace onnxscope {

namespace {

using ml::PostTransform;

enum class SvmKernel { Linear, Poly, Rbf, Sigmoid };

/// Kernel type and parameters shared by SVMClassifier and SVMRegressor; everything is computed in double.
struct SvmCommon {
    SvmKernel kernel = SvmKernel::Linear;
    double gamma = 0, coef0 = 0, degree = 0;

    explicit SvmCommon(const NodeAttributes& a)
    {
        const std::string k = a.getString("kernel_type", "LINEAR");
        if (k == "LINEAR")
            kernel = SvmKernel::Linear;
        else if (k == "POLY")
            kernel = SvmKernel::Poly;
        else if (k == "RBF")
            kernel = SvmKernel::Rbf;
        else if (k == "SIGMOID")
            kernel = SvmKernel::Sigmoid;
        else
            throw a.error("kernel_type", "unknown value \"" + k + "\" (expected LINEAR, POLY, RBF or SIGMOID)");
        auto p = ml::readFloatsOrTensor(a, "kernel_params");
        if (!p.empty() && p.size() != 3)
            throw a.error("kernel_params", "expected 3 values (gamma, coef0, degree), got " + std::to_string(p.size()));
        if (p.size() == 3) {
            gamma = p[0];
            coef0 = p[1];
            degree = p[2];
        }
    }

    double apply(const double* x, const double* sv, int64_t f) const
    {
        double acc = 0;
        if (kernel == SvmKernel::Rbf) {
            for (int64_t i = 0; i < f; ++i)
                acc += (x[i] - sv[i]) * (x[i] - sv[i]);
            return std::exp(-gamma * acc);
        }
        for (int64_t i = 0; i < f; ++i)
            acc += x[i] * sv[i];
        switch (kernel) {
        case SvmKernel::Poly:
            return std::pow(gamma * acc + coef0, degree);
        case SvmKernel::Sigmoid:
            return std::tanh(gamma * acc + coef0);
        default:
            return acc;
        }
    }
};

void checkFeatures(const KernelContext& ctx, const ml::Rows& x, int64_t expected)
{
    if (x.features != expected)
        throw ctx.error(
            "X has " + std::to_string(x.features) + " features, the model expects " + std::to_string(expected));
}

/// libsvm's pairwise coupling of the one-vs-one probabilities r (k x k) into class probabilities p (Wu, Lin and
/// Weng 2004), as libsvm and onnxruntime compute it.
void multiclassProbability(int64_t k, const std::vector<double>& r, double* p)
{
    std::vector<double> q(static_cast<size_t>(k * k), 0.0), qp(static_cast<size_t>(k));
    const double eps = 0.005 / static_cast<double>(k);
    for (int64_t t = 0; t < k; ++t) {
        p[t] = 1.0 / static_cast<double>(k);
        for (int64_t j = 0; j < t; ++j) {
            q[t * k + t] += r[j * k + t] * r[j * k + t];
            q[t * k + j] = q[j * k + t];
        }
        for (int64_t j = t + 1; j < k; ++j) {
            q[t * k + t] += r[j * k + t] * r[j * k + t];
            q[t * k + j] = -r[j * k + t] * r[t * k + j];
        }
    }
    for (int iter = 0; iter < std::max<int64_t>(100, k); ++iter) {
        double pqp = 0;
        for (int64_t t = 0; t < k; ++t) {
            qp[t] = 0;
            for (int64_t j = 0; j < k; ++j)
                qp[t] += q[t * k + j] * p[j];
            pqp += p[t] * qp[t];
        }
        double maxError = 0;
        for (int64_t t = 0; t < k; ++t)
            maxError = std::max(maxError, std::abs(qp[t] - pqp));
        if (maxError < eps)
            break;
        for (int64_t t = 0; t < k; ++t) {
            const double diff = (-qp[t] + pqp) / q[t * k + t];
            p[t] += diff;
            pqp = (pqp + diff * (diff * q[t * k + t] + 2 * qp[t])) / (1 + diff) / (1 + diff);
            for (int64_t j = 0; j < k; ++j) {
                qp[j] = (qp[j] + diff * q[t * k + j]) / (1 + diff);
                p[j] /= (1 + diff);
            }
        }
    }
}

/// SVMClassifier (ai.onnx.ml 1) and mlprodict's SVMClassifierDouble (double scores). As onnxruntime: with
/// vectors_per_class (libsvm SVC) the k(k-1)/2 one-vs-one decision values are computed with the kernel, the label is
/// the class with most votes (first on ties); Z holds the decision values ([-d, d] for two classes), or, with prob_a /
/// prob_b, the pairwise-coupled class probabilities. Without support vectors (liblinear) Z = X . coefficientsᵀ + rho[0]
/// and the label is the highest score (two classes: the second when its score > 0). post_transform is applied to Z.
class SvmClassifier final : public Kernel {
public:
    SvmClassifier(const KernelInit& init, bool doubleOp)
        : m_common(init.attributes())
    {
        const auto& a = init.attributes();
        m_vectorsPerClass = a.getInts("vectors_per_class");
        m_probA = ml::readFloatsOrTensor(a, "prob_a");
        m_probB = ml::readFloatsOrTensor(a, "prob_b");
        m_sv = ml::readFloatsOrTensor(a, "support_vectors");
        m_coef = ml::readFloatsOrTensor(a, "coefficients");
        m_rho = ml::readFloatsOrTensor(a, "rho");
        m_transform = ml::readPostTransform(a);
        m_intLabels = a.getInts("classlabels_ints");
        m_stringLabels = a.getStrings("classlabels_strings");
        if (m_intLabels.empty() == m_stringLabels.empty())
            throw init.error("exactly one of 'classlabels_ints' and 'classlabels_strings' must be given");
        m_classes = static_cast<int64_t>(m_intLabels.size() + m_stringLabels.size());
        if (m_probA.size() != m_probB.size())
            throw a.error("prob_b",
                "has " + std::to_string(m_probB.size()) + " values but prob_a has " + std::to_string(m_probA.size()));
        if (m_coef.empty())
            throw a.error("coefficients", "is required");
        if (m_rho.empty())
            throw a.error("rho", "is required");
        for (int64_t v : m_vectorsPerClass) {
            if (v < 0)
                throw a.error("vectors_per_class", "must not be negative");
            m_starts.push_back(m_vectors);
            m_vectors += v;
        }
        const int64_t pairs = m_classes * (m_classes - 1) / 2;
        m_svc = m_vectors > 0;
        if (m_svc) {
            if (static_cast<int64_t>(m_vectorsPerClass.size()) != m_classes)
                throw a.error("vectors_per_class",
                    "has " + std::to_string(m_vectorsPerClass.size()) + " values, expected one per class ("
                        + std::to_string(m_classes) + ")");
            if (m_sv.size() % static_cast<size_t>(m_vectors) != 0)
                throw a.error("support_vectors",
                    std::to_string(m_sv.size()) + " values do not make " + std::to_string(m_vectors) + " vectors");
            m_features = static_cast<int64_t>(m_sv.size()) / m_vectors;
            if (static_cast<int64_t>(m_coef.size()) < (m_classes - 1) * m_vectors)
                throw a.error("coefficients",
                    "has " + std::to_string(m_coef.size()) + " values, expected "
                        + std::to_string((m_classes - 1) * m_vectors));
            if (static_cast<int64_t>(m_rho.size()) < pairs)
                throw a.error(
                    "rho", "has " + std::to_string(m_rho.size()) + " values, expected " + std::to_string(pairs));
            if (!m_probA.empty() && static_cast<int64_t>(m_probA.size()) < pairs)
                throw a.error(
                    "prob_a", "has " + std::to_string(m_probA.size()) + " values, expected " + std::to_string(pairs));
        } else {
            if (m_coef.size() % static_cast<size_t>(m_classes) != 0)
                throw a.error("coefficients", std::to_string(m_coef.size()) + " values do not make one row per class");
            m_features = static_cast<int64_t>(m_coef.size()) / m_classes;
        }
        m_allPositive = std::all_of(m_coef.begin(), m_coef.end(), [](double v) { return v >= 0; });
        m_scoreType = ml::declaredElementType(init, 1, doubleOp ? DataType::Double : DataType::Float);
        if (m_scoreType != DataType::Float && m_scoreType != DataType::Double)
            throw init.error("output Z is declared " + std::string(dataTypeName(m_scoreType)) + ", expected float");
    }

    void compute(KernelContext& ctx) const override
    {
        ml::Rows x = ml::readRows(ctx, ctx.input(0));
        checkFeatures(ctx, x, m_features);
        const int64_t c = m_classes, pairs = c * (c - 1) / 2;
        const bool proba = m_svc && !m_probA.empty();
        const int64_t width = !m_svc || proba ? c : (c > 2 ? pairs : 2);
        std::vector<double> z(static_cast<size_t>(checkedMul(x.n, width)));
        std::vector<int64_t> labels(static_cast<size_t>(x.n));
        std::vector<double> kernels(static_cast<size_t>(m_vectors)), decisions(static_cast<size_t>(pairs));
        std::vector<int64_t> votes(static_cast<size_t>(c));
        for (int64_t r = 0; r < x.n; ++r) {
            const double* row = x.values.data() + r * x.features;
            double* out = z.data() + r * width;
            if (!m_svc) {
                for (int64_t k = 0; k < c; ++k) {
                    double acc = m_rho[0];
                    for (int64_t f = 0; f < m_features; ++f)
                        acc += row[f] * m_coef[static_cast<size_t>(k * m_features + f)];
                    out[k] = acc;
                }
                const int64_t best = std::max_element(out, out + c) - out;
                if (c == 2)
                    labels[static_cast<size_t>(r)] = (m_allPositive ? out[best] >= 0.5 : out[best] > 0) ? 1 : best;
                else
                    labels[static_cast<size_t>(r)] = best;
                ml::applyPostTransform(m_transform, out, c);
                continue;
            }
            for (int64_t v = 0; v < m_vectors; ++v)
                kernels[static_cast<size_t>(v)] = m_common.apply(row, m_sv.data() + v * m_features, m_features);
            std::fill(votes.begin(), votes.end(), 0);
            int64_t idx = 0;
            for (int64_t i = 0; i < c - 1; ++i)
                for (int64_t j = i + 1; j < c; ++j, ++idx) {
                    double sum = m_rho[static_cast<size_t>(idx)];
                    for (int64_t m = 0; m < m_vectorsPerClass[static_cast<size_t>(i)]; ++m) {
                        const int64_t sv = m_starts[static_cast<size_t>(i)] + m;
                        sum += m_coef[static_cast<size_t>((j - 1) * m_vectors + sv)] * kernels[static_cast<size_t>(sv)];
                    }
                    for (int64_t m = 0; m < m_vectorsPerClass[static_cast<size_t>(j)]; ++m) {
                        const int64_t sv = m_starts[static_cast<size_t>(j)] + m;
                        sum += m_coef[static_cast<size_t>(i * m_vectors + sv)] * kernels[static_cast<size_t>(sv)];
                    }
                    decisions[static_cast<size_t>(idx)] = sum;
                    ++votes[static_cast<size_t>(sum > 0 ? i : j)];
                }
            labels[static_cast<size_t>(r)] = std::max_element(votes.begin(), votes.end()) - votes.begin();
            if (proba) {
                std::vector<double> pairwise(static_cast<size_t>(c * c), 0.0);
                idx = 0;
                for (int64_t i = 0; i < c - 1; ++i)
                    for (int64_t j = i + 1; j < c; ++j, ++idx) {
                        const double a = m_probA[static_cast<size_t>(idx)], b = m_probB[static_cast<size_t>(idx)];
                        double p = 1 - ml::logistic(decisions[static_cast<size_t>(idx)] * a + b);
                        p = std::min(std::max(p, 1e-7), 1 - 1e-7);
                        pairwise[static_cast<size_t>(i * c + j)] = p;
                        pairwise[static_cast<size_t>(j * c + i)] = 1 - p;
                    }
                multiclassProbability(c, pairwise, out);
                ml::applyPostTransform(m_transform, out, c);
            } else if (c > 2) {
                std::copy(decisions.begin(), decisions.end(), out);
                ml::applyPostTransform(m_transform, out, pairs);
            } else {
                const double d = decisions[0];
                if (m_transform == PostTransform::Logistic) {
                    out[0] = ml::logistic(-d);
                    out[1] = ml::logistic(d);
                } else if (m_transform == PostTransform::Probit) {
                    out[1] = ml::probit(d);
                    out[0] = -out[1];
                } else {
                    out[0] = -d;
                    out[1] = d;
                }
            }
        }
        Tensor& zt = ctx.allocateOutput(1, m_scoreType, { x.n, width });
        if (m_scoreType == DataType::Double)
            std::copy(z.begin(), z.end(), zt.data<double>().begin());
        else
            std::transform(
                z.begin(), z.end(), zt.data<float>().begin(), [](double v) { return static_cast<float>(v); });
        if (!m_intLabels.empty()) {
            auto y = ctx.allocateOutput(0, DataType::Int64, { x.n }).data<int64_t>();
            for (size_t i = 0; i < labels.size(); ++i)
                y[i] = m_intLabels[static_cast<size_t>(labels[i])];
        } else {
            auto y = ctx.allocateOutput(0, DataType::String, { x.n }).data<std::string>();
            for (size_t i = 0; i < labels.size(); ++i)
                y[i] = m_stringLabels[static_cast<size_t>(labels[i])];
        }
    }

private:
    SvmCommon m_common;
    std::vector<int64_t> m_vectorsPerClass, m_starts;
    std::vector<double> m_probA, m_probB, m_sv, m_coef, m_rho;
    std::vector<int64_t> m_intLabels;
    std::vector<std::string> m_stringLabels;
    int64_t m_classes = 0, m_vectors = 0, m_features = 0;
    bool m_svc = false, m_allPositive = true;
    PostTransform m_transform = PostTransform::None;
    DataType m_scoreType = DataType::Float;
};

/// SVMRegressor (ai.onnx.ml 1) and mlprodict's SVMRegressorDouble. With n_supports > 0:
/// Y = sum_i coefficients[i] * K(X, support_vector_i) + rho[0]; otherwise Y = X . coefficients + rho[0]. one_class=1
/// maps Y to +1 / -1 by its sign. Y [N, 1] float (double for the *Double op or when declared double); post_transform
/// is applied (onnxruntime ignores it).
class SvmRegressor final : public Kernel {
public:
    SvmRegressor(const KernelInit& init, bool doubleOp)
        : m_common(init.attributes())
    {
        const auto& a = init.attributes();
        m_vectors = a.getInt("n_supports", 0);
        m_sv = ml::readFloatsOrTensor(a, "support_vectors");
        m_coef = ml::readFloatsOrTensor(a, "coefficients");
        m_rho = ml::readFloatsOrTensor(a, "rho");
        m_oneClass = a.getInt("one_class", 0) != 0;
        m_transform = ml::readPostTransform(a);
        if (m_coef.empty())
            throw a.error("coefficients", "is required");
        if (m_rho.empty())
            throw a.error("rho", "is required");
        if (m_vectors < 0)
            throw a.error("n_supports", "must not be negative");
        if (m_vectors > 0) {
            if (m_sv.size() % static_cast<size_t>(m_vectors) != 0)
                throw a.error("support_vectors",
                    std::to_string(m_sv.size()) + " values do not make " + std::to_string(m_vectors) + " vectors");
            if (static_cast<int64_t>(m_coef.size()) < m_vectors)
                throw a.error("coefficients",
                    "has " + std::to_string(m_coef.size()) + " values, expected " + std::to_string(m_vectors));
            m_features = static_cast<int64_t>(m_sv.size()) / m_vectors;
        } else {
            m_features = static_cast<int64_t>(m_coef.size());
        }
        m_outType = ml::declaredElementType(init, 0, doubleOp ? DataType::Double : DataType::Float);
        if (m_outType != DataType::Float && m_outType != DataType::Double)
            throw init.error("output Y is declared " + std::string(dataTypeName(m_outType)) + ", expected float");
    }

    void compute(KernelContext& ctx) const override
    {
        ml::Rows x = ml::readRows(ctx, ctx.input(0));
        checkFeatures(ctx, x, m_features);
        std::vector<double> y(static_cast<size_t>(x.n));
        for (int64_t r = 0; r < x.n; ++r) {
            const double* row = x.values.data() + r * x.features;
            double acc = m_rho[0];
            if (m_vectors > 0) {
                for (int64_t v = 0; v < m_vectors; ++v)
                    acc += m_coef[static_cast<size_t>(v)]
                        * m_common.apply(row, m_sv.data() + v * m_features, m_features);
            } else {
                for (int64_t f = 0; f < m_features; ++f)
                    acc += row[f] * m_coef[static_cast<size_t>(f)];
            }
            if (m_oneClass)
                acc = acc > 0 ? 1.0 : -1.0;
            ml::applyPostTransform(m_transform, &acc, 1);
            y[static_cast<size_t>(r)] = acc;
        }
        Tensor& out = ctx.allocateOutput(0, m_outType, { x.n, 1 });
        if (m_outType == DataType::Double)
            std::copy(y.begin(), y.end(), out.data<double>().begin());
        else
            std::transform(
                y.begin(), y.end(), out.data<float>().begin(), [](double v) { return static_cast<float>(v); });
    }

private:
    SvmCommon m_common;
    int64_t m_vectors = 0, m_features = 0;
    std::vector<double> m_sv, m_coef, m_rho;
    bool m_oneClass = false;
    PostTransform m_transform = PostTransform::None;
    DataType m_outType = DataType::Float;
};

template <class K, bool Double> KernelFactory svmFactory()
{
    return [](const KernelInit& init) -> std::unique_ptr<Kernel> { return std::make_unique<K>(init, Double); };
}

} // namespace

void registerSvms(KernelRegistry& r)
{
    r.add("ai.onnx.ml", "SVMClassifier", 1, 1, svmFactory<SvmClassifier, false>());
    r.add("ai.onnx.ml", "SVMRegressor", 1, 1, svmFactory<SvmRegressor, false>());
    r.add("mlprodict", "SVMClassifierDouble", 1, KernelRegistry::kLatest, svmFactory<SvmClassifier, true>());
    r.add("mlprodict", "SVMRegressorDouble", 1, KernelRegistry::kLatest, svmFactory<SvmRegressor, true>());
}

} // namespace onnxscope
