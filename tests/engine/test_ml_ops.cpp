// SPDX-License-Identifier: MIT
// ai.onnx.ml and custom-domain kernels: what the backend-layout cases (tests/conformance/ml_ops, custom_ops) cannot
// express. Tree ensembles against a naive recursive evaluation written here on random trees (fixed seed), every
// aggregate function and branch mode with NaN inputs; PROBIT against standard-normal quantiles from tables; the
// declared-double output that skl2onnx writes; and the errors that must name the node (singular Solve, malformed
// trees, bad indices). ZipMap and DictVectorizer are covered by the sklearn cases (onnx 1.12's text parser has no
// map or sequence-of-map types).
#include "engine/exec/session.h"

#include <QtTest>

#include <cmath>
#include <map>
#include <random>
#include <sstream>

using namespace onnxscope;

namespace {

constexpr unsigned kSeed = 20240612;

std::map<std::string, Value> runText(const std::string& text, const std::map<std::string, Value>& inputs)
{
    Session session(std::make_shared<Program>(Model::fromText(text)));
    return session.run(inputs);
}

std::string errorOf(const std::string& text, const std::map<std::string, Value>& inputs)
{
    try {
        runText(text, inputs);
    } catch (const Error& e) {
        return e.what();
    }
    return {};
}

const char* kHeader = "<ir_version: 8, opset_import: [\"\" : 15, \"ai.onnx.ml\" : 3, \"mlprodict\" : 1]>\n";

template <class T> std::string list(const std::vector<T>& v)
{
    std::ostringstream s;
    s.precision(17);
    s << "[";
    for (size_t i = 0; i < v.size(); ++i) {
        std::ostringstream item;
        item.precision(17);
        item << v[i];
        std::string text = item.str();
        if constexpr (std::is_floating_point_v<T>)
            if (text.find_first_of(".en") == std::string::npos)
                text += ".0"; // the text format reads "1" as an int
        s << (i ? ", " : "") << text;
    }
    s << "]";
    return s.str();
}

std::string stringList(const std::vector<std::string>& v)
{
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i)
        s += (i ? ", \"" : "\"") + v[i] + "\"";
    return s + "]";
}

/// A random forest of full trees in attribute form, evaluated here by plain recursion over those attributes.
struct RandomForest {
    int trees = 0, depth = 0, features = 0, targets = 0;
    std::vector<int64_t> treeIds, nodeIds, featureIds, trueIds, falseIds, missing;
    std::vector<std::string> modes;
    std::vector<double> values;
    std::vector<int64_t> wTree, wNode, wId;
    std::vector<double> wValue;

    RandomForest(std::mt19937& rng, int t, int d, int f, int k, bool allModes, bool trackMissing = true)
        : trees(t)
        , depth(d)
        , features(f)
        , targets(k)
    {
        const char* names[] = { "BRANCH_LEQ", "BRANCH_LT", "BRANCH_GTE", "BRANCH_GT", "BRANCH_EQ", "BRANCH_NEQ" };
        std::uniform_int_distribution<int> grid(-4, 4), mode(0, allModes ? 5 : 0), feat(0, f - 1), coin(0, 1);
        std::uniform_real_distribution<double> w(-1, 1);
        const int nodes = (1 << (d + 1)) - 1;
        for (int tree = 0; tree < t; ++tree)
            for (int i = 0; i < nodes; ++i) {
                const bool leaf = i >= (1 << d) - 1;
                treeIds.push_back(tree);
                nodeIds.push_back(i);
                featureIds.push_back(leaf ? 0 : feat(rng));
                modes.push_back(leaf ? "LEAF" : names[mode(rng)]);
                values.push_back(leaf ? 0 : grid(rng) / 2.0);
                trueIds.push_back(leaf ? 0 : 2 * i + 1);
                falseIds.push_back(leaf ? 0 : 2 * i + 2);
                missing.push_back(leaf || !trackMissing ? 0 : coin(rng));
                if (leaf)
                    for (int target = 0; target < k; ++target)
                        if (coin(rng) || target == 0) { // some leaves leave some targets without a weight
                            wTree.push_back(tree);
                            wNode.push_back(i);
                            wId.push_back(target);
                            wValue.push_back(std::round(w(rng) * 1000) / 1000);
                        }
            }
    }

