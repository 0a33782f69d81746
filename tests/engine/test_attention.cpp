// SPDX-License-Identifier: MIT
// The attention family (Attention 23-25, RotaryEmbedding, TensorScatter) where ONNX's backend cases leave gaps:
// grouped-query heads with a past cache, a boolean mask with fully masked rows, causal masking, softcap and the
// qk_matmul_output tap all at once; 3-D packed inputs with nonpad_kv_seqlen and a sliding window; against a naive
// loop written here from the operator's specification (double precision, fixed seeds), plus a few values worked out
// by hand and the errors a bad node gets.
#include "engine/core/half.h"
#include "engine/exec/session.h"

#include <QtTest>

#include <cmath>
#include <limits>
#include <random>

using namespace onnxscope;

namespace {

std::map<std::string, Value> runGraph(int64_t opset, const std::string& inputs, const std::string& outputs,
    const std::string& body, const std::map<std::string, Value>& values)
{
    const std::string text = "<ir_version: 8, opset_import: [\"\" : " + std::to_string(opset) + "]>\nagraph (" + inputs
        + ") => (" + outputs + ") {\n" + body + "\n}";
    Session session(std::make_shared<Program>(Model::fromText(text)));
    return session.run(values);
}

Tensor randomTensor(std::mt19937& rng, const Shape& shape)
{
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<float> v(static_cast<size_t>(elementCount(shape)));
    for (float& x : v)
        x = dist(rng);
    return Tensor::fromVector(v, shape);
}

std::string dims(const Shape& s)
{
    std::string out = "[";
    for (size_t i = 0; i < s.size(); ++i)
        out += (i ? "," : "") + std::to_string(s[i]);
    return out + "]";
}

/// Compares element by element; on a mismatch names the output, the seed and the first bad flat index.
void expectClose(
    const Tensor& got, const std::vector<double>& want, const Shape& shape, const char* what, unsigned seed)
{
    QCOMPARE(shapeToString(got.shape()), shapeToString(shape));
    QCOMPARE(static_cast<size_t>(got.size()), want.size());
    for (size_t i = 0; i < want.size(); ++i) {
        const double g = got.toDouble(static_cast<int64_t>(i));
        const bool ok = std::isinf(want[i]) ? g == want[i] : std::abs(g - want[i]) <= 1e-5 + 1e-4 * std::abs(want[i]);
        if (!ok)
            QFAIL(qPrintable(
                QString("%1 (seed %2): element %3 is %4, expected %5").arg(what).arg(seed).arg(i).arg(g).arg(want[i])));
    }
}

/// One attention problem in 4-D layout, computed naively from the specification of Attention.
struct Naive {
    int64_t b, hq, hkv, lq, lkv, past, d, dv;
    double scale, softcap = 0;
    bool causal = false;
    int64_t left = -1, right = -1;
    std::vector<int64_t> nonpad; // per batch, empty if none
    const Tensor* mask = nullptr; // bool [b or 1, 1, lq, total]
    std::vector<double> y, qk, presentK, presentV; // qk: after softcap and bias (mode 2)

