// SPDX-License-Identifier: MIT
// Resize (10, 13, 18) and Upsample against a naive reference written here straight from the spec's formulas and
// ONNX's reference implementation: for every output element, each axis maps its coordinate back
// (coordinate_transformation_mode), picks its neighbours the way onnx's interpolate_1d_with_x does (the n
// nearest indices of the edge-padded axis, ties to the lower index) with nearest/linear/cubic coefficients
// (exclude_outside renormalises), and the element is the sum over every combination of neighbours of the product
// of coefficients. Random shapes, scales and sizes with a fixed seed; a mismatch prints the case, the seed and the
// first bad index.
#include "engine/exec/session.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <random>
#include <sstream>

using namespace onnxscope;

namespace {

constexpr unsigned kSeed = 20240611;

struct Case {
    int64_t opset = 13;
    std::string mode = "nearest", coord = "half_pixel", nearest = "round_prefer_floor";
    double cubicA = -0.75;
    bool excludeOutside = false;
    double extrapolation = 0;
    Shape shape;
    std::vector<float> scales; // empty: sizes are used
    std::vector<int64_t> sizes;
    std::vector<float> roi;
    std::vector<int64_t> axes; // opset 18
    std::string policy = "stretch";
    bool antialias = false;

    std::string describe() const
    {
        std::ostringstream s;
        s << "opset=" << opset << " mode=" << mode << " coord=" << coord << " nearest_mode=" << nearest
          << " cubic_coeff_a=" << cubicA << " exclude_outside=" << excludeOutside << " shape=" << shapeToString(shape)
          << " scales=[";
        for (float v : scales)
            s << v << " ";
        s << "] sizes=" << shapeToString(sizes) << " roi=[";
        for (float v : roi)
            s << v << " ";
        s << "] axes=" << shapeToString(axes) << " policy=" << policy << " antialias=" << antialias
          << " seed=" << kSeed;
        return s.str();
    }
};

std::string dims(const Shape& s)
{
    std::string r;
    for (size_t i = 0; i < s.size(); ++i)
        r += (i ? "," : "") + std::to_string(s[i]);
    return r;
}

std::string symbolic(size_t rank)
{
    std::string r;
    for (size_t i = 0; i < rank; ++i)
        r += (i ? ",o" : "o") + std::to_string(i);
    return r;
}

Tensor runResize(const Case& c, const Tensor& x, const std::string& op = "Resize")
{
    std::ostringstream attrs;
    attrs << std::showpoint << "mode = \"" << c.mode << "\"";
    if (op == "Resize" && c.opset >= 11) {
        attrs << ", coordinate_transformation_mode = \"" << c.coord << "\", nearest_mode = \"" << c.nearest
              << "\", cubic_coeff_a = " << c.cubicA << ", exclude_outside = " << (c.excludeOutside ? 1 : 0)
              << ", extrapolation_value = " << c.extrapolation;
        if (c.opset >= 18) {
            attrs << ", keep_aspect_ratio_policy = \"" << c.policy << "\", antialias = " << (c.antialias ? 1 : 0);
            if (!c.axes.empty())
                attrs << ", axes = [" << dims(c.axes) << "]";
        }
    }
    std::string inputs = "float[" + dims(x.shape()) + "] x";
    std::string args = "x";
    std::map<std::string, Value> feeds { { "x", Value(x) } };
    if (op == "Upsample" || c.opset < 11) {
        inputs += ", float[" + std::to_string(c.scales.size()) + "] scales";
        args += ", scales";
        feeds["scales"] = Value(Tensor::vector1D(c.scales));
    } else {
        if (!c.roi.empty()) {
            inputs += ", float[" + std::to_string(c.roi.size()) + "] roi";
            args += ", roi";
            feeds["roi"] = Value(Tensor::vector1D(c.roi));
        } else {
            args += ", ";
        }
        if (!c.scales.empty()) {
            inputs += ", float[" + std::to_string(c.scales.size()) + "] scales";
            args += ", scales";
            feeds["scales"] = Value(Tensor::vector1D(c.scales));
        } else {
            inputs += ", int64[" + std::to_string(c.sizes.size()) + "] sizes";
            args += ", , sizes";
            feeds["sizes"] = Value(Tensor::vector1D(c.sizes));
        }
    }
    const std::string text = "<ir_version: 8, opset_import: [\"\" : " + std::to_string(c.opset) + "]>\nagraph ("
        + inputs + ") => (float[" + symbolic(x.shape().size()) + "] y) {\n y = " + op + " <" + attrs.str() + "> ("
        + args + ")\n}";
    Session session(std::make_shared<Program>(Model::fromText(text)));
    return session.run(feeds).at("y").tensor();
}

/// One axis of the reference: scale, output length, the unrounded resized length, roi.
struct RefAxis {
    double scale = 1, lengthF = 0, roiStart = 0, roiEnd = 1;
    int64_t out = 0;
};

double refCoordinate(const Case& c, const RefAxis& a, int64_t in, int64_t x, bool legacy)
{
    const double xr = double(x), len = double(in);
    if (legacy || c.coord == "asymmetric")
        return xr / a.scale;
    if (c.coord == "half_pixel")
        return (xr + 0.5) / a.scale - 0.5;
    if (c.coord == "pytorch_half_pixel")
        return a.out > 1 ? (xr + 0.5) / a.scale - 0.5 : 0.0;
    if (c.coord == "align_corners")
        return a.lengthF == 1 ? 0.0 : xr * (len - 1) / (a.lengthF - 1);
    if (c.coord == "tf_half_pixel_for_nn")
        return (xr + 0.5) / a.scale;
    // tf_crop_and_resize
    return a.lengthF > 1 ? a.roiStart * (len - 1) + xr * (a.roiEnd - a.roiStart) * (len - 1) / (a.lengthF - 1)
                         : 0.5 * (a.roiStart + a.roiEnd) * (len - 1);
}

/// (index into the axis, coefficient) pairs for output position x, or an empty list when x is outside the roi.
std::vector<std::pair<int64_t, double>> refTaps(const Case& c, const RefAxis& a, int64_t in, int64_t x, bool legacy)
{
    const double xo = refCoordinate(c, a, in, x, legacy);
    if (!legacy && c.coord == "tf_crop_and_resize" && (xo < 0 || xo > double(in - 1)))
        return {};
    if (legacy && c.mode == "nearest") {
        const int64_t i = int64_t(a.scale < 1 ? std::ceil(xo) : std::floor(xo));
        return { { std::clamp<int64_t>(i, 0, in - 1), 1.0 } };
    }
    const double ratio = xo == std::floor(xo) ? 1.0 : xo - std::floor(xo);
    std::vector<double> coeffs;
    if (c.mode == "nearest") {
        bool up;
        if (ratio == 1.0)
            up = true;
        else if (c.nearest == "round_prefer_floor")
            up = ratio > 0.5;
        else if (c.nearest == "round_prefer_ceil")
            up = ratio >= 0.5;
        else
            up = c.nearest == "ceil";
        coeffs = { up ? 0.0 : 1.0, up ? 1.0 : 0.0 };
    } else if (c.antialias) {
        // ONNX's reference (op_resize.py, opset 18): the kernel stretched by 1 / scale, normalised to sum 1.
        const double s = std::min(a.scale, 1.0), A = c.cubicA;
        const bool lin = c.mode == "linear";
        const int64_t start = int64_t(std::floor((lin ? -1.0 : -2.0) / s)) + 1, end = 2 - start;
        double sum = 0;
        for (int64_t i = start; i < end; ++i) {
            const double t = std::fabs(s * (double(i) - ratio));
            double k;
            if (lin)
                k = std::clamp(1 - t, 0.0, 1.0);
            else if (t <= 1)
                k = (A + 2) * t * t * t - (A + 3) * t * t + 1;
            else if (t < 2)
                k = A * t * t * t - 5 * A * t * t + 8 * A * t - 4 * A;
            else
                k = 0;
            coeffs.push_back(k);
            sum += k;
        }
        for (double& k : coeffs)
            k /= sum;
    } else if (c.mode == "linear") {
        coeffs = { 1 - ratio, ratio };
    } else {
        const double A = c.cubicA, r = ratio;
        coeffs = { ((A * (r + 1) - 5 * A) * (r + 1) + 8 * A) * (r + 1) - 4 * A, ((A + 2) * r - (A + 3)) * r * r + 1,
            ((A + 2) * (1 - r) - (A + 3)) * (1 - r) * (1 - r) + 1,
            ((A * ((1 - r) + 1) - 5 * A) * ((1 - r) + 1) + 8 * A) * ((1 - r) + 1) - 4 * A };
    }
    // onnx's get_neighbor: the n indices of the edge-padded axis nearest to x (ties: the lower), in order.
    const int64_t n = int64_t(coeffs.size()), pad = (n + 1) / 2;
    std::vector<int64_t> idx(size_t(in + 2 * pad));
    for (size_t i = 0; i < idx.size(); ++i)
        idx[i] = int64_t(i);
    const double xp = xo + double(pad);
    std::stable_sort(idx.begin(), idx.end(),
        [&](int64_t l, int64_t r) { return std::fabs(xp - double(l)) < std::fabs(xp - double(r)); });
    idx.resize(size_t(n));
    std::sort(idx.begin(), idx.end());
    std::vector<std::pair<int64_t, double>> taps;
    double sum = 0;
    for (int64_t k = 0; k < n; ++k) {
        const int64_t orig = idx[size_t(k)] - pad;
        double w = coeffs[size_t(k)];
        if (c.excludeOutside && (orig < 0 || orig >= in))
            w = 0;
        sum += w;
        taps.push_back({ std::clamp<int64_t>(orig, 0, in - 1), w });
    }
    if (c.excludeOutside)
        for (auto& t : taps)
            t.second /= sum;
    return taps;
}

Tensor reference(const Case& c, const Tensor& x, const std::vector<RefAxis>& axes, bool legacy)
{
    Shape outShape;
    for (const auto& a : axes)
        outShape.push_back(a.out);
    Tensor y(DataType::Float, outShape);
    const auto inStrides = stridesOf(x.shape());
    auto src = x.data<float>();
    auto dst = y.data<float>();
    const size_t rank = axes.size();
    std::vector<int64_t> pos(rank, 0);
    for (int64_t i = 0; i < y.size(); ++i) {
        int64_t rem = i;
        for (size_t d = rank; d-- > 0;) {
            pos[d] = rem % outShape[d];
            rem /= outShape[d];
        }
        std::vector<std::vector<std::pair<int64_t, double>>> taps(rank);
        bool outside = false;
        for (size_t d = 0; d < rank; ++d) {
            taps[d] = refTaps(c, axes[d], x.shape()[d], pos[d], legacy);
            outside = outside || taps[d].empty();
        }
        if (outside) {
            dst[size_t(i)] = float(c.extrapolation);
            continue;
        }
        // Every combination of one tap per axis.
        double value = 0;
        std::vector<size_t> pick(rank, 0);
        while (true) {
            double w = 1;
            int64_t off = 0;
            for (size_t d = 0; d < rank; ++d) {
                w *= taps[d][pick[d]].second;
                off += taps[d][pick[d]].first * inStrides[d];
            }
            value += w * double(src[size_t(off)]);
            size_t d = rank;
            while (d-- > 0) {
                if (++pick[d] < taps[d].size())
                    break;
                pick[d] = 0;
            }
            if (d == size_t(-1))
                break;
        }
        dst[size_t(i)] = float(value);
    }
    return y;
}

/// The axes of a case as the spec defines them (output size floor(in * scale) or the given sizes, or with
/// keep_aspect_ratio_policy one common scale and round(scale * in)).
std::vector<RefAxis> refAxes(const Case& c)
{
    const size_t rank = c.shape.size();
    std::vector<RefAxis> a(rank);
    std::vector<int64_t> axes = c.axes;
    if (axes.empty())
        for (size_t d = 0; d < rank; ++d)
            axes.push_back(int64_t(d));
    for (size_t d = 0; d < rank; ++d) {
        a[d].out = c.shape[d];
        a[d].lengthF = double(c.shape[d]);
    }
    const size_t n = axes.size();
    for (size_t i = 0; i < n && !c.roi.empty(); ++i) {
        a[size_t(axes[i])].roiStart = c.roi[i];
        a[size_t(axes[i])].roiEnd = c.roi[i + n];
    }
    double common = 0;
    for (size_t i = 0; i < n && c.policy != "stretch"; ++i) {
        const double r = double(c.sizes[i]) / double(c.shape[size_t(axes[i])]);
        common = i == 0 ? r : (c.policy == "not_larger" ? std::min(common, r) : std::max(common, r));
    }
    for (size_t i = 0; i < n; ++i) {
        RefAxis& r = a[size_t(axes[i])];
        const double in = double(c.shape[size_t(axes[i])]);
        if (!c.scales.empty()) {
            r.scale = c.scales[i];
            const double extent = c.coord == "tf_crop_and_resize" && c.opset >= 11 ? r.roiEnd - r.roiStart : 1.0;
            r.lengthF = in * extent * r.scale;
            r.out = int64_t(std::floor(r.lengthF));
        } else if (c.policy == "stretch") {
            r.out = c.sizes[i];
            r.scale = double(r.out) / in;
            r.lengthF = double(r.out);
        } else {
            r.scale = common;
            r.out = int64_t(std::nearbyint(common * in));
            r.lengthF = double(r.out);
        }
    }
    return a;
}

Tensor randomTensor(const Shape& shape, std::mt19937& rng)
{
    Tensor t(DataType::Float, shape);
    std::uniform_real_distribution<float> dist(-4.0f, 4.0f);
    for (float& v : t.data<float>())
        v = dist(rng);
    return t;
}

bool compare(const Tensor& got, const Tensor& want, const std::string& what)
{
    if (got.shape() != want.shape()) {
        qWarning("%s: shape %s, expected %s", what.c_str(), shapeToString(got.shape()).c_str(),
            shapeToString(want.shape()).c_str());
        return false;
    }
    auto g = got.data<float>();
    auto w = want.data<float>();
    for (size_t i = 0; i < g.size(); ++i)
        if (!(std::fabs(g[i] - w[i]) <= 1e-4f + 1e-4f * std::fabs(w[i]))) {
            qWarning("%s: first bad index %zu: %g, expected %g", what.c_str(), i, double(g[i]), double(w[i]));
            return false;
        }
    return true;
}

} // namespace

