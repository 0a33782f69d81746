// SPDX-License-Identifier: MIT
// Semantics of opsets 18 to 28 that ONNX's node cases leave out, against values derived here by hand or by naive
// loops: GroupNormalization 18's per-group scale and bias (the cases are opset 21's per-channel form), LpPool 18's
// ceil_mode and dilations, DFT 20's inverse real transform of an odd dft_length, StringSplit on whitespace with
// maxsplit (Python's str.split), Range 27 on float16, and TopK 24 on bfloat16.
#include "engine/core/half.h"
#include "engine/exec/session.h"

#include <QtTest>

#include <cmath>
#include <complex>
#include <numbers>

using namespace onnxscope;

namespace {

std::map<std::string, Value> runGraph(int64_t opset, const std::string& inputs, const std::string& outputs,
    const std::string& body, const std::map<std::string, Value>& values)
{
    const std::string text = "<ir_version: 9, opset_import: [\"\" : " + std::to_string(opset) + "]>\nagraph (" + inputs
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

} // namespace

class TestOpset18Plus : public QObject {
    Q_OBJECT

private slots:
    void groupNormalization18ScalesPerGroup()
    {
        // X [1, 4, 2]: groups {channels 0, 1} and {2, 3}; scale and bias hold one value per group.
        const std::vector<float> xs { 1, 2, 3, 4, -1, 0, 5, 10 };
        const std::vector<float> scale { 2, 3 }, bias { 0.5f, -1 };
        const std::map<std::string, Value> in { { "x", Value(Tensor::fromVector(xs, { 1, 4, 2 })) },
            { "s", Value(Tensor::vector1D(scale)) }, { "b", Value(Tensor::vector1D(bias)) } };
        const Tensor y = runGraph(18, "float[1,4,2] x, float[2] s, float[2] b", "float[1,4,2] y",
            "y = GroupNormalization <num_groups = 2, epsilon = 0.001> (x, s, b)", in)
                             .at("y")
                             .tensor();
        for (int g = 0; g < 2; ++g) {
            double mean = 0, var = 0;
            for (int i = 0; i < 4; ++i)
                mean += xs[size_t(g * 4 + i)] / 4.0;
            for (int i = 0; i < 4; ++i)
                var += std::pow(xs[size_t(g * 4 + i)] - mean, 2) / 4.0;
            for (int i = 0; i < 4; ++i) {
                const double expected
                    = scale[size_t(g)] * (xs[size_t(g * 4 + i)] - mean) / std::sqrt(var + 0.001) + bias[size_t(g)];
                QVERIFY2(std::abs(y.data<float>()[size_t(g * 4 + i)] - expected) < 1e-5,
                    qPrintable(QString("group %1 element %2").arg(g).arg(i)));
            }
        }
        // Opset 21 wants one value per channel: the per-group form is an error there.
        const std::string error = errorOf(21, "float[1,4,2] x, float[2] s, float[2] b", "float[1,4,2] y",
            "y = GroupNormalization <num_groups = 2> (x, s, b)", in);
        QVERIFY2(error.find("[4]") != std::string::npos, error.c_str());
    }

    void lpPool18CeilModeAndDilations()
    {
        const std::map<std::string, Value> in { { "x",
            Value(Tensor::fromVector<float>({ 1, 2, 3, 4, 5 }, { 1, 1, 5 })) } };
        // Windows [1 2] [3 4] [5]: the last one exists only with ceil_mode.
        const Tensor ceil = runGraph(18, "float[1,1,5] x", "float[1,1,3] y",
            "y = LpPool <kernel_shape = [2], strides = [2], ceil_mode = 1, p = 2> (x)", in)
                                .at("y")
                                .tensor();
        QCOMPARE(ceil.shape(), (Shape { 1, 1, 3 }));
        QVERIFY(std::abs(ceil.data<float>()[0] - std::sqrt(5.0f)) < 1e-6f);
        QVERIFY(std::abs(ceil.data<float>()[1] - 5.0f) < 1e-6f);
        QVERIFY(std::abs(ceil.data<float>()[2] - 5.0f) < 1e-6f);
        const Tensor floor = runGraph(
            18, "float[1,1,5] x", "float[1,1,2] y", "y = LpPool <kernel_shape = [2], strides = [2], p = 2> (x)", in)
                                 .at("y")
                                 .tensor();
        QCOMPARE(floor.shape(), (Shape { 1, 1, 2 }));
        // Dilation 2: windows (1, 3), (2, 4), (3, 5).
        const Tensor dil = runGraph(
            18, "float[1,1,5] x", "float[1,1,3] y", "y = LpPool <kernel_shape = [2], dilations = [2], p = 2> (x)", in)
                               .at("y")
                               .tensor();
        QCOMPARE(dil.shape(), (Shape { 1, 1, 3 }));
        const float expected[] = { std::sqrt(10.0f), std::sqrt(20.0f), std::sqrt(34.0f) };
        for (int i = 0; i < 3; ++i)
            QVERIFY(std::abs(dil.data<float>()[size_t(i)] - expected[i]) < 1e-5f);
    }

