// SPDX-License-Identifier: MIT
// The reduction kernels against naive loops written here: every Reduce* over random shapes, random axes (positive
// and negative, none = all), keepdims, and the attribute (opset 11/13) and input (opset 18) forms of `axes`;
// ArgMax/ArgMin with ties and select_last_index; CumSum exclusive/reverse; empty reductions; and the errors that
// must name the node. Fixed seeds; a mismatch prints op, opset, shape, axes, keepdims, seed and the first bad index.
#include "engine/exec/session.h"

#include <QtTest>

#include <cmath>
#include <functional>
#include <random>
#include <sstream>

using namespace onnxscope;

namespace {

constexpr unsigned kSeed = 5150;

std::string join(const std::vector<int64_t>& v)
{
    std::string s;
    for (size_t i = 0; i < v.size(); ++i)
        s += (i ? ", " : "") + std::to_string(v[i]);
    return s;
}

std::string dimsDecl(const std::string& elem, size_t rank, const std::string& prefix)
{
    std::string s = elem + "[";
    for (size_t i = 0; i < rank; ++i)
        s += (i ? "," : "") + prefix + std::to_string(i);
    return s + "]";
}

std::map<std::string, Value> runGraph(int64_t opset, const std::string& inputs, const std::string& outputs,
    const std::string& body, const std::map<std::string, Value>& values)
{
    const std::string text = "<ir_version: 8, opset_import: [\"\" : " + std::to_string(opset) + "]>\nagraph (" + inputs
        + ") => (" + outputs + ") {\n" + body + "\n}";
    Session session(std::make_shared<Program>(Model::fromText(text)));
    return session.run(values);
}

std::string errorOf(int64_t opset, const std::string& inputs, const std::string& outputs, const std::string& body,
    const std::map<std::string, Value>& values)
{
    try {
        runGraph(opset, inputs, outputs, body, values);
    } catch (const Error& e) {
        return e.what();
    }
    return {};
}

/// Row-major multi-index of flat index i.
std::vector<int64_t> unravel(int64_t i, const Shape& shape)
{
    std::vector<int64_t> idx(shape.size());
    for (size_t d = shape.size(); d-- > 0;) {
        idx[d] = shape[d] ? i % shape[d] : 0;
        i = shape[d] ? i / shape[d] : 0;
    }
    return idx;
}

struct RefOp {
    const char* name;
    double init;
    std::function<double(double, double)> fold;
    std::function<double(double, int64_t)> finish; // (accumulated, count)
};

const std::vector<RefOp>& refOps()
{
    const double inf = std::numeric_limits<double>::infinity();
    static const std::vector<RefOp> ops = {
        { "ReduceSum", 0, [](double a, double x) { return a + x; }, [](double a, int64_t) { return a; } },
        { "ReduceMean", 0, [](double a, double x) { return a + x; },
            [](double a, int64_t n) { return a / double(n); } },
        { "ReduceMax", -inf, [](double a, double x) { return std::max(a, x); }, [](double a, int64_t) { return a; } },
        { "ReduceMin", inf, [](double a, double x) { return std::min(a, x); }, [](double a, int64_t) { return a; } },
        { "ReduceProd", 1, [](double a, double x) { return a * x; }, [](double a, int64_t) { return a; } },
        { "ReduceL1", 0, [](double a, double x) { return a + std::fabs(x); }, [](double a, int64_t) { return a; } },
        { "ReduceL2", 0, [](double a, double x) { return a + x * x; }, [](double a, int64_t) { return std::sqrt(a); } },
        { "ReduceLogSum", 0, [](double a, double x) { return a + x; }, [](double a, int64_t) { return std::log(a); } },
        { "ReduceLogSumExp", 0, [](double a, double x) { return a + std::exp(x); },
            [](double a, int64_t) { return std::log(a); } },
        { "ReduceSumSquare", 0, [](double a, double x) { return a + x * x; }, [](double a, int64_t) { return a; } },
    };
    return ops;
}

/// Naive reduction: for every output element, scan the whole input and fold the elements whose kept coordinates
/// match. `axes` normalised; empty means all.
std::vector<double> naiveReduce(const RefOp& op, const std::vector<double>& x, const Shape& shape,
    std::vector<int64_t> axes, bool keepDims, Shape& outShape)
{
    if (axes.empty())
        for (int64_t a = 0; a < int64_t(shape.size()); ++a)
            axes.push_back(a);
    std::vector<bool> red(shape.size(), false);
    for (int64_t a : axes)
        red[size_t(a)] = true;
    Shape keptShape;
    outShape.clear();
    int64_t count = 1;
    for (size_t d = 0; d < shape.size(); ++d) {
        if (red[d]) {
            count *= shape[d];
            if (keepDims)
                outShape.push_back(1);
        } else {
            keptShape.push_back(shape[d]);
            outShape.push_back(shape[d]);
        }
    }
    int64_t outN = 1;
    for (int64_t d : keptShape)
        outN *= d;
    std::vector<double> out(static_cast<size_t>(outN));
    for (int64_t o = 0; o < outN; ++o) {
        const auto oi = unravel(o, keptShape);
        double acc = op.init;
        for (size_t i = 0; i < x.size(); ++i) {
            const auto ii = unravel(int64_t(i), shape);
            bool match = true;
            for (size_t d = 0, k = 0; d < shape.size(); ++d)
                if (!red[d])
                    match = match && ii[d] == oi[k++];
            if (match)
                acc = op.fold(acc, x[i]);
        }
        out[size_t(o)] = op.finish(acc, count);
    }
    return out;
}

bool close(double got, double want, double rtol, double atol)
{
    if (std::isnan(want))
        return std::isnan(got);
    if (std::isinf(want))
        return got == want;
    return std::fabs(got - want) <= atol + rtol * std::fabs(want);
}

} // namespace

