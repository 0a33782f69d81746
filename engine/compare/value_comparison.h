// SPDX-License-Identifier: MIT
#pragma once

#include "engine/compare/expected_value_check.h"

#include <string>
#include <string_view>

namespace onnxscope {

/// How one compared value came out.
enum class CompareStatus {
    Match, // every element within tolerance, NaN/Inf in the same places
    Mismatch, // same shape, some elements differ (see ValueStats)
    ShapeMismatch, // both tensors, different shapes (or sequences of different lengths)
    KindMismatch, // tensor vs sequence, number vs string, ...
    OnlyA, // side A produced it, side B never did
    OnlyB, // side B produced it (or the reference holds it), side A never did
    Skipped, // present on both sides but not comparable (e.g. an unreadable reference file); see `note`
};

/// The status as reports write it: "match", "mismatch", "shape_mismatch", "kind_mismatch", "only_a", "only_b",
/// "skipped".
std::string_view compareStatusName(CompareStatus status);
/// Mismatch, ShapeMismatch or KindMismatch.
bool isDivergent(CompareStatus status);

/// Element statistics of one compared pair, computed in float64 whatever the two element types are.
/// Errors are |a - b|, relative errors |a - b| / |b| (elements where b == 0 are left out of maxRelError and governed
/// by maxAbsError), b being side B (the reference). NaN/Inf elements do not enter the error numbers; they are
/// counted, and a NaN on one side only, or an infinity that differs, is a mismatching element.
struct ValueStats {
    bool numeric = true; // false for strings: only `mismatches` is meaningful
    int64_t elements = 0;
    double maxAbsError = 0;
    double maxRelError = 0;
    double meanAbsError = 0;
    double cosine = 1; // of the finite elements as vectors; 1 when both are all zero, 0 when only one is
    int64_t mismatches = 0; // elements failing |a - b| <= atol + rtol * |b| (integers and bools: a != b)
    int64_t nanA = 0, nanB = 0, infA = 0, infB = 0;
    int64_t nonFiniteMismatches = 0; // NaN on one side only, or infinities that differ
    int64_t worstIndex = -1; // flat index of maxAbsError (or of the first non-finite mismatch if that is all)
    /// max over elements of |a - b| / (atol + rtol * |b|): <= 1 means within tolerance. Infinity when a NaN/Inf
    /// differs.
    double toleranceRatio = 0;
};

/// Element statistics of two values (tensors, sequences item by item, maps keys and values, optionals unwrapped)
/// and the resulting status (Match, Mismatch, ShapeMismatch or KindMismatch). For the diff view as much as for runs.
struct PairComparison {
    CompareStatus status = CompareStatus::Match;
    ValueStats stats;
    std::string note; // why ShapeMismatch / KindMismatch
};
PairComparison compareValuePair(const Value& a, const Value& b, Tolerance tolerance);

} // namespace onnxscope
