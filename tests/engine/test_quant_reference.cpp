// SPDX-License-Identifier: MIT
// Quantization ops against naive loops written here from the spec's formulas: QuantizeLinear/DequantizeLinear
// per tensor and per axis, MatMulInteger and QLinearMatMul with batch broadcasting and per-row/per-column
// parameters, DynamicQuantizeLinear; round-half-to-even ties and saturation; errors that name the node. Fixed seed;
// a mismatch prints the case, the seed and the first bad index.
#include "engine/exec/session.h"

#include <QtTest>

#include <cmath>
#include <random>
#include <sstream>

using namespace onnxscope;

namespace {

constexpr unsigned kSeed = 1357;

std::string dims(const Shape& s)
{
    std::string r;
    for (size_t i = 0; i < s.size(); ++i)
        r += (i ? "," : "") + std::to_string(s[i]);
    return r;
}

std::string decl(const std::string& name, const Tensor& t)
{
    return std::string(dataTypeName(t.dtype())) + "[" + dims(t.shape()) + "] " + name;
}

/// Runs one node over named tensors; the output `y` (and others) are returned by name.
std::map<std::string, Value> runNode(int64_t opset, const std::string& node,
    const std::vector<std::pair<std::string, Tensor>>& inputs, const std::string& outputs)
{
    std::string in;
    std::map<std::string, Value> feeds;
    for (const auto& [name, t] : inputs) {
        in += (in.empty() ? "" : ", ") + decl(name, t);
        feeds[name] = Value(t);
    }
    const std::string text = "<ir_version: 8, opset_import: [\"\" : " + std::to_string(opset) + "]>\nagraph (" + in
        + ") => (" + outputs + ") {\n" + node + "\n}";
    Session session(std::make_shared<Program>(Model::fromText(text)));
    return session.run(feeds);
}

template <class Q> Q saturate(double v)
{
    return Q(std::clamp(v, double(std::numeric_limits<Q>::lowest()), double(std::numeric_limits<Q>::max())));
}

/// Round half to even, written out (not std::nearbyint) so the test does not share the kernel's rounding call.
double roundHalfEven(double v)
{
    const double f = std::floor(v), d = v - f;
    if (d < 0.5)
        return f;
    if (d > 0.5)
        return f + 1;
    return std::fmod(f, 2.0) == 0 ? f : f + 1;
}

} // namespace

class TestQuantReference : public QObject {
    Q_OBJECT

private slots:
    void quantizeTiesAndSaturation()
    {
        // Spec examples: round half to even, then add the zero point and saturate.
        const Tensor x = Tensor::vector1D<float>({ 0.5f, 1.5f, 2.5f, -0.5f, -1.5f, -2.5f, 1000.f, -1000.f, 3.4f });
        auto y = runNode(13, "y = QuantizeLinear (x, s, z)",
            { { "x", x }, { "s", Tensor::scalar<float>(1.0f) }, { "z", Tensor::scalar<int8_t>(int8_t(0)) } },
            "int8[9] y")
                     .at("y")
                     .tensor();
        const std::vector<int8_t> want { 0, 2, 2, 0, -2, -2, 127, -128, 3 };
        QCOMPARE(std::vector<int8_t>(y.data<int8_t>().begin(), y.data<int8_t>().end()), want);
        // No zero point: uint8 with zero point 0.
        y = runNode(13, "y = QuantizeLinear (x, s)", { { "x", x }, { "s", Tensor::scalar<float>(1.0f) } }, "uint8[9] y")
                .at("y")
                .tensor();
        const std::vector<uint8_t> wantU { 0, 2, 2, 0, 0, 0, 255, 0, 3 };
        QCOMPARE(std::vector<uint8_t>(y.data<uint8_t>().begin(), y.data<uint8_t>().end()), wantU);
    }