class TestResizeReference : public QObject {
    Q_OBJECT

private slots:
    void everyModeAndCoordinateTransformation()
    {
        std::mt19937 rng(kSeed);
        const char* coords[] = { "half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric",
            "tf_half_pixel_for_nn", "tf_crop_and_resize" };
        const char* nearests[] = { "round_prefer_floor", "round_prefer_ceil", "floor", "ceil" };
        int cases = 0;
        for (const char* coord : coords)
            for (int m = 0; m < 7; ++m) {
                for (int rep = 0; rep < 6; ++rep) {
                    Case c;
                    c.coord = coord;
                    if (m < 4) {
                        c.mode = "nearest";
                        c.nearest = nearests[m];
                    } else if (m == 4) {
                        c.mode = "linear";
                    } else {
                        c.mode = "cubic";
                        c.cubicA = m == 5 ? -0.75 : -0.5;
                        c.excludeOutside = m == 6;
                    }
                    if (std::string(coord) == "tf_half_pixel_for_nn" && c.mode != "nearest")
                        continue;
                    const int rank = 1 + int(rng() % 4);
                    for (int d = 0; d < rank; ++d)
                        c.shape.push_back(1 + int64_t(rng() % (rank > 2 ? 5 : 8)));
                    const bool useSizes = rep % 2 == 1;
                    for (int d = 0; d < rank; ++d) {
                        if (useSizes) {
                            c.sizes.push_back(1 + int64_t(rng() % 9));
                        } else {
                            // Quarter steps keep floor(in * scale) away from float rounding at the boundary.
                            float s = 0.25f * float(1 + rng() % 12);
                            if (s * float(c.shape[size_t(d)]) < 1)
                                s = 1;
                            c.scales.push_back(s);
                        }
                    }
                    if (c.coord == "tf_crop_and_resize") {
                        c.extrapolation = 7.5;
                        std::uniform_real_distribution<float> u(-0.3f, 0.6f), e(0.5f, 1.3f);
                        c.roi.resize(size_t(2 * rank));
                        for (int d = 0; d < rank; ++d) {
                            c.roi[size_t(d)] = u(rng);
                            c.roi[size_t(d + rank)] = e(rng);
                        }
                    }
                    const Tensor x = randomTensor(c.shape, rng);
                    const Tensor want = reference(c, x, refAxes(c), false);
                    Tensor got;
                    try {
                        got = runResize(c, x);
                    } catch (const Error& e) {
                        QFAIL((c.describe() + ": " + e.what()).c_str());
                    }
                    QVERIFY2(compare(got, want, c.describe()), c.describe().c_str());
                    ++cases;
                }
            }
        QVERIFY(cases > 200);
    }

