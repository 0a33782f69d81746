// SPDX-License-Identifier: MIT
// Foundation kernels against naive, obviously correct loops written here, on random shapes with fixed seeds
// (MatMul, Gemm, Softmax, Transpose, Concat, Gather), plus the opset-version behaviours ONNX's conformance cases
// do not cover and the errors that must name the node. On a mismatch the message gives seed, shape, parameters
// and the first bad index.
#include "engine/core/half.h"
#include "engine/exec/session.h"

#include <QtTest>
#include <onnx/onnx_pb.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <sstream>

using namespace onnxscope;

namespace {

constexpr unsigned kSeed = 20240611;

std::string dimsDecl(const std::string& elem, size_t rank, const std::string& prefix)
{
    std::string s = elem + "[";
    for (size_t i = 0; i < rank; ++i)
        s += (i ? "," : "") + prefix + std::to_string(i);
    return s + "]";
}

/// Runs a one-graph model in ONNX text format: `inputs` like "float[a0,a1] x", `outputs` like "float[?] y".
std::map<std::string, Value> runGraph(int64_t opset, const std::string& inputs, const std::string& outputs,
    const std::string& body, const std::map<std::string, Value>& values)
{
    const std::string text = "<ir_version: 8, opset_import: [\"\" : " + std::to_string(opset) + "]>\nagraph (" + inputs
        + ") => (" + outputs + ") {\n" + body + "\n}";
    Session session(std::make_shared<Program>(Model::fromText(text)));
    return session.run(values);
}

Tensor runOne(int64_t opset, const std::string& inputs, const std::string& output, const std::string& body,
    const std::map<std::string, Value>& values)
{
    auto out = runGraph(opset, inputs, output, body, values);
    return out.begin()->second.tensor();
}

/// The error message of running the graph, or "" if it ran.
std::string errorOf(int64_t opset, const std::string& inputs, const std::string& output, const std::string& body,
    const std::map<std::string, Value>& values)
{
    try {
        runGraph(opset, inputs, output, body, values);
    } catch (const Error& e) {
        return e.what();
    }
    return {};
}

Shape randomShape(std::mt19937& rng, size_t rank, int64_t maxDim)
{
    Shape s(rank);
    for (auto& d : s)
        d = std::uniform_int_distribution<int64_t>(1, maxDim)(rng);
    return s;
}

template <class T> Tensor randomTensor(std::mt19937& rng, const Shape& shape)
{
    Tensor t(DataTypeOf<T>::value, shape);
    auto d = t.data<T>();
    for (auto& v : d) {
        if constexpr (std::is_integral_v<T>)
            v = static_cast<T>(std::uniform_int_distribution<int>(std::is_signed_v<T> ? -9 : 0, 9)(rng));
        else
            v = static_cast<T>(std::uniform_real_distribution<float>(-2.f, 2.f)(rng));
    }
    return t;
}

/// Multi-index of flat index i in `shape`.
std::vector<int64_t> unravel(int64_t i, const Shape& shape)
{
    std::vector<int64_t> idx(shape.size());
    for (size_t d = shape.size(); d-- > 0;) {
        idx[d] = i % shape[d];
        i /= shape[d];
    }
    return idx;
}

int64_t ravel(const std::vector<int64_t>& idx, const Shape& shape)
{
    int64_t off = 0;
    for (size_t d = 0; d < shape.size(); ++d)
        off = off * shape[d] + idx[d];
    return off;
}

std::string describe(unsigned seed, int iteration, const std::string& params)
{
    return "seed " + std::to_string(seed) + ", iteration " + std::to_string(iteration) + ", " + params;
}

/// Compares element-wise with tolerance; returns "" or a message naming the first bad index.
template <class T>
std::string compare(const Tensor& got, const Shape& shape, const std::vector<double>& want, double rtol, double atol)
{
    if (got.shape() != shape)
        return "shape " + shapeToString(got.shape()) + ", expected " + shapeToString(shape);
    auto g = got.data<T>();
    for (size_t i = 0; i < want.size(); ++i) {
        const double v = static_cast<double>(g[i]);
        if (!(std::fabs(v - want[i]) <= atol + rtol * std::fabs(want[i])))
            return "first bad index " + std::to_string(i) + " " + shapeToString(unravel(int64_t(i), shape)) + ": got "
                + std::to_string(v) + ", expected " + std::to_string(want[i]);
    }
    return {};
}

std::string shapeText(const Shape& s)
{
    return shapeToString(s);
}

} // namespace

