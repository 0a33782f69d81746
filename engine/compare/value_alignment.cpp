// SPDX-License-Identifier: MIT
#include "engine/compare/value_alignment.h"

#include "engine/core/error.h"
#include "engine/core/half.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string_view>
#include <unordered_map>

namespace onnxscope {

std::string_view alignModeName(AlignMode mode)
{
    switch (mode) {
    case AlignMode::Names:
        return "names";
    case AlignMode::Content:
        return "content";
    case AlignMode::Auto:
        return "auto";
    }
    return "?";
}

AlignMode parseAlignMode(std::string_view text)
{
    if (text == "names")
        return AlignMode::Names;
    if (text == "content")
        return AlignMode::Content;
    if (text == "auto")
        return AlignMode::Auto;
    throw Error("alignment mode must be names, content or auto, got \"" + std::string(text) + "\"");
}

std::string_view pairedByName(PairedBy by)
{
    switch (by) {
    case PairedBy::None:
        return "";
    case PairedBy::Name:
        return "name";
    case PairedBy::Content:
        return "content";
    case PairedBy::Input:
        return "input";
    case PairedBy::Output:
        return "output";
    }
    return "";
}

namespace {

bool realValued(DataType t)
{
    return t != DataType::String && t != DataType::Undefined && !isComplex(t);
}

template <class T> void moments(std::span<const T> data, double& sum, double& sumSq, int64_t& finite)
{
    for (const T& x : data) {
        const double v = static_cast<double>(x);
        if (std::isfinite(v)) {
            sum += v;
            sumSq += v * v;
            ++finite;
        }
    }
}

} // namespace

void sketchValue(const Value& value, ValueSignature& s)
{
    const Value* v = &value;
    if (v->isOptional() && v->optionalValue())
        v = v->optionalValue();
    if (!v->isTensor() || !realValued(v->tensor().dtype()))
        return;
    const Tensor& t = v->tensor();
    s.numeric = true;
    s.dtype = t.dtype();
    s.shape = t.shape();
    s.elements = t.size();
    const int64_t n = t.size();
    const int64_t count = std::min(n, kAlignmentSamples);
    s.samples.resize(static_cast<size_t>(count));
    for (int64_t k = 0; k < count; ++k) {
        // Evenly spread positions that depend on the element count only, so a reshaped value samples the same ones.
        const int64_t at = static_cast<int64_t>(
            (static_cast<double>(k) + 0.5) * static_cast<double>(n) / static_cast<double>(count));
        s.samples[static_cast<size_t>(k)] = static_cast<float>(t.toDouble(std::min(at, n - 1)));
    }
    double sum = 0, sumSq = 0;
    int64_t finite = 0;
    switch (t.dtype()) {
    case DataType::Float:
        moments(t.data<float>(), sum, sumSq, finite);
        break;
    case DataType::Double:
        moments(t.data<double>(), sum, sumSq, finite);
        break;
    case DataType::Float16:
        moments(t.data<Float16>(), sum, sumSq, finite);
        break;
    case DataType::BFloat16:
        moments(t.data<BFloat16>(), sum, sumSq, finite);
        break;
    default:
        for (int64_t i = 0; i < n; ++i) {
            const double x = t.toDouble(i);
            if (std::isfinite(x)) {
                sum += x;
                sumSq += x * x;
                ++finite;
            }
        }
    }
    if (finite) {
        s.mean = sum / static_cast<double>(finite);
        s.rms = std::sqrt(sumSq / static_cast<double>(finite));
    }
    s.allZero = sumSq == 0 && finite == n;
}

namespace {

constexpr double kAnchorWeight = 1e6;
constexpr double kNameWeight = 1e3;
constexpr double kDistanceScale = 0.05; // a content pair's weight is exp(-distance / scale)
constexpr double kWeakWeight = 1e-4; // the least weight of an admissible content pair
constexpr size_t kCandidatesPerValue = 16;
constexpr size_t kCandidatesPerConstant = 256;
constexpr double kDistanceStep = 1e-4; // distances closer than this are equal: rounding noise decides nothing

enum class ShapeFit { None, Exact, Squeezed, Reshaped };

Shape squeezed(const Shape& s)
{
    Shape out;
    for (int64_t d : s)
        if (d != 1)
            out.push_back(d);
    return out;
}

/// Element types whose values can stand for one another: the floating-point ones (fp32/fp16/bf16/fp64) among
/// themselves, anything else only with itself.
bool compatibleTypes(DataType a, DataType b)
{
    if (a == b)
        return true;
    return isFloatingPoint(a) && isFloatingPoint(b);
}

/// The operator family of an op type: a quantized or fused kernel stands for the operator it replaces (MatMulNBits
/// for MatMul in an int4 model, GatherBlockQuantized for Gather, QLinearConv for Conv), so their outputs are the same
/// operator's for the alignment.
std::string_view operatorFamily(std::string_view opType)
{
    static const std::map<std::string_view, std::string_view> families = {
        { "Gemm", "MatMul" },
        { "FusedMatMul", "MatMul" },
        { "FusedGemm", "MatMul" },
        { "MatMulNBits", "MatMul" },
        { "MatMulBnb4", "MatMul" },
        { "MatMulFpQ4", "MatMul" },
        { "MatMulInteger", "MatMul" },
        { "MatMulIntegerToFloat", "MatMul" },
        { "DynamicQuantizeMatMul", "MatMul" },
        { "QLinearMatMul", "MatMul" },
        { "QGemm", "MatMul" },
        { "GatherBlockQuantized", "Gather" },
        { "ConvInteger", "Conv" },
        { "QLinearConv", "Conv" },
        { "FusedConv", "Conv" },
    };
    auto it = families.find(opType);
    return it == families.end() ? opType : it->second;
}

bool sameOperator(const std::string& a, const std::string& b)
{
    return a == b || operatorFamily(a) == operatorFamily(b);
}

ShapeFit shapeFit(const ValueSignature& a, const ValueSignature& b)
{
    if (!a.numeric || !b.numeric || a.elements != b.elements || !compatibleTypes(a.dtype, b.dtype))
        return ShapeFit::None;
    if (a.shape == b.shape)
        return ShapeFit::Exact;
    if (squeezed(a.shape) == squeezed(b.shape))
        return ShapeFit::Squeezed;
    return ShapeFit::Reshaped;
}

/// Relative distance of two sketches: the larger of the samples' relative L2 error and the moments' (mean, rms)
/// difference relative to the larger rms. 0 for equal values, about 1.4 for unrelated ones of the same scale.
double distance(const ValueSignature& a, const ValueSignature& b)
{
    if (a.allZero && b.allZero)
        return 0;
    const double scale = std::max(a.rms, b.rms);
    if (!(scale > 0))
        return 2;
    double moments = std::max(std::abs(a.mean - b.mean), std::abs(a.rms - b.rms)) / scale;
    double diff = 0, na = 0, nb = 0, penalty = 0;
    for (size_t k = 0; k < a.samples.size() && k < b.samples.size(); ++k) {
        const double x = a.samples[k], y = b.samples[k];
        const bool fx = std::isfinite(x), fy = std::isfinite(y);
        if (!fx || !fy) {
            if (fx != fy || (std::isnan(x) != std::isnan(y)) || (!std::isnan(x) && x != y))
                penalty += 1.0 / static_cast<double>(a.samples.size());
            continue;
        }
        diff += (x - y) * (x - y);
        na += x * x;
        nb += y * y;
    }
    const double norm = std::sqrt(std::max(na, nb));
    const double samples = norm > 0 ? std::sqrt(diff) / norm : (diff > 0 ? 2.0 : 0.0);
    return std::max(samples, moments) + penalty;
}

struct Candidate {
    size_t a, b;
    double weight;
    PairedBy by;
    double distance;
    double offPlace = 0; // how far apart the two values sit in their streams (fractions of each stream)
};

/// Heavier first; among equals, the one at the same relative place in both streams.
bool better(const Candidate& x, const Candidate& y)
{
    return x.weight > y.weight || (x.weight == y.weight && x.offPlace < y.offPlace);
}

/// A Fenwick tree over B's stream positions giving the best chain ending at or before a position.
class PrefixBest {
public:
    explicit PrefixBest(size_t n)
        : m_tree(n + 1, { -1.0, -1 })
    {
    }
    /// A later update wins a tie: of several values of A equal in content (a fused chain's last steps when they are
    /// no-ops, as LayerNorm's scale and shift at 1 and 0), the last one, which the rest of the graph reads, pairs.
    void update(size_t pos, double value, int64_t candidate)
    {
        for (size_t i = pos + 1; i < m_tree.size(); i += i & (~i + 1))
            if (value >= m_tree[i].first)
                m_tree[i] = { value, candidate };
    }
    /// Best over positions [0, pos).
    std::pair<double, int64_t> query(size_t pos) const
    {
        std::pair<double, int64_t> best { 0.0, -1 };
        for (size_t i = pos; i > 0; i -= i & (~i + 1))
            if (m_tree[i].first > best.first)
                best = m_tree[i];
        return best;
    }

private:
    std::vector<std::pair<double, int64_t>> m_tree;
};

std::string nameKey(const std::string& framePath, const std::string& name)
{
    return framePath + '\n' + name;
}

} // namespace

namespace {

/// Two values of B equal in content (a no-op Identity, Reshape or float Cast of the other: an fp16 graph's output and
/// its Cast to float) are one value. When the order lets two different values of A take the two copies, only the one
/// as close as the closest keeps its content pair: the other (the residual sum before a LayerNorm that leaves it
/// almost unchanged, next to the LayerNorm's output) is near that value, not equal to it, and has no counterpart.
void dropPairsOfCopies(const std::vector<ValueSignature>& a, const std::vector<ValueSignature>& b, Alignment& out)
{
    std::map<std::tuple<size_t, int64_t, int64_t>, std::vector<size_t>> paired; // B's paired values by bucket
    for (size_t j = 0; j < b.size(); ++j)
        if (out.aOfB[j] >= 0 && b[j].numeric && !b[j].constant && !b[j].allZero)
            paired[{ b[j].depth, b[j].iteration, b[j].elements }].push_back(j);
    std::vector<size_t> drop;
    for (const auto& [key, js] : paired)
        for (size_t x = 0; x < js.size(); ++x)
            for (size_t y = 0; y < js.size(); ++y) {
                const size_t j = js[x], k = js[y];
                const auto i = static_cast<size_t>(out.aOfB[j]), other = static_cast<size_t>(out.aOfB[k]);
                if (x == y || out.byA[i] != PairedBy::Content || distance(b[j], b[k]) > 1e-7)
                    continue;
                // i holds copy j, `other` copy k of the same value: i keeps its pair only when it is as close.
                if (distance(a[i], b[j]) > distance(a[other], b[j]) + kDistanceStep)
                    drop.push_back(j);
            }
    for (size_t j : drop) {
        if (out.aOfB[j] < 0)
            continue;
        const auto i = static_cast<size_t>(out.aOfB[j]);
        out.bOfA[i] = -1;
        out.byA[i] = PairedBy::None;
        out.aOfB[j] = -1;
        out.distance[i] = 0;
    }
}

} // namespace

Alignment alignValues(const std::vector<ValueSignature>& a, const std::vector<ValueSignature>& b,
    const std::vector<std::string>& nameOfAInB, const AlignmentOptions& options)
{
    Alignment out;
    out.bOfA.assign(a.size(), -1);
    out.byA.assign(a.size(), PairedBy::None);
    out.aOfB.assign(b.size(), -1);
    out.distance.assign(a.size(), 0);

    std::vector<Candidate> candidates;
    std::unordered_map<std::string, size_t> bByName;
    std::map<std::string, size_t> bInputs;
    std::vector<size_t> bInputOrder;
    std::map<int, size_t> bOutputs;
    for (size_t j = 0; j < b.size(); ++j) {
        bByName.try_emplace(nameKey(b[j].framePath, b[j].name), j);
        if (b[j].input) {
            bInputs.emplace(b[j].name, j);
            bInputOrder.push_back(j);
        }
        if (b[j].output >= 0)
            bOutputs.emplace(b[j].output, j);
    }

    // Anchors: graph inputs by name (or by position when B names them otherwise), graph outputs by position.
    size_t inputPosition = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        if (a[i].input) {
            auto it = bInputs.find(nameOfAInB[i]);
            if (it != bInputs.end())
                candidates.push_back({ i, it->second, kAnchorWeight, PairedBy::Input, 0 });
            else if (inputPosition < bInputOrder.size() && bInputs.size() == bInputOrder.size()
                && (shapeFit(a[i], b[bInputOrder[inputPosition]]) != ShapeFit::None || !a[i].numeric))
                candidates.push_back({ i, bInputOrder[inputPosition], kAnchorWeight, PairedBy::Input, 0 });
            ++inputPosition;
        }
        if (a[i].output >= 0) {
            auto it = bOutputs.find(a[i].output);
            if (it != bOutputs.end()
                && (shapeFit(a[i], b[it->second]) != ShapeFit::None || (!a[i].numeric && !b[it->second].numeric)))
                candidates.push_back({ i, it->second, kAnchorWeight, PairedBy::Output,
                    a[i].numeric ? distance(a[i], b[it->second]) : 0.0 });
        }
    }
    if (options.pairNames)
        for (size_t i = 0; i < a.size(); ++i) {
            auto it = bByName.find(nameKey(a[i].framePath, nameOfAInB[i]));
            if (it != bByName.end())
                candidates.push_back({ i, it->second, kNameWeight, PairedBy::Name, 0 });
        }
    else
        // Initializers pair by name only: weights are re-laid-out by optimizers, and their content says little about
        // where they are used.
        for (size_t i = 0; i < a.size(); ++i)
            if (a[i].source && !a[i].input) {
                auto it = bByName.find(nameKey(a[i].framePath, nameOfAInB[i]));
                if (it != bByName.end() && b[it->second].source)
                    candidates.push_back({ i, it->second, kNameWeight, PairedBy::Name, 0 });
            }