    void legacyNearestAndLinear()
    {
        // Resize-10 and Upsample: asymmetric coordinates; nearest floors when upsampling an axis and (Resize-10)
        // ceils when downsampling it, as onnxruntime does.
        std::mt19937 rng(kSeed + 1);
        for (int rep = 0; rep < 40; ++rep) {
            Case c;
            c.opset = rep % 4 < 2 ? 10 : 9;
            const std::string op = c.opset == 10 ? "Resize" : "Upsample";
            c.mode = rep % 2 ? "linear" : "nearest";
            c.coord = "asymmetric";
            const int rank = 1 + int(rng() % 4);
            for (int d = 0; d < rank; ++d) {
                c.shape.push_back(1 + int64_t(rng() % 5));
                float s = 0.5f * float(2 + rng() % 6);
                if (op == "Resize" && rng() % 3 == 0)
                    s = 0.5f;
                c.scales.push_back(s);
            }
            for (int d = 0; d < rank; ++d)
                if (c.scales[size_t(d)] * float(c.shape[size_t(d)]) < 1)
                    c.scales[size_t(d)] = 1;
            const Tensor x = randomTensor(c.shape, rng);
            const Tensor want = reference(c, x, refAxes(c), true);
            const Tensor got = runResize(c, x, op);
            QVERIFY2(compare(got, want, op + " " + c.describe()), c.describe().c_str());
        }
    }