    void quantizeDequantizePerAxis()
    {
        std::mt19937 rng(kSeed);
        std::uniform_real_distribution<float> u(-300, 300);
        for (int rep = 0; rep < 24; ++rep) {
            const Shape shape { 1 + int64_t(rng() % 3), 1 + int64_t(rng() % 4), 1 + int64_t(rng() % 5) };
            const int64_t axis = int64_t(rng() % 3) - (rep % 2 ? 3 : 0); // negative axes too
            const int64_t a = axis < 0 ? axis + 3 : axis;
            const bool perTensor = rep % 4 == 0;
            const int64_t count = perTensor ? 1 : shape[size_t(a)];
            Tensor x(DataType::Float, shape);
            for (float& v : x.data<float>())
                v = u(rng);
            std::vector<float> scales;
            std::vector<uint8_t> zps;
            for (int64_t i = 0; i < count; ++i) {
                scales.push_back(0.25f * float(1 + rng() % 8)); // exact in binary, so x / s ties are real ties
                zps.push_back(uint8_t(rng() % 256));
            }
            const Tensor s = perTensor ? Tensor::scalar<float>(scales[0]) : Tensor::vector1D(scales);
            const Tensor z = perTensor ? Tensor::scalar<uint8_t>(zps[0]) : Tensor::vector1D(zps);
            const std::string what = "shape=" + shapeToString(shape) + " axis=" + std::to_string(axis)
                + " per_tensor=" + std::to_string(perTensor) + " seed=" + std::to_string(kSeed);
            const std::string node = "y = QuantizeLinear <axis = " + std::to_string(axis) + "> (x, s, z)";
            const Tensor q
                = runNode(13, node, { { "x", x }, { "s", s }, { "z", z } }, "uint8[a, b, c] y").at("y").tensor();
            const Tensor d = runNode(13, "y = DequantizeLinear <axis = " + std::to_string(axis) + "> (q, s, z)",
                { { "q", q }, { "s", s }, { "z", z } }, "float[a, b, c] y")
                                 .at("y")
                                 .tensor();
            const auto strides = stridesOf(shape);
            for (int64_t i = 0; i < x.size(); ++i) {
                const size_t p = perTensor ? 0 : size_t((i / strides[size_t(a)]) % shape[size_t(a)]);
                const uint8_t wantQ
                    = saturate<uint8_t>(roundHalfEven(double(x.data<float>()[size_t(i)] / scales[p])) + double(zps[p]));
                QVERIFY2(q.data<uint8_t>()[size_t(i)] == wantQ,
                    (what + ": quantize, first bad index " + std::to_string(i)).c_str());
                const float wantD = float(int(wantQ) - int(zps[p])) * scales[p];
                QVERIFY2(d.data<float>()[size_t(i)] == wantD,
                    (what + ": dequantize, first bad index " + std::to_string(i)).c_str());
            }
        }
    }