class TestReductionsReference : public QObject {
    Q_OBJECT
private slots:
    void reduceRandomSweep()
    {
        std::mt19937 rng(kSeed);
        int cases = 0;
        for (const RefOp& op : refOps()) {
            for (int trial = 0; trial < 40; ++trial) {
                const size_t rank = std::uniform_int_distribution<size_t>(1, 4)(rng);
                Shape shape(rank);
                for (auto& d : shape)
                    d = std::uniform_int_distribution<int64_t>(1, 5)(rng);
                // Random distinct axes, some written negative; sometimes none (reduce all).
                std::vector<int64_t> axes, written;
                for (int64_t a = 0; a < int64_t(rank); ++a)
                    if (std::bernoulli_distribution(0.45)(rng)) {
                        axes.push_back(a);
                        written.push_back(std::bernoulli_distribution(0.5)(rng) ? a - int64_t(rank) : a);
                    }
                std::shuffle(written.begin(), written.end(), rng);
                const bool keepDims = std::bernoulli_distribution(0.5)(rng);
                const int64_t opsets[] = { 11, 13, 18 };
                const int64_t opset = opsets[trial % 3];
                const bool axesInput = opset >= 18 || (opset >= 13 && std::string(op.name) == "ReduceSum");
                const bool isDouble = trial % 4 == 3;

                std::vector<double> xs(size_t(elementCount(shape)));
                const bool positive = std::string(op.name) == "ReduceLogSum";
                const bool nearOne = std::string(op.name) == "ReduceProd";
                for (auto& v : xs) {
                    v = std::uniform_real_distribution<double>(-2, 2)(rng);
                    if (positive)
                        v = std::fabs(v) + 0.1;
                    if (nearOne)
                        v = 0.5 + std::fabs(v) / 2;
                }
                Tensor x(isDouble ? DataType::Double : DataType::Float, shape);
                for (size_t i = 0; i < xs.size(); ++i) {
                    if (isDouble)
                        x.data<double>()[i] = xs[i];
                    else {
                        x.data<float>()[i] = float(xs[i]);
                        xs[i] = double(float(xs[i]));
                    }
                }
                const std::string elem = isDouble ? "double" : "float";
                std::string attrs = "keepdims = " + std::to_string(keepDims ? 1 : 0);
                std::map<std::string, Value> values { { "x", Value(x) } };
                std::string inputs = dimsDecl(elem, rank, "a") + " x", call;
                if (axesInput) {
                    if (written.empty()) {
                        call = "(x)";
                    } else {
                        inputs += ", int64[k] axes";
                        values["axes"] = Value(Tensor::vector1D<int64_t>(written));
                        call = "(x, axes)";
                    }
                } else {
                    if (!written.empty())
                        attrs += ", axes = [" + join(written) + "]";
                    call = "(x)";
                }
                const std::string body = "y = " + std::string(op.name) + " <" + attrs + "> " + call;
                Shape wantShape;
                const auto want = naiveReduce(op, xs, shape, axes, keepDims, wantShape);
                const std::string where = std::string(op.name) + " opset " + std::to_string(opset) + " " + elem + " x "
                    + shapeToString(shape) + " axes [" + join(written) + "] keepdims " + std::to_string(keepDims)
                    + " seed " + std::to_string(kSeed) + " trial " + std::to_string(trial);
                Tensor y;
                try {
                    y = runGraph(opset, inputs, elem + "[?] y", body, values).at("y").tensor();
                } catch (const Error& e) {
                    QFAIL(qPrintable(QString::fromStdString(where + ": " + e.what())));
                }
                QVERIFY2(y.shape() == wantShape,
                    qPrintable(QString::fromStdString(
                        where + ": shape " + shapeToString(y.shape()) + ", want " + shapeToString(wantShape))));
                for (size_t i = 0; i < want.size(); ++i) {
                    const double got = y.toDouble(int64_t(i));
                    const double rtol = isDouble ? 1e-12 : 2e-6;
                    if (!close(got, want[i], rtol, isDouble ? 1e-12 : 1e-5)) {
                        std::ostringstream m;
                        m.precision(17);
                        m << where << ": first bad index " << i << ": got " << got << ", want " << want[i];
                        QFAIL(m.str().c_str());
                    }
                }
                ++cases;
            }
        }
        QCOMPARE(cases, 400);
    }