    if (options.pairContent) {
        // B's node outputs bucketed by (depth, iteration, element count): only those can pair.
        std::map<std::tuple<size_t, int64_t, int64_t>, std::vector<size_t>> buckets;
        for (size_t j = 0; j < b.size(); ++j)
            if (!b[j].source && b[j].numeric)
                buckets[{ b[j].depth, b[j].iteration, b[j].elements }].push_back(j);
        std::vector<Candidate> mine;
        const double sizeA = static_cast<double>(std::max<size_t>(a.size(), 1));
        const double sizeB = static_cast<double>(std::max<size_t>(b.size(), 1));
        for (size_t i = 0; i < a.size(); ++i) {
            if (a[i].source || !a[i].numeric)
                continue;
            auto bucket = buckets.find({ a[i].depth, a[i].iteration, a[i].elements });
            if (bucket == buckets.end())
                continue;
            mine.clear();
            for (size_t j : bucket->second) {
                if (a[i].constant != b[j].constant)
                    continue;
                const ShapeFit fit = shapeFit(a[i], b[j]);
                if (fit == ShapeFit::None)
                    continue;
                const double scale = std::max(a[i].rms, b[j].rms);
                if (scale > 0 && std::abs(a[i].rms - b[j].rms) > options.maxDistance * scale)
                    continue;
                const double d = distance(a[i], b[j]);
                // A reshaped value only pairs when its content is the same: with the same element count, too many
                // unrelated values would fit.
                if (d > options.maxDistance || (fit == ShapeFit::Reshaped && d > 1e-2))
                    continue;
                // Beyond a close likeness a pair needs the same operator too: a fused chain's intermediates (x / sqrt 2
                // in a Gelu, x * gamma in a LayerNorm) are near their fused output's content but are not it. A
                // quantized kernel is the operator it replaces: an int4 MatMulNBits differs from its MatMul by more
                // than that.
                if (d > options.closeDistance && !sameOperator(a[i].opType, b[j].opType))
                    continue;
                double w
                    = std::max(std::exp(-std::ceil(d / kDistanceStep) * kDistanceStep / kDistanceScale), kWeakWeight);
                if (a[i].allZero && b[j].allZero)
                    w = 0.01; // says nothing about where the value is
                w *= fit == ShapeFit::Exact ? 1.0 : fit == ShapeFit::Squeezed ? 0.9 : 0.5;
                if (sameOperator(a[i].opType, b[j].opType))
                    w += 0.02;
                if (nameOfAInB[i] == b[j].name)
                    w += 0.05;
                // Among equals (a graph's many identical scalars), the one at the same relative place.
                const double offPlace = std::abs(static_cast<double>(i) / sizeA - static_cast<double>(j) / sizeB);
                mine.push_back({ i, j, w, PairedBy::Content, d, offPlace });
            }
            // Constants keep more close candidates: a graph may hold dozens of equal ones, paired greedily below.
            if (a[i].constant)
                mine.erase(std::remove_if(mine.begin(), mine.end(),
                               [&](const Candidate& c) { return c.distance > options.closeDistance; }),
                    mine.end());
            const size_t keep = a[i].constant ? kCandidatesPerConstant : kCandidatesPerValue;
            if (mine.size() > keep) {
                std::partial_sort(mine.begin(), mine.begin() + static_cast<std::ptrdiff_t>(keep), mine.end(), better);
                mine.resize(keep);
            }
            candidates.insert(candidates.end(), mine.begin(), mine.end());
        }
    }

