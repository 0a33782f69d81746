// SPDX-License-Identifier: MIT
// DFT and STFT against a naive O(n^2) DFT written here (X[k] = sum_n x[n] exp(-+2 pi i k n / N), 1/N for the
// inverse), over odd, prime, even and power-of-two lengths, real and complex inputs, every axis, dft_length
// padding and cropping, onesided and inverse; the window functions against their cosine formulas. Fixed seed; a
// mismatch prints the case, the seed and the first bad index.
#include "engine/exec/session.h"

#include <QtTest>

#include <cmath>
#include <complex>
#include <numbers>
#include <random>
#include <sstream>

using namespace onnxscope;

namespace {

constexpr unsigned kSeed = 4242;
using C = std::complex<double>;

std::string dims(const Shape& s)
{
    std::string r;
    for (size_t i = 0; i < s.size(); ++i)
        r += (i ? "," : "") + std::to_string(s[i]);
    return r;
}

std::vector<C> naiveDft(const std::vector<C>& x, int64_t n, bool inverse)
{
    std::vector<C> out(static_cast<size_t>(n));
    const double sign = inverse ? 1.0 : -1.0;
    for (int64_t k = 0; k < n; ++k) {
        C acc = 0;
        for (int64_t j = 0; j < n; ++j) {
            const C v = j < int64_t(x.size()) ? x[size_t(j)] : C(0);
            // Reduce k * j mod n first so the angle stays exact for large products.
            const double angle = sign * 2 * std::numbers::pi * double((k * j) % n) / double(n);
            acc += v * C(std::cos(angle), std::sin(angle));
        }
        out[size_t(k)] = inverse ? acc / double(n) : acc;
    }
    return out;
}

struct DftCase {
    Shape shape; // including the last dim (1 or 2)
    int64_t axis = 1;
    int64_t dftLength = 0; // 0: not given
    bool inverse = false, onesided = false;
    bool useDouble = false;
    std::string describe() const
    {
        std::ostringstream s;
        s << "shape=" << shapeToString(shape) << " axis=" << axis << " dft_length=" << dftLength
          << " inverse=" << inverse << " onesided=" << onesided << " double=" << useDouble << " seed=" << kSeed;
        return s.str();
    }
};

Tensor runDft(const DftCase& c, const Tensor& x)
{
    const std::string type = c.useDouble ? "double" : "float";
    std::string inputs = type + "[" + dims(c.shape) + "] x";
    std::string args = "x";
    std::map<std::string, Value> feeds { { "x", Value(x) } };
    if (c.dftLength > 0) {
        inputs += ", int64 n";
        args += ", n";
        feeds["n"] = Value(Tensor::scalar<int64_t>(c.dftLength));
    }
    std::ostringstream text;
    text << "<ir_version: 8, opset_import: [\"\" : 17]>\nagraph (" << inputs << ") => (" << type
         << "[a, b, c, d] y) {\n y = DFT <axis = " << c.axis << ", inverse = " << c.inverse
         << ", onesided = " << c.onesided << "> (" << args << ")\n}";
    Session session(std::make_shared<Program>(Model::fromText(text.str())));
    return session.run(feeds).at("y").tensor();
}

/// The expected output: the naive DFT of every line along `axis`, as [..., 2].
std::vector<double> referenceDft(const DftCase& c, const std::vector<C>& x, Shape& outShape)
{
    Shape sig(c.shape.begin(), c.shape.end() - 1);
    const int64_t len = sig[size_t(c.axis)];
    const int64_t n = c.dftLength > 0 ? c.dftLength : len;
    const int64_t keep = c.onesided ? n / 2 + 1 : n;
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < c.axis; ++d)
        outer *= sig[size_t(d)];
    for (size_t d = size_t(c.axis) + 1; d < sig.size(); ++d)
        inner *= sig[d];
    outShape = sig;
    outShape[size_t(c.axis)] = keep;
    outShape.push_back(2);
    std::vector<double> out(size_t(outer * keep * inner * 2));
    for (int64_t o = 0; o < outer; ++o)
        for (int64_t i = 0; i < inner; ++i) {
            std::vector<C> line;
            for (int64_t k = 0; k < std::min(len, n); ++k)
                line.push_back(x[size_t((o * len + k) * inner + i)]);
            const auto f = naiveDft(line, n, c.inverse);
            for (int64_t k = 0; k < keep; ++k) {
                const size_t at = size_t(((o * keep + k) * inner + i) * 2);
                out[at] = f[size_t(k)].real();
                out[at + 1] = f[size_t(k)].imag();
            }
        }
    return out;
}