    void integerReductionsWrapAndTruncate()
    {
        // int32: sums wrap modulo 2^32, Mean truncates toward zero, Max/Min are exact.
        std::mt19937 rng(kSeed + 1);
        for (const char* name :
            { "ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceSumSquare" }) {
            for (int trial = 0; trial < 10; ++trial) {
                const Shape shape { std::uniform_int_distribution<int64_t>(1, 4)(rng),
                    std::uniform_int_distribution<int64_t>(1, 6)(rng) };
                Tensor x(DataType::Int32, shape);
                for (auto& v : x.data<int32_t>())
                    v = std::uniform_int_distribution<int32_t>(-2000000000, 2000000000)(rng);
                const int64_t axis = trial % 2;
                Tensor y = runGraph(11, "int32[a,b] x", "int32[?] y",
                    std::string("y = ") + name + " <keepdims = 0, axes = [" + std::to_string(axis) + "]> (x)",
                    { { "x", Value(x) } })
                               .at("y")
                               .tensor();
                const int64_t other = shape[size_t(1 - axis)], len = shape[size_t(axis)];
                QCOMPARE(y.shape(), Shape { other });
                for (int64_t o = 0; o < other; ++o) {
                    uint32_t sum = 0, prod = 1, l1 = 0, sq = 0;
                    int64_t wide = 0;
                    int32_t mx = INT32_MIN, mn = INT32_MAX;
                    for (int64_t j = 0; j < len; ++j) {
                        const int32_t v = x.data<int32_t>()[size_t(axis == 0 ? j * other + o : o * len + j)];
                        sum += uint32_t(v);
                        prod *= uint32_t(v);
                        l1 += v < 0 ? uint32_t(0) - uint32_t(v) : uint32_t(v);
                        sq += uint32_t(v) * uint32_t(v);
                        wide += v;
                        mx = std::max(mx, v);
                        mn = std::min(mn, v);
                    }
                    const std::string n(name);
                    // Mean: the sum is taken in 64 bits (no wrap at 32) and truncated toward zero.
                    const int32_t want = n == "ReduceSum" ? int32_t(sum)
                        : n == "ReduceMean"               ? int32_t(wide / len)
                        : n == "ReduceMax"                ? mx
                        : n == "ReduceMin"                ? mn
                        : n == "ReduceProd"               ? int32_t(prod)
                        : n == "ReduceL1"                 ? int32_t(l1)
                                                          : int32_t(sq);
                    QVERIFY2(y.data<int32_t>()[size_t(o)] == want,
                        qPrintable(QString("%1 int32 x [%2, %3] axis %4 seed %5 trial %6: index %7 got %8 want %9")
                                       .arg(name)
                                       .arg(shape[0])
                                       .arg(shape[1])
                                       .arg(axis)
                                       .arg(kSeed + 1)
                                       .arg(trial)
                                       .arg(o)
                                       .arg(y.data<int32_t>()[size_t(o)])
                                       .arg(want)));
                }
            }
        }
    }

