// SPDX-License-Identifier: MIT
// NonMaxSuppression against a naive greedy selection written here from the spec, GridSample (bilinear and nearest,
// zeros and border padding, both align_corners) against the sampling formulas, and robustness of GridSample,
// RoiAlign and NonMaxSuppression on hostile data (NaN/inf coordinates, out-of-range batch indices). Fixed seed; a
// mismatch prints the case, the seed and the first bad index.
#include "engine/exec/session.h"

#include <QtTest>

#include <cmath>
#include <random>
#include <sstream>

using namespace onnxscope;

namespace {

constexpr unsigned kSeed = 8642;

std::string dims(const Shape& s)
{
    std::string r;
    for (size_t i = 0; i < s.size(); ++i)
        r += (i ? "," : "") + std::to_string(s[i]);
    return r;
}

std::map<std::string, Value> runNode(int64_t opset, const std::string& node,
    const std::vector<std::pair<std::string, Tensor>>& inputs, const std::string& outputs)
{
    std::string in;
    std::map<std::string, Value> feeds;
    for (const auto& [name, t] : inputs) {
        in += (in.empty() ? "" : ", ") + std::string(dataTypeName(t.dtype())) + "[" + dims(t.shape()) + "] " + name;
        feeds[name] = Value(t);
    }
    const std::string text = "<ir_version: 8, opset_import: [\"\" : " + std::to_string(opset) + "]>\nagraph (" + in
        + ") => (" + outputs + ") {\n" + node + "\n}";
    Session session(std::make_shared<Program>(Model::fromText(text)));
    return session.run(feeds);
}

double iou(const float* a, const float* b, bool center)
{
    auto corners = [center](const float* p, double c[4]) {
        if (center) {
            c[0] = p[1] - p[3] / 2.0; // y1
            c[1] = p[0] - p[2] / 2.0; // x1
            c[2] = p[1] + p[3] / 2.0;
            c[3] = p[0] + p[2] / 2.0;
        } else {
            c[0] = std::min(p[0], p[2]);
            c[1] = std::min(p[1], p[3]);
            c[2] = std::max(p[0], p[2]);
            c[3] = std::max(p[1], p[3]);
        }
    };
    double A[4], B[4];
    corners(a, A);
    corners(b, B);
    const double areaA = (A[2] - A[0]) * (A[3] - A[1]), areaB = (B[2] - B[0]) * (B[3] - B[1]);
    const double h = std::max(0.0, std::min(A[2], B[2]) - std::max(A[0], B[0]));
    const double w = std::max(0.0, std::min(A[3], B[3]) - std::max(A[1], B[1]));
    if (areaA <= 0 || areaB <= 0)
        return 0;
    return h * w / (areaA + areaB - h * w);
}

} // namespace

