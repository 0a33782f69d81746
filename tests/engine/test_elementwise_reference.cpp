// SPDX-License-Identifier: MIT
// The element-wise math and logic kernels against naive loops written here: broadcasting of binary, variadic and
// Where ops over random shapes (numpy rules, computed independently by index arithmetic), plus the semantics the
// conformance cases leave out: Mod signs and zero divisors, integer Pow, BitShift past the width, Clip bounds,
// legacy (opset 1) broadcasting, NaN propagation, IsInf flags, Round half to even, integer wrap-around, and errors
// that name the node. Fixed seeds; a mismatch prints op, shapes, seed and the first bad index.
#include "engine/exec/session.h"

#include <QtTest>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <random>

using namespace onnxscope;

namespace {

constexpr unsigned kSeed = 4242;

std::string decl(const std::string& elem, const Shape& shape, const std::string& prefix)
{
    std::string s = elem + "[";
    for (size_t i = 0; i < shape.size(); ++i)
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

Tensor run1(int64_t opset, const std::string& inputs, const std::string& output, const std::string& body,
    const std::map<std::string, Value>& values)
{
    return runGraph(opset, inputs, output + " y", body, values).at("y").tensor();
}

std::string errorOf(int64_t opset, const std::string& inputs, const std::string& output, const std::string& body,
    const std::map<std::string, Value>& values)
{
    try {
        runGraph(opset, inputs, output + " y", body, values);
    } catch (const Error& e) {
        return e.what();
    }
    return {};
}

/// Element of `t` for an index of the broadcast output shape `out` (numpy rules: align right, size-1 dims repeat).
double broadcastAt(const Tensor& t, const Shape& out, int64_t flat)
{
    std::vector<int64_t> idx(out.size());
    for (size_t d = out.size(); d-- > 0;) {
        idx[d] = flat % out[d];
        flat /= out[d];
    }
    const size_t off = out.size() - t.shape().size();
    int64_t pos = 0;
    for (size_t d = 0; d < t.shape().size(); ++d)
        pos = pos * t.shape()[d] + (t.shape()[d] == 1 ? 0 : idx[off + d]);
    return t.toDouble(pos);
}

/// Random shapes that broadcast together: `count` shapes of random rank <= 4 over a common shape, with dims set to 1
/// or dropped from the front at random.
std::vector<Shape> broadcastableShapes(std::mt19937& rng, size_t count, Shape& out)
{
    const size_t rank = std::uniform_int_distribution<size_t>(0, 4)(rng);
    out.assign(rank, 1);
    for (auto& d : out)
        d = std::uniform_int_distribution<int64_t>(1, 4)(rng);
    std::vector<Shape> shapes(count);
    for (auto& s : shapes) {
        const size_t r = std::uniform_int_distribution<size_t>(0, rank)(rng);
        s.assign(out.end() - long(r), out.end());
        for (auto& d : s)
            if (std::bernoulli_distribution(0.3)(rng))
                d = 1;
    }
    // The output is the broadcast of the inputs: the largest rank, each dim the largest (all are 1 or equal).
    size_t outRank = 0;
    for (const auto& s : shapes)
        outRank = std::max(outRank, s.size());
    Shape real(outRank, 1);
    for (const auto& s : shapes)
        for (size_t i = 0; i < s.size(); ++i)
            real[outRank - s.size() + i] = std::max(real[outRank - s.size() + i], s[i]);
    out = real;
    return shapes;
}

Tensor randomFloat(std::mt19937& rng, const Shape& shape)
{
    Tensor t(DataType::Float, shape);
    for (auto& v : t.data<float>())
        v = float(std::uniform_int_distribution<int>(-8, 8)(rng)) / 2; // exact, with ties for comparisons
    return t;
}

void compare(const std::string& what, const Tensor& y, const Shape& shape, const std::function<double(int64_t)>& want)
{
    QVERIFY2(y.shape() == shape,
        qPrintable(
            QString::fromStdString(what + ": shape " + shapeToString(y.shape()) + ", want " + shapeToString(shape))));
    for (int64_t i = 0; i < y.size(); ++i) {
        const double w = want(i), g = y.toDouble(i);
        const bool ok = std::isnan(w) ? std::isnan(g)
            : std::isinf(w)           ? g == w
                                      : std::fabs(g - w) <= 1e-6 * (1 + std::fabs(w));
        QVERIFY2(ok,
            qPrintable(QString::fromStdString(what + ": first bad index " + std::to_string(i) + ": got "
                + std::to_string(g) + ", want " + std::to_string(w))));
    }
}

} // namespace

class TestElementwiseReference : public QObject {
    Q_OBJECT
private slots:
    void binaryBroadcastSweep()
    {
        struct Op {
            const char* name;
            const char* out;
            std::function<double(double, double)> f;
        };
        const std::vector<Op> ops = {
            { "Pow", "float", [](double a, double b) { return double(float(std::pow(a, b))); } },
            { "Equal", "bool", [](double a, double b) { return a == b; } },
            { "Greater", "bool", [](double a, double b) { return a > b; } },
            { "GreaterOrEqual", "bool", [](double a, double b) { return a >= b; } },
            { "Less", "bool", [](double a, double b) { return a < b; } },
            { "LessOrEqual", "bool", [](double a, double b) { return a <= b; } },
        };
        std::mt19937 rng(kSeed);
        for (const Op& op : ops)
            for (int trial = 0; trial < 30; ++trial) {
                Shape out;
                const auto shapes = broadcastableShapes(rng, 2, out);
                Tensor a = randomFloat(rng, shapes[0]), b = randomFloat(rng, shapes[1]);
                Tensor y = run1(16, decl("float", shapes[0], "a") + " a, " + decl("float", shapes[1], "b") + " b",
                    std::string(op.out) + "[?]", std::string("y = ") + op.name + "(a, b)",
                    { { "a", Value(a) }, { "b", Value(b) } });
                compare(std::string(op.name) + " " + shapeToString(shapes[0]) + " " + shapeToString(shapes[1])
                        + " seed " + std::to_string(kSeed) + " trial " + std::to_string(trial),
                    y, out, [&](int64_t i) { return op.f(broadcastAt(a, out, i), broadcastAt(b, out, i)); });
            }
    }