    void emptyReductionsAndNoop()
    {
        // Reducing a zero-sized axis gives the identity of the reduction.
        Tensor x(DataType::Float, { 2, 0 });
        const auto reduce = [&](const std::string& op) {
            return runGraph(11, "float[a,b] x", "float[?] y", "y = " + op + " <axes = [1], keepdims = 0> (x)",
                { { "x", Value(x) } })
                .at("y")
                .tensor();
        };
        QCOMPARE(reduce("ReduceSum").toDouble(1), 0.0);
        QCOMPARE(reduce("ReduceProd").toDouble(0), 1.0);
        QVERIFY(std::isinf(reduce("ReduceMax").toDouble(0)) && reduce("ReduceMax").toDouble(0) < 0);
        QVERIFY(std::isinf(reduce("ReduceMin").toDouble(0)) && reduce("ReduceMin").toDouble(0) > 0);
        QVERIFY(std::isnan(reduce("ReduceMean").toDouble(0)));
        QVERIFY(std::isinf(reduce("ReduceLogSumExp").toDouble(0)));
        QCOMPARE(reduce("ReduceSum").shape(), Shape { 2 });

        // noop_with_empty_axes=1 and no axes: identity (opset 13 ReduceSum, opset 18 others).
        Tensor v = Tensor::fromVector<float>({ 1, -2, 3, -4 }, { 2, 2 });
        for (const auto& [opset, op] : std::vector<std::pair<int64_t, std::string>> {
                 { 13, "ReduceSum" }, { 18, "ReduceMax" }, { 18, "ReduceL1" } }) {
            Tensor y = runGraph(opset, "float[a,b] x", "float[?] y", "y = " + op + " <noop_with_empty_axes = 1> (x)",
                { { "x", Value(v) } })
                           .at("y")
                           .tensor();
            QCOMPARE(y.shape(), v.shape());
            for (int64_t i = 0; i < 4; ++i)
                QCOMPARE(y.toDouble(i), v.toDouble(i));
        }
        // Without noop, no axes reduces everything.
        Tensor all
            = runGraph(18, "float[a,b] x", "float[?] y", "y = ReduceSum <keepdims = 0> (x)", { { "x", Value(v) } })
                  .at("y")
                  .tensor();
        QCOMPARE(all.shape(), Shape {});
        QCOMPARE(all.toDouble(0), -2.0);
    }

