// SPDX-License-Identifier: MIT
// Conv and ConvTranspose against naive loops written here, over random 1-D/2-D/3-D shapes, strides, dilations,
// explicit and automatic pads, groups (including depthwise), bias, output_padding and output_shape; one case large
// enough that the im2col buffer is split into chunks; float16 and double; and errors that must name the node.
// The reference computes output sizes and pads from the ONNX spec's formulas. Fixed seed; a mismatch prints the
// parameters, the seed and the first bad index.
#include "engine/exec/session.h"

#include <QtTest>

#include <cmath>
#include <limits>
#include <random>
#include <sstream>

using namespace onnxscope;

namespace {

constexpr unsigned kSeed = 20240611;

std::string list(const std::vector<int64_t>& v)
{
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i)
        s += (i ? ", " : "") + std::to_string(v[i]);
    return s + "]";
}

std::string decl(const std::string& type, const Shape& shape)
{
    std::string s = type + "[";
    for (size_t i = 0; i < shape.size(); ++i)
        s += (i ? "," : "") + std::to_string(shape[i]);
    return s + "]";
}

Tensor runOp(const std::string& type, const std::string& node, const std::vector<std::pair<std::string, Tensor>>& ins,
    int64_t opset = 11)
{
    std::string inputs;
    std::map<std::string, Value> values;
    for (const auto& [name, t] : ins) {
        inputs += (inputs.empty() ? "" : ", ") + decl(type, t.shape()) + " " + name;
        values[name] = Value(t);
    }
    const std::string text = "<ir_version: 8, opset_import: [\"\" : " + std::to_string(opset) + "]>\nagraph (" + inputs
        + ") => (" + type + "[?] y) {\n" + node + "\n}";
    Session session(std::make_shared<Program>(Model::fromText(text)));
    return session.run(values).at("y").tensor();
}

Tensor randomTensor(std::mt19937& rng, const Shape& shape)
{
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    Tensor t(DataType::Float, shape);
    for (float& v : t.data<float>())
        v = dist(rng);
    return t;
}

/// Flat index of (n, c, spatial...) in a row-major [N, C, spatial...] tensor.
int64_t at(const Shape& shape, int64_t n, int64_t c, const std::vector<int64_t>& pos)
{
    int64_t i = n * shape[1] + c;
    for (size_t d = 0; d < pos.size(); ++d)
        i = i * shape[d + 2] + pos[d];
    return i;
}

/// Calls f(pos) for every multi-index in [0, dims).
template <class F> void forEach(const std::vector<int64_t>& dims, F f)
{
    int64_t total = 1;
    for (int64_t d : dims)
        total *= d;
    std::vector<int64_t> pos(dims.size(), 0);
    for (int64_t i = 0; i < total; ++i) {
        f(pos);
        for (size_t d = dims.size(); d-- > 0;) {
            if (++pos[d] < dims[d])
                break;
            pos[d] = 0;
        }
    }
}

struct ConvCase {
    int64_t n = 1, group = 1, cg = 1, mg = 1;
    Shape in, kernel, strides, dilations, pads; // pads: begins then ends
    std::string autoPad = "NOTSET";
    bool bias = false;
    std::string describe() const
    {
        std::ostringstream s;
        s << "N=" << n << " group=" << group << " C/g=" << cg << " M/g=" << mg << " in=" << list(in)
          << " kernel=" << list(kernel) << " strides=" << list(strides) << " dilations=" << list(dilations)
          << " pads=" << list(pads) << " auto_pad=" << autoPad << " bias=" << bias << " seed=" << kSeed;
        return s.str();
    }
};