    void run(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor* pk, const Tensor* pv, bool packed)
    {
        const int64_t total = past + lkv;
        auto qAt = [&](int64_t bi, int64_t h, int64_t i, int64_t c) {
            return q.toDouble(packed ? ((bi * lq + i) * hq + h) * d + c : ((bi * hq + h) * lq + i) * d + c);
        };
        auto cat = [&](const Tensor& now, const Tensor* before, int64_t w, std::vector<double>& out) {
            out.assign(static_cast<size_t>(b * hkv * total * w), 0.0);
            for (int64_t bi = 0; bi < b; ++bi)
                for (int64_t h = 0; h < hkv; ++h)
                    for (int64_t j = 0; j < total; ++j)
                        for (int64_t c = 0; c < w; ++c)
                            out[static_cast<size_t>(((bi * hkv + h) * total + j) * w + c)] = j < past
                                ? before->toDouble(((bi * hkv + h) * past + j) * w + c)
                                : now.toDouble(packed ? ((bi * lkv + j - past) * hkv + h) * w + c
                                                      : ((bi * hkv + h) * lkv + j - past) * w + c);
        };
        cat(k, pk, d, presentK);
        cat(v, pv, dv, presentV);
        const double ninf = -std::numeric_limits<double>::infinity();
        y.assign(static_cast<size_t>(b * hq * lq * dv), 0.0);
        qk.assign(static_cast<size_t>(b * hq * lq * total), 0.0);
        for (int64_t bi = 0; bi < b; ++bi)
            for (int64_t h = 0; h < hq; ++h) {
                const int64_t kh = h / (hq / hkv);
                for (int64_t i = 0; i < lq; ++i) {
                    const int64_t offset = past ? past : nonpad.empty() ? 0 : nonpad[static_cast<size_t>(bi)] - lq;
                    std::vector<double> s(static_cast<size_t>(total)), bias(static_cast<size_t>(total), 0.0);
                    bool allMasked = true;
                    for (int64_t j = 0; j < total; ++j) {
                        double dot = 0;
                        for (int64_t c = 0; c < d; ++c)
                            dot += qAt(bi, h, i, c)
                                * presentK[static_cast<size_t>(((bi * hkv + kh) * total + j) * d + c)];
                        dot *= scale;
                        if (softcap > 0)
                            dot = softcap * std::tanh(dot / softcap);
                        double& bj = bias[static_cast<size_t>(j)];
                        if (mask) {
                            const int64_t mb = mask->dim(0) == 1 ? 0 : bi;
                            if (!mask->data<bool>()[static_cast<size_t>((mb * lq + i) * total + j)])
                                bj = ninf;
                        }
                        const int64_t p = i + offset;
                        if ((causal && j > p) || (left >= 0 && p - j > left) || (right >= 0 && j - p > right))
                            bj = ninf;
                        if (!nonpad.empty() && j >= nonpad[static_cast<size_t>(bi)])
                            bj = ninf;
                        allMasked = allMasked && bj == ninf;
                        s[static_cast<size_t>(j)] = dot + bj;
                        qk[static_cast<size_t>(((bi * hq + h) * lq + i) * total + j)] = dot + bj;
                    }
                    if (allMasked)
                        continue;
                    double mx = ninf, sum = 0;
                    for (double x : s)
                        mx = std::max(mx, x);
                    for (double& x : s)
                        sum += (x = std::exp(x - mx));
                    for (int64_t c = 0; c < dv; ++c) {
                        double acc = 0;
                        for (int64_t j = 0; j < total; ++j)
                            acc += s[static_cast<size_t>(j)] / sum
                                * presentV[static_cast<size_t>(((bi * hkv + kh) * total + j) * dv + c)];
                        const int64_t at
                            = packed ? ((bi * lq + i) * hq + h) * dv + c : ((bi * hq + h) * lq + i) * dv + c;
                        y[static_cast<size_t>(at)] = acc;
                    }
                }
            }
    }
};

} // namespace

class TestAttention : public QObject {
    Q_OBJECT

private slots:
    /// Attention by hand: one query [1, 0] over keys [1, 0], [0, 1] with scale 1 has scores [1, 0], weights
    /// [e, 1] / (e + 1), so over values [1, 2], [3, 4] it gives [(e + 3), (2e + 4)] / (e + 1).
    void handWorkedSingleQuery()
    {
        const auto out = runGraph(23, "float[1,1,1,2] q, float[1,1,2,2] k, float[1,1,2,2] v", "float[1,1,1,2] y",
            "y = Attention <scale = 1.0> (q, k, v)",
            { { "q", Tensor::fromVector<float>({ 1, 0 }, { 1, 1, 1, 2 }) },
                { "k", Tensor::fromVector<float>({ 1, 0, 0, 1 }, { 1, 1, 2, 2 }) },
                { "v", Tensor::fromVector<float>({ 1, 2, 3, 4 }, { 1, 1, 2, 2 }) } });
        const double e = std::exp(1.0);
        expectClose(out.at("y").tensor(), { (e + 3) / (e + 1), (2 * e + 4) / (e + 1) }, { 1, 1, 1, 2 }, "Y", 0);
    }