    void reduceMaxPropagatesNaN()
    {
        const float nan = std::numeric_limits<float>::quiet_NaN();
        Tensor x = Tensor::fromVector<float>({ 1, nan, 3, 4 }, { 2, 2 });
        for (const char* op : { "ReduceMax", "ReduceMin" }) {
            Tensor y = runGraph(
                13, "float[a,b] x", "float[?] y", std::string("y = ") + op + " <axes = [1]> (x)", { { "x", Value(x) } })
                           .at("y")
                           .tensor();
            QVERIFY(std::isnan(y.toDouble(0)));
            QVERIFY(!std::isnan(y.toDouble(1)));
        }
    }

    void argMinMaxSweep()
    {
        std::mt19937 rng(kSeed + 2);
        for (int trial = 0; trial < 120; ++trial) {
            const size_t rank = std::uniform_int_distribution<size_t>(1, 4)(rng);
            Shape shape(rank);
            for (auto& d : shape)
                d = std::uniform_int_distribution<int64_t>(1, 5)(rng);
            const int64_t axis = std::uniform_int_distribution<int64_t>(-int64_t(rank), int64_t(rank) - 1)(rng);
            const bool keepDims = trial % 2 == 0;
            const bool last = (trial / 2) % 2 == 1;
            const bool isMax = (trial / 4) % 2 == 0;
            Tensor x(DataType::Int32, shape);
            for (auto& v : x.data<int32_t>())
                v = std::uniform_int_distribution<int32_t>(-2, 2)(rng); // many ties
            const std::string op = isMax ? "ArgMax" : "ArgMin";
            Tensor y = runGraph(13, dimsDecl("int32", rank, "a") + " x", "int64[?] y",
                "y = " + op + " <axis = " + std::to_string(axis) + ", keepdims = " + std::to_string(keepDims)
                    + ", select_last_index = " + std::to_string(last) + "> (x)",
                { { "x", Value(x) } })
                           .at("y")
                           .tensor();
            const size_t ax = size_t(axis < 0 ? axis + int64_t(rank) : axis);
            Shape outShape = shape;
            outShape[ax] = 1;
            Shape wantShape = outShape;
            if (!keepDims)
                wantShape.erase(wantShape.begin() + long(ax));
            const std::string where = op + " x " + shapeToString(shape) + " axis " + std::to_string(axis) + " keepdims "
                + std::to_string(keepDims) + " select_last_index " + std::to_string(last) + " seed "
                + std::to_string(kSeed + 2) + " trial " + std::to_string(trial);
            QVERIFY2(y.shape() == wantShape,
                qPrintable(QString::fromStdString(where + ": shape " + shapeToString(y.shape()))));
            const auto strides = stridesOf(shape);
            for (int64_t o = 0; o < elementCount(outShape); ++o) {
                auto idx = unravel(o, outShape);
                int64_t best = 0;
                int32_t bestV = 0;
                for (int64_t j = 0; j < shape[ax]; ++j) {
                    idx[ax] = j;
                    int64_t flat = 0;
                    for (size_t d = 0; d < rank; ++d)
                        flat += idx[d] * strides[d];
                    const int32_t v = x.data<int32_t>()[size_t(flat)];
                    const bool better = j == 0 || (isMax ? v > bestV : v < bestV) || (last && v == bestV);
                    if (better) {
                        best = j;
                        bestV = v;
                    }
                }
                QVERIFY2(y.data<int64_t>()[size_t(o)] == best,
                    qPrintable(QString::fromStdString(where + ": first bad index " + std::to_string(o) + ": got "
                        + std::to_string(y.data<int64_t>()[size_t(o)]) + ", want " + std::to_string(best))));
            }
        }
    }