/// The naive 7-loop convolution: output sizes and pads from the spec's formulas.
Tensor referenceConv(const ConvCase& k, const Tensor& x, const Tensor& w, const Tensor* b)
{
    const size_t r = k.in.size();
    std::vector<int64_t> out(r), pb(r);
    for (size_t i = 0; i < r; ++i) {
        const int64_t eff = (k.kernel[i] - 1) * k.dilations[i] + 1;
        if (k.autoPad == "NOTSET") {
            pb[i] = k.pads[i];
            out[i] = (k.in[i] + k.pads[i] + k.pads[i + r] - eff) / k.strides[i] + 1;
        } else if (k.autoPad == "VALID") {
            out[i] = (k.in[i] - eff) / k.strides[i] + 1;
        } else {
            out[i] = (k.in[i] + k.strides[i] - 1) / k.strides[i];
            const int64_t total = std::max<int64_t>(0, (out[i] - 1) * k.strides[i] + eff - k.in[i]);
            pb[i] = k.autoPad == "SAME_UPPER" ? total / 2 : (total + 1) / 2;
        }
    }
    const int64_t m = k.group * k.mg;
    Shape yShape { k.n, m };
    yShape.insert(yShape.end(), out.begin(), out.end());
    Tensor y(DataType::Float, yShape);
    auto yd = y.data<float>();
    auto xd = x.data<float>();
    auto wd = w.data<float>();
    for (int64_t n = 0; n < k.n; ++n)
        for (int64_t oc = 0; oc < m; ++oc)
            forEach(out, [&](const std::vector<int64_t>& o) {
                double sum = b ? b->data<float>()[static_cast<size_t>(oc)] : 0.0;
                const int64_t g = oc / k.mg;
                for (int64_t ic = 0; ic < k.cg; ++ic)
                    forEach(k.kernel, [&](const std::vector<int64_t>& kk) {
                        std::vector<int64_t> p(r);
                        for (size_t i = 0; i < r; ++i) {
                            p[i] = o[i] * k.strides[i] - pb[i] + kk[i] * k.dilations[i];
                            if (p[i] < 0 || p[i] >= k.in[i])
                                return;
                        }
                        sum += double(xd[static_cast<size_t>(at(x.shape(), n, g * k.cg + ic, p))])
                            * wd[static_cast<size_t>(at(w.shape(), oc, ic, kk))];
                    });
                yd[static_cast<size_t>(at(yShape, n, oc, o))] = static_cast<float>(sum);
            });
    return y;
}

/// First index where |a - b| > atol + rtol * |b|, or -1; also -1 only when the shapes agree.
int64_t firstMismatch(const Tensor& got, const Tensor& want, double atol, double rtol)
{
    if (got.shape() != want.shape())
        return -2;
    for (int64_t i = 0; i < got.size(); ++i) {
        const double a = got.toDouble(i), b = want.toDouble(i);
        if (!(std::abs(a - b) <= atol + rtol * std::abs(b)))
            return i;
    }
    return -1;
}

/// The failure message for firstMismatch's result; empty for -1 (QVERIFY2 builds its message even on success).
std::string mismatchText(const std::string& what, int64_t i, const Tensor& got, const Tensor& want)
{
    if (i == -1)
        return {};
    if (i == -2)
        return what + ": shape " + shapeToString(got.shape()) + ", expected " + shapeToString(want.shape());
    return what + ": first bad index " + std::to_string(i) + " got " + std::to_string(got.toDouble(i)) + " expected "
        + std::to_string(want.toDouble(i)) + " (shape " + shapeToString(want.shape()) + ")";
}

std::string convNode(const ConvCase& k, bool withBias)
{
    std::string attrs = "kernel_shape = " + list(k.kernel) + ", strides = " + list(k.strides)
        + ", dilations = " + list(k.dilations) + ", group = " + std::to_string(k.group);
    if (k.autoPad == "NOTSET")
        attrs += ", pads = " + list(k.pads);
    else
        attrs += ", auto_pad = \"" + k.autoPad + "\"";
    return "y = Conv <" + attrs + "> (x, w" + (withBias ? ", b" : "") + ")";
}

struct TransposeCase {
    int64_t n = 1, group = 1, cg = 1, mg = 1;
    Shape in, kernel, strides, dilations, pads, outputPadding, outputShape;
    std::string autoPad = "NOTSET";
    bool bias = false;
    std::string describe() const
    {
        std::ostringstream s;
        s << "N=" << n << " group=" << group << " C/g=" << cg << " M/g=" << mg << " in=" << list(in)
          << " kernel=" << list(kernel) << " strides=" << list(strides) << " dilations=" << list(dilations)
          << " pads=" << list(pads) << " output_padding=" << list(outputPadding)
          << " output_shape=" << list(outputShape) << " auto_pad=" << autoPad << " bias=" << bias << " seed=" << kSeed;
        return s.str();
    }
};