bool close(double got, double want, double tol)
{
    return std::fabs(got - want) <= tol * (1 + std::fabs(want));
}

} // namespace

class TestSignalReference : public QObject {
    Q_OBJECT

private slots:
    void dftAgainstNaive()
    {
        std::mt19937 rng(kSeed);
        std::uniform_real_distribution<double> u(-1, 1);
        const int64_t lengths[] = { 1, 2, 3, 5, 7, 8, 12, 13, 16, 31, 45, 64, 97, 100, 127, 210 };
        int cases = 0;
        for (int64_t len : lengths)
            for (int variant = 0; variant < 8; ++variant) {
                DftCase c;
                const bool complex = variant & 1;
                c.inverse = (variant & 2) && complex;
                c.onesided = !c.inverse && (variant & 4) && !complex;
                c.useDouble = variant % 3 == 0;
                // Signal dims: [batch, a, b]; the transformed axis has length `len`.
                c.axis = 1 + int64_t(rng() % 2);
                c.shape = { 1 + int64_t(rng() % 2), 1 + int64_t(rng() % 3), 1 + int64_t(rng() % 3), complex ? 2 : 1 };
                c.shape[size_t(c.axis)] = len;
                if (variant & 4 && complex)
                    c.dftLength = len + 1 + int64_t(rng() % 5); // zero padding
                else if (variant == 6 && len > 2)
                    c.dftLength = len - 1; // cropping
                std::vector<C> x(size_t(elementCount(c.shape) / c.shape.back()));
                for (auto& v : x)
                    v = C(u(rng), complex ? u(rng) : 0.0);
                Tensor in(c.useDouble ? DataType::Double : DataType::Float, c.shape);
                for (size_t i = 0; i < x.size(); ++i) {
                    for (int part = 0; part < (complex ? 2 : 1); ++part) {
                        const double v = part ? x[i].imag() : x[i].real();
                        const size_t at = i * (complex ? 2 : 1) + size_t(part);
                        if (c.useDouble)
                            in.data<double>()[at] = v;
                        else
                            in.data<float>()[at] = float(v);
                    }
                    if (!c.useDouble) // the reference sees what the kernel sees
                        x[i] = C(double(float(x[i].real())), double(float(x[i].imag())));
                }
                Shape wantShape;
                const auto want = referenceDft(c, x, wantShape);
                Tensor got;
                try {
                    got = runDft(c, in);
                } catch (const Error& e) {
                    QFAIL((c.describe() + ": " + e.what()).c_str());
                }
                QVERIFY2(got.shape() == wantShape,
                    (c.describe() + ": shape " + shapeToString(got.shape()) + " vs " + shapeToString(wantShape))
                        .c_str());
                const double tol = c.useDouble ? 1e-9 : 2e-5 * std::sqrt(double(len));
                for (size_t i = 0; i < want.size(); ++i) {
                    const double g = c.useDouble ? got.data<double>()[i] : double(got.data<float>()[i]);
                    if (!close(g, want[i], tol))
                        QFAIL((c.describe() + ": first bad index " + std::to_string(i) + ": " + std::to_string(g)
                            + " vs " + std::to_string(want[i]))
                                  .c_str());
                }
                ++cases;
            }
        QVERIFY(cases == 16 * 8);
    }