    // Keep the heaviest candidate per (a, b).
    std::sort(candidates.begin(), candidates.end(), [](const Candidate& x, const Candidate& y) {
        return std::tie(x.a, x.b) < std::tie(y.a, y.b) || (x.a == y.a && x.b == y.b && x.weight > y.weight);
    });
    candidates.erase(std::unique(candidates.begin(), candidates.end(),
                         [](const Candidate& x, const Candidate& y) { return x.a == y.a && x.b == y.b; }),
        candidates.end());

    // The heaviest chain strictly increasing in both streams (a weighted longest common subsequence): candidates in
    // A's order; those of one A value are scored against the chains of earlier A values only.
    std::vector<double> best(candidates.size(), 0);
    std::vector<int64_t> previous(candidates.size(), -1);
    PrefixBest tree(b.size());
    auto outsideChain = [&](const Candidate& c) { return c.by == PairedBy::Content && a[c.a].constant; };
    for (size_t start = 0; start < candidates.size();) {
        size_t end = start;
        while (end < candidates.size() && candidates[end].a == candidates[start].a)
            ++end;
        if (outsideChain(candidates[start])) {
            start = end;
            continue;
        }
        for (size_t k = start; k < end; ++k) {
            auto [value, from] = tree.query(candidates[k].b);
            best[k] = value + candidates[k].weight;
            previous[k] = from;
        }
        for (size_t k = start; k < end; ++k)
            tree.update(candidates[k].b, best[k], static_cast<int64_t>(k));
        start = end;
    }
    auto [total, last] = tree.query(b.size());
    (void)total;
    for (int64_t k = last; k >= 0; k = previous[static_cast<size_t>(k)]) {
        const Candidate& c = candidates[static_cast<size_t>(k)];
        out.bOfA[c.a] = static_cast<int64_t>(c.b);
        out.byA[c.a] = c.by;
        out.aOfB[c.b] = static_cast<int64_t>(c.a);
        out.distance[c.a] = c.distance;
    }
    auto take = [&](const Candidate& c) {
        out.bOfA[c.a] = static_cast<int64_t>(c.b);
        out.byA[c.a] = c.by;
        out.aOfB[c.b] = static_cast<int64_t>(c.a);
        out.distance[c.a] = c.distance;
    };
    // Name pairs and anchors the order could not keep still pair when both ends are free: a name is a promise.
    for (const Candidate& c : candidates)
        if (c.by != PairedBy::Content && out.bOfA[c.a] < 0 && out.aOfB[c.b] < 0)
            take(c);
    // Constants run wherever an executor puts them: they pair outside the order, heaviest first, and only when close.
    std::vector<const Candidate*> constants;
    for (const Candidate& c : candidates)
        if (outsideChain(c) && c.distance <= options.closeDistance)
            constants.push_back(&c);
    std::stable_sort(
        constants.begin(), constants.end(), [](const Candidate* x, const Candidate* y) { return better(*x, *y); });
    for (const Candidate* c : constants)
        if (out.bOfA[c->a] < 0 && out.aOfB[c->b] < 0)
            take(*c);
    dropPairsOfCopies(a, b, out);
    return out;
}

} // namespace onnxscope