    void cumSumSweep()
    {
        std::mt19937 rng(kSeed + 3);
        for (int trial = 0; trial < 48; ++trial) {
            const size_t rank = std::uniform_int_distribution<size_t>(1, 3)(rng);
            Shape shape(rank);
            for (auto& d : shape)
                d = std::uniform_int_distribution<int64_t>(1, 5)(rng);
            const int64_t axis = std::uniform_int_distribution<int64_t>(-int64_t(rank), int64_t(rank) - 1)(rng);
            const bool exclusive = trial % 2, reverse = (trial / 2) % 2;
            Tensor x(DataType::Int64, shape);
            for (auto& v : x.data<int64_t>())
                v = std::uniform_int_distribution<int64_t>(-100, 100)(rng);
            Tensor y = runGraph(14, dimsDecl("int64", rank, "a") + " x, int32[] axis", "int64[?] y",
                "y = CumSum <exclusive = " + std::to_string(exclusive) + ", reverse = " + std::to_string(reverse)
                    + "> (x, axis)",
                { { "x", Value(x) }, { "axis", Value(Tensor::scalar<int32_t>(int32_t(axis))) } })
                           .at("y")
                           .tensor();
            const size_t ax = size_t(axis < 0 ? axis + int64_t(rank) : axis);
            const auto strides = stridesOf(shape);
            for (int64_t i = 0; i < x.size(); ++i) {
                const auto idx = unravel(i, shape);
                int64_t want = 0;
                for (int64_t j = 0; j < shape[ax]; ++j) {
                    const bool take
                        = reverse ? (exclusive ? j > idx[ax] : j >= idx[ax]) : (exclusive ? j < idx[ax] : j <= idx[ax]);
                    if (take)
                        want += x.data<int64_t>()[size_t(i + (j - idx[ax]) * strides[ax])];
                }
                QVERIFY2(y.data<int64_t>()[size_t(i)] == want,
                    qPrintable(QString("CumSum x %1 axis %2 exclusive %3 reverse %4 seed %5 trial %6: first bad index "
                                       "%7: got %8, want %9")
                                   .arg(QString::fromStdString(shapeToString(shape)))
                                   .arg(axis)
                                   .arg(exclusive)
                                   .arg(reverse)
                                   .arg(kSeed + 3)
                                   .arg(trial)
                                   .arg(i)
                                   .arg(y.data<int64_t>()[size_t(i)])
                                   .arg(want)));
            }
        }
    }

    void errorsNameTheNode()
    {
        const Tensor x(DataType::Float, { 2, 3 });
        const std::map<std::string, Value> in { { "x", Value(x) } };
        const std::string dup = errorOf(11, "float[a,b] x", "float[?] y", "y = ReduceSum <axes = [1, -1]> (x)", in);
        QVERIFY2(dup.find("(ReduceSum)") != std::string::npos && dup.find("twice") != std::string::npos, dup.c_str());
        const std::string range = errorOf(11, "float[a,b] x", "float[?] y", "y = ReduceMax <axes = [2]> (x)", in);
        QVERIFY2(range.find("(ReduceMax)") != std::string::npos && range.find("out of range") != std::string::npos,
            range.c_str());
        const std::string arg = errorOf(13, "float[a,b] x", "int64[?] y", "y = ArgMax <axis = -3> (x)", in);
        QVERIFY2(arg.find("(ArgMax)") != std::string::npos, arg.c_str());
        const Tensor empty(DataType::Float, { 2, 0 });
        const std::string argEmpty
            = errorOf(13, "float[a,b] x", "int64[?] y", "y = ArgMin <axis = 1> (x)", { { "x", Value(empty) } });
        QVERIFY2(argEmpty.find("(ArgMin)") != std::string::npos, argEmpty.c_str());
        const std::string attr = errorOf(13, "float[a,b] x", "float[?] y", "y = ReduceSum <axes = [1]> (x)", in);
        QVERIFY2(
            attr.find("(ReduceSum)") != std::string::npos && attr.find("'axes'") != std::string::npos, attr.c_str());
    }
};

QTEST_APPLESS_MAIN(TestReductionsReference)
#include "test_reductions_reference.moc"