class TestKernelsReference : public QObject {
    Q_OBJECT

private:
    template <class T> void matmulSweep(const char* typeName, double rtol, double atol)
    {
        std::mt19937 rng(kSeed);
        for (int it = 0; it < 60; ++it) {
            // Random batch ranks with broadcasting 1s, and 1-D operands now and then.
            const size_t rankA = std::uniform_int_distribution<size_t>(1, 4)(rng);
            const size_t rankB = std::uniform_int_distribution<size_t>(1, 4)(rng);
            const int64_t m = rankA == 1 ? 1 : std::uniform_int_distribution<int64_t>(1, 7)(rng);
            const int64_t k = std::uniform_int_distribution<int64_t>(1, 9)(rng);
            const int64_t n = rankB == 1 ? 1 : std::uniform_int_distribution<int64_t>(1, 7)(rng);
            const size_t batchRank = std::max(rankA, rankB) > 2 ? std::max(rankA, rankB) - 2 : 0;
            Shape batch = randomShape(rng, batchRank, 3);
            Shape sa, sb;
            for (size_t d = 0; d + 2 < rankA; ++d) {
                const int64_t full = batch[batchRank - (rankA - 2) + d];
                sa.push_back(rng() % 3 == 0 ? 1 : full);
            }
            for (size_t d = 0; d + 2 < rankB; ++d) {
                const int64_t full = batch[batchRank - (rankB - 2) + d];
                sb.push_back(rng() % 3 == 0 ? 1 : full);
            }
            if (rankA >= 2)
                sa.push_back(m);
            sa.push_back(k);
            sb.push_back(k);
            if (rankB >= 2)
                sb.push_back(n);
            Tensor a = randomTensor<T>(rng, sa), b = randomTensor<T>(rng, sb);

            // Reference: numpy matmul semantics, spelled out.
            Shape pa = sa, pb = sb;
            if (pa.size() == 1)
                pa.insert(pa.begin(), 1);
            if (pb.size() == 1)
                pb.push_back(1);
            const size_t br = std::max(pa.size(), pb.size()) - 2;
            Shape outBatch(br, 1);
            for (size_t d = 0; d < br; ++d) {
                const int64_t xa = d + pa.size() - 2 >= br ? pa[d + pa.size() - 2 - br] : 1;
                const int64_t xb = d + pb.size() - 2 >= br ? pb[d + pb.size() - 2 - br] : 1;
                outBatch[d] = std::max(xa, xb);
            }
            Shape outShape = outBatch;
            if (sa.size() > 1)
                outShape.push_back(m);
            if (sb.size() > 1)
                outShape.push_back(n);
            std::vector<double> want(static_cast<size_t>(elementCount(outShape)));
            const int64_t batches = elementCount(outBatch);
            auto ad = a.data<T>();
            auto bd = b.data<T>();
            for (int64_t bi = 0; bi < batches; ++bi) {
                auto idx = unravel(bi, outBatch);
                int64_t offA = 0, offB = 0;
                for (size_t d = 0; d < br; ++d) {
                    if (d + pa.size() - 2 >= br) {
                        const size_t ad2 = d + pa.size() - 2 - br;
                        offA = offA * pa[ad2] + (pa[ad2] == 1 ? 0 : idx[d]);
                    }
                    if (d + pb.size() - 2 >= br) {
                        const size_t bd2 = d + pb.size() - 2 - br;
                        offB = offB * pb[bd2] + (pb[bd2] == 1 ? 0 : idx[d]);
                    }
                }
                for (int64_t i = 0; i < m; ++i)
                    for (int64_t j = 0; j < n; ++j) {
                        double s = 0;
                        for (int64_t q = 0; q < k; ++q)
                            s += static_cast<double>(ad[static_cast<size_t>(offA * m * k + i * k + q)])
                                * static_cast<double>(bd[static_cast<size_t>(offB * k * n + q * n + j)]);
                        want[static_cast<size_t>(bi * m * n + i * n + j)] = s;
                    }
            }
            Tensor y
                = runOne(13, dimsDecl(typeName, sa.size(), "a") + " a, " + dimsDecl(typeName, sb.size(), "b") + " b",
                    std::string(typeName) + "[?] y", "y = MatMul(a, b)", { { "a", a }, { "b", b } });
            const std::string bad = compare<T>(y, outShape, want, rtol, atol);
            QVERIFY2(bad.empty(),
                (describe(kSeed, it, std::string(typeName) + " A " + shapeText(sa) + " B " + shapeText(sb)) + ": "
                    + bad)
                    .c_str());
        }
    }

private slots:
    void matmulFloat() { matmulSweep<float>("float", 1e-5, 1e-5); }
    void matmulDouble() { matmulSweep<double>("double", 1e-12, 1e-12); }
    void matmulInt32() { matmulSweep<int32_t>("int32", 0, 0); }
    void matmulUInt64() { matmulSweep<uint64_t>("uint64", 0, 0); }
    void matmulFloat16() { matmulSweep<Float16>("float16", 2e-3, 2e-3); }

    void emptyInnerDimension()
    {
        // K = 0: the product is a sum of nothing, so MatMul gives zeros and Gemm gives beta * C.
        Tensor a(DataType::Float, { 2, 0 }), b(DataType::Float, { 0, 3 });
        Tensor y
            = runOne(13, "float[2,0] a, float[0,3] b", "float[?] y", "y = MatMul(a, b)", { { "a", a }, { "b", b } });
        QCOMPARE(y.shape(), (Shape { 2, 3 }));
        for (float v : y.data<float>())
            QCOMPARE(v, 0.0f);
        Tensor c = Tensor::vector1D<float>({ 1, 2, 3 });
        Tensor g = runOne(13, "float[2,0] a, float[0,3] b, float[3] c", "float[?] y", "y = Gemm <beta = 2.0> (a, b, c)",
            { { "a", a }, { "b", b }, { "c", c } });
        QCOMPARE(std::vector<float>(g.data<float>().begin(), g.data<float>().end()),
            (std::vector<float> { 2, 4, 6, 2, 4, 6 }));
    }

    void matmulErrors()
    {
        const std::string e = errorOf(13, "float[2,3] a, float[4,5] b", "float[?] y", "y = MatMul(a, b)",
            { { "a", Tensor(DataType::Float, { 2, 3 }) }, { "b", Tensor(DataType::Float, { 4, 5 }) } });
        QVERIFY2(e.find("(MatMul)") != std::string::npos && e.find("inner dimensions") != std::string::npos, e.c_str());
    }