    void stftAgainstNaive()
    {
        std::mt19937 rng(kSeed + 1);
        std::uniform_real_distribution<double> u(-1, 1);
        for (int rep = 0; rep < 12; ++rep) {
            const int64_t length = 20 + int64_t(rng() % 60), frame = 3 + int64_t(rng() % 15),
                          step = 1 + int64_t(rng() % 7);
            const bool onesided = rep % 2 == 0, withWindow = rep % 3 != 0;
            Tensor signal(DataType::Float, { 2, length, 1 });
            for (float& v : signal.data<float>())
                v = float(u(rng));
            Tensor window(DataType::Float, { frame });
            for (float& v : window.data<float>())
                v = withWindow ? float(u(rng)) : 1.0f;
            std::ostringstream text;
            text << "<ir_version: 8, opset_import: [\"\" : 17]>\nagraph (float[2, " << length
                 << ", 1] s, int64 step, float[" << frame << "] w, int64 len) => (float[a, b, c, d] y) {\n"
                 << " y = STFT <onesided = " << onesided << "> (s, step, " << (withWindow ? "w" : "") << ", len)\n}";
            Session session(std::make_shared<Program>(Model::fromText(text.str())));
            const Tensor y = session
                                 .run({ { "s", Value(signal) }, { "step", Value(Tensor::scalar<int64_t>(step)) },
                                     { "w", Value(window) }, { "len", Value(Tensor::scalar<int64_t>(frame)) } })
                                 .at("y")
                                 .tensor();
            const int64_t frames = (length - frame) / step + 1, bins = onesided ? frame / 2 + 1 : frame;
            const std::string what = "length=" + std::to_string(length) + " frame=" + std::to_string(frame) + " step="
                + std::to_string(step) + " onesided=" + std::to_string(onesided) + " seed=" + std::to_string(kSeed);
            QVERIFY2(y.shape() == (Shape { 2, frames, bins, 2 }), (what + " " + y.typeString()).c_str());
            for (int64_t b = 0; b < 2; ++b)
                for (int64_t f = 0; f < frames; ++f) {
                    std::vector<C> x;
                    for (int64_t k = 0; k < frame; ++k)
                        x.push_back(double(signal.data<float>()[size_t(b * length + f * step + k)])
                            * double(window.data<float>()[size_t(k)]));
                    const auto want = naiveDft(x, frame, false);
                    for (int64_t k = 0; k < bins; ++k)
                        for (int part = 0; part < 2; ++part) {
                            const size_t at = size_t((((b * frames + f) * bins + k) * 2) + part);
                            const double w = part ? want[size_t(k)].imag() : want[size_t(k)].real();
                            QVERIFY2(close(double(y.data<float>()[at]), w, 1e-5),
                                (what + ": first bad index " + std::to_string(at)).c_str());
                        }
                }
        }
    }

    void windowsMatchTheirFormulas()
    {
        struct W {
            const char* op;
            double a0, a1, a2;
        };
        const W windows[] = { { "HannWindow", 0.5, 0.5, 0 }, { "HammingWindow", 25.0 / 46, 21.0 / 46, 0 },
            { "BlackmanWindow", 0.42, 0.5, 0.08 } };
        for (const W& w : windows)
            for (int periodic = 0; periodic < 2; ++periodic)
                for (int64_t size : { 1, 2, 7, 10, 64 }) {
                    std::ostringstream text;
                    text << "<ir_version: 8, opset_import: [\"\" : 17]>\nagraph (int64 n) => (double[a] y) {\n y = "
                         << w.op << " <periodic = " << periodic << ", output_datatype = 11> (n)\n}";
                    Session session(std::make_shared<Program>(Model::fromText(text.str())));
                    const Tensor y = session.run({ { "n", Value(Tensor::scalar<int64_t>(size)) } }).at("y").tensor();
                    QCOMPARE(y.shape(), (Shape { size }));
                    const double N = double(periodic ? size : size - 1);
                    for (int64_t i = 0; i < size; ++i) {
                        const double x = 2 * std::numbers::pi * double(i) / N;
                        const double want = N > 0 ? w.a0 - w.a1 * std::cos(x) + w.a2 * std::cos(2 * x) : 1.0;
                        QVERIFY2(close(y.data<double>()[size_t(i)], want, 1e-12),
                            (std::string(w.op) + " size=" + std::to_string(size)
                                + " periodic=" + std::to_string(periodic) + " index " + std::to_string(i))
                                .c_str());
                    }
                }
    }

    void errorsNameTheNode()
    {
        const std::string text = R"(<ir_version: 8, opset_import: ["" : 17]>
agraph (float[1, 4, 3] x) => (float[a, b, c, d] y) {
  y = DFT <axis = 1> (x)
})";
        try {
            Session session(std::make_shared<Program>(Model::fromText(text)));
            session.run({ { "x", Value(Tensor(DataType::Float, { 1, 4, 3 })) } });
            QFAIL("a last dimension of 3 was accepted");
        } catch (const Error& e) {
            const std::string msg = e.what();
            QVERIFY2(msg.find("DFT") != std::string::npos && msg.find("1 (real) or 2 (complex)") != std::string::npos,
                msg.c_str());
        }
    }
};

QTEST_APPLESS_MAIN(TestSignalReference)
#include "test_signal_reference.moc"
