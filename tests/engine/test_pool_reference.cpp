// SPDX-License-Identifier: MIT
// MaxPool (with Indices, storage_order, dilations, ceil_mode), AveragePool (count_include_pad, ceil_mode) and LpPool
// against naive loops written here, over random 1-D/2-D/3-D shapes, kernels, strides and pads, explicit and
// automatic; plus the global pools. Output sizes follow the spec: floor or ceil of (in + pads - window) / stride
// + 1, where with ceil_mode a window that would start in the end padding is dropped. Fixed seed; a mismatch prints
// the parameters, the seed and the first bad index.
#include "engine/exec/session.h"

#include <QtTest>

#include <cmath>
#include <limits>
#include <random>
#include <sstream>

using namespace onnxscope;

namespace {

constexpr unsigned kSeed = 777;

std::string list(const std::vector<int64_t>& v)
{
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i)
        s += (i ? ", " : "") + std::to_string(v[i]);
    return s + "]";
}

std::map<std::string, Value> runOp(const std::string& node, const Tensor& x, const std::string& outputs, int64_t opset)
{
    std::string decl = std::string(dataTypeName(x.dtype())) + "[";
    for (size_t i = 0; i < x.shape().size(); ++i)
        decl += (i ? "," : "") + std::to_string(x.shape()[i]);
    const std::string text = "<ir_version: 8, opset_import: [\"\" : " + std::to_string(opset) + "]>\nagraph (" + decl
        + "] x) => (" + outputs + ") {\n" + node + "\n}";
    Session session(std::make_shared<Program>(Model::fromText(text)));
    return session.run({ { "x", Value(x) } });
}

struct PoolCase {
    std::string op = "MaxPool";
    Shape shape; // N, C, spatial...
    std::vector<int64_t> kernel, strides, dilations, pads;
    std::string autoPad = "NOTSET";
    bool ceil = false, countIncludePad = false, columnMajor = false;
    int64_t p = 2;
    std::string describe() const
    {
        std::ostringstream s;
        s << op << " shape=" << shapeToString(shape) << " kernel=" << list(kernel) << " strides=" << list(strides)
          << " dilations=" << list(dilations) << " pads=" << list(pads) << " auto_pad=" << autoPad
          << " ceil_mode=" << ceil << " count_include_pad=" << countIncludePad << " storage_order=" << columnMajor
          << " p=" << p << " seed=" << kSeed;
        return s.str();
    }
};

/// Output sizes and begin pads of a pooling case, from the spec's formulas.
void geometry(const PoolCase& k, std::vector<int64_t>& out, std::vector<int64_t>& pb, std::vector<int64_t>& pe)
{
    const size_t r = k.kernel.size();
    out.assign(r, 0);
    pb.assign(r, 0);
    pe.assign(r, 0);
    for (size_t i = 0; i < r; ++i) {
        const int64_t in = k.shape[i + 2], eff = (k.kernel[i] - 1) * k.dilations[i] + 1, s = k.strides[i];
        if (k.autoPad == "NOTSET") {
            pb[i] = k.pads[i];
            pe[i] = k.pads[i + r];
            const double exact = double(in + pb[i] + pe[i] - eff) / double(s);
            out[i] = int64_t(k.ceil ? std::ceil(exact) : std::floor(exact)) + 1;
            if (k.ceil && (out[i] - 1) * s >= in + pb[i])
                --out[i];
        } else if (k.autoPad == "VALID") {
            out[i] = (in - eff) / s + 1;
        } else {
            out[i] = (in + s - 1) / s;
            const int64_t total = std::max<int64_t>(0, (out[i] - 1) * s + eff - in);
            pb[i] = k.autoPad == "SAME_UPPER" ? total / 2 : total - total / 2;
            pe[i] = total - pb[i];
        }
    }
}