    void gemmSweep()
    {
        std::mt19937 rng(kSeed + 1);
        const char* cKinds[] = { "none", "scalar", "[N]", "[1,N]", "[M,1]", "[M,N]", "[1]" };
        for (int it = 0; it < 80; ++it) {
            const int64_t m = std::uniform_int_distribution<int64_t>(1, 8)(rng);
            const int64_t k = std::uniform_int_distribution<int64_t>(1, 8)(rng);
            const int64_t n = std::uniform_int_distribution<int64_t>(1, 8)(rng);
            const bool ta = rng() % 2, tb = rng() % 2;
            const float alpha = std::uniform_real_distribution<float>(-2, 2)(rng);
            const float beta = std::uniform_real_distribution<float>(-2, 2)(rng);
            const int cKind = static_cast<int>(rng() % 7);
            const int64_t opset = std::array<int64_t, 3> { 7, 11, 13 }[rng() % 3];
            if (cKind == 0 && opset < 11)
                continue;
            const Shape sa = ta ? Shape { k, m } : Shape { m, k };
            const Shape sb = tb ? Shape { n, k } : Shape { k, n };
            const Shape sc = cKind == 1 ? Shape {}
                : cKind == 2            ? Shape { n }
                : cKind == 3            ? Shape { 1, n }
                : cKind == 4            ? Shape { m, 1 }
                : cKind == 5            ? Shape { m, n }
                                        : Shape { 1 };
            Tensor a = randomTensor<float>(rng, sa), b = randomTensor<float>(rng, sb), c = randomTensor<float>(rng, sc);
            std::vector<double> want(static_cast<size_t>(m * n));
            auto A = [&](int64_t i, int64_t q) { return double(a.data<float>()[size_t(ta ? q * m + i : i * k + q)]); };
            auto B = [&](int64_t q, int64_t j) { return double(b.data<float>()[size_t(tb ? j * k + q : q * n + j)]); };
            auto C = [&](int64_t i, int64_t j) -> double {
                auto cd = c.data<float>();
                switch (cKind) {
                case 0:
                    return 0;
                case 2:
                    return cd[size_t(j)];
                case 3:
                    return cd[size_t(j)];
                case 4:
                    return cd[size_t(i)];
                case 5:
                    return cd[size_t(i * n + j)];
                default:
                    return cd[0];
                }
            };
            for (int64_t i = 0; i < m; ++i)
                for (int64_t j = 0; j < n; ++j) {
                    double s = 0;
                    for (int64_t q = 0; q < k; ++q)
                        s += A(i, q) * B(q, j);
                    want[size_t(i * n + j)] = double(alpha) * s + double(beta) * C(i, j);
                }
            std::ostringstream attrs;
            attrs.precision(9);
            attrs << "<alpha = " << alpha << ", beta = " << beta << ", transA = " << ta << ", transB = " << tb << ">";
            std::string inputs = "float[a0,a1] a, float[b0,b1] b";
            std::string call = "y = Gemm " + attrs.str() + " (a, b" + (cKind ? ", c)" : ")");
            std::map<std::string, Value> values { { "a", a }, { "b", b } };
            if (cKind) {
                inputs += ", " + dimsDecl("float", sc.size(), "c") + " c";
                values["c"] = c;
            }
            // alpha/beta are written with 9 significant digits, so the model reads back exactly these floats.
            Tensor y = runOne(opset, inputs, "float[?] y", call, values);
            const std::string bad = compare<float>(y, { m, n }, want, 1e-5, 1e-5);
            QVERIFY2(bad.empty(),
                (describe(kSeed + 1, it,
                     "opset " + std::to_string(opset) + " M,K,N " + std::to_string(m) + "," + std::to_string(k) + ","
                         + std::to_string(n) + " transA " + std::to_string(ta) + " transB " + std::to_string(tb) + " C "
                         + cKinds[cKind])
                    + ": " + bad)
                    .c_str());
        }
    }

    void gemmLegacyBroadcast()
    {
        // Opset 6: C broadcasts only with broadcast=1; without it C must be [M, N].
        Tensor a = Tensor::fromVector<float>({ 1, 2, 3, 4 }, { 2, 2 });
        Tensor b = Tensor::fromVector<float>({ 1, 0, 0, 1 }, { 2, 2 });
        Tensor c = Tensor::vector1D<float>({ 10, 20 });
        Tensor y = runOne(6, "float[2,2] a, float[2,2] b, float[2] c", "float[2,2] y",
            "y = Gemm <broadcast = 1> (a, b, c)", { { "a", a }, { "b", b }, { "c", c } });
        QCOMPARE(std::vector<float>(y.data<float>().begin(), y.data<float>().end()),
            (std::vector<float> { 11, 22, 13, 24 }));
        const std::string e = errorOf(6, "float[2,2] a, float[2,2] b, float[2] c", "float[2,2] y", "y = Gemm (a, b, c)",
            { { "a", a }, { "b", b }, { "c", c } });
        QVERIFY2(e.find("(Gemm)") != std::string::npos && e.find("broadcast") != std::string::npos, e.c_str());
    }