    std::string attributes(const std::string& prefix) const
    {
        return "nodes_treeids = " + list(treeIds) + ", nodes_nodeids = " + list(nodeIds)
            + ", nodes_featureids = " + list(featureIds) + ", nodes_modes = " + stringList(modes)
            + ", nodes_values = " + list(values) + ", nodes_truenodeids = " + list(trueIds)
            + ", nodes_falsenodeids = " + list(falseIds) + ", nodes_missing_value_tracks_true = " + list(missing) + ", "
            + prefix + "_treeids = " + list(wTree) + ", " + prefix + "_nodeids = " + list(wNode) + ", " + prefix
            + "_ids = " + list(wId) + ", " + prefix + "_weights = " + list(wValue);
    }

    int leafOf(int tree, const float* x) const
    {
        int i = 0;
        const int base = tree * ((1 << (depth + 1)) - 1);
        while (modes[base + i] != "LEAF") {
            const size_t k = static_cast<size_t>(base + i);
            const double v = x[featureIds[k]], th = static_cast<float>(values[k]);
            bool go;
            if (std::isnan(v) && missing[k])
                go = true;
            else if (modes[k] == "BRANCH_LEQ")
                go = v <= th;
            else if (modes[k] == "BRANCH_LT")
                go = v < th;
            else if (modes[k] == "BRANCH_GTE")
                go = v >= th;
            else if (modes[k] == "BRANCH_GT")
                go = v > th;
            else if (modes[k] == "BRANCH_EQ")
                go = v == th;
            else
                go = v != th;
            i = static_cast<int>(go ? trueIds[k] : falseIds[k]);
        }
        return i;
    }

    /// Per target: (has a weight, aggregate) over the trees, for aggregate SUM/AVERAGE/MIN/MAX.
    std::vector<double> predict(const float* x, const std::string& agg, const std::vector<double>& base) const
    {
        std::vector<double> out(static_cast<size_t>(targets), 0.0);
        std::vector<bool> has(static_cast<size_t>(targets), false);
        for (int tree = 0; tree < trees; ++tree) {
            const int leaf = leafOf(tree, x);
            for (size_t j = 0; j < wTree.size(); ++j) {
                if (wTree[j] != tree || wNode[j] != leaf)
                    continue;
                double& o = out[static_cast<size_t>(wId[j])];
                const double v = static_cast<float>(wValue[j]);
                if (agg == "MIN")
                    o = has[static_cast<size_t>(wId[j])] ? std::min(o, v) : v;
                else if (agg == "MAX")
                    o = has[static_cast<size_t>(wId[j])] ? std::max(o, v) : v;
                else
                    o += v;
                has[static_cast<size_t>(wId[j])] = true;
            }
        }
        for (int t = 0; t < targets; ++t) {
            if (agg == "AVERAGE")
                out[static_cast<size_t>(t)] /= trees;
            out[static_cast<size_t>(t)] += base.empty() ? 0.0 : static_cast<float>(base[static_cast<size_t>(t)]);
        }
        return out;
    }
};

} // namespace

class TestMlOps : public QObject {
    Q_OBJECT

private slots:
    void treeRegressorMatchesRecursiveEvaluation()
    {
        std::mt19937 rng(kSeed);
        for (const char* agg : { "SUM", "AVERAGE", "MIN", "MAX" }) {
            for (bool allModes : { false, true }) {
                RandomForest forest(rng, 7, 4, 5, 3, allModes);
                const std::vector<double> base { 0.5, -0.25, 1.0 };
                const std::string text = std::string(kHeader) + "agraph (float[N, 5] x) => (float[N, 3] y) {\n"
                    + "y = ai.onnx.ml.TreeEnsembleRegressor <n_targets = 3, aggregate_function = \"" + agg
                    + "\", base_values = " + list(base) + ", " + forest.attributes("target") + "> (x)\n}";
                const int64_t n = 200;
                Tensor x(DataType::Float, { n, 5 });
                std::uniform_int_distribution<int> grid(-5, 5), nan(0, 9);
                for (float& v : x.data<float>())
                    v = nan(rng) == 0 ? std::nanf("") : grid(rng) / 2.0f + (nan(rng) < 3 ? 0.1f : 0.0f);
                Tensor y = runText(text, { { "x", Value(x) } }).at("y").tensor();
                QCOMPARE(y.shape(), (Shape { n, 3 }));
                for (int64_t r = 0; r < n; ++r) {
                    auto expected = forest.predict(x.data<float>().data() + r * 5, agg, base);
                    for (int t = 0; t < 3; ++t) {
                        const double got = y.data<float>()[static_cast<size_t>(r * 3 + t)];
                        if (std::abs(got - expected[static_cast<size_t>(t)]) > 1e-5)
                            QFAIL(qPrintable(QString("seed %1, aggregate %2, all modes %3: row %4 target %5: got %6, "
                                                     "expected %7")
                                                 .arg(kSeed)
                                                 .arg(agg)
                                                 .arg(allModes)
                                                 .arg(r)
                                                 .arg(t)
                                                 .arg(got)
                                                 .arg(expected[static_cast<size_t>(t)])));
                    }
                }
            }
        }
    }