    void dft20InverseRealOddLength()
    {
        // Three one-sided bins, dft_length 5: the full spectrum is X0, X1, X2, conj(X2), conj(X1), and
        // x[n] = 1/5 sum_k Re(X[k] exp(2 pi i k n / 5)) (the imaginary part of X0 plays no part).
        using C = std::complex<double>;
        const std::vector<C> half { { 4, 0.5 }, { 1, -2 }, { -0.5, 3 } };
        std::vector<float> packed;
        for (const C& c : half) {
            packed.push_back(float(c.real()));
            packed.push_back(float(c.imag()));
        }
        const std::map<std::string, Value> in { { "x", Value(Tensor::fromVector(packed, { 1, 3, 2 })) },
            { "n", Value(Tensor::scalar<int64_t>(5)) } };
        const Tensor y = runGraph(
            20, "float[1,3,2] x, int64 n", "float[1,5,1] y", "y = DFT <inverse = 1, onesided = 1> (x, n)", in)
                             .at("y")
                             .tensor();
        QCOMPARE(y.shape(), (Shape { 1, 5, 1 }));
        const std::vector<C> full { half[0], half[1], half[2], std::conj(half[2]), std::conj(half[1]) };
        for (int n = 0; n < 5; ++n) {
            double v = 0;
            for (int k = 0; k < 5; ++k)
                v += (full[size_t(k)] * std::polar(1.0, 2 * std::numbers::pi * k * n / 5)).real() / 5;
            QVERIFY2(std::abs(y.data<float>()[size_t(n)] - v) < 1e-5, qPrintable(QString("x[%1]").arg(n)));
        }
    }

    void stringSplitWhitespaceWithMaxsplit()
    {
        // Python: "  a b  c  ".split(None, 1) == ["a", "b  c  "]; "x".split(None, 1) == ["x"].
        const std::map<std::string, Value> in { { "x",
            Value(Tensor::fromVector<std::string>({ "  a b  c  ", "x" }, { 2 })) } };
        const auto out
            = runGraph(20, "string[2] x", "string[2,N] y, int64[2] z", "y, z = StringSplit <maxsplit = 1> (x)", in);
        const Tensor& y = out.at("y").tensor();
        QCOMPARE(y.shape(), (Shape { 2, 2 }));
        const std::vector<std::string> expected { "a", "b  c  ", "x", "" };
        for (size_t i = 0; i < expected.size(); ++i)
            QCOMPARE(y.data<std::string>()[i], expected[i]);
        QCOMPARE(out.at("z").tensor().data<int64_t>()[0], int64_t(2));
        QCOMPARE(out.at("z").tensor().data<int64_t>()[1], int64_t(1));
    }

    void range27Float16()
    {
        // float16 holds 1000 + k / 2 exactly: ceil((1010 - 1000) / 1.5) = 7 values 1000, 1001.5, ..., 1009.
        const std::map<std::string, Value> in { { "a", Value(Tensor::scalar(Float16(1000.0f))) },
            { "b", Value(Tensor::scalar(Float16(1010.0f))) }, { "c", Value(Tensor::scalar(Float16(1.5f))) } };
        const Tensor y = runGraph(27, "float16 a, float16 b, float16 c", "float16[N] y", "y = Range(a, b, c)", in)
                             .at("y")
                             .tensor();
        QCOMPARE(y.size(), int64_t(7));
        for (int i = 0; i < 7; ++i)
            QCOMPARE(static_cast<float>(y.data<Float16>()[size_t(i)]), 1000.0f + 1.5f * float(i));
    }

    void topK24BFloat16()
    {
        const std::map<std::string, Value> in {
            { "x", Value(Tensor::fromVector<BFloat16>({ BFloat16(3.0f), BFloat16(1.0f), BFloat16(2.0f) }, { 3 })) },
            { "k", Value(Tensor::vector1D<int64_t>({ 2 })) }
        };
        const auto out
            = runGraph(24, "bfloat16[3] x, int64[1] k", "bfloat16[2] v, int64[2] i", "v, i = TopK(x, k)", in);
        QCOMPARE(static_cast<float>(out.at("v").tensor().data<BFloat16>()[0]), 3.0f);
        QCOMPARE(static_cast<float>(out.at("v").tensor().data<BFloat16>()[1]), 2.0f);
        QCOMPARE(out.at("i").tensor().data<int64_t>()[0], int64_t(0));
        QCOMPARE(out.at("i").tensor().data<int64_t>()[1], int64_t(2));
    }
};

QTEST_APPLESS_MAIN(TestOpset18Plus)
#include "test_opset18_plus.moc"
