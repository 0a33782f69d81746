// SPDX-License-Identifier: MIT
#include "engine/compare/value_comparison.h"

#include "engine/core/half.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace onnxscope {

std::string_view compareStatusName(CompareStatus status)
{
    switch (status) {
    case CompareStatus::Match:
        return "match";
    case CompareStatus::Mismatch:
        return "mismatch";
    case CompareStatus::ShapeMismatch:
        return "shape_mismatch";
    case CompareStatus::KindMismatch:
        return "kind_mismatch";
    case CompareStatus::OnlyA:
        return "only_a";
    case CompareStatus::OnlyB:
        return "only_b";
    case CompareStatus::Skipped:
        return "skipped";
    }
    return "?";
}

bool isDivergent(CompareStatus status)
{
    return status == CompareStatus::Mismatch || status == CompareStatus::ShapeMismatch
        || status == CompareStatus::KindMismatch;
}

namespace {

constexpr int64_t kChunk = 4096;

/// Elements [begin, begin + count) of a real-valued tensor as doubles; one dtype dispatch per chunk, not per element.
void toDoubles(const Tensor& t, int64_t begin, int64_t count, double* out)
{
    auto copy = [&](auto span) {
        for (int64_t i = 0; i < count; ++i)
            out[i] = static_cast<double>(span[static_cast<size_t>(begin + i)]);
    };
    switch (t.dtype()) {
    case DataType::Float:
        copy(t.data<float>());
        break;
    case DataType::Double:
        copy(t.data<double>());
        break;
    case DataType::Float16:
        copy(t.data<Float16>());
        break;
    case DataType::BFloat16:
        copy(t.data<BFloat16>());
        break;
    case DataType::Int8:
        copy(t.data<int8_t>());
        break;
    case DataType::Int16:
        copy(t.data<int16_t>());
        break;
    case DataType::Int32:
        copy(t.data<int32_t>());
        break;
    case DataType::Int64:
        copy(t.data<int64_t>());
        break;
    case DataType::UInt8:
        copy(t.data<uint8_t>());
        break;
    case DataType::UInt16:
        copy(t.data<uint16_t>());
        break;
    case DataType::UInt32:
        copy(t.data<uint32_t>());
        break;
    case DataType::UInt64:
        copy(t.data<uint64_t>());
        break;
    case DataType::Bool:
        copy(t.data<bool>());
        break;
    default:
        for (int64_t i = 0; i < count; ++i)
            out[i] = t.toDouble(begin + i);
    }
}

/// Running statistics over one or more tensor pairs (sequences add up their items).
struct Accumulator {
    Tolerance tol;
    ValueStats s;
    double dot = 0, normA = 0, normB = 0, sumAbs = 0;
    int64_t finitePairs = 0;
    int64_t offset = 0; // flat index of the current pair's first element within the whole value

    void element(double a, double b, bool exact, int64_t index)
    {
        const bool nanA = std::isnan(a), nanB = std::isnan(b);
        const bool infA = std::isinf(a), infB = std::isinf(b);
        s.nanA += nanA;
        s.nanB += nanB;
        s.infA += infA;
        s.infB += infB;
        if (nanA || nanB || infA || infB) {
            const bool same = (nanA && nanB) || (!nanA && !nanB && a == b);
            if (!same) {
                ++s.nonFiniteMismatches;
                ++s.mismatches;
                s.toleranceRatio = std::numeric_limits<double>::infinity();
                if (s.worstIndex < 0)
                    s.worstIndex = index;
            }
            return;
        }
        const double err = std::abs(a - b);
        dot += a * b;
        normA += a * a;
        normB += b * b;
        sumAbs += err;
        ++finitePairs;
        const double allowed = tol.atol + tol.rtol * std::abs(b);
        if (exact ? a != b : err > allowed)
            ++s.mismatches;
        if (err > 0) {
            const double ratio = allowed > 0 ? err / allowed : std::numeric_limits<double>::infinity();
            if (ratio > s.toleranceRatio)
                s.toleranceRatio = ratio;
        }
        if (err > s.maxAbsError || s.worstIndex < 0) {
            s.maxAbsError = err;
            s.worstIndex = index;
        }
        if (b != 0) {
            const double rel = err / std::abs(b);
            if (rel > s.maxRelError)
                s.maxRelError = rel;
        }
    }