    void softmaxAllAxisSemantics()
    {
        std::mt19937 rng(kSeed + 2);
        for (int it = 0; it < 60; ++it) {
            const size_t rank = std::uniform_int_distribution<size_t>(1, 4)(rng);
            const Shape shape = randomShape(rng, rank, 5);
            const int64_t opset = std::array<int64_t, 3> { 1, 11, 13 }[rng() % 3];
            const int64_t r = int64_t(rank);
            // Opsets 1/11 take axis in [-r, r] (coerced 2-D), opset 13 in [-r, r-1] (one axis).
            const int64_t axis = std::uniform_int_distribution<int64_t>(-r, opset < 13 ? r : r - 1)(rng);
            Tensor x = randomTensor<float>(rng, shape);
            for (auto& v : x.data<float>())
                v *= 20; // large enough that an implementation without max subtraction would lose precision
            const int64_t ax = axis < 0 ? axis + r : axis;
            std::vector<double> want(static_cast<size_t>(x.size()));
            auto xd = x.data<float>();
            // Group elements: in opset 13 those that differ only along `ax`; in 1/11 those sharing dims [0, ax).
            for (int64_t i = 0; i < x.size(); ++i) {
                const auto idx = unravel(i, shape);
                double mx = -INFINITY, sum = 0;
                std::vector<int64_t> members;
                for (int64_t j = 0; j < x.size(); ++j) {
                    const auto jdx = unravel(j, shape);
                    bool same = true;
                    for (int64_t d = 0; d < r; ++d)
                        if (opset < 13 ? d < ax && jdx[size_t(d)] != idx[size_t(d)]
                                       : d != ax && jdx[size_t(d)] != idx[size_t(d)])
                            same = false;
                    if (same)
                        members.push_back(j);
                }
                for (int64_t j : members)
                    mx = std::max(mx, double(xd[size_t(j)]));
                for (int64_t j : members)
                    sum += std::exp(double(xd[size_t(j)]) - mx);
                want[size_t(i)] = std::exp(double(xd[size_t(i)]) - mx) / sum;
            }
            Tensor y = runOne(opset, dimsDecl("float", rank, "d") + " x", "float[?] y",
                "y = Softmax <axis = " + std::to_string(axis) + "> (x)", { { "x", x } });
            const std::string bad = compare<float>(y, shape, want, 1e-5, 1e-6);
            QVERIFY2(bad.empty(),
                (describe(kSeed + 2, it,
                     "opset " + std::to_string(opset) + " shape " + shapeText(shape) + " axis " + std::to_string(axis))
                    + ": " + bad)
                    .c_str());
        }
        const std::string e = errorOf(13, "float[2,3] x", "float[?] y", "y = Softmax <axis = 2> (x)",
            { { "x", Tensor(DataType::Float, { 2, 3 }) } });
        QVERIFY2(e.find("(Softmax)") != std::string::npos && e.find("'axis'") != std::string::npos, e.c_str());
    }

    void transposeSweep()
    {
        std::mt19937 rng(kSeed + 3);
        for (int it = 0; it < 120; ++it) {
            // Many small tensors of rank up to 6, then a few bigger ones of rank 2-3 that cross tile borders.
            const size_t rank = it < 100 ? std::uniform_int_distribution<size_t>(1, 6)(rng)
                                         : std::uniform_int_distribution<size_t>(2, 3)(rng);
            Shape shape = randomShape(rng, rank, it < 100 ? 4 : 70);
            if (it % 5 == 0)
                shape[rng() % rank] = 1;
            std::vector<int64_t> perm(rank);
            std::iota(perm.begin(), perm.end(), 0);
            std::shuffle(perm.begin(), perm.end(), rng);
            const bool defaultPerm = it % 7 == 0;
            if (defaultPerm)
                std::sort(perm.rbegin(), perm.rend()); // the default: reversed axes
            Tensor x = randomTensor<int64_t>(rng, shape);
            for (int64_t i = 0; i < x.size(); ++i)
                x.data<int64_t>()[size_t(i)] = i; // every element distinct
            Shape outShape(rank);
            for (size_t i = 0; i < rank; ++i)
                outShape[i] = shape[size_t(perm[i])];
            std::vector<double> want(size_t(x.size()));
            for (int64_t o = 0; o < x.size(); ++o) {
                const auto oi = unravel(o, outShape);
                std::vector<int64_t> ii(rank);
                for (size_t d = 0; d < rank; ++d)
                    ii[size_t(perm[d])] = oi[d];
                want[size_t(o)] = double(ravel(ii, shape));
            }
            std::string attr;
            if (!defaultPerm) {
                attr = "<perm = [";
                for (size_t i = 0; i < rank; ++i)
                    attr += (i ? "," : "") + std::to_string(perm[i]);
                attr += "]> ";
            }
            Tensor y = runOne(
                13, dimsDecl("int64", rank, "d") + " x", "int64[?] y", "y = Transpose " + attr + "(x)", { { "x", x } });
            const std::string bad = compare<int64_t>(y, outShape, want, 0, 0);
            QVERIFY2(bad.empty(),
                (describe(kSeed + 3, it, "shape " + shapeText(shape) + " perm " + shapeText(perm)) + ": " + bad)
                    .c_str());
        }
    }

    void transposeLargeAndStrings()
    {
        // A 2-D transpose big enough to cross many tiles, with ragged edges.
        const Shape shape { 1031, 517 };
        Tensor x(DataType::Float, shape);
        for (int64_t i = 0; i < x.size(); ++i)
            x.data<float>()[size_t(i)] = float(i);
        Tensor y = runOne(13, "float[a,b] x", "float[?] y", "y = Transpose (x)", { { "x", x } });
        QCOMPARE(y.shape(), (Shape { 517, 1031 }));
        for (int64_t r = 0; r < 517; ++r)
            for (int64_t c = 0; c < 1031; ++c)
                if (y.data<float>()[size_t(r * 1031 + c)] != float(c * 517 + r))
                    QFAIL(("first bad index [" + std::to_string(r) + ", " + std::to_string(c) + "]").c_str());
        Tensor s = Tensor::fromVector<std::string>({ "a", "b", "c", "d", "e", "f" }, { 2, 3 });
        Tensor t = runOne(13, "string[2,3] x", "string[3,2] y", "y = Transpose <perm = [1, 0]> (x)", { { "x", s } });
        auto td = t.data<std::string>();
        QCOMPARE(std::vector<std::string>(td.begin(), td.end()),
            (std::vector<std::string> { "a", "d", "b", "e", "c", "f" }));
        const std::string e = errorOf(13, "float[2,3] x", "float[?] y", "y = Transpose <perm = [0, 0]> (x)",
            { { "x", Tensor(DataType::Float, { 2, 3 }) } });
        QVERIFY2(e.find("(Transpose)") != std::string::npos && e.find("'perm'") != std::string::npos, e.c_str());
    }