    /// GQA (4 query heads over 2 kv heads) with a past cache, a boolean mask whose rows are sometimes all false,
    /// is_causal (offset by the past length), softcap and qk_matmul_output_mode 2, for random values.
    void gqaPastBoolMaskCausalSoftcap()
    {
        for (unsigned seed = 1; seed <= 4; ++seed) {
            std::mt19937 rng(seed);
            Naive n { 2, 4, 2, 3, 2, 3, 4, 3, 0.7 };
            n.softcap = 1.5;
            n.causal = true;
            const int64_t total = n.past + n.lkv;
            const Tensor q = randomTensor(rng, { n.b, n.hq, n.lq, n.d });
            const Tensor k = randomTensor(rng, { n.b, n.hkv, n.lkv, n.d });
            const Tensor v = randomTensor(rng, { n.b, n.hkv, n.lkv, n.dv });
            const Tensor pk = randomTensor(rng, { n.b, n.hkv, n.past, n.d });
            const Tensor pv = randomTensor(rng, { n.b, n.hkv, n.past, n.dv });
            Tensor mask(DataType::Bool, { n.b, 1, n.lq, total });
            for (int64_t i = 0; i < mask.size(); ++i)
                mask.data<bool>()[static_cast<size_t>(i)] = (rng() % 3) != 0;
            for (int64_t j = 0; j < total; ++j) // batch 1, query 1: every key masked out
                mask.data<bool>()[static_cast<size_t>((1 * n.lq + 1) * total + j)] = false;
            n.mask = &mask;
            n.run(q, k, v, &pk, &pv, false);
            const std::string in = "float" + dims(q.shape()) + " q, float" + dims(k.shape()) + " k, float"
                + dims(v.shape()) + " v, bool" + dims(mask.shape()) + " m, float" + dims(pk.shape()) + " pk, float"
                + dims(pv.shape()) + " pv";
            const auto out = runGraph(23, in, "float y, float pko, float pvo, float qk",
                "y, pko, pvo, qk = Attention <scale = 0.7, is_causal = 1, softcap = 1.5, qk_matmul_output_mode = 2> "
                "(q, k, v, m, pk, pv)",
                { { "q", q }, { "k", k }, { "v", v }, { "m", mask }, { "pk", pk }, { "pv", pv } });
            expectClose(out.at("y").tensor(), n.y, { n.b, n.hq, n.lq, n.dv }, "Y", seed);
            expectClose(out.at("pko").tensor(), n.presentK, { n.b, n.hkv, total, n.d }, "present_key", seed);
            expectClose(out.at("pvo").tensor(), n.presentV, { n.b, n.hkv, total, n.dv }, "present_value", seed);
            expectClose(out.at("qk").tensor(), n.qk, { n.b, n.hq, n.lq, total }, "qk_matmul_output", seed);
            for (int64_t h = 0; h < n.hq; ++h) // the fully masked row is zero, not NaN
                for (int64_t c = 0; c < n.dv; ++c)
                    QCOMPARE(out.at("y").tensor().toDouble(((1 * n.hq + h) * n.lq + 1) * n.dv + c), 0.0);
        }
    }

    /// Opset 25, 3-D packed inputs (3 query heads over 1 kv head) with nonpad_kv_seqlen (causal offset per batch)
    /// and a sliding window of one key to the left.
    void packedNonpadWindow()
    {
        for (unsigned seed = 11; seed <= 13; ++seed) {
            std::mt19937 rng(seed);
            Naive n { 2, 3, 1, 2, 5, 0, 4, 2, 1.0 / 2.0 };
            n.causal = true;
            n.left = 1;
            n.nonpad = { 4, 2 };
            const Tensor q = randomTensor(rng, { n.b, n.lq, n.hq * n.d });
            const Tensor k = randomTensor(rng, { n.b, n.lkv, n.hkv * n.d });
            const Tensor v = randomTensor(rng, { n.b, n.lkv, n.hkv * n.dv });
            n.run(q, k, v, nullptr, nullptr, true);
            const std::string in = "float" + dims(q.shape()) + " q, float" + dims(k.shape()) + " k, float"
                + dims(v.shape()) + " v, int64[2] np";
            const auto out = runGraph(25, in, "float y",
                "y = Attention <q_num_heads = 3, kv_num_heads = 1, is_causal = 1, left_window_size = 1> "
                "(q, k, v, , , , np)",
                { { "q", q }, { "k", k }, { "v", v }, { "np", Tensor::vector1D<int64_t>(n.nonpad) } });
            expectClose(out.at("y").tensor(), n.y, { n.b, n.lq, n.hq * n.dv }, "Y", seed);
        }
    }