class TestSpatialReference : public QObject {
    Q_OBJECT

private slots:
    void nonMaxSuppressionGreedy()
    {
        std::mt19937 rng(kSeed);
        std::uniform_real_distribution<float> pos(0, 10), size(0.5f, 4), score(0, 1);
        for (int rep = 0; rep < 30; ++rep) {
            const int64_t batches = 1 + rng() % 2, classes = 1 + rng() % 3, n = 1 + rng() % 12;
            const bool center = rep % 2;
            const int64_t maxOut = rep % 5 == 0 ? 0 : 1 + rng() % 6;
            const float iouT = 0.1f * float(rng() % 8), scoreT = rep % 3 ? 0.3f : -1.0f;
            Tensor boxes(DataType::Float, { batches, n, 4 }), scores(DataType::Float, { batches, classes, n });
            for (int64_t i = 0; i < batches * n; ++i) {
                float* b = boxes.data<float>().data() + i * 4;
                if (center) {
                    b[0] = pos(rng), b[1] = pos(rng), b[2] = size(rng), b[3] = size(rng);
                } else {
                    b[0] = pos(rng), b[1] = pos(rng), b[2] = b[0] + (rng() % 2 ? 1 : -1) * size(rng),
                    b[3] = b[1] + size(rng);
                }
            }
            for (float& s : scores.data<float>())
                s = float(rng() % 10) / 10.0f; // ties on purpose
            const auto out = runNode(11,
                "y = NonMaxSuppression <center_point_box = " + std::to_string(center ? 1 : 0) + "> (b, s, m, i, t)",
                { { "b", boxes }, { "s", scores }, { "m", Tensor::vector1D<int64_t>({ maxOut }) },
                    { "i", Tensor::vector1D<float>({ iouT }) }, { "t", Tensor::vector1D<float>({ scoreT }) } },
                "int64[k, 3] y");
            const Tensor& y = out.at("y").tensor();
            std::vector<int64_t> want;
            for (int64_t b = 0; b < batches; ++b)
                for (int64_t c = 0; c < classes; ++c) {
                    const float* sc = scores.data<float>().data() + (b * classes + c) * n;
                    std::vector<int64_t> order;
                    for (int64_t i = 0; i < n; ++i)
                        if (sc[i] > scoreT)
                            order.push_back(i);
                    // Highest score first; equal scores keep the lower index first.
                    for (size_t i = 1; i < order.size(); ++i)
                        for (size_t j = i; j > 0 && sc[order[j]] > sc[order[j - 1]]; --j)
                            std::swap(order[j], order[j - 1]);
                    std::vector<int64_t> kept;
                    for (int64_t i : order) {
                        if (int64_t(kept.size()) >= maxOut)
                            break;
                        bool ok = true;
                        for (int64_t k : kept)
                            ok = ok
                                && iou(boxes.data<float>().data() + (b * n + k) * 4,
                                       boxes.data<float>().data() + (b * n + i) * 4, center)
                                    <= iouT;
                        if (ok) {
                            kept.push_back(i);
                            want.insert(want.end(), { b, c, i });
                        }
                    }
                }
            const std::string what = "rep=" + std::to_string(rep) + " batches=" + std::to_string(batches) + " classes="
                + std::to_string(classes) + " n=" + std::to_string(n) + " max=" + std::to_string(maxOut) + " iou="
                + std::to_string(iouT) + " center=" + std::to_string(center) + " seed=" + std::to_string(kSeed);
            QVERIFY2(y.size() == int64_t(want.size()), (what + ": " + y.typeString()).c_str());
            for (size_t i = 0; i < want.size(); ++i)
                QVERIFY2(y.data<int64_t>()[i] == want[i], (what + ": first bad index " + std::to_string(i)).c_str());
        }
    }

    void gridSampleFormulas()
    {
        std::mt19937 rng(kSeed + 1);
        std::uniform_real_distribution<float> g(-1.3f, 1.3f), v(-5, 5);
        for (int rep = 0; rep < 16; ++rep) {
            const bool align = rep & 1, nearest = rep & 2, border = rep & 4;
            const int64_t h = 1 + rng() % 5, w = 1 + rng() % 5, ho = 1 + rng() % 4, wo = 1 + rng() % 4;
            Tensor x(DataType::Float, { 1, 2, h, w }), grid(DataType::Float, { 1, ho, wo, 2 });
            for (float& e : x.data<float>())
                e = v(rng);
            for (float& e : grid.data<float>())
                e = g(rng);
            const std::string node = std::string("y = GridSample <align_corners = ") + (align ? "1" : "0")
                + ", mode = \"" + (nearest ? "nearest" : "bilinear") + "\", padding_mode = \""
                + (border ? "border" : "zeros") + "\"> (x, g)";
            const Tensor y = runNode(16, node, { { "x", x }, { "g", grid } }, "float[a, b, c, d] y").at("y").tensor();
            const std::string what
                = node + " h=" + std::to_string(h) + " w=" + std::to_string(w) + " seed=" + std::to_string(kSeed);
            QVERIFY2(y.shape() == (Shape { 1, 2, ho, wo }), what.c_str());
            auto at = [&](int64_t c, int64_t yi, int64_t xi) -> double {
                if (yi < 0 || yi >= h || xi < 0 || xi >= w)
                    return 0;
                return x.data<float>()[size_t((c * h + yi) * w + xi)];
            };
            for (int64_t c = 0; c < 2; ++c)
                for (int64_t i = 0; i < ho * wo; ++i) {
                    const double gx = grid.data<float>()[size_t(i * 2)], gy = grid.data<float>()[size_t(i * 2 + 1)];
                    // Unnormalise: -1 and 1 are the corner pixels' centres (align_corners) or their outer edges.
                    double ix = align ? (gx + 1) / 2 * double(w - 1) : ((gx + 1) * double(w) - 1) / 2;
                    double iy = align ? (gy + 1) / 2 * double(h - 1) : ((gy + 1) * double(h) - 1) / 2;
                    if (border) {
                        ix = std::clamp(ix, 0.0, double(w - 1));
                        iy = std::clamp(iy, 0.0, double(h - 1));
                    }
                    double want;
                    if (nearest) {
                        want = at(c, int64_t(std::nearbyint(iy)), int64_t(std::nearbyint(ix)));
                    } else {
                        const int64_t x0 = int64_t(std::floor(ix)), y0 = int64_t(std::floor(iy));
                        const double fx = ix - double(x0), fy = iy - double(y0);
                        want = (1 - fy) * ((1 - fx) * at(c, y0, x0) + fx * at(c, y0, x0 + 1))
                            + fy * ((1 - fx) * at(c, y0 + 1, x0) + fx * at(c, y0 + 1, x0 + 1));
                    }
                    const double got = y.data<float>()[size_t(c * ho * wo + i)];
                    QVERIFY2(std::fabs(got - want) <= 1e-4 * (1 + std::fabs(want)),
                        (what + ": first bad index " + std::to_string(c * ho * wo + i) + ": " + std::to_string(got)
                            + " vs " + std::to_string(want))
                            .c_str());
                }
        }
    }