    void variadicAndWhereBroadcastSweep()
    {
        std::mt19937 rng(kSeed + 1);
        for (int trial = 0; trial < 40; ++trial) {
            Shape out;
            const auto shapes = broadcastableShapes(rng, 3, out);
            Tensor a = randomFloat(rng, shapes[0]), b = randomFloat(rng, shapes[1]), c = randomFloat(rng, shapes[2]);
            const std::string inputs = decl("float", shapes[0], "a") + " a, " + decl("float", shapes[1], "b") + " b, "
                + decl("float", shapes[2], "c") + " c";
            const std::map<std::string, Value> values { { "a", Value(a) }, { "b", Value(b) }, { "c", Value(c) } };
            const std::string where = shapeToString(shapes[0]) + " " + shapeToString(shapes[1]) + " "
                + shapeToString(shapes[2]) + " seed " + std::to_string(kSeed + 1) + " trial " + std::to_string(trial);
            const auto at = [&](const Tensor& t, int64_t i) { return broadcastAt(t, out, i); };
            compare("Max " + where, run1(13, inputs, "float[?]", "y = Max(a, b, c)", values), out, [&](int64_t i) {
                return std::max({ at(a, i), at(b, i), at(c, i) });
            });
            compare("Min " + where, run1(13, inputs, "float[?]", "y = Min(a, b, c)", values), out, [&](int64_t i) {
                return std::min({ at(a, i), at(b, i), at(c, i) });
            });
            compare("Sum " + where, run1(13, inputs, "float[?]", "y = Sum(a, b, c)", values), out,
                [&](int64_t i) { return at(a, i) + at(b, i) + at(c, i); });
            compare("Mean " + where, run1(13, inputs, "float[?]", "y = Mean(a, b, c)", values), out,
                [&](int64_t i) { return double(float((at(a, i) + at(b, i) + at(c, i)) / 3)); });
            compare("Where " + where, run1(16, inputs, "float[?]", "m = Greater(a, c)\n y = Where(m, b, c)", values),
                out, [&](int64_t i) { return at(a, i) > at(c, i) ? at(b, i) : at(c, i); });
        }
    }