/// Naive scatter: every input element adds x * w to the output positions it reaches.
Tensor referenceTranspose(const TransposeCase& k, const Tensor& x, const Tensor& w, const Tensor* b)
{
    const size_t r = k.in.size();
    std::vector<int64_t> out(r), pb(r);
    for (size_t i = 0; i < r; ++i) {
        const int64_t full = k.strides[i] * (k.in[i] - 1) + k.outputPadding[i] + (k.kernel[i] - 1) * k.dilations[i] + 1;
        if (!k.outputShape.empty() || k.autoPad != "NOTSET") {
            out[i] = k.outputShape.empty() ? k.in[i] * k.strides[i] : k.outputShape[i];
            const int64_t total = full - out[i];
            const int64_t half = total >= 0 ? total / 2 : -((-total + 1) / 2); // floor(total / 2)
            pb[i] = k.autoPad == "SAME_UPPER" ? half : total - half;
        } else {
            pb[i] = k.pads[i];
            out[i] = full - k.pads[i] - k.pads[i + r];
        }
    }
    const int64_t m = k.group * k.mg;
    Shape yShape { k.n, m };
    yShape.insert(yShape.end(), out.begin(), out.end());
    std::vector<double> acc(static_cast<size_t>(elementCount(yShape)), 0.0);
    auto xd = x.data<float>();
    auto wd = w.data<float>();
    for (int64_t n = 0; n < k.n; ++n)
        for (int64_t ic = 0; ic < k.group * k.cg; ++ic)
            forEach(k.in, [&](const std::vector<int64_t>& p) {
                const double xv = xd[static_cast<size_t>(at(x.shape(), n, ic, p))];
                const int64_t g = ic / k.cg;
                for (int64_t om = 0; om < k.mg; ++om)
                    forEach(k.kernel, [&](const std::vector<int64_t>& kk) {
                        std::vector<int64_t> o(r);
                        for (size_t i = 0; i < r; ++i) {
                            o[i] = p[i] * k.strides[i] + kk[i] * k.dilations[i] - pb[i];
                            if (o[i] < 0 || o[i] >= out[i])
                                return;
                        }
                        acc[static_cast<size_t>(at(yShape, n, g * k.mg + om, o))]
                            += xv * wd[static_cast<size_t>(at(w.shape(), ic, om, kk))];
                    });
            });
    Tensor y(DataType::Float, yShape);
    for (int64_t n = 0; n < k.n; ++n)
        for (int64_t oc = 0; oc < m; ++oc)
            forEach(out, [&](const std::vector<int64_t>& o) {
                const auto i = static_cast<size_t>(at(yShape, n, oc, o));
                y.data<float>()[i]
                    = static_cast<float>(acc[i] + (b ? b->data<float>()[static_cast<size_t>(oc)] : 0.0f));
            });
    return y;
}

/// Draws X, W and B (in that order) for case `k`, runs a float Conv and compares it with the naive reference.
void checkFloatConv(std::mt19937& rng, const ConvCase& k)
{
    Shape xs { k.n, k.group * k.cg }, ws { k.group * k.mg, k.cg };
    xs.insert(xs.end(), k.in.begin(), k.in.end());
    ws.insert(ws.end(), k.kernel.begin(), k.kernel.end());
    const Tensor x = randomTensor(rng, xs), w = randomTensor(rng, ws);
    const Tensor b = randomTensor(rng, { k.group * k.mg });
    std::vector<std::pair<std::string, Tensor>> ins { { "x", x }, { "w", w } };
    if (k.bias)
        ins.push_back({ "b", b });
    Tensor got;
    try {
        got = runOp("float", convNode(k, k.bias), ins);
    } catch (const Error& e) {
        QFAIL((k.describe() + ": " + e.what()).c_str());
    }
    const Tensor want = referenceConv(k, x, w, k.bias ? &b : nullptr);
    const int64_t bad = firstMismatch(got, want, 1e-4, 1e-4);
    QVERIFY2(bad == -1, (k.describe() + " " + mismatchText("Conv", bad, got, want)).c_str());
}

} // namespace