    void concatSweep()
    {
        std::mt19937 rng(kSeed + 4);
        for (int it = 0; it < 80; ++it) {
            const size_t rank = std::uniform_int_distribution<size_t>(1, 4)(rng);
            const Shape base = randomShape(rng, rank, 4);
            const int64_t r = int64_t(rank);
            const int64_t axis = std::uniform_int_distribution<int64_t>(-r, r - 1)(rng);
            const size_t ax = size_t(axis < 0 ? axis + r : axis);
            const int count = std::uniform_int_distribution<int>(1, 4)(rng);
            std::vector<Tensor> inputs;
            std::string decl, args;
            std::map<std::string, Value> values;
            for (int i = 0; i < count; ++i) {
                Shape s = base;
                s[ax] = std::uniform_int_distribution<int64_t>(0, 3)(rng); // 0 along the axis is allowed
                inputs.push_back(randomTensor<int32_t>(rng, s));
                const std::string name = "x" + std::to_string(i);
                decl += (i ? ", " : "") + dimsDecl("int32", rank, name + "_") + " " + name;
                args += (i ? ", " : "") + name;
                values[name] = inputs.back();
            }
            Shape outShape = base;
            outShape[ax] = 0;
            for (auto& t : inputs)
                outShape[ax] += t.shape()[ax];
            std::vector<double> want(size_t(elementCount(outShape)));
            for (int64_t o = 0; o < int64_t(want.size()); ++o) {
                auto idx = unravel(o, outShape);
                int64_t along = idx[ax];
                for (auto& t : inputs) {
                    if (along < t.shape()[ax]) {
                        idx[ax] = along;
                        want[size_t(o)] = t.data<int32_t>()[size_t(ravel(idx, t.shape()))];
                        break;
                    }
                    along -= t.shape()[ax];
                }
            }
            Tensor y = runOne(
                13, decl, "int32[?] y", "y = Concat <axis = " + std::to_string(axis) + "> (" + args + ")", values);
            const std::string bad = compare<int32_t>(y, outShape, want, 0, 0);
            QVERIFY2(bad.empty(),
                (describe(kSeed + 4, it,
                     "base " + shapeText(base) + " axis " + std::to_string(axis) + " inputs " + std::to_string(count))
                    + ": " + bad)
                    .c_str());
        }
        // Concat 1: axis defaults to 1.
        Tensor a = Tensor::fromVector<float>({ 1, 2 }, { 2, 1 }), b = Tensor::fromVector<float>({ 3, 4 }, { 2, 1 });
        Tensor y
            = runOne(1, "float[2,1] a, float[2,1] b", "float[2,2] y", "y = Concat (a, b)", { { "a", a }, { "b", b } });
        QCOMPARE(
            std::vector<float>(y.data<float>().begin(), y.data<float>().end()), (std::vector<float> { 1, 3, 2, 4 }));
        const std::string e = errorOf(13, "float[2,1] a, float[3,1] b", "float[?] y", "y = Concat <axis = 1> (a, b)",
            { { "a", a }, { "b", Tensor(DataType::Float, { 3, 1 }) } });
        QVERIFY2(e.find("(Concat)") != std::string::npos && e.find("input 1") != std::string::npos, e.c_str());
    }