    void modSignsAndZeroDivisor()
    {
        const std::vector<int32_t> xs { 7, -7, 7, -7, 0, 5, INT32_MIN };
        const std::vector<int32_t> ds { 3, 3, -3, -3, 4, -5, -1 };
        Tensor a = Tensor::vector1D(xs), b = Tensor::vector1D(ds);
        const std::map<std::string, Value> in { { "a", Value(a) }, { "b", Value(b) } };
        Tensor py = run1(13, "int32[n] a, int32[n] b", "int32[n]", "y = Mod(a, b)", in);
        Tensor c = run1(13, "int32[n] a, int32[n] b", "int32[n]", "y = Mod <fmod = 1> (a, b)", in);
        for (size_t i = 0; i < xs.size(); ++i) {
            const int64_t x = xs[i], d = ds[i];
            const int64_t trunc = x % d;
            const int64_t floorMod = (trunc != 0 && ((trunc < 0) != (d < 0))) ? trunc + d : trunc;
            QCOMPARE(int64_t(py.data<int32_t>()[i]), floorMod);
            QCOMPARE(int64_t(c.data<int32_t>()[i]), trunc);
        }
        Tensor f = run1(13, "float[n] a, float[n] b", "float[n]", "y = Mod <fmod = 1> (a, b)",
            { { "a", Value(Tensor::vector1D<float>({ 5.5f, -5.5f })) },
                { "b", Value(Tensor::vector1D<float>({ 2, 2 })) } });
        QCOMPARE(f.data<float>()[0], 1.5f);
        QCOMPARE(f.data<float>()[1], -1.5f);
        const std::string zero = errorOf(13, "int32[n] a, int32[n] b", "int32[n]", "y = Mod(a, b)",
            { { "a", Value(Tensor::vector1D<int32_t>({ 1 })) }, { "b", Value(Tensor::vector1D<int32_t>({ 0 })) } });
        QVERIFY2(zero.find("(Mod)") != std::string::npos && zero.find("zero") != std::string::npos, zero.c_str());
        // fmod=0 on floats: numpy.mod, the sign of the divisor (Mod 28 spells this meaning out).
        Tensor pf = run1(13, "float[n] a, float[n] b", "float[n]", "y = Mod(a, b)",
            { { "a", Value(Tensor::vector1D<float>({ 5.5f, -5.5f, 5.5f })) },
                { "b", Value(Tensor::vector1D<float>({ 2, 2, -2 })) } });
        QCOMPARE(pf.data<float>()[0], 1.5f);
        QCOMPARE(pf.data<float>()[1], 0.5f);
        QCOMPARE(pf.data<float>()[2], -0.5f);
    }

    void integerPowAndMixedTypes()
    {
        Tensor base = Tensor::vector1D<int64_t>({ 3, -2, 2, 1, -1, -1, 5 });
        Tensor exp = Tensor::vector1D<int64_t>({ 4, 3, 63, -5, -3, -2, -1 });
        Tensor y = run1(
            15, "int64[n] a, int64[n] b", "int64[n]", "y = Pow(a, b)", { { "a", Value(base) }, { "b", Value(exp) } });
        const std::vector<int64_t> want { 81, -8, int64_t(uint64_t(1) << 63), 1, -1, 1, 0 };
        for (size_t i = 0; i < want.size(); ++i)
            QCOMPARE(y.data<int64_t>()[i], want[i]);
        // int base, float exponent: computed in double, truncated.
        Tensor m = run1(15, "int32[n] a, float[n] b", "int32[n]", "y = Pow(a, b)",
            { { "a", Value(Tensor::vector1D<int32_t>({ 9, 2 })) },
                { "b", Value(Tensor::vector1D<float>({ 0.5f, -1 })) } });
        QCOMPARE(m.data<int32_t>()[0], 3);
        QCOMPARE(m.data<int32_t>()[1], 0);
        // Out-of-range and NaN results saturate / become 0 instead of an undefined conversion.
        Tensor big = run1(15, "int32[n] a, float[n] b", "int32[n]", "y = Pow(a, b)",
            { { "a", Value(Tensor::vector1D<int32_t>({ 10, -10, 2 })) },
                { "b", Value(Tensor::vector1D<float>({ 20, 21, std::numeric_limits<float>::quiet_NaN() })) } });
        QCOMPARE(big.data<int32_t>()[0], INT32_MAX);
        QCOMPARE(big.data<int32_t>()[1], INT32_MIN);
        QCOMPARE(big.data<int32_t>()[2], 0);
        const std::string zero = errorOf(15, "int32[n] a, int32[n] b", "int32[n]", "y = Pow(a, b)",
            { { "a", Value(Tensor::vector1D<int32_t>({ 0 })) }, { "b", Value(Tensor::vector1D<int32_t>({ -1 })) } });
        QVERIFY2(zero.find("(Pow)") != std::string::npos, zero.c_str());
    }