    void treeFastPathMatchesRecursiveEvaluation()
    {
        // BRANCH_LEQ only and no missing-value tracking: the interleaved, branch-free path (float nodes for float
        // input, double for double input). 1000 rows cover full blocks, full lane groups and a remainder; NaN goes
        // to the false child.
        std::mt19937 rng(kSeed + 1);
        for (const char* type : { "float", "double" }) {
            RandomForest forest(rng, 20, 6, 5, 2, false, false);
            const std::string text = std::string(kHeader) + "agraph (" + type + "[N, 5] x) => (float[N, 2] y) {\n"
                + "y = ai.onnx.ml.TreeEnsembleRegressor <n_targets = 2, aggregate_function = \"SUM\", "
                + forest.attributes("target") + "> (x)\n}";
            const int64_t n = 1000;
            Tensor xf(DataType::Float, { n, 5 });
            std::uniform_int_distribution<int> grid(-5, 5), nan(0, 19);
            for (float& v : xf.data<float>())
                v = nan(rng) == 0 ? std::nanf("") : grid(rng) / 2.0f + (nan(rng) < 6 ? 0.1f : 0.0f);
            Tensor x = xf;
            if (std::string(type) == "double") {
                x = Tensor(DataType::Double, { n, 5 });
                for (int64_t i = 0; i < x.size(); ++i)
                    x.data<double>()[static_cast<size_t>(i)] = xf.data<float>()[static_cast<size_t>(i)];
            }
            Tensor y = runText(text, { { "x", Value(x) } }).at("y").tensor();
            QCOMPARE(y.shape(), (Shape { n, 2 }));
            for (int64_t r = 0; r < n; ++r) {
                auto expected = forest.predict(xf.data<float>().data() + r * 5, "SUM", {});
                for (int t = 0; t < 2; ++t) {
                    const double got = y.data<float>()[static_cast<size_t>(r * 2 + t)];
                    if (std::abs(got - expected[static_cast<size_t>(t)]) > 1e-5)
                        QFAIL(qPrintable(QString("%1 input, row %2 target %3: got %4, expected %5")
                                             .arg(type)
                                             .arg(r)
                                             .arg(t)
                                             .arg(got)
                                             .arg(expected[static_cast<size_t>(t)])));
                }
            }
        }
    }