    void gatherSweep()
    {
        std::mt19937 rng(kSeed + 5);
        for (int it = 0; it < 80; ++it) {
            const size_t rank = std::uniform_int_distribution<size_t>(1, 4)(rng);
            const Shape shape = randomShape(rng, rank, 4);
            const int64_t r = int64_t(rank);
            const int64_t axis = std::uniform_int_distribution<int64_t>(-r, r - 1)(rng);
            const size_t ax = size_t(axis < 0 ? axis + r : axis);
            const size_t irank = std::uniform_int_distribution<size_t>(0, 2)(rng);
            const Shape ishape = randomShape(rng, irank, 3);
            const bool use32 = rng() % 2;
            Tensor indices(use32 ? DataType::Int32 : DataType::Int64, ishape);
            std::vector<int64_t> idx(size_t(indices.size()));
            for (auto& v : idx)
                v = std::uniform_int_distribution<int64_t>(-shape[ax], shape[ax] - 1)(rng);
            for (size_t i = 0; i < idx.size(); ++i)
                use32 ? void(indices.data<int32_t>()[i] = int32_t(idx[i])) : void(indices.data<int64_t>()[i] = idx[i]);
            Tensor x = randomTensor<double>(rng, shape);
            Shape outShape(shape.begin(), shape.begin() + std::ptrdiff_t(ax));
            outShape.insert(outShape.end(), ishape.begin(), ishape.end());
            outShape.insert(outShape.end(), shape.begin() + std::ptrdiff_t(ax) + 1, shape.end());
            std::vector<double> want(size_t(elementCount(outShape)));
            for (int64_t o = 0; o < int64_t(want.size()); ++o) {
                const auto oi = unravel(o, outShape);
                std::vector<int64_t> di(oi.begin(), oi.begin() + std::ptrdiff_t(ax));
                const std::vector<int64_t> ii(oi.begin() + std::ptrdiff_t(ax), oi.begin() + std::ptrdiff_t(ax + irank));
                int64_t k = idx[size_t(ravel(ii, ishape))];
                di.push_back(k < 0 ? k + shape[ax] : k);
                di.insert(di.end(), oi.begin() + std::ptrdiff_t(ax + irank), oi.end());
                want[size_t(o)] = x.data<double>()[size_t(ravel(di, shape))];
            }
            Tensor y = runOne(13,
                dimsDecl("double", rank, "d") + " x, " + dimsDecl(use32 ? "int32" : "int64", irank, "i") + " idx",
                "double[?] y", "y = Gather <axis = " + std::to_string(axis) + "> (x, idx)",
                { { "x", x }, { "idx", indices } });
            const std::string bad = compare<double>(y, outShape, want, 0, 0);
            QVERIFY2(bad.empty(),
                (describe(kSeed + 5, it,
                     "data " + shapeText(shape) + " indices " + shapeText(ishape) + (use32 ? " int32" : " int64")
                         + " axis " + std::to_string(axis))
                    + ": " + bad)
                    .c_str());
        }
        const std::string e = errorOf(13, "float[3] x, int64[2] idx", "float[?] y", "y = Gather (x, idx)",
            { { "x", Tensor(DataType::Float, { 3 }) }, { "idx", Tensor::vector1D<int64_t>({ 1, 3 }) } });
        QVERIFY2(
            e.find("(Gather)") != std::string::npos && e.find("index 3 at position 1") != std::string::npos, e.c_str());
    }

    void legacyShapeOps()
    {
        Tensor x(DataType::Float, { 2, 1, 3 });
        // Reshape 1: the target shape is an attribute.
        QCOMPARE(runOne(1, "float[2,1,3] x", "float[?] y", "y = Reshape <shape = [3, -1]> (x)", { { "x", x } }).shape(),
            (Shape { 3, 2 }));
        // Reshape 5/13: a 0 copies the input dim; Reshape 14 allowzero=1 keeps it literal.
        Tensor s = Tensor::vector1D<int64_t>({ 0, 3 });
        QCOMPARE(
            runOne(13, "float[2,1,3] x, int64[2] s", "float[?] y", "y = Reshape (x, s)", { { "x", x }, { "s", s } })
                .shape(),
            (Shape { 2, 3 }));
        Tensor empty(DataType::Float, { 0, 3 });
        QCOMPARE(runOne(14, "float[0,3] x, int64[2] s", "float[?] y", "y = Reshape <allowzero = 1> (x, s)",
                     { { "x", empty }, { "s", Tensor::vector1D<int64_t>({ 3, 0 }) } })
                     .shape(),
            (Shape { 3, 0 }));
        std::string e = errorOf(13, "float[2,1,3] x, int64[2] s", "float[?] y", "y = Reshape (x, s)",
            { { "x", x }, { "s", Tensor::vector1D<int64_t>({ 4, 2 }) } });
        QVERIFY2(e.find("(Reshape)") != std::string::npos && e.find("cannot reshape") != std::string::npos, e.c_str());
        // Squeeze 1/11: axes attribute, or every size-1 dim without it; 13 takes an input.
        QCOMPARE(runOne(11, "float[2,1,3] x", "float[?] y", "y = Squeeze <axes = [-2]> (x)", { { "x", x } }).shape(),
            (Shape { 2, 3 }));
        QCOMPARE(
            runOne(1, "float[2,1,3] x", "float[?] y", "y = Squeeze (x)", { { "x", x } }).shape(), (Shape { 2, 3 }));
        e = errorOf(13, "float[2,1,3] x, int64[1] a", "float[?] y", "y = Squeeze (x, a)",
            { { "x", x }, { "a", Tensor::vector1D<int64_t>({ 0 }) } });
        QVERIFY2(e.find("(Squeeze)") != std::string::npos && e.find("not 1") != std::string::npos, e.c_str());
        // Unsqueeze 11: attribute axes refer to the output rank.
        QCOMPARE(
            runOne(11, "float[2,1,3] x", "float[?] y", "y = Unsqueeze <axes = [0, -1]> (x)", { { "x", x } }).shape(),
            (Shape { 1, 2, 1, 3, 1 }));
        // Flatten with a negative axis (11+) and axis 0.
        QCOMPARE(runOne(13, "float[2,1,3] x", "float[?] y", "y = Flatten <axis = -1> (x)", { { "x", x } }).shape(),
            (Shape { 2, 3 }));
        QCOMPARE(runOne(9, "float[2,1,3] x", "float[?] y", "y = Flatten <axis = 0> (x)", { { "x", x } }).shape(),
            (Shape { 1, 6 }));
        // Shape 15: start/end clamp.
        Tensor sh = runOne(15, "float[2,1,3] x", "int64[?] y", "y = Shape <start = -2, end = 10> (x)", { { "x", x } });
        QCOMPARE(std::vector<int64_t>(sh.data<int64_t>().begin(), sh.data<int64_t>().end()),
            (std::vector<int64_t> { 1, 3 }));
    }