    void matMulIntegerAndQLinearMatMul()
    {
        std::mt19937 rng(kSeed + 1);
        struct Shapes {
            Shape a, b;
        };
        const Shapes cases[] = { { { 3, 4 }, { 4, 5 } }, { { 2, 1, 3, 4 }, { 3, 4, 2 } }, { { 4 }, { 4, 3 } },
            { { 2, 3, 4 }, { 4 } }, { { 1, 2, 5 }, { 2, 5, 1 } }, { { 2, 2, 3 }, { 1, 3, 6 } } };
        for (const auto& sh : cases)
            for (int variant = 0; variant < 4; ++variant) {
                const bool signedA = variant & 1, perRowCol = variant & 2;
                Tensor a(signedA ? DataType::Int8 : DataType::UInt8, sh.a), b(DataType::UInt8, sh.b);
                std::vector<int64_t> av(size_t(a.size())), bv(size_t(b.size()));
                for (size_t i = 0; i < av.size(); ++i) {
                    av[i] = signedA ? int64_t(rng() % 256) - 128 : int64_t(rng() % 256);
                    if (signedA)
                        a.data<int8_t>()[i] = int8_t(av[i]);
                    else
                        a.data<uint8_t>()[i] = uint8_t(av[i]);
                }
                for (size_t i = 0; i < bv.size(); ++i) {
                    bv[i] = int64_t(rng() % 256);
                    b.data<uint8_t>()[i] = uint8_t(bv[i]);
                }
                const int64_t M = sh.a.size() == 1 ? 1 : sh.a[sh.a.size() - 2], K = sh.a.back();
                const int64_t N = sh.b.size() == 1 ? 1 : sh.b.back();
                const bool rows = perRowCol && sh.a.size() > 1 && M > 1, cols = perRowCol && sh.b.size() > 1 && N > 1;
                std::vector<int64_t> azp(size_t(rows ? M : 1)), bzp(size_t(cols ? N : 1));
                for (auto& z : azp)
                    z = signedA ? int64_t(rng() % 21) - 10 : int64_t(rng() % 256);
                for (auto& z : bzp)
                    z = int64_t(rng() % 256);
                auto zpTensor = [](const std::vector<int64_t>& z, bool isSigned, bool vec) {
                    Tensor t(isSigned ? DataType::Int8 : DataType::UInt8, vec ? Shape { int64_t(z.size()) } : Shape {});
                    for (size_t i = 0; i < z.size(); ++i)
                        if (isSigned)
                            t.data<int8_t>()[i] = int8_t(z[i]);
                        else
                            t.data<uint8_t>()[i] = uint8_t(z[i]);
                    return t;
                };
                const Tensor azT = zpTensor(azp, signedA, rows), bzT = zpTensor(bzp, false, cols);
                const std::string what = "a=" + shapeToString(sh.a) + " b=" + shapeToString(sh.b)
                    + " signed_a=" + std::to_string(signedA) + " per_row_col=" + std::to_string(perRowCol);
                const Tensor y = runNode(10, "y = MatMulInteger (a, b, az, bz)",
                    { { "a", a }, { "b", b }, { "az", azT }, { "bz", bzT } }, "int32[p, q, r, s] y")
                                     .at("y")
                                     .tensor();
                // Naive: broadcast the batch dims by hand.
                Shape ba(sh.a.begin(), sh.a.end() - std::min<size_t>(2, sh.a.size()));
                Shape bb(sh.b.begin(), sh.b.end() - std::min<size_t>(2, sh.b.size()));
                if (sh.a.size() == 1)
                    ba.clear();
                if (sh.b.size() == 1)
                    bb.clear();
                const Shape batch = broadcastShapes(ba, bb);
                const int64_t batches = elementCount(batch);
                auto naive
                    = [&](const std::vector<int64_t>& za, const std::vector<int64_t>& zb, bool perRow, bool perCol) {
                          std::vector<int64_t> out;
                          for (int64_t bi = 0; bi < batches; ++bi) {
                              // Offsets of this batch in a and b (dims of size 1 broadcast).
                              int64_t rem = bi, oa = 0, ob = 0, sa = 1, sb = 1;
                              for (size_t d = batch.size(); d-- > 0;) {
                                  const int64_t pos = rem % batch[d];
                                  rem /= batch[d];
                                  const int64_t da = int64_t(d) - int64_t(batch.size() - ba.size());
                                  const int64_t db = int64_t(d) - int64_t(batch.size() - bb.size());
                                  if (da >= 0) {
                                      oa += (ba[size_t(da)] == 1 ? 0 : pos) * sa;
                                      sa *= ba[size_t(da)];
                                  }
                                  if (db >= 0) {
                                      ob += (bb[size_t(db)] == 1 ? 0 : pos) * sb;
                                      sb *= bb[size_t(db)];
                                  }
                              }
                              for (int64_t i = 0; i < M; ++i)
                                  for (int64_t j = 0; j < N; ++j) {
                                      int64_t acc = 0;
                                      for (int64_t k = 0; k < K; ++k)
                                          acc += (av[size_t(oa * M * K + i * K + k)] - za[perRow ? size_t(i) : 0])
                                              * (bv[size_t(ob * K * N + k * N + j)] - zb[perCol ? size_t(j) : 0]);
                                      out.push_back(acc);
                                  }
                          }
                          return out;
                      };
                const std::vector<int64_t> want = naive(azp, bzp, rows, cols);
                QVERIFY2(y.size() == int64_t(want.size()), (what + ": " + y.typeString()).c_str());
                for (size_t i = 0; i < want.size(); ++i)
                    QVERIFY2(
                        y.data<int32_t>()[i] == want[i], (what + ": first bad index " + std::to_string(i)).c_str());

                // QLinearMatMul over the same operands: requantize acc * sa * sb / sy.
                if (signedA)
                    continue;
                const float as = 0.02f, bs = 0.015f, ys = 0.9f;
                const Tensor q = runNode(10, "y = QLinearMatMul (a, as, az, b, bs, bz, ys, yz)",
                    { { "a", a }, { "as", Tensor::scalar<float>(as) }, { "az", zpTensor({ azp[0] }, false, false) },
                        { "b", b }, { "bs", Tensor::scalar<float>(bs) }, { "bz", zpTensor({ bzp[0] }, false, false) },
                        { "ys", Tensor::scalar<float>(ys) }, { "yz", Tensor::scalar<uint8_t>(uint8_t(100)) } },
                    "uint8[p, q, r, s] y")
                                     .at("y")
                                     .tensor();
                const std::vector<int64_t> acc2 = naive({ azp[0] }, { bzp[0] }, false, false);
                const float multiplier = as * bs / ys;
                for (size_t i = 0; i < acc2.size(); ++i) {
                    const uint8_t w = saturate<uint8_t>(roundHalfEven(double(float(acc2[i]) * multiplier)) + 100);
                    QVERIFY2(q.data<uint8_t>()[i] == w,
                        (what + ": QLinearMatMul, first bad index " + std::to_string(i)).c_str());
                }
            }
    }