    void floatSquaredBySingleExponent()
    {
        // A float base and a one-element exponent of 2 (float, int64, or rank 2 broadcasting the output up) take the
        // x * x path: the same floats as std::pow in double, NaN, infinities and signed zero included.
        std::mt19937 rng(kSeed + 7);
        Tensor x = randomFloat(rng, { 3, 70000 });
        auto xs = x.data<float>();
        const float specials[] = { std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
            -std::numeric_limits<float>::infinity(), -0.0f, 3.4e38f, 1e-30f };
        std::copy(std::begin(specials), std::end(specials), xs.begin());
        for (const auto& [type, exponent] :
            { std::pair { std::string("float[1,1]"), Value(Tensor::fromVector<float>({ 2.0f }, { 1, 1 })) },
                std::pair { std::string("int64"), Value(Tensor::scalar<int64_t>(2)) } }) {
            Tensor y = run1(15, "float[p,q] a, " + type + " b", "float[p,q]", "y = Pow(a, b)",
                { { "a", Value(x) }, { "b", exponent } });
            QCOMPARE(y.shape(), x.shape());
            for (size_t i = 0; i < xs.size(); ++i) {
                const float want = static_cast<float>(std::pow(static_cast<double>(xs[i]), 2.0));
                const float got = y.data<float>()[i];
                QVERIFY2(std::memcmp(&want, &got, sizeof got) == 0 || (std::isnan(want) && std::isnan(got)),
                    qPrintable(QString("%1 at %2: %3 squared gave %4, want %5")
                                   .arg(QString::fromStdString(type))
                                   .arg(i)
                                   .arg(xs[i])
                                   .arg(got)
                                   .arg(want)));
            }
        }
        // An exponent of 2 with more than one element stays on the general path (and is still right).
        Tensor two = run1(15, "float[n] a, float[n] b", "float[n]", "y = Pow(a, b)",
            { { "a", Value(Tensor::vector1D<float>({ 3, -1.5f })) },
                { "b", Value(Tensor::vector1D<float>({ 2, 2 })) } });
        QCOMPARE(two.data<float>()[0], 9.0f);
        QCOMPARE(two.data<float>()[1], 2.25f);
    }

    void bitShiftPastWidth()
    {
        Tensor x = Tensor::vector1D<uint8_t>({ 1, 255, 16, 1 });
        Tensor s = Tensor::vector1D<uint8_t>({ 7, 1, 8, 200 });
        const std::map<std::string, Value> in { { "x", Value(x) }, { "s", Value(s) } };
        Tensor l = run1(11, "uint8[n] x, uint8[n] s", "uint8[n]", "y = BitShift <direction = \"LEFT\"> (x, s)", in);
        Tensor r = run1(11, "uint8[n] x, uint8[n] s", "uint8[n]", "y = BitShift <direction = \"RIGHT\"> (x, s)", in);
        const std::vector<int> wantL { 128, 254, 0, 0 }, wantR { 0, 127, 0, 0 };
        for (size_t i = 0; i < 4; ++i) {
            QCOMPARE(int(l.data<uint8_t>()[i]), wantL[i]);
            QCOMPARE(int(r.data<uint8_t>()[i]), wantR[i]);
        }
        const std::string bad
            = errorOf(11, "uint8[n] x, uint8[n] s", "uint8[n]", "y = BitShift <direction = \"UP\"> (x, s)", in);
        QVERIFY2(bad.find("'direction'") != std::string::npos, bad.c_str());
    }

