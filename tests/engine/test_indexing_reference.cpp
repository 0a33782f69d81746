// SPDX-License-Identifier: MIT
// Shape and indexing kernels (Slice, Pad, TopK, GatherElements, ScatterElements) against naive reference loops on
// random shapes with fixed seeds; older opset forms and corners against numpy (indexing_numpy_cases.py); the random
// ops' determinism and distributions; and the refusal of absurd output sizes (ConstantOfShape, Expand, Tile, Range,
// OneHot) with an Error that names the shape instead of a crash.
#include "engine/compare/backend_case.h"
#include "engine/exec/program.h"
#include "engine/exec/session.h"
#include "engine/model/model.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <sstream>

using namespace onnxscope;

namespace {

std::string str(const std::vector<int64_t>& v)
{
    return shapeToString(v);
}

std::vector<int64_t> unravel(int64_t flat, const Shape& shape)
{
    std::vector<int64_t> index(shape.size());
    for (size_t d = shape.size(); d-- > 0;) {
        index[d] = flat % shape[d];
        flat /= shape[d];
    }
    return index;
}

int64_t ravel(const std::vector<int64_t>& index, const Shape& shape)
{
    int64_t flat = 0;
    for (size_t d = 0; d < shape.size(); ++d)
        flat = flat * shape[d] + index[d];
    return flat;
}

/// "float[d0,d1]" with symbolic dims, so one text works for any dims of that rank.
std::string tensorType(const std::string& type, size_t rank, const std::string& prefix)
{
    std::string s = type + "[";
    for (size_t i = 0; i < rank; ++i)
        s += (i ? "," : "") + prefix + std::to_string(i);
    return s + "]";
}

std::map<std::string, Value> run(const std::string& text, const std::map<std::string, Value>& inputs)
{
    Session session(std::make_shared<Program>(Model::fromText(text)));
    return session.run(inputs);
}

Tensor randomFloats(std::mt19937& rng, const Shape& shape, int lo = -50, int hi = 50)
{
    Tensor t(DataType::Float, shape);
    std::uniform_int_distribution<int> dist(lo, hi);
    for (float& v : t.data<float>())
        v = static_cast<float>(dist(rng)) * 0.5f;
    return t;
}

Shape randomShape(std::mt19937& rng, int minRank, int maxRank, int minDim, int maxDim)
{
    const int rank = std::uniform_int_distribution<int>(minRank, maxRank)(rng);
    Shape shape;
    for (int i = 0; i < rank; ++i)
        shape.push_back(std::uniform_int_distribution<int>(minDim, maxDim)(rng));
    return shape;
}

/// Python's slice(start, stop, step).indices(n), written the way the Python docs describe it, as the list of
/// selected positions.
std::vector<int64_t> pythonSlice(int64_t start, int64_t stop, int64_t step, int64_t n)
{
    auto adjust = [&](int64_t v, bool isStart) {
        if (v < 0) {
            v += n;
            if (v < 0)
                v = step < 0 ? -1 : 0;
        } else if (v >= n) {
            v = step < 0 ? n - 1 : n;
        }
        (void)isStart;
        return v;
    };
    const int64_t s = adjust(start, true), e = adjust(stop, false);
    std::vector<int64_t> out;
    if (step > 0)
        for (int64_t i = s; i < e; i += step)
            out.push_back(i);
    else
        for (int64_t i = s; i > e; i += step)
            out.push_back(i);
    return out;
}

/// numpy.pad's index for position i (relative to the start of the unpadded axis of length n).
int64_t numpyPadSource(int64_t i, int64_t n, const std::string& mode)
{
    if (i >= 0 && i < n)
        return i;
    if (mode == "constant")
        return -1;
    if (mode == "edge")
        return i < 0 ? 0 : n - 1;
    if (n == 1)
        return 0;
    while (i < 0 || i >= n) { // reflect: mirror at the edges (edge elements not repeated) until inside
        if (i < 0)
            i = -i;
        if (i >= n)
            i = 2 * (n - 1) - i;
    }
    return i;
}

} // namespace