    void opset18AxesAndAspectRatio()
    {
        std::mt19937 rng(kSeed + 2);
        const char* policies[] = { "stretch", "not_larger", "not_smaller" };
        for (int rep = 0; rep < 36; ++rep) {
            Case c;
            c.opset = 18;
            c.mode = rep % 3 == 0 ? "nearest" : rep % 3 == 1 ? "linear" : "cubic";
            c.policy = policies[(rep / 3) % 3];
            c.shape = { 1 + int64_t(rng() % 3), 2 + int64_t(rng() % 5), 2 + int64_t(rng() % 5) };
            c.axes = rep % 2 ? std::vector<int64_t> { 1, 2 } : std::vector<int64_t> { -1, -2 };
            for (size_t i = 0; i < 2; ++i)
                c.sizes.push_back(1 + int64_t(rng() % 9));
            const Tensor x = randomTensor(c.shape, rng);
            Case ref = c;
            for (auto& a : ref.axes)
                a = a < 0 ? a + 3 : a;
            const Tensor want = reference(ref, x, refAxes(ref), false);
            const Tensor got = runResize(c, x);
            QVERIFY2(compare(got, want, c.describe()), c.describe().c_str());
        }
    }

    void opset18Antialias()
    {
        std::mt19937 rng(kSeed + 3);
        const char* coords[] = { "half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric" };
        for (int rep = 0; rep < 48; ++rep) {
            Case c;
            c.opset = 18;
            c.antialias = true;
            c.mode = rep % 2 ? "linear" : "cubic";
            c.coord = coords[(rep / 2) % 4];
            c.excludeOutside = rep % 16 >= 8;
            c.shape = { 1 + int64_t(rng() % 2), 3 + int64_t(rng() % 12), 3 + int64_t(rng() % 12) };
            if (rep % 3 == 0) {
                c.sizes = { c.shape[0], 1 + int64_t(rng() % 12), 1 + int64_t(rng() % 12) };
            } else {
                c.scales = { 1.0f, 0.125f * float(2 + rng() % 14), 0.125f * float(2 + rng() % 14) };
                for (size_t d = 1; d < 3; ++d)
                    if (c.scales[d] * float(c.shape[d]) < 1)
                        c.scales[d] = 1;
            }
            const Tensor x = randomTensor(c.shape, rng);
            const Tensor want = reference(c, x, refAxes(c), false);
            Tensor got;
            try {
                got = runResize(c, x);
            } catch (const Error& e) {
                QFAIL((c.describe() + ": " + e.what()).c_str());
            }
            QVERIFY2(compare(got, want, c.describe()), c.describe().c_str());
        }
    }