    void clipForms()
    {
        const float nan = std::numeric_limits<float>::quiet_NaN();
        Tensor x = Tensor::vector1D<float>({ -3, -1, 0, 2, 5, nan });
        // Opset 6: attributes; opset 13: inputs, either may be omitted.
        Tensor a = run1(6, "float[n] x", "float[n]", "y = Clip <min = -1.5, max = 2.5> (x)", { { "x", Value(x) } });
        Tensor b = run1(13, "float[n] x, float lo", "float[n]", "y = Clip(x, lo)",
            { { "x", Value(x) }, { "lo", Value(Tensor::scalar<float>(-1.5f)) } });
        Tensor c = run1(13, "float[n] x, float hi", "float[n]", "y = Clip(x, , hi)",
            { { "x", Value(x) }, { "hi", Value(Tensor::scalar<float>(2.5f)) } });
        Tensor d = run1(13, "float[n] x, float lo, float hi", "float[n]", "y = Clip(x, lo, hi)",
            { { "x", Value(x) }, { "lo", Value(Tensor::scalar<float>(3)) },
                { "hi", Value(Tensor::scalar<float>(1)) } });
        for (int64_t i = 0; i < 6; ++i) {
            const double v = x.toDouble(i);
            const auto clip
                = [](double v, double lo, double hi) { return std::isnan(v) ? v : std::min(std::max(v, lo), hi); };
            const auto same = [](double g, double w) { return std::isnan(w) ? std::isnan(g) : g == w; };
            QVERIFY(same(a.toDouble(i), clip(v, -1.5, 2.5)));
            QVERIFY(same(b.toDouble(i), clip(v, -1.5, INFINITY)));
            QVERIFY(same(c.toDouble(i), clip(v, -INFINITY, 2.5)));
            QVERIFY(same(d.toDouble(i), clip(v, 3, 1))); // min > max: numpy gives max
        }
        Tensor n = run1(13, "int8[n] x, int8 lo", "int8[n]", "y = Clip(x, lo)",
            { { "x", Value(Tensor::vector1D<int8_t>({ -128, 0, 127 })) },
                { "lo", Value(Tensor::scalar<int8_t>(-5)) } });
        QCOMPARE(int(n.data<int8_t>()[0]), -5);
        QCOMPARE(int(n.data<int8_t>()[2]), 127);
    }

    void legacyBroadcastOpset1()
    {
        // Opset 1: broadcast=1 aligns B with A at `axis`: A [2, 3, 4], B [3] at axis 1.
        Tensor a(DataType::Float, { 2, 3, 4 });
        for (int64_t i = 0; i < a.size(); ++i)
            a.data<float>()[size_t(i)] = float(i % 5);
        Tensor b = Tensor::vector1D<float>({ 1, 2, 3 });
        Tensor y = run1(1, "float[p,q,r] a, float[s] b", "bool[p,q,r]", "y = Greater <broadcast = 1, axis = 1> (a, b)",
            { { "a", Value(a) }, { "b", Value(b) } });
        for (int64_t i = 0; i < a.size(); ++i)
            QCOMPARE(y.data<bool>()[size_t(i)], a.toDouble(i) > b.toDouble((i / 4) % 3));
        Tensor p = run1(1, "float[p,q,r] a, float[s] b", "float[p,q,r]", "y = Pow <broadcast = 1, axis = 1> (a, b)",
            { { "a", Value(a) }, { "b", Value(b) } });
        for (int64_t i = 0; i < a.size(); ++i)
            QCOMPARE(p.toDouble(i), std::pow(a.toDouble(i), b.toDouble((i / 4) % 3)));
    }