class TestConvReference : public QObject {
    Q_OBJECT

private slots:
    void convRandomSweep()
    {
        std::mt19937 rng(kSeed);
        const auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
        const char* autoPads[] = { "NOTSET", "NOTSET", "VALID", "SAME_UPPER", "SAME_LOWER" };
        for (int iter = 0; iter < 300; ++iter) {
            ConvCase k;
            const size_t r = static_cast<size_t>(pick(1, 3));
            k.n = pick(1, 2);
            const int64_t shape = pick(0, 3);
            k.group = shape == 0 ? pick(2, 4) : pick(1, 3);
            k.cg = shape == 0 ? 1 : pick(1, 3); // shape 0: depthwise
            k.mg = pick(1, 3);
            k.autoPad = autoPads[pick(0, 4)];
            k.bias = pick(0, 1) == 1;
            for (size_t i = 0; i < r; ++i) {
                k.kernel.push_back(pick(1, 3));
                k.strides.push_back(pick(1, 3));
                k.dilations.push_back(pick(1, 2));
                k.in.push_back(pick((k.kernel[i] - 1) * k.dilations[i] + 1, r == 3 ? 6 : 9));
            }
            for (size_t i = 0; i < 2 * r; ++i)
                k.pads.push_back(pick(0, 2));
            checkFloatConv(rng, k);
            if (QTest::currentTestFailed())
                return;
        }
    }

    void convChunkedIm2col()
    {
        // 16 channels x 3x3 = 144 rows over 128x256 positions: more than one im2col chunk.
        std::mt19937 rng(kSeed + 1);
        ConvCase k;
        k.n = 1;
        k.cg = 16;
        k.mg = 4;
        k.in = { 128, 256 };
        k.kernel = { 3, 3 };
        k.strides = { 1, 1 };
        k.dilations = { 1, 1 };
        k.pads = { 1, 1, 1, 1 };
        k.bias = true;
        const Tensor x = randomTensor(rng, { 1, 16, 128, 256 }), w = randomTensor(rng, { 4, 16, 3, 3 });
        const Tensor b = randomTensor(rng, { 4 });
        const Tensor got = runOp("float", convNode(k, true), { { "x", x }, { "w", w }, { "b", b } });
        const Tensor want = referenceConv(k, x, w, &b);
        const int64_t bad = firstMismatch(got, want, 1e-4, 1e-4);
        QVERIFY2(bad == -1, (k.describe() + " " + mismatchText("Conv", bad, got, want)).c_str());
    }

    void convStrideOneSameWidth()
    {
        // Stride 1 with output rows as wide as the input's (pads across summing to the window's extent, split in
        // every way, even wider than the row): im2col copies whole shifted planes and pads the row edges afterwards.
        // Narrow rows, rows cut by im2col chunks, and 1..11 output channels for every row-tile remainder.
        std::mt19937 rng(kSeed + 3);
        const auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
        for (int iter = 0; iter < 120; ++iter) {
            ConvCase k;
            const bool oneD = iter % 5 == 4, chunked = iter % 10 == 3;
            k.n = pick(1, 2);
            k.group = iter % 7 == 0 ? 2 : 1;
            k.cg = chunked ? 40 : pick(1, 5);
            k.mg = pick(1, 11);
            k.bias = pick(0, 1) == 1;
            const int64_t kw = pick(1, 5), dw = pick(1, 2), extent = (kw - 1) * dw;
            const int64_t padLeft = pick(0, extent), width = chunked ? 3 : pick(1, 9);
            if (oneD) {
                k.in = { pick(1, 40) };
                k.kernel = { kw };
                k.strides = { 1 };
                k.dilations = { dw };
                k.pads = { padLeft, extent - padLeft };
            } else {
                const int64_t kh = pick(1, 4), dh = pick(1, 2);
                const int64_t top = pick(0, 2), bottom = pick(0, 2);
                const int64_t height = chunked ? 300 : pick(std::max<int64_t>(1, (kh - 1) * dh + 1 - top - bottom), 12);
                k.in = { height, width };
                k.kernel = { kh, kw };
                k.strides = { 1, 1 };
                k.dilations = { dh, dw };
                k.pads = { top, padLeft, bottom, extent - padLeft };
            }
            checkFloatConv(rng, k);
            if (QTest::currentTestFailed())
                return;
        }
    }