    void integerProductsOfOddShapes()
    {
        // MatMulInteger and ConvInteger on the integer kernel (integer_product.h, gemmS8U8 at the level
        // ONNXSCOPE_SIMD picks; depthwise convolutions on their direct loop): every uint8/int8 mix, zero points at both
        // ends and the middle of the range, per column (MatMul) and per output channel (Conv), sizes not multiples of
        // the vector width, K = 1.
        std::mt19937 rng(kSeed + 7);
        const auto fill = [&](Tensor& t, std::vector<int64_t>& v) {
            v.resize(size_t(t.size()));
            for (size_t i = 0; i < v.size(); ++i) {
                v[i] = t.dtype() == DataType::Int8 ? int64_t(rng() % 256) - 128 : int64_t(rng() % 256);
                if (t.dtype() == DataType::Int8)
                    t.data<int8_t>()[i] = int8_t(v[i]);
                else
                    t.data<uint8_t>()[i] = uint8_t(v[i]);
            }
        };
        const auto zeros = [&](DataType type, int64_t count, int which, std::vector<int64_t>& z) {
            const bool s = type == DataType::Int8;
            Tensor t(type, count == 1 ? Shape {} : Shape { count });
            z.assign(size_t(count), 0);
            for (int64_t i = 0; i < count; ++i) {
                const int64_t lo = s ? -128 : 0, mid = s ? 0 : 128, hi = s ? 127 : 255;
                z[size_t(i)] = which == 0 ? lo : which == 1 ? mid : which == 2 ? hi : lo + int64_t(rng() % 256);
                if (s)
                    t.data<int8_t>()[i] = int8_t(z[size_t(i)]);
                else
                    t.data<uint8_t>()[i] = uint8_t(z[size_t(i)]);
            }
            return t;
        };
        const DataType types[] = { DataType::UInt8, DataType::Int8 };
        struct Mm {
            int64_t m, k, n;
        };
        int which = 0;
        for (const Mm& sh : { Mm { 1, 1, 1 }, Mm { 5, 1, 17 }, Mm { 17, 33, 3 }, Mm { 3, 67, 50 }, Mm { 33, 20, 16 } })
            for (DataType ta : types)
                for (DataType tb : types)
                    for (bool perColumn : { false, true }) {
                        Tensor a(ta, { sh.m, sh.k }), b(tb, { sh.k, sh.n });
                        std::vector<int64_t> av, bv, az, bz;
                        fill(a, av);
                        fill(b, bv);
                        const Tensor azT = zeros(ta, 1, which++ % 4, az);
                        const Tensor bzT = zeros(tb, perColumn ? sh.n : 1, which++ % 4, bz);
                        const Tensor y = runNode(10, "y = MatMulInteger (a, b, az, bz)",
                            { { "a", a }, { "b", b }, { "az", azT }, { "bz", bzT } }, "int32[p, q] y")
                                             .at("y")
                                             .tensor();
                        for (int64_t i = 0; i < sh.m; ++i)
                            for (int64_t j = 0; j < sh.n; ++j) {
                                int64_t want = 0;
                                for (int64_t k = 0; k < sh.k; ++k)
                                    want += (av[size_t(i * sh.k + k)] - az[0])
                                        * (bv[size_t(k * sh.n + j)] - bz[perColumn ? size_t(j) : 0]);
                                QVERIFY2(y.data<int32_t>()[size_t(i * sh.n + j)] == want,
                                    qPrintable(QString("MatMulInteger %1x%2x%3 %4 x %5, zero points %6/%7: [%8, %9]")
                                                   .arg(sh.m)
                                                   .arg(sh.k)
                                                   .arg(sh.n)
                                                   .arg(dataTypeName(ta).data())
                                                   .arg(dataTypeName(tb).data())
                                                   .arg(az[0])
                                                   .arg(bz[0])
                                                   .arg(i)
                                                   .arg(j)));
                            }
                    }
        struct Cv {
            int64_t c, m, h, w, kh, kw, stride, dilation, pad, group;
        };
        for (const Cv& g : { Cv { 3, 5, 9, 7, 3, 3, 1, 1, 1, 1 }, Cv { 4, 6, 11, 10, 3, 2, 2, 1, 0, 2 },
                 Cv { 6, 9, 8, 8, 3, 3, 1, 2, 2, 3 }, Cv { 20, 17, 5, 6, 1, 1, 1, 1, 0, 1 },
                 Cv { 2, 33, 4, 5, 1, 3, 2, 1, 1, 1 }, Cv { 8, 8, 9, 10, 3, 3, 2, 1, 1, 8 },
                 Cv { 5, 5, 7, 19, 3, 3, 1, 2, 2, 5 }, Cv { 3, 3, 6, 6, 5, 5, 1, 1, 2, 3 } })
            for (DataType tx : types)
                for (DataType tw : types)
                    for (bool perChannel : { false, true }) {
                        Tensor x(tx, { 1, g.c, g.h, g.w }), w(tw, { g.m, g.c / g.group, g.kh, g.kw });
                        std::vector<int64_t> xv, wv, xz, wz;
                        fill(x, xv);
                        fill(w, wv);
                        const Tensor xzT = zeros(tx, 1, which++ % 4, xz);
                        const Tensor wzT = zeros(tw, perChannel ? g.m : 1, which++ % 4, wz);
                        const std::string attrs = "<strides = [" + std::to_string(g.stride) + ", "
                            + std::to_string(g.stride) + "], dilations = [" + std::to_string(g.dilation) + ", "
                            + std::to_string(g.dilation) + "], pads = [" + std::to_string(g.pad) + ", "
                            + std::to_string(g.pad) + ", " + std::to_string(g.pad) + ", " + std::to_string(g.pad)
                            + "], group = " + std::to_string(g.group) + ">";
                        const Tensor y = runNode(10, "y = ConvInteger " + attrs + " (x, w, xz, wz)",
                            { { "x", x }, { "w", w }, { "xz", xzT }, { "wz", wzT } }, "int32[a, b, c, d] y")
                                             .at("y")
                                             .tensor();
                        const int64_t oh = (g.h + 2 * g.pad - g.dilation * (g.kh - 1) - 1) / g.stride + 1;
                        const int64_t ow = (g.w + 2 * g.pad - g.dilation * (g.kw - 1) - 1) / g.stride + 1;
                        QCOMPARE(y.shape(), (Shape { 1, g.m, oh, ow }));
                        const int64_t cg = g.c / g.group, mg = g.m / g.group;
                        for (int64_t o = 0; o < g.m; ++o)
                            for (int64_t i = 0; i < oh; ++i)
                                for (int64_t j = 0; j < ow; ++j) {
                                    int64_t want = 0;
                                    for (int64_t c = 0; c < cg; ++c)
                                        for (int64_t u = 0; u < g.kh; ++u)
                                            for (int64_t v = 0; v < g.kw; ++v) {
                                                const int64_t r = i * g.stride - g.pad + u * g.dilation;
                                                const int64_t q = j * g.stride - g.pad + v * g.dilation;
                                                if (r < 0 || r >= g.h || q < 0 || q >= g.w)
                                                    continue; // the padding holds x's zero point: no term
                                                const int64_t ch = (o / mg) * cg + c;
                                                want += (xv[size_t((ch * g.h + r) * g.w + q)] - xz[0])
                                                    * (wv[size_t(((o * cg + c) * g.kh + u) * g.kw + v)]
                                                        - wz[perChannel ? size_t(o) : 0]);
                                            }
                                    QVERIFY2(y.data<int32_t>()[size_t((o * oh + i) * ow + j)] == want,
                                        qPrintable(QString("ConvInteger c %1 m %2 group %3 %4 x %5: [%6, %7, %8]")
                                                       .arg(g.c)
                                                       .arg(g.m)
                                                       .arg(g.group)
                                                       .arg(dataTypeName(tx).data())
                                                       .arg(dataTypeName(tw).data())
                                                       .arg(o)
                                                       .arg(i)
                                                       .arg(j)));
                                }
                    }
    }

