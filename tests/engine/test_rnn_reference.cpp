// SPDX-License-Identifier: MIT
// RNN, GRU and LSTM against naive per-step reference loops written from the ONNX formulas, on random shapes.
#include "engine/exec/session.h"

#include <QtTest>

#include <cmath>
#include <random>

using namespace onnxscope;

namespace {

struct Case {
    int64_t seq, batch, input, hidden;
    bool bidirectional;
    bool withBias, withInitial, withLens, withPeephole;
    uint32_t seed;
};

std::vector<float> randomVector(std::mt19937& rng, size_t n)
{
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<float> v(n);
    for (auto& x : v)
        x = dist(rng);
    return v;
}

float sigmoid(float x)
{
    return 1.0f / (1.0f + std::exp(-x));
}

/// Runs `op` ("LSTM", "GRU" or "RNN") through the engine with all inputs given explicitly.
std::map<std::string, Value> runEngine(const std::string& op, const Case& c, int64_t gates,
    const std::map<std::string, Tensor>& inputs, const std::string& extraAttrs)
{
    const std::string dir = c.bidirectional ? "bidirectional" : "forward";
    std::string ins = "X, W, R, " + std::string(inputs.count("B") ? "B" : "") + ", " + (inputs.count("L") ? "L" : "")
        + ", " + (inputs.count("H0") ? "H0" : "");
    if (op == "LSTM")
        ins += ", " + std::string(inputs.count("C0") ? "C0" : "") + ", " + (inputs.count("P") ? "P" : "");
    std::string outs = op == "LSTM" ? "Y, Yh, Yc" : "Y, Yh";
    std::string sig;
    for (const auto& [name, t] : inputs) {
        std::string dims;
        for (size_t i = 0; i < t.shape().size(); ++i)
            dims += (i ? "," : "") + std::to_string(t.shape()[i]);
        sig += (sig.empty() ? "" : ", ") + std::string(t.dtype() == DataType::Int32 ? "int32" : "float") + "[" + dims
            + "] " + name;
    }
    std::string outSig = "float[?,?,?,?] Y, float[?,?,?] Yh" + std::string(op == "LSTM" ? ", float[?,?,?] Yc" : "");
    std::string text = "<ir_version: 8, opset_import: [\"\" : 14]>\nagraph (" + sig + ") => (" + outSig + ") {\n  "
        + outs + " = " + op + " <hidden_size = " + std::to_string(c.hidden) + ", direction = \"" + dir + "\""
        + extraAttrs + "> (" + ins + ")\n}";
    (void)gates;
    Session s(std::make_shared<Program>(Model::fromText(text)));
    std::map<std::string, Value> feed;
    for (const auto& [name, t] : inputs)
        feed[name] = Value(t);
    return s.run(feed);
}

} // namespace

/// 1..n, from the case's generator (clang refuses the narrowing of `1 + rng() % n` in a braced initializer).
static int64_t draw(std::mt19937& rng, int n)
{
    return 1 + static_cast<int64_t>(rng() % static_cast<unsigned>(n));
}

class TestRnnReference : public QObject {
    Q_OBJECT
private slots:
    void lstmMatchesTheFormulas_data()
    {
        QTest::addColumn<int>("index");
        for (int i = 0; i < 12; ++i)
            QTest::newRow(std::to_string(i).c_str()) << i;
    }

    void lstmMatchesTheFormulas()
    {
        QFETCH(int, index);
        std::mt19937 rng(1000 + index);
        Case c { draw(rng, 5), draw(rng, 3), draw(rng, 4), draw(rng, 5), index % 2 == 1, index % 3 != 0, index % 4 != 0,
            index % 5 == 2, index % 3 == 1, static_cast<uint32_t>(1000 + index) };
        runRecurrent("LSTM", 4, c);
    }

