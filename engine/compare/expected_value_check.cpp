// SPDX-License-Identifier: MIT
#include "engine/compare/expected_value_check.h"

#include "engine/core/text.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>

namespace onnxscope {

namespace {

std::optional<std::string> compareTensors(const Tensor& e, const Tensor& a, Tolerance tolerance)
{
    if (e.dtype() != a.dtype())
        return "element type " + std::string(dataTypeName(a.dtype())) + ", expected "
            + std::string(dataTypeName(e.dtype()));
    if (e.shape() != a.shape())
        return "shape " + shapeToString(a.shape()) + ", expected " + shapeToString(e.shape());
    int64_t bad = 0, first = -1;
    std::string firstDesc;
    if (e.dtype() == DataType::String) {
        auto ed = e.data<std::string>();
        auto ad = a.data<std::string>();
        for (int64_t i = 0; i < e.size(); ++i)
            if (ed[i] != ad[i]) {
                if (first < 0) {
                    first = i;
                    firstDesc = "\"" + ad[i] + "\" vs expected \"" + ed[i] + "\"";
                }
                ++bad;
            }
    } else {
        const bool exact = !isFloatingPoint(e.dtype()) && !isNarrowFloat(e.dtype()) && !isComplex(e.dtype());
        // bfloat16 keeps 8 significant bits, so one rounding step is 2^-8 relative and a few steps of a computation
        // in bfloat16 drift further: as onnx's own backend runner does, its relative tolerance is at least 2^-6.
        const Tolerance tol = e.dtype() == DataType::BFloat16
            ? Tolerance { std::max(tolerance.rtol, 1.0 / 64), tolerance.atol }
            : tolerance;
        const bool complex = isComplex(e.dtype());
        for (int64_t i = 0; i < e.size(); ++i) {
            auto pairAt = [&](int part) {
                if (!complex)
                    return std::pair { e.toDouble(i), a.toDouble(i) };
                if (e.dtype() == DataType::Complex64) {
                    auto x = e.data<Complex64>()[i], y = a.data<Complex64>()[i];
                    return part ? std::pair<double, double> { x.imag(), y.imag() }
                                : std::pair<double, double> { x.real(), y.real() };
                }
                auto x = e.data<Complex128>()[i], y = a.data<Complex128>()[i];
                return part ? std::pair { x.imag(), y.imag() } : std::pair { x.real(), y.real() };
            };
            bool ok = true;
            for (int part = 0; part < (complex ? 2 : 1); ++part) {
                auto [x, y] = pairAt(part);
                if (exact) {
                    // Exact for integers: compare the stored values, not doubles, for 64-bit precision.
                    ok = ok && (x == y);
                } else if (std::isnan(x) || std::isnan(y)) {
                    ok = ok && std::isnan(x) && std::isnan(y);
                } else if (std::isinf(x) || std::isinf(y)) {
                    ok = ok && x == y;
                } else {
                    ok = ok && std::abs(x - y) <= tol.atol + tol.rtol * std::abs(x);
                }
            }
            if (exact && ok && (e.dtype() == DataType::Int64 || e.dtype() == DataType::UInt64))
                ok = std::memcmp(
                         static_cast<const char*>(e.raw()) + i * 8, static_cast<const char*>(a.raw()) + i * 8, 8)
                    == 0;
            if (!ok) {
                if (first < 0) {
                    first = i;
                    std::ostringstream ss;
                    ss.precision(9);
                    ss << a.toDouble(i) << " vs expected " << e.toDouble(i);
                    firstDesc = ss.str();
                }
                ++bad;
            }
        }
    }
    if (bad == 0)
        return std::nullopt;
    return std::to_string(bad) + " of " + std::to_string(e.size()) + " elements differ; first at "
        + formatIndex(e.shape(), first) + ": " + firstDesc;
}

} // namespace

std::optional<std::string> compareValues(const Value& expected, const Value& actual, Tolerance tol)
{
    // An optional holding a value compares equal to the bare value (test data stores them either way).
    const Value* e = &expected;
    const Value* a = &actual;
    if (e->isOptional() != a->isOptional()) {
        if (e->isOptional() && e->optionalValue())
            e = e->optionalValue();
        else if (a->isOptional() && a->optionalValue())
            a = a->optionalValue();
    }
    if (e->kind() != a->kind())
        return "got " + a->typeString() + ", expected " + e->typeString();
    switch (e->kind()) {
    case Value::Kind::Tensor:
        return compareTensors(e->tensor(), a->tensor(), tol);
    case Value::Kind::Sequence: {
        const auto& es = e->sequence().items;
        const auto& as = a->sequence().items;
        if (es.size() != as.size())
            return "sequence of " + std::to_string(as.size()) + " items, expected " + std::to_string(es.size());
        for (size_t i = 0; i < es.size(); ++i)
            if (auto m = compareValues(es[i], as[i], tol))
                return "item " + std::to_string(i) + ": " + *m;
        return std::nullopt;
    }
    case Value::Kind::Map: {
        if (auto m = compareTensors(e->map().keys, a->map().keys, tol))
            return "keys: " + *m;
        if (auto m = compareTensors(e->map().values, a->map().values, tol))
            return "values: " + *m;
        return std::nullopt;
    }
    case Value::Kind::Optional: {
        const Value* ev = e->optionalValue();
        const Value* av = a->optionalValue();
        if (!ev || !av)
            return (!ev && !av) ? std::nullopt
                                : std::optional<std::string>(std::string("optional is ") + (av ? "set" : "empty")
                                    + ", expected " + (ev ? "set" : "empty"));
        return compareValues(*ev, *av, tol);
    }
    default:
        return std::nullopt;
    }
}

} // namespace onnxscope