    void unarySemantics()
    {
        const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
        Tensor x = Tensor::vector1D<float>({ -inf, -1, 0, 2.5f, inf, nan });
        const std::map<std::string, Value> in { { "x", Value(x) } };
        Tensor neg = run1(10, "float[n] x", "bool[n]", "y = IsInf <detect_positive = 0> (x)", in);
        Tensor pos = run1(10, "float[n] x", "bool[n]", "y = IsInf <detect_negative = 0> (x)", in);
        Tensor isnan = run1(13, "float[n] x", "bool[n]", "y = IsNaN(x)", in);
        for (int64_t i = 0; i < 6; ++i) {
            const double v = x.toDouble(i);
            QCOMPARE(neg.data<bool>()[size_t(i)], std::isinf(v) && v < 0);
            QCOMPARE(pos.data<bool>()[size_t(i)], std::isinf(v) && v > 0);
            QCOMPARE(isnan.data<bool>()[size_t(i)], std::isnan(v));
        }
        Tensor r = run1(11, "float[n] x", "float[n]", "y = Round(x)",
            { { "x", Value(Tensor::vector1D<float>({ 0.5f, 1.5f, 2.5f, -0.5f, -1.5f, 2.4f, 2.6f })) } });
        const std::vector<float> want { 0, 2, 2, -0.0f, -2, 2, 3 };
        for (size_t i = 0; i < want.size(); ++i)
            QCOMPARE(r.data<float>()[i], want[i]);
        // Integer Abs/Neg of the minimum wrap; Sign of integers.
        Tensor i8 = Tensor::vector1D<int8_t>({ -128, -3, 0, 4 });
        Tensor ab = run1(13, "int8[n] x", "int8[n]", "y = Abs(x)", { { "x", Value(i8) } });
        Tensor ng = run1(13, "int8[n] x", "int8[n]", "y = Neg(x)", { { "x", Value(i8) } });
        Tensor sg = run1(13, "int8[n] x", "int8[n]", "y = Sign(x)", { { "x", Value(i8) } });
        const std::vector<int> wantAbs { -128, 3, 0, 4 }, wantNeg { -128, 3, 0, -4 }, wantSign { -1, -1, 0, 1 };
        for (size_t i = 0; i < 4; ++i) {
            QCOMPARE(int(ab.data<int8_t>()[i]), wantAbs[i]);
            QCOMPARE(int(ng.data<int8_t>()[i]), wantNeg[i]);
            QCOMPARE(int(sg.data<int8_t>()[i]), wantSign[i]);
        }
        // Max propagates NaN (numpy.maximum).
        Tensor m = run1(13, "float[n] a, float[n] b", "float[n]", "y = Max(a, b)",
            { { "a", Value(Tensor::vector1D<float>({ nan, 1 })) },
                { "b", Value(Tensor::vector1D<float>({ 1, nan })) } });
        QVERIFY(std::isnan(m.toDouble(0)) && std::isnan(m.toDouble(1)));
    }

    void errorsNameTheNode()
    {
        const std::string shapes = errorOf(13, "float[n] a, float[m] b", "bool[?]", "y = Equal(a, b)",
            { { "a", Value(Tensor::vector1D<float>({ 1, 2 })) },
                { "b", Value(Tensor::vector1D<float>({ 1, 2, 3 })) } });
        QVERIFY2(shapes.find("(Equal)") != std::string::npos, shapes.c_str());
        const std::string types = errorOf(13, "float[n] a, int32[n] b", "bool[?]", "y = Less(a, b)",
            { { "a", Value(Tensor::vector1D<float>({ 1 })) }, { "b", Value(Tensor::vector1D<int32_t>({ 1 })) } });
        QVERIFY2(types.find("(Less)") != std::string::npos, types.c_str());
        const std::string notBool = errorOf(13, "float[n] a, float[n] b", "bool[?]", "y = And(a, b)",
            { { "a", Value(Tensor::vector1D<float>({ 1 })) }, { "b", Value(Tensor::vector1D<float>({ 1 })) } });
        QVERIFY2(notBool.find("(And)") != std::string::npos, notBool.c_str());
        const std::string clip = errorOf(13, "float[n] x, float[m] lo", "float[n]", "y = Clip(x, lo)",
            { { "x", Value(Tensor::vector1D<float>({ 1 })) }, { "lo", Value(Tensor::vector1D<float>({ 1, 2 })) } });
        QVERIFY2(clip.find("(Clip)") != std::string::npos && clip.find("scalar") != std::string::npos, clip.c_str());
    }
};

QTEST_APPLESS_MAIN(TestElementwiseReference)
#include "test_elementwise_reference.moc"