/// The naive pooling loop; for MaxPool also the flat index of the first maximum in window scan order.
void reference(const PoolCase& k, const Tensor& x, Tensor& y, Tensor& indices)
{
    std::vector<int64_t> out, pb, pe;
    geometry(k, out, pb, pe);
    Shape yShape { k.shape[0], k.shape[1] };
    yShape.insert(yShape.end(), out.begin(), out.end());
    y = Tensor(DataType::Float, yShape);
    indices = Tensor(DataType::Int64, yShape);
    const size_t r = k.kernel.size();
    const Shape in(k.shape.begin() + 2, k.shape.end());
    int64_t inPlane = 1, outPlane = 1;
    for (size_t i = 0; i < r; ++i) {
        inPlane *= in[i];
        outPlane *= out[i];
    }
    auto xd = x.data<float>();
    for (int64_t plane = 0; plane < k.shape[0] * k.shape[1]; ++plane)
        for (int64_t o = 0; o < outPlane; ++o) {
            std::vector<int64_t> opos(r);
            for (int64_t t = o, i = int64_t(r) - 1; i >= 0; --i) {
                opos[size_t(i)] = t % out[size_t(i)];
                t /= out[size_t(i)];
            }
            int64_t windows = 1;
            for (size_t i = 0; i < r; ++i)
                windows *= k.kernel[i];
            double best = -std::numeric_limits<double>::infinity(), sum = 0;
            int64_t bestIndex = -1, valid = 0, padded = 0;
            for (int64_t w = 0; w < windows; ++w) {
                std::vector<int64_t> ipos(r);
                bool inside = true, insidePadded = true;
                for (int64_t t = w, i = int64_t(r) - 1; i >= 0; --i) {
                    const auto u = size_t(i);
                    ipos[u] = opos[u] * k.strides[u] - pb[u] + (t % k.kernel[u]) * k.dilations[u];
                    t /= k.kernel[u];
                    inside = inside && ipos[u] >= 0 && ipos[u] < in[u];
                    insidePadded = insidePadded && ipos[u] >= -pb[u] && ipos[u] < in[u] + pe[u];
                }
                padded += insidePadded;
                if (!inside)
                    continue;
                int64_t flat = 0, colMajor = 0, stride = 1;
                for (size_t i = 0; i < r; ++i)
                    flat = flat * in[i] + ipos[i];
                for (size_t i = 0; i < r; ++i) {
                    colMajor += ipos[i] * stride;
                    stride *= in[i];
                }
                const double v = xd[size_t(plane * inPlane + flat)];
                ++valid;
                if (v > best) {
                    best = v;
                    bestIndex = plane * inPlane + (k.columnMajor ? colMajor : flat);
                }
                sum += k.op == "LpPool" ? std::pow(std::abs(v), double(k.p)) : v;
            }
            const auto oi = size_t(plane * outPlane + o);
            if (k.op == "MaxPool") {
                y.data<float>()[oi] = float(best);
                indices.data<int64_t>()[oi] = bestIndex;
            } else if (k.op == "AveragePool") {
                y.data<float>()[oi] = float(sum / double(k.countIncludePad ? padded : valid));
            } else {
                y.data<float>()[oi] = float(std::pow(sum, 1.0 / double(k.p)));
            }
        }
}

int64_t firstMismatch(const Tensor& got, const Tensor& want, double tol)
{
    if (got.shape() != want.shape())
        return -2;
    for (int64_t i = 0; i < got.size(); ++i) {
        const double a = got.toDouble(i), b = want.toDouble(i);
        if (!(std::abs(a - b) <= tol + tol * std::abs(b)))
            return i;
    }
    return -1;
}

/// The failure message for firstMismatch's result; empty for -1 (QVERIFY2 builds its message even on success).
std::string mismatchText(int64_t i, const Tensor& got, const Tensor& want)
{
    if (i == -1)
        return {};
    if (i == -2)
        return "shape " + shapeToString(got.shape()) + ", expected " + shapeToString(want.shape());
    return "first bad index " + std::to_string(i) + " got " + std::to_string(got.toDouble(i)) + " expected "
        + std::to_string(want.toDouble(i)) + " (shape " + shapeToString(want.shape()) + ")";
}

} // namespace