class TestIndexingReference : public QObject {
    Q_OBJECT
private slots:
    void sliceMatchesPythonSlicing()
    {
        const unsigned seed = 1234;
        std::mt19937 rng(seed);
        const int64_t big = std::numeric_limits<int64_t>::max(), small = std::numeric_limits<int64_t>::min();
        for (int iter = 0; iter < 300; ++iter) {
            const Shape shape = randomShape(rng, 1, 4, 0, 6);
            const size_t rank = shape.size();
            const Tensor x = randomFloats(rng, shape);
            std::vector<int64_t> axes;
            for (size_t d = 0; d < rank; ++d)
                if (rng() % 3 != 0)
                    axes.push_back(
                        rng() % 2 ? static_cast<int64_t>(d) : static_cast<int64_t>(d) - static_cast<int64_t>(rank));
            if (axes.empty())
                axes.push_back(0);
            std::shuffle(axes.begin(), axes.end(), rng);
            std::vector<int64_t> starts, ends, steps;
            auto bound = [&]() -> int64_t {
                switch (rng() % 10) {
                case 0:
                    return big;
                case 1:
                    return small;
                default:
                    return std::uniform_int_distribution<int64_t>(-9, 9)(rng);
                }
            };
            for (size_t i = 0; i < axes.size(); ++i) {
                starts.push_back(bound());
                ends.push_back(bound());
                int64_t s = 0;
                while (s == 0)
                    s = std::uniform_int_distribution<int64_t>(-3, 3)(rng);
                steps.push_back(s);
            }
            const size_t k = axes.size();
            const std::string text = "<ir_version: 8, opset_import: [\"\" : 13]> agraph ("
                + tensorType("float", rank, "d")
                + " x, int64[K] starts, int64[K] ends, int64[K] axes, int64[K] steps) => ("
                + tensorType("float", rank, "o") + " y) { y = Slice(x, starts, ends, axes, steps) }";
            const auto out = run(text,
                { { "x", x }, { "starts", Tensor::vector1D(starts) }, { "ends", Tensor::vector1D(ends) },
                    { "axes", Tensor::vector1D(axes) }, { "steps", Tensor::vector1D(steps) } })
                                 .at("y")
                                 .tensor();

            // Reference: per axis the list of positions python slicing selects, then the cartesian product.
            std::vector<std::vector<int64_t>> picks(rank);
            for (size_t d = 0; d < rank; ++d)
                for (int64_t i = 0; i < shape[d]; ++i)
                    picks[d].push_back(i);
            for (size_t i = 0; i < k; ++i) {
                const size_t d = static_cast<size_t>(axes[i] < 0 ? axes[i] + static_cast<int64_t>(rank) : axes[i]);
                picks[d] = pythonSlice(starts[i], ends[i], steps[i], shape[d]);
            }
            Shape expectedShape;
            for (const auto& p : picks)
                expectedShape.push_back(static_cast<int64_t>(p.size()));
            const QString context = QString::fromStdString("seed " + std::to_string(seed) + " iteration "
                + std::to_string(iter) + ": x " + str(shape) + " starts " + str(starts) + " ends " + str(ends)
                + " axes " + str(axes) + " steps " + str(steps));
            QVERIFY2(out.shape() == expectedShape,
                qPrintable(context + " shape " + QString::fromStdString(str(out.shape())) + " expected "
                    + QString::fromStdString(str(expectedShape))));
            auto xo = x.data<float>();
            auto yo = out.data<float>();
            for (int64_t o = 0; o < out.size(); ++o) {
                auto index = unravel(o, expectedShape);
                for (size_t d = 0; d < rank; ++d)
                    index[d] = picks[d][static_cast<size_t>(index[d])];
                const float expected = xo[static_cast<size_t>(ravel(index, shape))];
                QVERIFY2(yo[static_cast<size_t>(o)] == expected,
                    qPrintable(context + " first bad index " + QString::number(o)));
            }
        }
    }