    void hostileInputsAreErrorsOrValuesNeverCrashes()
    {
        const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
        const Tensor x = Tensor::fromVector<float>({ 1, 2, 3, 4 }, { 1, 1, 2, 2 });
        for (const char* mode : { "bilinear", "nearest", "bicubic" })
            for (const char* pad : { "zeros", "border", "reflection" }) {
                const Tensor grid
                    = Tensor::fromVector<float>({ nan, 0, inf, -inf, 1e30f, -1e30f, 0.5f, nan }, { 1, 1, 4, 2 });
                const std::string node
                    = std::string("y = GridSample <mode = \"") + mode + "\", padding_mode = \"" + pad + "\"> (x, g)";
                const Tensor y
                    = runNode(16, node, { { "x", x }, { "g", grid } }, "float[a, b, c, d] y").at("y").tensor();
                QCOMPARE(y.shape(), (Shape { 1, 1, 1, 4 }));
            }
        try {
            runNode(16, "y = RoiAlign (x, r, b)",
                { { "x", x }, { "r", Tensor::fromVector<float>({ 0, 0, 1, 1 }, { 1, 4 }) },
                    { "b", Tensor::vector1D<int64_t>({ 3 }) } },
                "float[a, b, c, d] y");
            QFAIL("an out-of-range batch index was accepted");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("RoiAlign") != std::string::npos
                    && std::string(e.what()).find("batch_indices") != std::string::npos,
                e.what());
        }
        try {
            runNode(16, "y = RoiAlign (x, r, b)",
                { { "x", x }, { "r", Tensor::fromVector<float>({ 0, 0, inf, 1 }, { 1, 4 }) },
                    { "b", Tensor::vector1D<int64_t>({ 0 }) } },
                "float[a, b, c, d] y");
            QFAIL("an infinite roi was accepted");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("not finite") != std::string::npos, e.what());
        }
        const Tensor boxes = Tensor::fromVector<float>({ 0, 0, 1, 1, nan, 0, 1, 1, 0, 0, 1, 1 }, { 1, 3, 4 });
        const Tensor scores = Tensor::fromVector<float>({ nan, 0.5f, 0.7f }, { 1, 1, 3 });
        const Tensor y = runNode(11, "y = NonMaxSuppression (b, s, m)",
            { { "b", boxes }, { "s", scores }, { "m", Tensor::vector1D<int64_t>({ 5 }) } }, "int64[k, 3] y")
                             .at("y")
                             .tensor();
        QCOMPARE(y.dim(1), int64_t(3));
        QVERIFY(y.dim(0) >= 1 && y.dim(0) <= 3);
    }
};

QTEST_APPLESS_MAIN(TestSpatialReference)
#include "test_spatial_reference.moc"