class TestPoolReference : public QObject {
    Q_OBJECT

private slots:
    void randomSweep()
    {
        std::mt19937 rng(kSeed);
        const auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
        std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
        const char* ops[] = { "MaxPool", "AveragePool", "LpPool" };
        const char* autoPads[] = { "NOTSET", "NOTSET", "NOTSET", "VALID", "SAME_UPPER", "SAME_LOWER" };
        for (int iter = 0; iter < 600; ++iter) {
            PoolCase k;
            k.op = ops[iter % 3];
            const size_t r = size_t(pick(1, 3));
            k.shape = { pick(1, 2), pick(1, 3) };
            k.autoPad = autoPads[pick(0, 5)];
            k.ceil = k.autoPad == "NOTSET" && pick(0, 1) == 1;
            k.countIncludePad = pick(0, 1) == 1;
            k.columnMajor = k.op == "MaxPool" && pick(0, 3) == 0;
            k.p = pick(1, 3);
            for (size_t i = 0; i < r; ++i) {
                k.kernel.push_back(pick(1, 3));
                k.strides.push_back(pick(1, 3));
                k.dilations.push_back(k.op == "AveragePool" ? 1 : pick(1, 2));
                k.shape.push_back(pick((k.kernel[i] - 1) * k.dilations[i] + 1, r == 3 ? 6 : 9));
            }
            for (size_t i = 0; i < 2 * r; ++i)
                k.pads.push_back(pick(0, k.kernel[i % r] - 1)); // a pad smaller than the kernel, as the spec asks
            Tensor x(DataType::Float, k.shape);
            for (float& v : x.data<float>())
                v = dist(rng);
            std::string attrs = "kernel_shape = " + list(k.kernel) + ", strides = " + list(k.strides);
            if (k.op != "AveragePool")
                attrs += ", dilations = " + list(k.dilations);
            if (k.autoPad == "NOTSET")
                attrs += ", pads = " + list(k.pads) + ", ceil_mode = " + std::to_string(int(k.ceil));
            else
                attrs += ", auto_pad = \"" + k.autoPad + "\"";
            if (k.op == "AveragePool")
                attrs += ", count_include_pad = " + std::to_string(int(k.countIncludePad));
            if (k.op == "MaxPool")
                attrs += ", storage_order = " + std::to_string(int(k.columnMajor));
            if (k.op == "LpPool")
                attrs += ", p = " + std::to_string(k.p);
            const bool withIndices = k.op == "MaxPool";
            const std::string node
                = withIndices ? "y, i = MaxPool <" + attrs + "> (x)" : "y = " + k.op + " <" + attrs + "> (x)";
            const int64_t opset = k.op == "LpPool" ? 18 : 12;
            std::map<std::string, Value> got;
            try {
                got = runOp(node, x, withIndices ? "float[?] y, int64[?] i" : "float[?] y", opset);
            } catch (const Error& e) {
                QFAIL((k.describe() + ": " + e.what()).c_str());
            }
            Tensor wantY, wantI;
            reference(k, x, wantY, wantI);
            const Tensor& gotY = got.at("y").tensor();
            int64_t bad = firstMismatch(gotY, wantY, 1e-5);
            QVERIFY2(bad == -1, (k.describe() + " Y " + mismatchText(bad, gotY, wantY)).c_str());
            if (withIndices) {
                const Tensor& gotI = got.at("i").tensor();
                bad = firstMismatch(gotI, wantI, 0);
                QVERIFY2(bad == -1, (k.describe() + " Indices " + mismatchText(bad, gotI, wantI)).c_str());
            }
        }
    }

    void maxPoolWithoutIndices()
    {
        // MaxPool without Indices (float, uint8, int8) takes its own 2-D loops: windows that tile the plane (kernel =
        // stride, no padding, with rows and columns left over, or cut short by ceil_mode) and the general case. NaN is
        // skipped and a window of NaN only gives -inf, as the reference does.
        std::mt19937 rng(kSeed + 1);
        const auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
        std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
        const float nan = std::numeric_limits<float>::quiet_NaN();
        for (int iter = 0; iter < 300; ++iter) {
            PoolCase k;
            const bool tiles = iter % 2 == 0;
            k.shape = { pick(1, 2), pick(1, 3) };
            k.ceil = pick(0, 3) == 0;
            for (size_t i = 0; i < 2; ++i) {
                k.kernel.push_back(pick(1, 3));
                k.strides.push_back(tiles ? k.kernel[i] : pick(1, 3));
                k.dilations.push_back(1);
                k.shape.push_back(pick(k.kernel[i], 11));
            }
            for (size_t i = 0; i < 4; ++i)
                k.pads.push_back(tiles ? 0 : pick(0, k.kernel[i % 2] - 1));
            Tensor x(DataType::Float, k.shape);
            for (float& v : x.data<float>())
                v = pick(0, 9) == 0 ? nan : dist(rng);
            const std::string attrs = "kernel_shape = " + list(k.kernel) + ", strides = " + list(k.strides)
                + ", pads = " + list(k.pads) + ", ceil_mode = " + std::to_string(int(k.ceil));
            std::map<std::string, Value> got;
            try {
                got = runOp("y = MaxPool <" + attrs + "> (x)", x, "float[?] y", 12);
            } catch (const Error& e) {
                QFAIL((k.describe() + ": " + e.what()).c_str());
            }
            Tensor wantY, wantI;
            reference(k, x, wantY, wantI);
            const Tensor& gotY = got.at("y").tensor();
            QCOMPARE(gotY.shape(), wantY.shape());
            for (int64_t i = 0; i < gotY.size(); ++i) {
                const float a = gotY.data<float>()[size_t(i)], b = wantY.data<float>()[size_t(i)];
                QVERIFY2(a == b,
                    (a == b ? std::string()
                            : k.describe() + " Y[" + std::to_string(i) + "] = " + std::to_string(a) + ", expected "
                                + std::to_string(b))
                        .c_str());
            }
            // The same windows over uint8 and int8 (the quantized models' MaxPool), against the reference on their
            // values as floats: bytes 0 and 255, -128 and 127 included.
            for (DataType type : { DataType::UInt8, DataType::Int8 }) {
                Tensor xb(type, k.shape), xf(DataType::Float, k.shape);
                auto* bytes = static_cast<uint8_t*>(xb.mutableRaw());
                for (int64_t i = 0; i < xb.size(); ++i) {
                    bytes[i] = uint8_t(pick(0, 255));
                    xf.data<float>()[size_t(i)] = type == DataType::Int8 ? float(int8_t(bytes[i])) : float(bytes[i]);
                }
                const std::string name(dataTypeName(type));
                const Tensor gotB = runOp("y = MaxPool <" + attrs + "> (x)", xb, name + "[?] y", 12).at("y").tensor();
                reference(k, xf, wantY, wantI);
                QCOMPARE(gotB.shape(), wantY.shape());
                const auto* out = static_cast<const uint8_t*>(gotB.raw());
                for (int64_t i = 0; i < gotB.size(); ++i) {
                    const float a = type == DataType::Int8 ? float(int8_t(out[i])) : float(out[i]);
                    const float b = wantY.data<float>()[size_t(i)];
                    QVERIFY2(a == b,
                        (k.describe() + " " + name + " Y[" + std::to_string(i) + "] = " + std::to_string(a)
                            + ", expected " + std::to_string(b))
                            .c_str());
                }
            }
        }
    }