    void sliceAttributeFormOpset1()
    {
        // Opset 1-9: attributes, steps 1, clamped ends.
        const auto out = run(R"(<ir_version: 8, opset_import: ["" : 9]> agraph (float[3,4] x) => (float[2,2] y) {
                y = Slice <starts = [1, -3], ends = [1000, 3], axes = [0, 1]> (x) })",
            { { "x", Tensor::fromVector<float>({ 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 }, { 3, 4 }) } })
                             .at("y")
                             .tensor();
        QCOMPARE(out.shape(), (Shape { 2, 2 }));
        auto d = out.data<float>();
        QCOMPARE(std::vector<float>(d.begin(), d.end()), (std::vector<float> { 5, 6, 9, 10 }));
    }

    void padMatchesNumpyPadInAllModes()
    {
        const unsigned seed = 99;
        std::mt19937 rng(seed);
        const std::vector<std::string> modes = { "constant", "reflect", "edge" };
        for (int iter = 0; iter < 300; ++iter) {
            const std::string mode = modes[static_cast<size_t>(iter) % modes.size()];
            const Shape shape = randomShape(rng, 1, 3, 1, 5);
            const size_t rank = shape.size();
            const Tensor x = randomFloats(rng, shape);
            std::vector<int64_t> pads(2 * rank);
            Shape outShape(rank);
            std::vector<int64_t> lo(rank), n(rank);
            for (size_t d = 0; d < rank; ++d) {
                // Negative pads crop; keep at least one element so reflect and edge have something to copy.
                int64_t b = std::uniform_int_distribution<int64_t>(-2, 6)(rng);
                int64_t e = std::uniform_int_distribution<int64_t>(-2, 6)(rng);
                while (shape[d] + std::min<int64_t>(b, 0) + std::min<int64_t>(e, 0) < 1) {
                    b = std::max<int64_t>(b, 0);
                    e = std::max<int64_t>(e, 0);
                }
                pads[d] = b;
                pads[d + rank] = e;
                lo[d] = std::max<int64_t>(0, -b);
                n[d] = shape[d] + std::min<int64_t>(b, 0) + std::min<int64_t>(e, 0);
                outShape[d] = shape[d] + b + e;
            }
            const float value = 7.5f;
            const std::string text = "<ir_version: 8, opset_import: [\"\" : 13]> agraph ("
                + tensorType("float", rank, "d") + " x, int64[P] pads, float value) => ("
                + tensorType("float", rank, "o") + " y) { y = Pad <mode = \"" + mode + "\"> (x, pads, value) }";
            const Tensor out
                = run(text, { { "x", x }, { "pads", Tensor::vector1D(pads) }, { "value", Tensor::scalar(value) } })
                      .at("y")
                      .tensor();
            const QString context = QString::fromStdString("seed " + std::to_string(seed) + " iteration "
                + std::to_string(iter) + ": mode " + mode + " x " + str(shape) + " pads " + str(pads));
            QVERIFY2(out.shape() == outShape,
                qPrintable(context + " got shape " + QString::fromStdString(str(out.shape()))));
            auto xo = x.data<float>();
            auto yo = out.data<float>();
            for (int64_t o = 0; o < out.size(); ++o) {
                auto index = unravel(o, outShape);
                float expected = value;
                bool inside = true;
                for (size_t d = 0; d < rank; ++d) {
                    const int64_t s = numpyPadSource(index[d] - std::max<int64_t>(pads[d], 0), n[d], mode);
                    if (s < 0)
                        inside = false;
                    index[d] = s + lo[d];
                }
                if (inside)
                    expected = xo[static_cast<size_t>(ravel(index, shape))];
                QVERIFY2(yo[static_cast<size_t>(o)] == expected,
                    qPrintable(context + " first bad index " + QString::number(o) + ": got "
                        + QString::number(yo[static_cast<size_t>(o)]) + ", expected " + QString::number(expected)));
            }
        }
    }

    void topKKeepsLowerIndexFirstOnTies()
    {
        const unsigned seed = 7;
        std::mt19937 rng(seed);
        for (int iter = 0; iter < 200; ++iter) {
            const Shape shape = randomShape(rng, 1, 3, 1, 7);
            const size_t rank = shape.size();
            const Tensor x = randomFloats(rng, shape, -3, 3); // few distinct values: many ties
            const int64_t axis = std::uniform_int_distribution<int64_t>(-static_cast<int64_t>(rank), rank - 1)(rng);
            const size_t a = static_cast<size_t>(axis < 0 ? axis + static_cast<int64_t>(rank) : axis);
            const int64_t k = std::uniform_int_distribution<int64_t>(0, shape[a])(rng);
            const int largest = iter % 2;
            const std::string text = "<ir_version: 8, opset_import: [\"\" : 11]> agraph ("
                + tensorType("float", rank, "d") + " x, int64[1] k) => (" + tensorType("float", rank, "o") + " v, "
                + tensorType("int64", rank, "o") + " i) { v, i = TopK <axis = " + std::to_string(axis)
                + ", largest = " + std::to_string(largest) + "> (x, k) }";
            const auto outs = run(text, { { "x", x }, { "k", Tensor::vector1D<int64_t>({ k }) } });
            const Tensor& values = outs.at("v").tensor();
            const Tensor& indices = outs.at("i").tensor();
            Shape outShape = shape;
            outShape[a] = k;
            const QString context = QString::fromStdString("seed " + std::to_string(seed) + " iteration "
                + std::to_string(iter) + ": x " + str(shape) + " axis " + std::to_string(axis) + " k "
                + std::to_string(k) + " largest " + std::to_string(largest));
            QVERIFY2(values.shape() == outShape && indices.shape() == outShape, qPrintable(context));
            auto xo = x.data<float>();
            auto vo = values.data<float>();
            auto io = indices.data<int64_t>();
            // Reference: stable sort of each line's positions by value.
            for (int64_t o = 0; o < values.size(); ++o) {
                auto index = unravel(o, outShape);
                const int64_t rankInLine = index[a];
                std::vector<int64_t> line(static_cast<size_t>(shape[a]));
                for (int64_t j = 0; j < shape[a]; ++j)
                    line[static_cast<size_t>(j)] = j;
                auto valueAt = [&](int64_t j) {
                    auto at = index;
                    at[a] = j;
                    return xo[static_cast<size_t>(ravel(at, shape))];
                };
                std::stable_sort(line.begin(), line.end(),
                    [&](int64_t p, int64_t q) { return largest ? valueAt(p) > valueAt(q) : valueAt(p) < valueAt(q); });
                const int64_t expectedIndex = line[static_cast<size_t>(rankInLine)];
                QVERIFY2(
                    io[static_cast<size_t>(o)] == expectedIndex && vo[static_cast<size_t>(o)] == valueAt(expectedIndex),
                    qPrintable(context + " first bad index " + QString::number(o) + ": got index "
                        + QString::number(io[static_cast<size_t>(o)]) + ", expected "
                        + QString::number(expectedIndex)));
            }
        }
    }

    void gatherElementsMatchesNaiveLoop()
    {
        const unsigned seed = 2024;
        std::mt19937 rng(seed);
        for (int iter = 0; iter < 200; ++iter) {
            const Shape shape = randomShape(rng, 1, 4, 1, 5);
            const size_t rank = shape.size();
            const Tensor x = randomFloats(rng, shape);
            const int64_t axis = std::uniform_int_distribution<int64_t>(-static_cast<int64_t>(rank), rank - 1)(rng);
            const size_t a = static_cast<size_t>(axis < 0 ? axis + static_cast<int64_t>(rank) : axis);
            Shape ishape(rank);
            for (size_t d = 0; d < rank; ++d)
                ishape[d] = d == a ? std::uniform_int_distribution<int64_t>(0, 6)(rng)
                                   : std::uniform_int_distribution<int64_t>(1, shape[d])(rng);
            Tensor idx(DataType::Int64, ishape);
            for (int64_t& v : idx.data<int64_t>()) // negative indices count from the end
                v = std::uniform_int_distribution<int64_t>(-shape[a], shape[a] - 1)(rng);
            const std::string text = "<ir_version: 8, opset_import: [\"\" : 13]> agraph ("
                + tensorType("float", rank, "d") + " x, " + tensorType("int64", rank, "i") + " idx) => ("
                + tensorType("float", rank, "o") + " y) { y = GatherElements <axis = " + std::to_string(axis)
                + "> (x, idx) }";
            const Tensor out = run(text, { { "x", x }, { "idx", idx } }).at("y").tensor();
            const QString context
                = QString::fromStdString("seed " + std::to_string(seed) + " iteration " + std::to_string(iter) + ": x "
                    + str(shape) + " indices " + str(ishape) + " axis " + std::to_string(axis));
            QVERIFY2(out.shape() == ishape, qPrintable(context));
            for (int64_t o = 0; o < out.size(); ++o) {
                auto index = unravel(o, ishape);
                int64_t j = idx.data<int64_t>()[static_cast<size_t>(o)];
                index[a] = j < 0 ? j + shape[a] : j;
                const float expected = x.data<float>()[static_cast<size_t>(ravel(index, shape))];
                QVERIFY2(out.data<float>()[static_cast<size_t>(o)] == expected,
                    qPrintable(context + " first bad index " + QString::number(o)));
            }
        }
    }

    void scatterElementsMatchesNaiveLoop()
    {
        const unsigned seed = 31337;
        std::mt19937 rng(seed);
        const std::vector<std::string> reductions = { "none", "add", "mul" };
        for (int iter = 0; iter < 300; ++iter) {
            const std::string reduction = reductions[static_cast<size_t>(iter) % reductions.size()];
            const Shape shape = randomShape(rng, 1, 4, 1, 5);
            const size_t rank = shape.size();
            const Tensor x = randomFloats(rng, shape, -4, 4);
            const int64_t axis = std::uniform_int_distribution<int64_t>(-static_cast<int64_t>(rank), rank - 1)(rng);
            const size_t a = static_cast<size_t>(axis < 0 ? axis + static_cast<int64_t>(rank) : axis);
            Shape ishape(rank);
            for (size_t d = 0; d < rank; ++d)
                ishape[d] = d == a ? std::uniform_int_distribution<int64_t>(0, 6)(rng) // duplicates likely
                                   : std::uniform_int_distribution<int64_t>(1, shape[d])(rng);
            Tensor idx(DataType::Int32, ishape);
            for (int32_t& v : idx.data<int32_t>())
                v = std::uniform_int_distribution<int32_t>(
                    -static_cast<int32_t>(shape[a]), static_cast<int32_t>(shape[a]) - 1)(rng);
            const Tensor updates = randomFloats(rng, ishape, -4, 4);
            const std::string text = "<ir_version: 8, opset_import: [\"\" : 16]> agraph ("
                + tensorType("float", rank, "d") + " x, " + tensorType("int32", rank, "i") + " idx, "
                + tensorType("float", rank, "i") + " u) => (" + tensorType("float", rank, "d")
                + " y) { y = ScatterElements <axis = " + std::to_string(axis) + ", reduction = \"" + reduction
                + "\"> (x, idx, u) }";
            const Tensor out = run(text, { { "x", x }, { "idx", idx }, { "u", updates } }).at("y").tensor();

            std::vector<float> expected(x.data<float>().begin(), x.data<float>().end());
            for (int64_t i = 0; i < updates.size(); ++i) {
                auto index = unravel(i, ishape);
                const int64_t j = idx.data<int32_t>()[static_cast<size_t>(i)];
                index[a] = j < 0 ? j + shape[a] : j;
                float& dst = expected[static_cast<size_t>(ravel(index, shape))];
                const float u = updates.data<float>()[static_cast<size_t>(i)];
                dst = reduction == "add" ? dst + u : reduction == "mul" ? dst * u : u;
            }
            const QString context = QString::fromStdString("seed " + std::to_string(seed) + " iteration "
                + std::to_string(iter) + ": x " + str(shape) + " indices " + str(ishape) + " axis "
                + std::to_string(axis) + " reduction " + reduction);
            QVERIFY2(out.shape() == shape, qPrintable(context));
            for (int64_t o = 0; o < out.size(); ++o)
                QVERIFY2(out.data<float>()[static_cast<size_t>(o)] == expected[static_cast<size_t>(o)],
                    qPrintable(context + " first bad index " + QString::number(o)));
        }
    }

    void olderOpsetFormsMatchNumpy()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QProcess p;
        p.setProcessChannelMode(QProcess::MergedChannels);
        p.start(QStringLiteral("/usr/bin/python3"),
            { QStringLiteral(ONNXSCOPE_SOURCE_DIR "/tests/engine/indexing_numpy_cases.py"), dir.path() });
        QVERIFY(p.waitForFinished(120000));
        if (p.exitCode() != 0)
            QSKIP(qPrintable("numpy/onnx not available: " + QString::fromUtf8(p.readAll())));
        const auto cases = findBackendCases(dir.path().toStdString());
        QVERIFY(cases.size() >= 60);
        for (const auto& c : cases) {
            const auto r = runBackendCase(c);
            QVERIFY2(r.status == BackendCaseResult::Status::Passed,
                qPrintable(QString::fromStdString(r.name + ": " + r.message)));
        }
    }

    void randomOpsAreDeterministicWithTheRightDistribution()
    {
        const std::string text
            = R"(<ir_version: 8, opset_import: ["" : 15]> agraph (float[20000] p, float[2, 2] logits) => (
                float[20000] u, double[20000] n, float[20000] b, int64[2, 20000] m, float[20000] u2) {
            u = RandomUniform <shape = [20000], low = 2.0, high = 4.0, seed = 1.0> ()
            n = RandomNormalLike <dtype = 11, mean = 1.0, scale = 3.0> (p)
            b = Bernoulli <seed = 5.0> (p)
            m = Multinomial <sample_size = 20000, dtype = 7, seed = 3.0> (logits)
            u2 = RandomUniform <shape = [20000], seed = 2.0> ()
        })";
        Tensor p(DataType::Float, { 20000 });
        for (float& v : p.data<float>())
            v = 0.3f;
        // Row 0: classes 20% / 80%; row 1: only class 1 is possible (exp(-inf) = 0).
        const Tensor logits = Tensor::fromVector<float>({ std::log(0.2f), std::log(0.8f), -INFINITY, 0.0f }, { 2, 2 });
        const auto a = run(text, { { "p", p }, { "logits", logits } });
        const auto again = run(text, { { "p", p }, { "logits", logits } });
        for (const char* name : { "u", "n", "b", "m", "u2" })
            QVERIFY2(
                std::memcmp(a.at(name).tensor().raw(), again.at(name).tensor().raw(), a.at(name).tensor().byteSize())
                    == 0,
                name);
        QVERIFY(std::memcmp(a.at("u").tensor().raw(), a.at("u2").tensor().raw(), a.at("u").tensor().byteSize()) != 0);

        auto stats = [](const Tensor& t) {
            double sum = 0, sq = 0;
            for (int64_t i = 0; i < t.size(); ++i) {
                sum += t.toDouble(i);
                sq += t.toDouble(i) * t.toDouble(i);
            }
            const double mean = sum / static_cast<double>(t.size());
            return std::pair { mean, std::sqrt(sq / static_cast<double>(t.size()) - mean * mean) };
        };
        const Tensor& u = a.at("u").tensor();
        for (float v : u.data<float>())
            QVERIFY(v >= 2.0f && v < 4.0f);
        // Uniform(2, 4): mean 3, sd 2/sqrt(12) = 0.577; 20000 samples put the mean within +-0.02 (5 sigma).
        QVERIFY2(std::abs(stats(u).first - 3.0) < 0.02, qPrintable(QString::number(stats(u).first)));
        QVERIFY2(std::abs(stats(u).second - 0.5774) < 0.02, qPrintable(QString::number(stats(u).second)));
        const Tensor& n = a.at("n").tensor();
        QCOMPARE(n.dtype(), DataType::Double);
        QVERIFY2(std::abs(stats(n).first - 1.0) < 0.11, qPrintable(QString::number(stats(n).first)));
        QVERIFY2(std::abs(stats(n).second - 3.0) < 0.08, qPrintable(QString::number(stats(n).second)));
        const Tensor& b = a.at("b").tensor();
        QCOMPARE(b.dtype(), DataType::Float);
        for (float v : b.data<float>())
            QVERIFY(v == 0.0f || v == 1.0f);
        QVERIFY2(std::abs(stats(b).first - 0.3) < 0.017, qPrintable(QString::number(stats(b).first)));
        const Tensor& m = a.at("m").tensor();
        QCOMPARE(m.shape(), (Shape { 2, 20000 }));
        int64_t ones = 0;
        for (int64_t i = 0; i < 20000; ++i) {
            const int64_t c0 = m.data<int64_t>()[static_cast<size_t>(i)],
                          c1 = m.data<int64_t>()[static_cast<size_t>(20000 + i)];
            QVERIFY(c0 == 0 || c0 == 1);
            QCOMPARE(c1, int64_t(1));
            ones += c0;
        }
        QVERIFY2(std::abs(static_cast<double>(ones) / 20000 - 0.8) < 0.015, qPrintable(QString::number(ones)));
    }

    /// Extreme attribute and input values: each run must either succeed or throw Error (never crash, never UB;
    /// run this suite under UBSan/ASan to check the latter).
    void extremeValuesGiveResultsOrErrors()
    {
        const int64_t mx = std::numeric_limits<int64_t>::max(), mn = std::numeric_limits<int64_t>::min();
        const Tensor x23 = Tensor::fromVector<float>({ 1, 2, 3, 4, 5, 6 }, { 2, 3 });
        auto v = [](std::vector<int64_t> values) { return Value(Tensor::vector1D(values)); };
        struct Case {
            std::string text;
            std::map<std::string, Value> inputs;
        };
        const std::string h = R"(<ir_version: 8, opset_import: ["" : 18]> agraph )";
        std::vector<Case> cases = {
            { h
                    + "(float[2,3] x, int64[2] s, int64[2] e, int64[2] a, int64[2] st) => (float[A,B] y) { y = "
                      "Slice(x, s, e, a, st) }",
                { { "x", x23 }, { "s", v({ mx, mn }) }, { "e", v({ mn, mx }) }, { "a", v({ 0, 1 }) },
                    { "st", v({ mn, mx }) } } },
            { h
                    + "(float[2,3] x, int64[2] s, int64[2] e, int64[2] a, int64[2] st) => (float[A,B] y) { y = "
                      "Slice(x, s, e, a, st) }",
                { { "x", x23 }, { "s", v({ mn, mx }) }, { "e", v({ mx, mn }) }, { "a", v({ -2, -1 }) },
                    { "st", v({ mx, mn }) } } },
            { h + "(float[2,3] x, int64[4] p) => (float[A,B] y) { y = Pad(x, p) }",
                { { "x", x23 }, { "p", v({ mn, 0, mx, 0 }) } } },
            { h + "(float[2,3] x, int64[4] p) => (float[A,B] y) { y = Pad <mode = \"reflect\"> (x, p) }",
                { { "x", x23 }, { "p", v({ mx, 0, mx, 0 }) } } },
            { h + "(float[2,3] x, int64[4] p) => (float[A,B] y) { y = Pad <mode = \"edge\"> (x, p) }",
                { { "x", x23 }, { "p", v({ -2, 0, 0, 0 }) } } },
            { h + "(int64 a, int64 b, int64 c) => (int64[N] y) { y = Range(a, b, c) }",
                { { "a", Tensor::scalar<int64_t>(mn) }, { "b", Tensor::scalar<int64_t>(mx) },
                    { "c", Tensor::scalar<int64_t>(1) } } },
            { h + "(int64 a, int64 b, int64 c) => (int64[N] y) { y = Range(a, b, c) }",
                { { "a", Tensor::scalar<int64_t>(mx) }, { "b", Tensor::scalar<int64_t>(mn) },
                    { "c", Tensor::scalar<int64_t>(mn) } } },
            { h + "(float a, float b, float c) => (float[N] y) { y = Range(a, b, c) }",
                { { "a", Tensor::scalar<float>(0) }, { "b", Tensor::scalar<float>(INFINITY) },
                    { "c", Tensor::scalar<float>(1) } } },
            { h + "(float[2,3] x) => (float[2,3] y) { y = EyeLike <k = -9223372036854775807> (x) }", { { "x", x23 } } },
            { h + "(float[2,3] x) => (float[2,3] y) { y = EyeLike <k = 9223372036854775807> (x) }", { { "x", x23 } } },
            { h + "(float[2,3] x, int64 k) => (float[2,3] y) { y = Trilu(x, k) }",
                { { "x", x23 }, { "k", Tensor::scalar<int64_t>(mn) } } },
            { h + "(float[2,3] x, int64 k) => (float[2,3] y) { y = Trilu <upper = 0> (x, k) }",
                { { "x", x23 }, { "k", Tensor::scalar<int64_t>(mx) } } },
            { h + "(int64[2] i, int64 d, float[2] val) => (float[2,N] y) { y = OneHot(i, d, val) }",
                { { "i", v({ mn, mx }) }, { "d", Tensor::scalar<int64_t>(3) },
                    { "val", Tensor::vector1D<float>({ 0, 1 }) } } },
            { h + "(float[2] i, float d, float[2] val) => (float[2,N] y) { y = OneHot(i, d, val) }",
                { { "i", Tensor::vector1D<float>({ NAN, -INFINITY }) }, { "d", Tensor::scalar<float>(1e30f) },
                    { "val", Tensor::vector1D<float>({ 0, 1 }) } } },
            { h + "(float[2,3] x, int64[1] k) => (float[A,B] v, int64[A,B] i) { v, i = TopK(x, k) }",
                { { "x", x23 }, { "k", v({ mx }) } } },
            { h + "(float[2,3] x, int64[1] k) => (float[A,B] v, int64[A,B] i) { v, i = TopK(x, k) }",
                { { "x", x23 }, { "k", v({ -1 }) } } },
            { h + "(float[2,3] x, int64[1,2] i) => (float[1] y) { y = GatherND(x, i) }",
                { { "x", x23 }, { "i", Tensor::fromVector<int64_t>({ mn, 0 }, { 1, 2 }) } } },
            { h + "(float[2,3] x, int64[1,2] i, float[1] u) => (float[2,3] y) { y = ScatterND(x, i, u) }",
                { { "x", x23 }, { "i", Tensor::fromVector<int64_t>({ 0, mx }, { 1, 2 }) },
                    { "u", Tensor::vector1D<float>({ 1 }) } } },
            { h + "(float[2,3] x, int64[2] r) => (float[A,B] y) { y = Tile(x, r) }",
                { { "x", x23 }, { "r", v({ mx, 1 }) } } },
            { h + "(float[2,3] x, int64[2] s) => (float[A] y, float[B] z) { y, z = Split <axis = 1> (x, s) }",
                { { "x", x23 }, { "s", v({ mx, mx }) } } },
            { h + "(float[2,3] x, int64[2] s) => (float[A] y, float[B] z) { y, z = Split <axis = 1> (x, s) }",
                { { "x", x23 }, { "s", v({ -1, 4 }) } } },
            { h + "(float[2,3] x) => (float[A] y, float[B] z) { y, z = Split <axis = 1, num_outputs = 2> (x) }",
                { { "x", x23 } } },
            { h
                    + "(float[2,3] x, int64[3] l) => (float[2,3] y) { y = ReverseSequence <batch_axis = 1, time_axis = "
                      "0> (x, l) }",
                { { "x", x23 }, { "l", v({ mn, 1, mx }) } } },
            { h + "(float[2,3] x, int64[2] s) => (float[A,B] y) { y = Expand(x, s) }",
                { { "x", x23 }, { "s", v({ -1, 3 }) } } },
            { h + "(int64[2] s) => (float[A,B] y) { y = ConstantOfShape(s) }", { { "s", v({ -5, 0 }) } } },
            { h + "(int64[2] s) => (float[A,B] y) { y = ConstantOfShape(s) }", { { "s", v({ mx, mx }) } } },
            { h + "(float[1,4,2,2] x) => (float[A,B,C,D] y) { y = SpaceToDepth <blocksize = 4294967296> (x) }",
                { { "x", Tensor(DataType::Float, { 1, 4, 2, 2 }) } } },
            { h + "(float[1,4,2,2] x) => (float[A,B,C,D] y) { y = DepthToSpace <blocksize = 4294967296> (x) }",
                { { "x", Tensor(DataType::Float, { 1, 4, 2, 2 }) } } },
            { h + "(float[2,3] x, bool[5] c) => (float[A,B] y) { y = Compress <axis = 1> (x, c) }",
                { { "x", x23 }, { "c", Tensor::vector1D<bool>({ true, false, true, false, true }) } } },
            { h + "(float[2,3] x, int64[2,3] i) => (float[2,3] y) { y = GatherElements <axis = -2> (x, i) }",
                { { "x", x23 }, { "i", Tensor::fromVector<int64_t>({ 0, 1, -2, mn, 0, 0 }, { 2, 3 }) } } },
            { h
                    + "(float[2,3] x, int32[1,1] i, float[1,1] u) => (float[2,3] y) { y = ScatterElements <reduction = "
                      "\"max\"> (x, i, u) }",
                { { "x", x23 }, { "i", Tensor::fromVector<int32_t>({ std::numeric_limits<int32_t>::min() }, { 1, 1 }) },
                    { "u", Tensor::fromVector<float>({ 1 }, { 1, 1 }) } } },
            { h + "(float[2,3] x) => (float[N] y) { y = Multinomial <sample_size = 9223372036854775807> (x) }",
                { { "x", x23 } } },
            { h + "() => (float[N] y) { y = RandomNormal <shape = [9223372036854775807, 2]> () }", {} },
        };
        const size_t savedLimit = Tensor::allocationLimit();
        Tensor::setAllocationLimit(size_t(1) << 30);
        int errors = 0;
        for (size_t i = 0; i < cases.size(); ++i) {
            try {
                run(cases[i].text, cases[i].inputs);
            } catch (const Error& e) {
                ++errors;
                if (qEnvironmentVariableIsSet("ONNXSCOPE_TEST_VERBOSE"))
                    qInfo("case %zu: %s", i, e.what());
            } catch (const std::exception& e) {
                Tensor::setAllocationLimit(savedLimit);
                QFAIL(qPrintable(QString("case %1 threw a non-Error exception: %2").arg(i).arg(e.what())));
            }
        }
        Tensor::setAllocationLimit(savedLimit);
        QVERIFY(errors > 10);
    }

    void outOfRangeIndicesAreErrors()
    {
        const std::string text
            = R"(<ir_version: 8, opset_import: ["" : 13]> agraph (float[2,3] x, int64[2,1] i) => (float[2,1] y) {
            y = GatherElements <axis = 1> (x, i) })";
        try {
            run(text,
                { { "x", Tensor(DataType::Float, { 2, 3 }) },
                    { "i", Tensor::fromVector<int64_t>({ 0, 3 }, { 2, 1 }) } });
            QFAIL("an out-of-range index was accepted");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("GatherElements") != std::string::npos, e.what());
            QVERIFY2(std::string(e.what()).find("index 3 is out of range") != std::string::npos, e.what());
        }
    }

    void hugeOutputsAreRefusedNamingTheShape_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("inputName");
        QTest::addColumn<QString>("shapeInMessage");
        QTest::newRow("ConstantOfShape [1e15]")
            << R"(<ir_version: 8, opset_import: ["" : 9]> agraph (int64[1] s) => (float[N] y) { y = ConstantOfShape(s) })"
            << "1000000000000000"
            << "[1000000000000000]";
        QTest::newRow("Expand to [1e6, 1e6, 1e6] (overflows nothing, far over the limit)")
            << R"(<ir_version: 8, opset_import: ["" : 13]> agraph (int64[3] s) => (float[A,B,C] y) {
                   one = Constant <value = float[1] {1.0}> ()
                   y = Expand(one, s) })"
            << "1000000 1000000 1000000"
            << "[1000000, 1000000, 1000000]";
        QTest::newRow("Expand to [4e9, 4e9, 4e9] (element count overflows int64)")
            << R"(<ir_version: 8, opset_import: ["" : 13]> agraph (int64[3] s) => (float[A,B,C] y) {
                   one = Constant <value = float[1] {1.0}> ()
                   y = Expand(one, s) })"
            << "4000000000 4000000000 4000000000"
            << "[4000000000, 4000000000, 4000000000]";
        QTest::newRow("Tile [2] by 1e12")
            << R"(<ir_version: 8, opset_import: ["" : 13]> agraph (int64[1] s) => (float[N] y) {
                   two = Constant <value = float[2] {1.0, 2.0}> ()
                   y = Tile(two, s) })"
            << "1000000000000"
            << "[2000000000000]";
        QTest::newRow("Range 0..1e15") << R"(<ir_version: 8, opset_import: ["" : 11]> agraph (int64 s) => (int64[N] y) {
                   zero = Constant <value = int64 {0}> ()
                   one = Constant <value = int64 {1}> ()
                   y = Range(zero, s, one) })"
                                       << "scalar 1000000000000000"
                                       << "[1000000000000000]";
    }

    void hugeOutputsAreRefusedNamingTheShape()
    {
        QFETCH(QString, text);
        QFETCH(QString, inputName);
        QFETCH(QString, shapeInMessage);
        std::vector<int64_t> dims;
        bool scalar = false;
        std::istringstream in(inputName.toStdString());
        for (std::string word; in >> word;) {
            if (word == "scalar")
                scalar = true;
            else
                dims.push_back(std::stoll(word));
        }
        const Tensor s = scalar ? Tensor::scalar<int64_t>(dims[0]) : Tensor::vector1D(dims);
        const size_t savedLimit = Tensor::allocationLimit();
        Tensor::setAllocationLimit(size_t(1) << 30);
        try {
            run(text.toStdString(), { { "s", s } });
            Tensor::setAllocationLimit(savedLimit);
            QFAIL("a huge output was allocated");
        } catch (const Error& e) {
            Tensor::setAllocationLimit(savedLimit);
            QVERIFY2(std::string(e.what()).find(shapeInMessage.toStdString()) != std::string::npos, e.what());
        }
    }

    void oneHotWithHugeDepthIsRefused()
    {
        const size_t savedLimit = Tensor::allocationLimit();
        Tensor::setAllocationLimit(size_t(1) << 30);
        try {
            run(R"(<ir_version: 8, opset_import: ["" : 11]> agraph (int64[3] i, int64 depth) => (float[3, N] y) {
                    values = Constant <value = float[2] {0.0, 1.0}> ()
                    y = OneHot(i, depth, values) })",
                { { "i", Tensor::vector1D<int64_t>({ 0, 1, 2 }) },
                    { "depth", Tensor::scalar<int64_t>(1000000000000) } });
            Tensor::setAllocationLimit(savedLimit);
            QFAIL("a huge OneHot output was allocated");
        } catch (const Error& e) {
            Tensor::setAllocationLimit(savedLimit);
            QVERIFY2(std::string(e.what()).find("[3, 1000000000000]") != std::string::npos, e.what());
        }
    }
};

QTEST_APPLESS_MAIN(TestIndexingReference)
#include "test_indexing_reference.moc"