    void dynamicQuantize()
    {
        std::mt19937 rng(kSeed + 2);
        for (int rep = 0; rep < 10; ++rep) {
            std::uniform_real_distribution<float> u(rep % 3 == 0 ? 0.5f : -7.f, rep % 3 == 1 ? -0.5f : 9.f);
            // 3 x 7 (under one vector) and 5 x 37 (whole vectors of every level and a tail).
            const Shape shape = rep % 2 ? Shape { 5, 37 } : Shape { 3, 7 };
            Tensor x(DataType::Float, shape);
            for (float& v : x.data<float>())
                v = u(rng);
            const auto out = runNode(11, "y, s, z = DynamicQuantizeLinear (x)", { { "x", x } },
                "uint8[" + dims(shape) + "] y, float s, uint8 z");
            float lo = 0, hi = 0;
            for (float v : x.data<float>()) {
                lo = std::min(lo, v);
                hi = std::max(hi, v);
            }
            const float scale = (hi - lo) / 255.0f;
            const uint8_t zp = saturate<uint8_t>(roundHalfEven(double(0.0f - lo / scale)));
            QCOMPARE(out.at("s").tensor().data<float>()[0], scale);
            QCOMPARE(out.at("z").tensor().data<uint8_t>()[0], zp);
            const Tensor& y = out.at("y").tensor();
            for (size_t i = 0; i < size_t(x.size()); ++i)
                QVERIFY2(y.data<uint8_t>()[i]
                        == saturate<uint8_t>(roundHalfEven(double(x.data<float>()[i] / scale)) + double(zp)),
                    ("rep " + std::to_string(rep) + " first bad index " + std::to_string(i)).c_str());
        }
        // All zeros: scale 0 and zero point 0, no division by zero.
        const auto zero = runNode(11, "y, s, z = DynamicQuantizeLinear (x)",
            { { "x", Tensor(DataType::Float, { 4 }) } }, "uint8[4] y, float s, uint8 z");
        QCOMPARE(zero.at("s").tensor().data<float>()[0], 0.0f);
        QCOMPARE(zero.at("z").tensor().data<uint8_t>()[0], uint8_t(0));
    }