    void globalPools()
    {
        std::mt19937 rng(kSeed + 1);
        std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
        // 22 planes in the last shape: the kernel pools planes in groups of 8.
        for (const Shape& shape :
            { Shape { 2, 3, 5 }, Shape { 1, 4, 3, 6 }, Shape { 2, 2, 2, 3, 4 }, Shape { 2, 11, 3, 4 } }) {
            Tensor x(DataType::Float, shape);
            for (float& v : x.data<float>())
                v = dist(rng);
            const int64_t planes = shape[0] * shape[1], size = x.size() / planes;
            for (const char* op : { "GlobalMaxPool", "GlobalAveragePool", "GlobalLpPool" }) {
                const Tensor got = runOp(std::string("y = ") + op + " (x)", x, "float[?] y", 13).at("y").tensor();
                Shape want(shape.size(), 1);
                want[0] = shape[0];
                want[1] = shape[1];
                QCOMPARE(got.shape(), want);
                for (int64_t p = 0; p < planes; ++p) {
                    double mx = -1e30, sum = 0, sq = 0;
                    for (int64_t i = 0; i < size; ++i) {
                        const double v = x.data<float>()[size_t(p * size + i)];
                        mx = std::max(mx, v);
                        sum += v;
                        sq += v * v;
                    }
                    const double expect = std::string(op) == "GlobalMaxPool" ? mx
                        : std::string(op) == "GlobalAveragePool"             ? sum / double(size)
                                                                             : std::sqrt(sq);
                    QVERIFY2(std::abs(got.toDouble(p) - expect) < 1e-5,
                        (std::string(op) + " shape " + shapeToString(shape) + " plane " + std::to_string(p)).c_str());
                }
            }
        }
    }

    void errorsNameTheNode()
    {
        const Tensor x(DataType::Float, { 1, 1, 4, 4 });
        const auto errorOf = [&](const std::string& node) {
            try {
                runOp(node, x, "float[?] y", 12);
            } catch (const Error& e) {
                return std::string(e.what());
            }
            return std::string();
        };
        std::string e = errorOf("y = MaxPool (x)");
        QVERIFY2(e.find("(MaxPool)") != std::string::npos && e.find("kernel_shape") != std::string::npos, e.c_str());
        e = errorOf("y = AveragePool <kernel_shape = [5, 5]> (x)");
        QVERIFY2(
            e.find("(AveragePool)") != std::string::npos && e.find("does not fit") != std::string::npos, e.c_str());
        e = errorOf("y = MaxPool <kernel_shape = [2, 2], auto_pad = \"SAME\"> (x)");
        QVERIFY2(e.find("(MaxPool)") != std::string::npos && e.find("auto_pad") != std::string::npos, e.c_str());
        e = errorOf("y = MaxPool <kernel_shape = [2, 2, 2]> (x)");
        QVERIFY2(e.find("(MaxPool)") != std::string::npos, e.c_str());
    }
};

QTEST_APPLESS_MAIN(TestPoolReference)
#include "test_pool_reference.moc"