    /// A float16 model is computed in float: each output is the float result rounded once.
    void float16MatchesFloat()
    {
        std::mt19937 rng(21);
        const Tensor q = randomTensor(rng, { 1, 2, 3, 4 }), k = randomTensor(rng, { 1, 2, 5, 4 }),
                     v = randomTensor(rng, { 1, 2, 5, 4 });
        auto half = [](const Tensor& t) {
            Tensor h(DataType::Float16, t.shape());
            for (int64_t i = 0; i < t.size(); ++i)
                h.data<Float16>()[static_cast<size_t>(i)] = Float16(t.data<float>()[static_cast<size_t>(i)]);
            return h;
        };
        const Tensor hq = half(q), hk = half(k), hv = half(v);
        Naive n { 1, 2, 2, 3, 5, 0, 4, 4, 0 };
        n.causal = true;
        n.scale = std::pow(static_cast<double>(Float16(std::sqrt(0.5f))), 2); // onnx: sqrt(scale) in float16, twice
        n.run(hq, hk, hv, nullptr, nullptr, false);
        const auto out = runGraph(23, "float16[1,2,3,4] q, float16[1,2,5,4] k, float16[1,2,5,4] v", "float16 y",
            "y = Attention <is_causal = 1> (q, k, v)", { { "q", hq }, { "k", hk }, { "v", hv } });
        const Tensor& y = out.at("y").tensor();
        QCOMPARE(y.dtype(), DataType::Float16);
        for (size_t i = 0; i < n.y.size(); ++i) // within one float16 rounding of the exact value
            QVERIFY2(std::abs(y.toDouble(static_cast<int64_t>(i)) - n.y[i]) <= 1e-3 * std::abs(n.y[i]) + 1e-4,
                qPrintable(QString("element %1: %2 vs %3").arg(i).arg(y.toDouble(int64_t(i))).arg(n.y[i])));
    }

    void badNodesAreNamed()
    {
        const std::map<std::string, Value> in { { "q", Tensor(DataType::Float, { 1, 2, 4 }) },
            { "k", Tensor(DataType::Float, { 1, 2, 4 }) }, { "v", Tensor(DataType::Float, { 1, 2, 4 }) } };
        QString err;
        try {
            runGraph(23, "float[1,2,4] q, float[1,2,4] k, float[1,2,4] v", "float y", "y = Attention (q, k, v)", in);
        } catch (const Error& e) {
            err = e.what();
        }
        QVERIFY2(err.contains("Attention") && err.contains("q_num_heads"), qPrintable(err));
        err.clear();
        try {
            runGraph(25, "float[1,1,2,4] q, float[1,1,2,4] k, float[1,1,2,4] v", "float y",
                "y = Attention <q_num_heads = 1, kv_num_heads = 1> (q, k, v)",
                { { "q", Tensor(DataType::Float, { 1, 1, 2, 4 }) }, { "k", Tensor(DataType::Float, { 1, 1, 2, 4 }) },
                    { "v", Tensor(DataType::Float, { 1, 1, 2, 4 }) } });
        } catch (const Error& e) {
            err = e.what();
        }
        QVERIFY2(err.contains("4-D"), qPrintable(err));
    }

    /// RotaryEmbedding by hand, halves layout: pairs (x0, x2) and (x1, x3) rotate by (cos0, sin0) and (cos1, sin1).
    void rotaryByHand()
    {
        const float c0 = 0.6f, s0 = 0.8f, c1 = 0.0f, s1 = 1.0f;
        const auto out = runGraph(23, "float[1,1,1,4] x, float[1,1,2] c, float[1,1,2] s", "float y",
            "y = RotaryEmbedding (x, c, s)",
            { { "x", Tensor::fromVector<float>({ 1, 2, 3, 4 }, { 1, 1, 1, 4 }) },
                { "c", Tensor::fromVector<float>({ c0, c1 }, { 1, 1, 2 }) },
                { "s", Tensor::fromVector<float>({ s0, s1 }, { 1, 1, 2 }) } });
        expectClose(out.at("y").tensor(), { c0 * 1 - s0 * 3, c1 * 2 - s1 * 4, s0 * 1 + c0 * 3, s1 * 2 + c1 * 4 },
            { 1, 1, 1, 4 }, "Y", 0);
    }

    /// TensorScatter circular: three updates written from index 2 of a length-4 cache land at 2, 3 and 0.
    void tensorScatterWraps()
    {
        const auto out = runGraph(24, "float[1,4,1] c, float[1,3,1] u, int64[1] w", "float y",
            "y = TensorScatter <axis = 1, mode = \"circular\"> (c, u, w)",
            { { "c", Tensor::fromVector<float>({ 9, 9, 9, 9 }, { 1, 4, 1 }) },
                { "u", Tensor::fromVector<float>({ 1, 2, 3 }, { 1, 3, 1 }) },
                { "w", Tensor::vector1D<int64_t>({ 2 }) } });
        expectClose(out.at("y").tensor(), { 3, 9, 1, 2 }, { 1, 4, 1 }, "present_cache", 0);
    }
};

QTEST_GUILESS_MAIN(TestAttention)
#include "test_attention.moc"