    void convTapsThatReadOnlyPadding()
    {
        // Dilations and pads so large against small inputs that some taps read only padding, which the kernel skips
        // (the live taps form a smaller kernel): 1-D and 2-D, strided, grouped and depthwise, many output channels.
        std::mt19937 rng(kSeed + 5);
        const auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
        for (int iter = 0; iter < 80; ++iter) {
            ConvCase k;
            const size_t r = static_cast<size_t>(pick(1, 2));
            k.n = pick(1, 2);
            const bool depthwise = iter % 5 == 0;
            k.group = depthwise ? pick(2, 5) : pick(1, 2);
            k.cg = depthwise ? 1 : pick(1, 6);
            k.mg = depthwise ? 1 : pick(1, 20);
            k.bias = pick(0, 1) == 1;
            for (size_t i = 0; i < r; ++i) {
                k.in.push_back(pick(1, 8));
                k.kernel.push_back(pick(2, 5));
                k.strides.push_back(pick(1, 2));
                k.dilations.push_back(pick(k.in[i], 3 * k.in[i] + 2));
            }
            k.pads.resize(2 * r);
            for (size_t i = 0; i < r; ++i) {
                const int64_t extent = (k.kernel[i] - 1) * k.dilations[i] + 1;
                k.pads[i] = pick(0, extent);
                k.pads[i + r] = std::max<int64_t>(0, extent - k.in[i] - k.pads[i]) + pick(0, 2);
            }
            checkFloatConv(rng, k);
            if (QTest::currentTestFailed())
                return;
        }
    }

    void infiniteWeightsOnPaddingGiveNaN()
    {
        // The padding is zeros, and an infinite weight times zero is NaN (as onnxruntime and numpy's padded
        // reference give): a tap that reads only padding is not skipped when one of its weights is not finite.
        ConvCase k;
        k.in = { 4, 4 };
        k.kernel = { 3, 3 };
        k.strides = { 1, 1 };
        k.dilations = { 5, 5 };
        k.pads = { 5, 5, 5, 5 };
        k.cg = 2;
        k.mg = 3;
        std::mt19937 rng(kSeed + 6);
        const Tensor x = randomTensor(rng, { 1, 2, 4, 4 });
        Tensor w = randomTensor(rng, { 3, 2, 3, 3 });
        w.data<float>()[static_cast<size_t>(((1 * 2 + 1) * 3 + 0) * 3 + 2)] = std::numeric_limits<float>::infinity();
        const Tensor got = runOp("float", convNode(k, false), { { "x", x }, { "w", w } });
        QCOMPARE(got.shape(), (Shape { 1, 3, 4, 4 }));
        for (int64_t i = 0; i < got.size(); ++i) {
            const bool channel1 = i / 16 == 1;
            QVERIFY2(std::isnan(got.data<float>()[static_cast<size_t>(i)]) == channel1, std::to_string(i).c_str());
        }
        // The finite channels equal the reference without the dead taps.
        Tensor finite = w;
        finite.data<float>()[static_cast<size_t>(((1 * 2 + 1) * 3 + 0) * 3 + 2)] = 0.0f;
        const Tensor want = referenceConv(k, x, finite, nullptr);
        for (int64_t i = 0; i < got.size(); ++i)
            if (i / 16 != 1)
                QVERIFY(std::abs(got.data<float>()[static_cast<size_t>(i)] - want.data<float>()[static_cast<size_t>(i)])
                    <= 1e-4f);
    }

    void convOtherTypes()
    {
        std::mt19937 rng(kSeed + 2);
        ConvCase k;
        k.n = 2;
        k.group = 2;
        k.cg = 2;
        k.mg = 2;
        k.in = { 5, 6 };
        k.kernel = { 3, 2 };
        k.strides = { 2, 1 };
        k.dilations = { 1, 2 };
        k.pads = { 1, 0, 2, 1 };
        const Tensor x = randomTensor(rng, { 2, 4, 5, 6 }), w = randomTensor(rng, { 4, 2, 3, 2 });
        const Tensor want = referenceConv(k, x, w, nullptr);
        for (DataType type : { DataType::Double, DataType::Float16, DataType::BFloat16 }) {
            const std::string name(dataTypeName(type));
            auto probe = Model::fromText("<ir_version: 8, opset_import: [\"\" : 13]>\nagraph (float[a] x) => (" + name
                + "[a] y) { y = Cast <to = " + std::to_string(int(type)) + "> (x) }");
            Session cast(std::make_shared<Program>(probe));
            const Tensor xt
                = cast.run({ { "x", Value(x.reshaped({ x.size() })) } }).at("y").tensor().reshaped(x.shape());
            const Tensor wt
                = cast.run({ { "x", Value(w.reshaped({ w.size() })) } }).at("y").tensor().reshaped(w.shape());
            const Tensor got = runOp(name, convNode(k, false), { { "x", xt }, { "w", wt } });
            const double tol = type == DataType::Double ? 1e-6 : type == DataType::Float16 ? 2e-2 : 1e-1;
            const int64_t bad = firstMismatch(got, want, tol, tol);
            QVERIFY2(bad == -1, (k.describe() + " type " + name + " " + mismatchText("Conv", bad, got, want)).c_str());
        }
    }