    void errorsNameTheNode()
    {
        auto expectError = [](int64_t opset, const std::string& node,
                               const std::vector<std::pair<std::string, Tensor>>& inputs, const std::string& op,
                               const std::string& fragment) {
            try {
                runNode(opset, node, inputs, "float[a] y");
            } catch (const Error& e) {
                const std::string msg = e.what();
                QVERIFY2(msg.find(op) != std::string::npos && msg.find(fragment) != std::string::npos, msg.c_str());
                return;
            }
            QFAIL(("no error for " + node).c_str());
        };
        const Tensor x = Tensor::fromVector<float>({ 1, 2, 3, 4, 5, 6 }, { 2, 3 });
        expectError(13, "y = QuantizeLinear <axis = 1> (x, s)",
            { { "x", x }, { "s", Tensor::vector1D<float>({ 1, 2 }) } }, "QuantizeLinear", "does not match axis");
        expectError(13, "y = QuantizeLinear <axis = 5> (x, s)",
            { { "x", x }, { "s", Tensor::vector1D<float>({ 1, 2 }) } }, "QuantizeLinear", "axis");
        expectError(13, "y = DequantizeLinear (q, s, z)",
            { { "q", Tensor::vector1D<int32_t>({ 1, 2 }) }, { "s", Tensor::scalar<float>(1) },
                { "z", Tensor::scalar<int32_t>(3) } },
            "DequantizeLinear", "zero point of 0");
        expectError(10, "y = MatMulInteger (a, b)",
            { { "a", Tensor(DataType::UInt8, { 2, 3 }) }, { "b", Tensor(DataType::UInt8, { 4, 2 }) } }, "MatMulInteger",
            "inner dimensions");
        expectError(10, "y = MatMulInteger (a, b, az)",
            { { "a", Tensor(DataType::UInt8, { 2, 3 }) }, { "b", Tensor(DataType::UInt8, { 3, 2 }) },
                { "az", Tensor(DataType::UInt8, { 5 }) } },
            "MatMulInteger", "a_zero_point");
    }
};

QTEST_APPLESS_MAIN(TestQuantReference)
#include "test_quant_reference.moc"