    void constantVersions()
    {
        Tensor v = runOne(12, "", "int64[?] y", "y = Constant <value_ints = [4, 5, 6]> ()", {});
        QCOMPARE(std::vector<int64_t>(v.data<int64_t>().begin(), v.data<int64_t>().end()),
            (std::vector<int64_t> { 4, 5, 6 }));
        Tensor f = runOne(13, "", "float y", "y = Constant <value_float = 2.5> ()", {});
        QCOMPARE(f.shape(), Shape {});
        QCOMPARE(f.data<float>()[0], 2.5f);
        Tensor s = runOne(13, "", "string[?] y", "y = Constant <value_strings = [\"a\", \"bc\"]> ()", {});
        QCOMPARE(s.data<std::string>()[1], std::string("bc"));
        bool threw = false;
        try {
            runOne(11, "", "int64[?] y", "y = Constant <value_ints = [1]> ()", {});
        } catch (const Error& e) {
            threw = std::string(e.what()).find("(Constant)") != std::string::npos;
        }
        QVERIFY2(threw, "value_ints must be refused before opset 12");
    }

    void castRoundingAndStrings()
    {
        // float -> bfloat16 / float16 round to nearest even; the reference is the bit formula, not our output.
        std::mt19937 rng(kSeed + 6);
        Tensor x(DataType::Float, { 4096 });
        for (auto& v : x.data<float>()) {
            uint32_t bits = uint32_t(rng());
            std::memcpy(&v, &bits, 4);
            if (!std::isfinite(v))
                v = 1.0f;
        }
        Tensor b = runOne(13, "float[N] x", "bfloat16[N] y", "y = Cast <to = 16> (x)", { { "x", x } });
        for (size_t i = 0; i < size_t(x.size()); ++i) {
            uint32_t u;
            std::memcpy(&u, &x.data<float>()[i], 4);
            const uint16_t want = uint16_t((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
            uint16_t got;
            std::memcpy(&got, &b.data<BFloat16>()[i], 2);
            if (got != want)
                QFAIL(("seed " + std::to_string(kSeed + 6) + ", first bad index " + std::to_string(i) + ": bits "
                    + std::to_string(u) + " -> " + std::to_string(got) + ", expected " + std::to_string(want))
                          .c_str());
        }
        // double -> float16 rounds once: 1 + 2^-11 + 2^-40 is just above the float16 tie, so it rounds up, where a
        // double -> float -> float16 path would drop the 2^-40 and round the tie to even (down).
        Tensor d = Tensor::vector1D<double>({ 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40) });
        Tensor h = runOne(13, "double[1] x", "float16[1] y", "y = Cast <to = 10> (x)", { { "x", d } });
        QCOMPARE(static_cast<double>(static_cast<float>(h.data<Float16>()[0])), 1.0 + std::ldexp(1.0, -10));
        // float -> string as numpy's str() writes it (strings produced by numpy 1.24: str(np.float32(v))).
        Tensor f = Tensor::vector1D<float>({ 0.1f, 1e16f, 123456789.0f, 1.5e-5f, 1e-4f, 0.0001234f, -0.0f, 0.0f, 1.0f,
            100.0f, 1e15f, 3.4028235e38f, 1e-45f, 0.5488135f, NAN, INFINITY, -INFINITY });
        const std::vector<std::string> numpy { "0.1", "1e+16", "123456790.0", "1.5e-05", "1e-04", "0.0001234", "-0.0",
            "0.0", "1.0", "100.0", "1000000000000000.0", "3.4028235e+38", "1e-45", "0.5488135", "nan", "inf", "-inf" };
        Tensor str = runOne(13, "float[N] x", "string[N] y", "y = Cast <to = 8> (x)", { { "x", f } });
        for (size_t i = 0; i < numpy.size(); ++i)
            QVERIFY2(str.data<std::string>()[i] == numpy[i],
                ("index " + std::to_string(i) + ": got " + str.data<std::string>()[i] + ", numpy " + numpy[i]).c_str());
        // Cast 1 names the type as a string; string -> float accepts Python float() syntax.
        Tensor in = Tensor::vector1D<std::string>({ " 1.5", "+INF", "-inf", "NaN", "1e-3" });
        Tensor back = runOne(1, "string[N] x", "float[N] y", "y = Cast <to = \"FLOAT\"> (x)", { { "x", in } });
        auto bd = back.data<float>();
        QCOMPARE(bd[0], 1.5f);
        QVERIFY(std::isinf(bd[1]) && bd[1] > 0 && std::isinf(bd[2]) && bd[2] < 0 && std::isnan(bd[3]));
        QCOMPARE(bd[4], 1e-3f);
        const std::string e = errorOf(13, "string[N] x", "int32[N] y", "y = Cast <to = 6> (x)",
            { { "x", Tensor::vector1D<std::string>({ "7", "seven" }) } });
        QVERIFY2(
            e.find("(Cast)") != std::string::npos && e.find("element 1 \"seven\"") != std::string::npos, e.c_str());
        // float -> int saturates and maps NaN to 0 (documented deviation: numpy's result is platform-defined).
        Tensor big = Tensor::vector1D<float>({ 3e9f, -3e9f, NAN, -2.7f });
        Tensor ints = runOne(13, "float[N] x", "int32[N] y", "y = Cast <to = 6> (x)", { { "x", big } });
        QCOMPARE(std::vector<int32_t>(ints.data<int32_t>().begin(), ints.data<int32_t>().end()),
            (std::vector<int32_t> { 2147483647, -2147483647 - 1, 0, -2 }));
    }

    void hostileInputsAreNodeErrors()
    {
        struct Case {
            int64_t opset;
            std::string inputs, body, op;
            std::map<std::string, Value> values;
        };
        const int64_t big = std::numeric_limits<int64_t>::max();
        const std::vector<Case> cases {
            { 13, "float[0] x, int64[1] i", "y = Gather (x, i)", "(Gather)",
                { { "x", Tensor(DataType::Float, { 0 }) }, { "i", Tensor::vector1D<int64_t>({ 0 }) } } },
            { 13, "float[2] x, int64[1] i", "y = Gather (x, i)", "(Gather)",
                { { "x", Tensor(DataType::Float, { 2 }) }, { "i", Tensor::vector1D<int64_t>({ -big - 1 }) } } },
            { 13, "float[2] x, int64[2] s", "y = Reshape (x, s)", "(Reshape)",
                { { "x", Tensor(DataType::Float, { 2 }) }, { "s", Tensor::vector1D<int64_t>({ big, big }) } } },
            { 13, "float[2] x, int64[2] s", "y = Reshape (x, s)", "(Reshape)",
                { { "x", Tensor(DataType::Float, { 2 }) }, { "s", Tensor::vector1D<int64_t>({ -1, -1 }) } } },
            { 13, "float[2] x, int64[1] s", "y = Reshape (x, s)", "(Reshape)",
                { { "x", Tensor(DataType::Float, { 2 }) }, { "s", Tensor::vector1D<int64_t>({ -7 }) } } },
            { 13, "float[2] x, int64[1] a", "y = Unsqueeze (x, a)", "(Unsqueeze)",
                { { "x", Tensor(DataType::Float, { 2 }) }, { "a", Tensor::vector1D<int64_t>({ big }) } } },
            { 13, "float[2] x, int64[2] a", "y = Unsqueeze (x, a)", "(Unsqueeze)",
                { { "x", Tensor(DataType::Float, { 2 }) }, { "a", Tensor::vector1D<int64_t>({ 0, 0 }) } } },
            { 13, "float[2,3] x", "y = Transpose <perm = [0]> (x)", "(Transpose)",
                { { "x", Tensor(DataType::Float, { 2, 3 }) } } },
            { 13, "float[2,3] x", "y = Flatten <axis = 3> (x)", "(Flatten)",
                { { "x", Tensor(DataType::Float, { 2, 3 }) } } },
            { 13, "float[2,3] x", "y = Concat <axis = 2> (x, x)", "(Concat)",
                { { "x", Tensor(DataType::Float, { 2, 3 }) } } },
            { 13, "float x", "y = Softmax (x)", "(Softmax)", { { "x", Tensor::scalar<float>(1) } } },
            { 13, "float[2] a, double[2] b", "y = MatMul (a, b)", "(MatMul)",
                { { "a", Tensor(DataType::Float, { 2 }) }, { "b", Tensor(DataType::Double, { 2 }) } } },
            { 13, "float[2,2] a, float[2,2] b, float[3] c", "y = Gemm (a, b, c)", "(Gemm)",
                { { "a", Tensor(DataType::Float, { 2, 2 }) }, { "b", Tensor(DataType::Float, { 2, 2 }) },
                    { "c", Tensor(DataType::Float, { 3 }) } } },
            { 13, "string[1] x", "y = Relu (x)", "(Relu)", { { "x", Tensor(DataType::String, { 1 }) } } },
            { 13, "complex64[1] x", "y = Cast <to = 1> (x)", "(Cast)",
                { { "x", Tensor(DataType::Complex64, { 1 }) } } },
        };
        for (const auto& c : cases) {
            const std::string e = errorOf(c.opset, c.inputs, "float[?] y", c.body, c.values);
            QVERIFY2(e.find(c.op) != std::string::npos, (c.body + " gave \"" + e + "\"").c_str());
        }
        // A Cast with an unknown 'to' is refused when the plan is built.
        QVERIFY(errorOf(13, "float[1] x", "float[?] y", "y = Cast <to = 99> (x)",
                    { { "x", Tensor(DataType::Float, { 1 }) } })
                    .find("attribute 'to'")
            != std::string::npos);
    }

    void identityPassesSequencesAndOptionals()
    {
        // onnx 1.12's text parser has no seq() types, so the model is built as a proto: x (seq(float)) -> Identity.
        auto proto = std::make_unique<onnx::ModelProto>();
        proto->set_ir_version(8);
        proto->add_opset_import()->set_version(16);
        onnx::GraphProto* g = proto->mutable_graph();
        g->set_name("g");
        for (const char* name : { "x", "y" }) {
            onnx::ValueInfoProto* v = std::string(name) == "x" ? g->add_input() : g->add_output();
            v->set_name(name);
            v->mutable_type()->mutable_sequence_type()->mutable_elem_type()->mutable_tensor_type()->set_elem_type(
                onnx::TensorProto::FLOAT);
        }
        onnx::NodeProto* node = g->add_node();
        node->set_op_type("Identity");
        node->add_input("x");
        node->add_output("y");
        Sequence seq;
        seq.elementType = DataType::Float;
        seq.items.push_back(Tensor::vector1D<float>({ 1, 2 }));
        Session session(std::make_shared<Program>(Model::fromProto(std::move(proto), ".", "<identity>")));
        auto out = session.run({ { "x", Value(seq) } });
        QVERIFY(out.at("y").isSequence());
        QCOMPARE(out.at("y").sequence().items.size(), size_t(1));
        QCOMPARE(out.at("y").sequence().items[0].tensor().data<float>()[1], 2.0f);
    }
};

QTEST_APPLESS_MAIN(TestKernelsReference)
#include "test_kernels_reference.moc"