    void convTransposeRandomSweep()
    {
        std::mt19937 rng(kSeed + 3);
        const auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
        for (int iter = 0; iter < 300; ++iter) {
            TransposeCase k;
            const size_t r = static_cast<size_t>(pick(1, 3));
            k.n = pick(1, 2);
            k.group = pick(1, 3);
            k.cg = pick(1, 3);
            k.mg = pick(1, 3);
            k.bias = pick(0, 1) == 1;
            const int64_t mode = pick(0, 4); // 0-1 pads, 2 output_shape, 3 SAME_UPPER, 4 SAME_LOWER
            if (mode == 3)
                k.autoPad = "SAME_UPPER";
            else if (mode == 4)
                k.autoPad = "SAME_LOWER";
            for (size_t i = 0; i < r; ++i) {
                k.kernel.push_back(pick(1, 3));
                k.strides.push_back(pick(1, 3));
                k.dilations.push_back(pick(1, 2));
                k.in.push_back(pick(1, r == 3 ? 4 : 6));
                k.outputPadding.push_back(pick(0, std::max(k.strides[i], k.dilations[i]) - 1));
            }
            for (size_t i = 0; i < 2 * r; ++i)
                k.pads.push_back(pick(0, 1));
            for (size_t i = 0; i < r; ++i)
                k.pads[i] = std::min(k.pads[i], (k.kernel[i] - 1) * k.dilations[i]); // keep outputs non-empty
            if (mode == 2)
                for (size_t i = 0; i < r; ++i)
                    k.outputShape.push_back(
                        std::max<int64_t>(1, k.strides[i] * (k.in[i] - 1) + k.kernel[i] + pick(-2, 2)));
            Shape xs { k.n, k.group * k.cg }, ws { k.group * k.cg, k.mg };
            xs.insert(xs.end(), k.in.begin(), k.in.end());
            ws.insert(ws.end(), k.kernel.begin(), k.kernel.end());
            const Tensor x = randomTensor(rng, xs), w = randomTensor(rng, ws),
                         b = randomTensor(rng, { k.group * k.mg });
            std::string attrs = "kernel_shape = " + list(k.kernel) + ", strides = " + list(k.strides)
                + ", dilations = " + list(k.dilations) + ", group = " + std::to_string(k.group)
                + ", output_padding = " + list(k.outputPadding);
            if (mode < 2)
                attrs += ", pads = " + list(k.pads);
            else if (mode == 2)
                attrs += ", output_shape = " + list(k.outputShape);
            else
                attrs += ", auto_pad = \"" + k.autoPad + "\"";
            std::vector<std::pair<std::string, Tensor>> ins { { "x", x }, { "w", w } };
            if (k.bias)
                ins.push_back({ "b", b });
            Tensor got;
            try {
                got = runOp("float", "y = ConvTranspose <" + attrs + "> (x, w" + (k.bias ? ", b)" : ")"), ins);
            } catch (const Error& e) {
                QFAIL((k.describe() + ": " + e.what()).c_str());
            }
            const Tensor want = referenceTranspose(k, x, w, k.bias ? &b : nullptr);
            const int64_t bad = firstMismatch(got, want, 1e-4, 1e-4);
            QVERIFY2(bad == -1, (k.describe() + " " + mismatchText("ConvTranspose", bad, got, want)).c_str());
        }
    }