    void treeRegressorFollowsDeclaredDoubleOutput()
    {
        // skl2onnx declares the output double for float64 input (off-spec): the declared type is followed.
        const std::string text = std::string(kHeader) + R"(agraph (double[N, 1] x) => (double[N, 1] y) {
            y = ai.onnx.ml.TreeEnsembleRegressor <n_targets = 1, nodes_treeids = [0, 0, 0], nodes_nodeids = [0, 1, 2],
                nodes_featureids = [0, 0, 0], nodes_modes = ["BRANCH_LEQ", "LEAF", "LEAF"], nodes_values = [0.5, 0.0, 0.0],
                nodes_truenodeids = [1, 0, 0], nodes_falsenodeids = [2, 0, 0], target_treeids = [0, 0],
                target_nodeids = [1, 2], target_ids = [0, 0], target_weights = [1.25, -2.5]> (x)
        })";
        Tensor y
            = runText(text, { { "x", Value(Tensor::fromVector<double>({ 0.25, 0.75 }, { 2, 1 })) } }).at("y").tensor();
        QCOMPARE(y.dtype(), DataType::Double);
        QCOMPARE(y.data<double>()[0], 1.25);
        QCOMPARE(y.data<double>()[1], -2.5);
    }

    void probitMatchesNormalQuantiles()
    {
        // Quantiles of the standard normal distribution (tables): Phi^-1(p).
        const std::vector<std::pair<double, double>> table { { 0.5, 0.0 }, { 0.975, 1.959963984540054 },
            { 0.1, -1.2815515655446004 }, { 0.999, 3.090232306167813 }, { 0.01, -2.3263478740408408 } };
        for (auto [p, q] : table) {
            const std::string text = std::string(kHeader) + "agraph (float[1, 1] x) => (float[1, 1] y) {\n"
                + "y = ai.onnx.ml.LinearRegressor <coefficients = [0.0], intercepts = ["
                + list(std::vector { p }).substr(1) + ", post_transform = \"PROBIT\"> (x)\n}";
            Tensor y
                = runText(text, { { "x", Value(Tensor::fromVector<float>({ 0.0f }, { 1, 1 })) } }).at("y").tensor();
            if (std::abs(y.data<float>()[0] - q) > 1e-5 * std::max(1.0, std::abs(q)))
                QFAIL(qPrintable(QString("probit(%1) = %2, expected %3").arg(p).arg(y.data<float>()[0]).arg(q)));
        }
    }

    void solveRefusesSingularMatrix()
    {
        const std::string text = std::string(kHeader) + R"(agraph (double[2, 2] a, double[2] b) => (double[2] x) {
            x = mlprodict.Solve (a, b)
        })";
        Tensor a = Tensor::fromVector<double>({ 1, 2, 2, 4 }, { 2, 2 });
        const std::string e = errorOf(text, { { "a", Value(a) }, { "b", Value(Tensor::vector1D<double>({ 1, 2 })) } });
        QVERIFY2(e.find("(Solve)") != std::string::npos && e.find("singular") != std::string::npos, e.c_str());
    }

    void malformedModelsAreErrorsNamingTheNode()
    {
        auto tree = [](const std::string& nodes) {
            return std::string(kHeader) + "agraph (float[N, 2] x) => (float[N, 1] y) {\n"
                + "y = ai.onnx.ml.TreeEnsembleRegressor <" + nodes
                + ", target_treeids = [0], target_nodeids = [1], target_ids = [0], target_weights = [1.0]> (x)\n}";
        };
        Tensor x = Tensor::fromVector<float>({ 1, 2 }, { 1, 2 });
        // A cycle: node 1 points back to node 0.
        std::string e = errorOf(tree("nodes_treeids = [0, 0], nodes_nodeids = [0, 1], nodes_featureids = [0, 0], "
                                     "nodes_modes = [\"BRANCH_LEQ\", \"BRANCH_LEQ\"], nodes_values = [0.0, 0.0], "
                                     "nodes_truenodeids = [1, 0], nodes_falsenodeids = [1, 0]"),
            { { "x", Value(x) } });
        QVERIFY2(e.find("TreeEnsembleRegressor") != std::string::npos, e.c_str());
        // An unknown mode.
        e = errorOf(tree("nodes_treeids = [0, 0], nodes_nodeids = [0, 1], nodes_featureids = [0, 0], "
                         "nodes_modes = [\"BRANCH_SOMETIMES\", \"LEAF\"], nodes_values = [0.0, 0.0], "
                         "nodes_truenodeids = [1, 0], nodes_falsenodeids = [1, 0]"),
            { { "x", Value(x) } });
        QVERIFY2(e.find("BRANCH_SOMETIMES") != std::string::npos, e.c_str());
        // A feature beyond X's columns.
        e = errorOf(tree("nodes_treeids = [0, 0, 0], nodes_nodeids = [0, 1, 2], nodes_featureids = [7, 0, 0], "
                         "nodes_modes = [\"BRANCH_LEQ\", \"LEAF\", \"LEAF\"], nodes_values = [0.0, 0.0, 0.0], "
                         "nodes_truenodeids = [1, 0, 0], nodes_falsenodeids = [2, 0, 0]"),
            { { "x", Value(x) } });
        QVERIFY2(e.find("feature 7") != std::string::npos, e.c_str());
        // ArrayFeatureExtractor index out of range.
        e = errorOf(std::string(kHeader) + R"(agraph (float[1, 2] x, int64[1] i) => (float[1, 1] y) {
            y = ai.onnx.ml.ArrayFeatureExtractor (x, i)
        })",
            { { "x", Value(x) }, { "i", Value(Tensor::vector1D<int64_t>({ 2 })) } });
        QVERIFY2(e.find("ArrayFeatureExtractor") != std::string::npos && e.find("out of range") != std::string::npos,
            e.c_str());
        // OneHotEncoder with zeros=0 and an unknown category.
        e = errorOf(std::string(kHeader) + R"(agraph (int64[2] x) => (float[2, 2] y) {
            y = ai.onnx.ml.OneHotEncoder <cats_int64s = [1, 2], zeros = 0> (x)
        })",
            { { "x", Value(Tensor::vector1D<int64_t>({ 1, 5 })) } });
        QVERIFY2(e.find("not a known category") != std::string::npos, e.c_str());
    }
};

QTEST_APPLESS_MAIN(TestMlOps)
#include "test_ml_ops.moc"