    void tensors(const Tensor& a, const Tensor& b)
    {
        const int64_t n = a.size();
        s.elements += n;
        if (a.dtype() == DataType::String || b.dtype() == DataType::String) {
            s.numeric = false;
            auto da = a.data<std::string>();
            auto db = b.data<std::string>();
            for (int64_t i = 0; i < n; ++i)
                if (da[static_cast<size_t>(i)] != db[static_cast<size_t>(i)]) {
                    ++s.mismatches;
                    if (s.worstIndex < 0)
                        s.worstIndex = offset + i;
                }
            offset += n;
            return;
        }
        if (isComplex(a.dtype())) {
            // Real and imaginary parts as interleaved elements.
            for (int64_t i = 0; i < n; ++i) {
                std::complex<double> x = a.dtype() == DataType::Complex64
                    ? std::complex<double>(a.data<Complex64>()[static_cast<size_t>(i)])
                    : a.data<Complex128>()[static_cast<size_t>(i)];
                std::complex<double> y = b.dtype() == DataType::Complex64
                    ? std::complex<double>(b.data<Complex64>()[static_cast<size_t>(i)])
                    : b.data<Complex128>()[static_cast<size_t>(i)];
                element(x.real(), y.real(), false, offset + i);
                element(x.imag(), y.imag(), false, offset + i);
            }
            offset += n;
            return;
        }
        // Integers and bools compare exactly unless one side is floating point (then the tolerance applies). The
        // narrow types compare by their values (toDouble()): float8 & co. as floats, int4 & co. as integers.
        auto floating = [](DataType t) { return isFloatingPoint(t) || isNarrowFloat(t); };
        const bool exact = !floating(a.dtype()) && !floating(b.dtype());
        const bool wide = a.dtype() == DataType::Int64 || a.dtype() == DataType::UInt64 || b.dtype() == DataType::Int64
            || b.dtype() == DataType::UInt64;
        std::vector<double> ba(static_cast<size_t>(std::min(n, kChunk))), bb(ba.size());
        for (int64_t start = 0; start < n; start += kChunk) {
            const int64_t count = std::min(kChunk, n - start);
            toDoubles(a, start, count, ba.data());
            toDoubles(b, start, count, bb.data());
            for (int64_t i = 0; i < count; ++i) {
                element(ba[static_cast<size_t>(i)], bb[static_cast<size_t>(i)], exact, offset + start + i);
                // Doubles cannot tell 2^53 + 1 from 2^53: compare 64-bit integers of one type by their bits.
                if (exact && wide && a.dtype() == b.dtype() && ba[static_cast<size_t>(i)] == bb[static_cast<size_t>(i)]
                    && std::memcmp(static_cast<const char*>(a.raw()) + (start + i) * 8,
                           static_cast<const char*>(b.raw()) + (start + i) * 8, 8)
                        != 0)
                    ++s.mismatches;
            }
        }
        offset += n;
    }

    ValueStats finish()
    {
        if (s.numeric) {
            s.meanAbsError = finitePairs ? sumAbs / static_cast<double>(finitePairs) : 0;
            if (normA == 0 && normB == 0)
                s.cosine = 1;
            else if (normA == 0 || normB == 0)
                s.cosine = 0;
            else
                s.cosine = std::clamp(dot / (std::sqrt(normA) * std::sqrt(normB)), -1.0, 1.0);
        }
        return s;
    }
};

bool sameKindOfElements(DataType a, DataType b)
{
    const bool sa = a == DataType::String, sb = b == DataType::String;
    const bool ca = isComplex(a), cb = isComplex(b);
    return sa == sb && ca == cb;
}

/// Adds one pair to `acc`; returns a note (and sets `status`) when they cannot be compared element-wise.
void accumulate(const Value& va, const Value& vb, Accumulator& acc, CompareStatus& status, std::string& note)
{
    const Value* a = &va;
    const Value* b = &vb;
    // An optional holding a value compares with the bare value, as test data stores them either way.
    if (a->isOptional() && !b->isOptional() && a->optionalValue())
        a = a->optionalValue();
    if (b->isOptional() && !a->isOptional() && b->optionalValue())
        b = b->optionalValue();
    if (a->kind() != b->kind()) {
        status = CompareStatus::KindMismatch;
        note = a->typeString() + " vs " + b->typeString();
        return;
    }
    switch (a->kind()) {
    case Value::Kind::None:
        return;
    case Value::Kind::Tensor: {
        const Tensor& ta = a->tensor();
        const Tensor& tb = b->tensor();
        if (!sameKindOfElements(ta.dtype(), tb.dtype())) {
            status = CompareStatus::KindMismatch;
            note = "element types " + std::string(dataTypeName(ta.dtype())) + " and "
                + std::string(dataTypeName(tb.dtype())) + " cannot be compared";
            return;
        }
        if (ta.shape() != tb.shape()) {
            status = CompareStatus::ShapeMismatch;
            note = "shapes " + shapeToString(ta.shape()) + " and " + shapeToString(tb.shape());
            return;
        }
        acc.tensors(ta, tb);
        return;
    }
    case Value::Kind::Sequence: {
        const auto& ia = a->sequence().items;
        const auto& ib = b->sequence().items;
        if (ia.size() != ib.size()) {
            status = CompareStatus::ShapeMismatch;
            note = "sequences of " + std::to_string(ia.size()) + " and " + std::to_string(ib.size()) + " items";
            return;
        }
        for (size_t i = 0; i < ia.size() && status == CompareStatus::Match; ++i) {
            accumulate(ia[i], ib[i], acc, status, note);
            if (!note.empty())
                note = "item " + std::to_string(i) + ": " + note;
        }
        return;
    }
    case Value::Kind::Map: {
        accumulate(Value(a->map().keys), Value(b->map().keys), acc, status, note);
        if (status == CompareStatus::Match)
            accumulate(Value(a->map().values), Value(b->map().values), acc, status, note);
        return;
    }
    case Value::Kind::Optional: {
        const Value* ia = a->optionalValue();
        const Value* ib = b->optionalValue();
        if (!ia || !ib) {
            if (ia || ib) {
                status = CompareStatus::KindMismatch;
                note = std::string("optional ") + (ia ? "set" : "empty") + " vs " + (ib ? "set" : "empty");
            }
            return;
        }
        accumulate(*ia, *ib, acc, status, note);
        return;
    }
    }
}

} // namespace

PairComparison compareValuePair(const Value& a, const Value& b, Tolerance tolerance)
{
    PairComparison out;
    Accumulator acc;
    acc.tol = tolerance;
    accumulate(a, b, acc, out.status, out.note);
    out.stats = acc.finish();
    if (out.status == CompareStatus::Match && out.stats.mismatches > 0)
        out.status = CompareStatus::Mismatch;
    return out;
}

} // namespace onnxscope