    void planarFloatLinearAndCubic()
    {
        // NCHW planes resized in their last two axes only (the float plane path): linear and cubic, every coordinate
        // mode but tf_crop_and_resize, up- and downsampling by scales or sizes, against the reference.
        std::mt19937 rng(kSeed + 4);
        const char* coords[] = { "half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric" };
        for (int rep = 0; rep < 32; ++rep) {
            Case c;
            c.opset = 13;
            c.mode = rep % 2 ? "linear" : "cubic";
            c.coord = coords[(rep / 2) % 4];
            c.excludeOutside = rep % 8 >= 6;
            c.shape
                = { 1 + int64_t(rng() % 2), 1 + int64_t(rng() % 4), 1 + int64_t(rng() % 20), 1 + int64_t(rng() % 40) };
            if (rep % 3 == 0) {
                c.sizes = { c.shape[0], c.shape[1], 1 + int64_t(rng() % 40), 1 + int64_t(rng() % 80) };
            } else {
                c.scales = { 1.0f, 1.0f, 0.25f * float(1 + rng() % 16), 0.25f * float(1 + rng() % 16) };
                for (size_t d = 2; d < 4; ++d)
                    if (c.scales[d] * float(c.shape[d]) < 1)
                        c.scales[d] = 1;
            }
            const Tensor x = randomTensor(c.shape, rng);
            const Tensor want = reference(c, x, refAxes(c), false);
            Tensor got;
            try {
                got = runResize(c, x);
            } catch (const Error& e) {
                QFAIL((c.describe() + ": " + e.what()).c_str());
            }
            QVERIFY2(compare(got, want, c.describe()), c.describe().c_str());
        }
    }

