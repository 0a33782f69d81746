// SPDX-License-Identifier: MIT
#include "engine/kernels/ml/ml_common.h"

#include "engine/kernels/common/dispatch.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace onnxscope::ml {

PostTransform readPostTransform(const NodeAttributes& attributes)
{
    const std::string s = attributes.getString("post_transform", "NONE");
    if (s == "NONE")
        return PostTransform::None;
    if (s == "LOGISTIC")
        return PostTransform::Logistic;
    if (s == "SOFTMAX")
        return PostTransform::Softmax;
    if (s == "SOFTMAX_ZERO")
        return PostTransform::SoftmaxZero;
    if (s == "PROBIT")
        return PostTransform::Probit;
    throw attributes.error(
        "post_transform", "unknown value \"" + s + "\" (expected NONE, LOGISTIC, SOFTMAX, SOFTMAX_ZERO or PROBIT)");
}

double logistic(double x)
{
    const double v = 1.0 / (1.0 + std::exp(-std::abs(x)));
    return x < 0 ? 1.0 - v : v;
}

double probit(double p)
{
    if (!(p > 0.0 && p < 1.0))
        return p == 0.0
            ? -std::numeric_limits<double>::infinity()
            : (p == 1.0 ? std::numeric_limits<double>::infinity() : std::numeric_limits<double>::quiet_NaN());
    // Acklam's rational approximation, then two Newton steps on erfc: accurate to double precision. Written by
    // hand because the standard library has no inverse normal CDF; onnxruntime uses a coarser erfinv (~1e-3).
    static const double a[] = { -3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
        1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00 };
    static const double b[] = { -5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
        6.680131188771972e+01, -1.328068155288572e+01 };
    static const double c[] = { -7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
        -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00 };
    static const double d[]
        = { 7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00, 3.754408661907416e+00 };
    double x;
    if (p < 0.02425) {
        const double q = std::sqrt(-2 * std::log(p));
        x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5])
            / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
    } else if (p > 1 - 0.02425) {
        const double q = std::sqrt(-2 * std::log(1 - p));
        x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5])
            / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
    } else {
        const double q = p - 0.5, r = q * q;
        x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q
            / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
    }
    for (int i = 0; i < 2; ++i) {
        const double e = 0.5 * std::erfc(-x / std::sqrt(2.0)) - p;
        const double u = e * std::sqrt(2 * M_PI) * std::exp(x * x / 2);
        x = x - u / (1 + x * u / 2);
    }
    return x;
}

void applyPostTransform(PostTransform transform, double* s, int64_t n)
{
    switch (transform) {
    case PostTransform::None:
        return;
    case PostTransform::Logistic:
        for (int64_t i = 0; i < n; ++i)
            s[i] = logistic(s[i]);
        return;
    case PostTransform::Probit:
        for (int64_t i = 0; i < n; ++i)
            s[i] = probit(s[i]);
        return;
    case PostTransform::Softmax: {
        double m = -std::numeric_limits<double>::infinity();
        for (int64_t i = 0; i < n; ++i)
            m = std::max(m, s[i]);
        double sum = 0;
        for (int64_t i = 0; i < n; ++i)
            sum += (s[i] = std::exp(s[i] - m));
        for (int64_t i = 0; i < n; ++i)
            s[i] /= sum;
        return;
    }
    case PostTransform::SoftmaxZero: {
        // Softmax over the non-zero scores; zero scores stay zero.
        double m = -std::numeric_limits<double>::infinity();
        for (int64_t i = 0; i < n; ++i)
            if (s[i] != 0)
                m = std::max(m, s[i]);
        double sum = 0;
        for (int64_t i = 0; i < n; ++i)
            if (s[i] != 0)
                sum += (s[i] = std::exp(s[i] - m));
        if (sum > 0)
            for (int64_t i = 0; i < n; ++i)
                s[i] /= sum;
        return;
    }
    }
}

std::pair<int64_t, int64_t> rowsAndFeatures(const KernelContext& ctx, const Tensor& x)
{
    if (x.rank() == 0)
        return { 1, 1 };
    if (x.rank() == 1)
        return { 1, x.dim(0) };
    if (x.rank() == 2)
        return { x.dim(0), x.dim(1) };
    throw ctx.error("input X must be 1-D or 2-D [N, F], got " + x.typeString());
}

Rows readRows(const KernelContext& ctx, const Tensor& x)
{
    Rows rows;
    std::tie(rows.n, rows.features) = rowsAndFeatures(ctx, x);
    rows.values.resize(static_cast<size_t>(x.size()));
    dispatch<TypeList<float, double, Float16, BFloat16, int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t,
        uint64_t, bool>>(x.dtype(), ctx.node(), ", input X", [&]<class T>() {
        auto d = x.data<T>();
        for (size_t i = 0; i < d.size(); ++i)
            rows.values[i] = static_cast<double>(d[i]);
    });
    return rows;
}

std::vector<double> readFloatsOrTensor(const NodeAttributes& attributes, const std::string& name)
{
    const std::string tensorName = name + "_as_tensor";
    if (attributes.has(tensorName)) {
        if (attributes.has(name))
            throw attributes.error(name, "given together with '" + tensorName + "'");
        Tensor t = attributes.requireTensor(tensorName);
        std::vector<double> out(static_cast<size_t>(t.size()));
        if (t.dtype() == DataType::Double)
            std::copy(t.data<double>().begin(), t.data<double>().end(), out.begin());
        else if (t.dtype() == DataType::Float)
            std::copy(t.data<float>().begin(), t.data<float>().end(), out.begin());
        else
            throw attributes.error(tensorName, "expected a double or float tensor, got " + t.typeString());
        return out;
    }
    auto f = attributes.getFloats(name);
    return { f.begin(), f.end() };
}

DataType declaredElementType(const KernelInit& init, size_t output, DataType fallback)
{
    const ValueType* t = init.declaredOutputType(output);
    if (!t || t->kind != Value::Kind::Tensor || t->elementType == DataType::Undefined)
        return fallback;
    return t->elementType;
}

} // namespace onnxscope::ml