    // Kernel equal to the stride without padding (the upsampling of detection heads): each output element is one tap,
    // a path of its own. 1-D, 2-D (square and not), groups, bias or not, with 3-D depth 1 taps, and one image large
    // enough to be split into several chunks of input positions.
    void convTransposeKernelEqualsStride()
    {
        std::mt19937 rng(kSeed + 5);
        struct Shapes {
            int64_t n, group, cg, mg;
            Shape in, kernel;
            bool bias;
        };
        const Shapes cases[] = {
            { 1, 1, 24, 24, { 16, 20 }, { 2, 2 }, true },
            { 1, 1, 24, 1, { 9, 7 }, { 2, 2 }, true },
            { 2, 3, 2, 3, { 5, 6 }, { 3, 2 }, false },
            { 1, 1, 4, 5, { 17 }, { 4 }, true },
            { 1, 2, 3, 2, { 2, 3, 4 }, { 1, 2, 2 }, true },
            { 1, 1, 2, 1, { 260, 261 }, { 2, 2 }, true },
            { 1, 1, 1, 3, { 1, 1 }, { 1, 1 }, false },
        };
        for (const Shapes& c : cases) {
            TransposeCase k;
            k.n = c.n;
            k.group = c.group;
            k.cg = c.cg;
            k.mg = c.mg;
            k.bias = c.bias;
            k.in = c.in;
            k.kernel = c.kernel;
            k.strides = c.kernel;
            k.dilations = Shape(c.in.size(), 1);
            k.pads = Shape(2 * c.in.size(), 0);
            k.outputPadding = Shape(c.in.size(), 0);
            Shape xs { k.n, k.group * k.cg }, ws { k.group * k.cg, k.mg };
            xs.insert(xs.end(), k.in.begin(), k.in.end());
            ws.insert(ws.end(), k.kernel.begin(), k.kernel.end());
            const Tensor x = randomTensor(rng, xs), w = randomTensor(rng, ws),
                         b = randomTensor(rng, { k.group * k.mg });
            const std::string attrs = "kernel_shape = " + list(k.kernel) + ", strides = " + list(k.strides)
                + ", group = " + std::to_string(k.group);
            std::vector<std::pair<std::string, Tensor>> ins { { "x", x }, { "w", w } };
            if (k.bias)
                ins.push_back({ "b", b });
            const Tensor got = runOp("float", "y = ConvTranspose <" + attrs + "> (x, w" + (k.bias ? ", b)" : ")"), ins);
            const Tensor want = referenceTranspose(k, x, w, k.bias ? &b : nullptr);
            const int64_t bad = firstMismatch(got, want, 1e-4, 1e-4);
            QVERIFY2(bad == -1, (k.describe() + " " + mismatchText("ConvTranspose", bad, got, want)).c_str());
        }
    }

    void errorsNameTheNode()
    {
        const Tensor x(DataType::Float, { 1, 4, 5, 5 }), w(DataType::Float, { 2, 3, 3, 3 });
        const auto errorOf = [&](const std::string& node, const Tensor& xt, const Tensor& wt) {
            try {
                runOp("float", node, { { "x", xt }, { "w", wt } });
            } catch (const Error& e) {
                return std::string(e.what());
            }
            return std::string();
        };
        std::string e = errorOf("y = Conv (x, w)", x, w);
        QVERIFY2(e.find("(Conv)") != std::string::npos && e.find("group") != std::string::npos, e.c_str());
        e = errorOf("y = Conv <pads = [1, 1]> (x, w)", x, Tensor(DataType::Float, { 2, 4, 3, 3 }));
        QVERIFY2(e.find("(Conv)") != std::string::npos && e.find("'pads'") != std::string::npos, e.c_str());
        e = errorOf("y = Conv <strides = [0, 1]> (x, w)", x, Tensor(DataType::Float, { 2, 4, 3, 3 }));
        QVERIFY2(e.find("(Conv)") != std::string::npos && e.find("'strides'") != std::string::npos, e.c_str());
        e = errorOf("y = Conv (x, w)", x, Tensor(DataType::Float, { 2, 4, 7, 3 }));
        QVERIFY2(e.find("(Conv)") != std::string::npos && e.find("does not fit") != std::string::npos, e.c_str());
        e = errorOf("y = ConvTranspose <group = 3> (x, w)", x, Tensor(DataType::Float, { 4, 2, 3, 3 }));
        QVERIFY2(e.find("(ConvTranspose)") != std::string::npos, e.c_str());
        e = errorOf("y = Conv <pads = [9223372036854775807, 0, 9223372036854775807, 0]> (x, w)", x,
            Tensor(DataType::Float, { 2, 4, 3, 3 }));
        QVERIFY2(e.find("(Conv)") != std::string::npos && e.find("overflow") != std::string::npos, e.c_str());
    }
};

QTEST_APPLESS_MAIN(TestConvReference)
#include "test_conv_reference.moc"