    void integerLinearRoundsAndSaturates()
    {
        // uint8 linear: computed in double, rounded half to even, saturated.
        const std::string text = R"(<ir_version: 8, opset_import: ["" : 13]>
agraph (uint8[1, 2] x, float[2] scales) => (uint8[a, b] y) {
  y = Resize <mode = "linear", coordinate_transformation_mode = "align_corners"> (x, , scales)
})";
        Session session(std::make_shared<Program>(Model::fromText(text)));
        const Tensor x = Tensor::fromVector<uint8_t>({ 0, 255 }, { 1, 2 });
        const Tensor y = session.run({ { "x", Value(x) }, { "scales", Value(Tensor::vector1D<float>({ 1, 2.5f })) } })
                             .at("y")
                             .tensor();
        QCOMPARE(y.shape(), (Shape { 1, 5 }));
        // positions 0, 0.25, 0.5, 0.75, 1 of [0, 255]: 0, 63.75, 127.5, 191.25, 255
        const std::vector<uint8_t> want { 0, 64, 128, 191, 255 };
        QCOMPARE(std::vector<uint8_t>(y.data<uint8_t>().begin(), y.data<uint8_t>().end()), want);
    }

    void errorsNameTheNode()
    {
        auto expectError = [](const std::string& node, const std::string& inputs,
                               const std::map<std::string, Value>& feeds, const std::string& fragment) {
            const std::string text = "<ir_version: 8, opset_import: [\"\" : 13]>\nagraph (" + inputs
                + ") => (float[a, b] y) {\n" + node + "\n}";
            try {
                Session session(std::make_shared<Program>(Model::fromText(text)));
                session.run(feeds);
            } catch (const Error& e) {
                const std::string msg = e.what();
                QVERIFY2(
                    msg.find("Resize") != std::string::npos && msg.find(fragment) != std::string::npos, msg.c_str());
                return;
            }
            QFAIL(("no error for " + node).c_str());
        };
        const Tensor x = Tensor::fromVector<float>({ 1, 2, 3, 4 }, { 2, 2 });
        expectError("y = Resize <mode = \"bogus\"> (x, , s)", "float[2, 2] x, float[2] s",
            { { "x", Value(x) }, { "s", Value(Tensor::vector1D<float>({ 1, 1 })) } }, "mode");
        expectError("y = Resize (x, , s)", "float[2, 2] x, float[2] s",
            { { "x", Value(x) }, { "s", Value(Tensor::vector1D<float>({ 1, 0 })) } }, "positive");
        expectError("y = Resize (x, , s)", "float[2, 2] x, float[3] s",
            { { "x", Value(x) }, { "s", Value(Tensor::vector1D<float>({ 1, 1, 1 })) } }, "expected 2");
        expectError("y = Resize (x, , s, z)", "float[2, 2] x, float[2] s, int64[2] z",
            { { "x", Value(x) }, { "s", Value(Tensor::vector1D<float>({ 1, 1 })) },
                { "z", Value(Tensor::vector1D<int64_t>({ 2, 2 })) } },
            "only one");
        expectError("y = Resize <mode = \"linear\", coordinate_transformation_mode = \"tf_crop_and_resize\"> (x, , s)",
            "float[2, 2] x, float[2] s", { { "x", Value(x) }, { "s", Value(Tensor::vector1D<float>({ 2, 2 })) } },
            "roi");
        expectError("y = Resize (x, , , z)", "float[2, 2] x, int64[2] z",
            { { "x", Value(x) }, { "z", Value(Tensor::vector1D<int64_t>({ 2, -1 })) } }, "negative");
        // An absurd size is an error naming the node, not an allocation failure.
        expectError("y = Resize <mode = \"linear\"> (x, , , z)", "float[2, 2] x, int64[2] z",
            { { "x", Value(x) }, { "z", Value(Tensor::vector1D<int64_t>({ int64_t(1) << 40, int64_t(1) << 40 })) } },
            "[1099511627776, 1099511627776]");
    }
};

QTEST_APPLESS_MAIN(TestResizeReference)
#include "test_resize_reference.moc"