    void gruMatchesTheFormulas_data() { lstmMatchesTheFormulas_data(); }
    void gruMatchesTheFormulas()
    {
        QFETCH(int, index);
        std::mt19937 rng(2000 + index);
        Case c { draw(rng, 5), draw(rng, 3), draw(rng, 4), draw(rng, 5), index % 2 == 1, index % 3 != 0, index % 4 != 0,
            index % 5 == 2, false, static_cast<uint32_t>(2000 + index) };
        runRecurrent("GRU", 3, c, index % 2 == 0);
    }

    void rnnMatchesTheFormulas_data() { lstmMatchesTheFormulas_data(); }
    void rnnMatchesTheFormulas()
    {
        QFETCH(int, index);
        std::mt19937 rng(3000 + index);
        Case c { draw(rng, 5), draw(rng, 3), draw(rng, 4), draw(rng, 5), index % 2 == 1, index % 3 != 0, index % 4 != 0,
            index % 5 == 2, false, static_cast<uint32_t>(3000 + index) };
        runRecurrent("RNN", 1, c);
    }

private:
    void runRecurrent(const std::string& op, int64_t gates, const Case& c, bool linearBeforeReset = false)
    {
        std::mt19937 rng(c.seed);
        const int64_t nd = c.bidirectional ? 2 : 1, H = c.hidden, G = gates * H;
        std::map<std::string, Tensor> in;
        auto X = randomVector(rng, c.seq * c.batch * c.input);
        auto W = randomVector(rng, nd * G * c.input);
        auto R = randomVector(rng, nd * G * H);
        auto B = c.withBias ? randomVector(rng, nd * 2 * G) : std::vector<float>(nd * 2 * G, 0.0f);
        auto H0 = c.withInitial ? randomVector(rng, nd * c.batch * H) : std::vector<float>(nd * c.batch * H, 0.0f);
        auto C0 = c.withInitial ? randomVector(rng, nd * c.batch * H) : std::vector<float>(nd * c.batch * H, 0.0f);
        auto P = c.withPeephole ? randomVector(rng, nd * 3 * H) : std::vector<float>(nd * 3 * H, 0.0f);
        std::vector<int32_t> lens(c.batch, static_cast<int32_t>(c.seq));
        if (c.withLens)
            for (auto& l : lens)
                l = static_cast<int32_t>(rng() % (c.seq + 1));
        in["X"] = Tensor::fromVector(X, { c.seq, c.batch, c.input });
        in["W"] = Tensor::fromVector(W, { nd, G, c.input });
        in["R"] = Tensor::fromVector(R, { nd, G, H });
        if (c.withBias)
            in["B"] = Tensor::fromVector(B, { nd, 2 * G });
        if (c.withInitial) {
            in["H0"] = Tensor::fromVector(H0, { nd, c.batch, H });
            if (op == "LSTM")
                in["C0"] = Tensor::fromVector(C0, { nd, c.batch, H });
        }
        if (c.withLens)
            in["L"] = Tensor::fromVector(lens, { c.batch });
        if (c.withPeephole && op == "LSTM")
            in["P"] = Tensor::fromVector(P, { nd, 3 * H });
        std::string extra = op == "GRU" && linearBeforeReset ? ", linear_before_reset = 1" : "";
        auto out = runEngine(op, c, gates, in, extra);

        // Reference: plain loops, one direction, one batch row, one time step at a time.
        std::vector<float> Y(c.seq * nd * c.batch * H, 0.0f), Yh(nd * c.batch * H), Yc(nd * c.batch * H);
        for (int64_t d = 0; d < nd; ++d) {
            for (int64_t b = 0; b < c.batch; ++b) {
                std::vector<float> h(H0.begin() + (d * c.batch + b) * H, H0.begin() + (d * c.batch + b + 1) * H);
                std::vector<float> cs(C0.begin() + (d * c.batch + b) * H, C0.begin() + (d * c.batch + b + 1) * H);
                const int64_t len = lens[b];
                for (int64_t s = 0; s < len; ++s) {
                    const int64_t t = d == 1 ? len - 1 - s : s;
                    auto pre = [&](int64_t gate, int64_t j, const std::vector<float>& hv, bool withRb = true) {
                        float v = B[d * 2 * G + gate * H + j] + (withRb ? B[d * 2 * G + G + gate * H + j] : 0.0f);
                        for (int64_t k = 0; k < c.input; ++k)
                            v += X[(t * c.batch + b) * c.input + k] * W[(d * G + gate * H + j) * c.input + k];
                        for (int64_t k = 0; k < H; ++k)
                            v += hv[k] * R[(d * G + gate * H + j) * H + k];
                        return v;
                    };
                    std::vector<float> nh(H), nc(H);
                    if (op == "RNN") {
                        for (int64_t j = 0; j < H; ++j)
                            nh[j] = std::tanh(pre(0, j, h));
                    } else if (op == "GRU") {
                        std::vector<float> z(H), r(H), rh(H);
                        for (int64_t j = 0; j < H; ++j) {
                            z[j] = sigmoid(pre(0, j, h));
                            r[j] = sigmoid(pre(1, j, h));
                            rh[j] = r[j] * h[j];
                        }
                        for (int64_t j = 0; j < H; ++j) {
                            float v;
                            if (linearBeforeReset) {
                                float rec = B[d * 2 * G + G + 2 * H + j];
                                for (int64_t k = 0; k < H; ++k)
                                    rec += h[k] * R[(d * G + 2 * H + j) * H + k];
                                v = B[d * 2 * G + 2 * H + j] + r[j] * rec;
                                for (int64_t k = 0; k < c.input; ++k)
                                    v += X[(t * c.batch + b) * c.input + k] * W[(d * G + 2 * H + j) * c.input + k];
                            } else {
                                v = pre(2, j, rh);
                            }
                            nh[j] = (1 - z[j]) * std::tanh(v) + z[j] * h[j];
                        }
                    } else {
                        for (int64_t j = 0; j < H; ++j) {
                            float i = sigmoid(pre(0, j, h) + P[d * 3 * H + j] * cs[j]);
                            float f = sigmoid(pre(2, j, h) + P[d * 3 * H + 2 * H + j] * cs[j]);
                            float g = std::tanh(pre(3, j, h));
                            nc[j] = f * cs[j] + i * g;
                            float o = sigmoid(pre(1, j, h) + P[d * 3 * H + H + j] * nc[j]);
                            nh[j] = o * std::tanh(nc[j]);
                        }
                        cs = nc;
                    }
                    h = nh;
                    for (int64_t j = 0; j < H; ++j)
                        Y[((t * nd + d) * c.batch + b) * H + j] = h[j];
                }
                std::copy(h.begin(), h.end(), Yh.begin() + (d * c.batch + b) * H);
                std::copy(cs.begin(), cs.end(), Yc.begin() + (d * c.batch + b) * H);
            }
        }
        auto check = [&](const char* name, const std::vector<float>& expected) {
            auto got = out.at(name).tensor().data<float>();
            QCOMPARE(got.size(), expected.size());
            for (size_t i = 0; i < expected.size(); ++i)
                if (std::abs(got[i] - expected[i]) > 1e-4f + 1e-4f * std::abs(expected[i]))
                    QFAIL(qPrintable(QStringLiteral("%1 %2 seed %3 seq %4 batch %5 input %6 hidden %7 bidir %8: first "
                                                    "bad index %9: %10 vs expected %11")
                                         .arg(QString::fromStdString(op), QString::fromLatin1(name))
                                         .arg(c.seed)
                                         .arg(c.seq)
                                         .arg(c.batch)
                                         .arg(c.input)
                                         .arg(c.hidden)
                                         .arg(c.bidirectional)
                                         .arg(i)
                                         .arg(got[i])
                                         .arg(expected[i])));
        };
        check("Y", Y);
        check("Yh", Yh);
        if (op == "LSTM")
            check("Yc", Yc);
    }
};

QTEST_APPLESS_MAIN(TestRnnReference)
#include "test_rnn_reference.moc"
