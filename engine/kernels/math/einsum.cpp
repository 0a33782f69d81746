// SPDX-License-Identifier: MIT
#include "engine/kernels/common/dispatch.h"
#include "engine/kernels/common/elementwise.h"
#include "engine/kernels/kernel_registry.h"

#include <algorithm>
#include <array>
#include <type_traits>
#include <vector>

namespace onnxscope {

namespace {

constexpr int kLetters = 52; // a-z then A-Z; ellipsis dimensions are labels kLetters + i

int letterId(char c)
{
    if (c >= 'a' && c <= 'z')
        return c - 'a';
    if (c >= 'A' && c <= 'Z')
        return 26 + (c - 'A');
    return -1;
}

/// One side of the equation: letters in order, and where "..." stands among them (-1 if absent).
struct Term {
    std::vector<int> letters;
    int ellipsisAt = -1;
};

/// Einsum 12: Einstein summation over any number of inputs of one numeric type, as numpy.einsum: explicit
/// ("ij,jk->ik") and implicit output (letters used once, in alphabetical order, after the ellipsis dimensions),
/// "..." with numpy broadcasting of the ellipsis dimensions, repeated letters within a term (diagonals, "ii->i").
/// Letters missing from the output are summed. Each output element is a direct sum of products over the summed
/// labels (no reordering into matrix products): floating types accumulate in double, integers wrap.
class Einsum final : public Kernel {
public:
    explicit Einsum(const KernelInit& init)
    {
        std::string eq;
        for (char c : init.attributes().requireString("equation"))
            if (c != ' ')
                eq += c;
        const auto bad
            = [&](const std::string& why) { return init.attributes().error("equation", why + " in \"" + eq + "\""); };
        const size_t arrow = eq.find("->");
        m_explicit = arrow != std::string::npos;
        const std::string lhs = eq.substr(0, arrow);
        size_t start = 0;
        while (true) {
            const size_t comma = lhs.find(',', start);
            m_inputs.push_back(parseTerm(lhs.substr(start, comma - start), bad));
            if (comma == std::string::npos)
                break;
            start = comma + 1;
        }
        if (m_explicit) {
            m_output = parseTerm(eq.substr(arrow + 2), bad);
            std::array<bool, kLetters> seen {};
            for (int l : m_output.letters) {
                if (seen[static_cast<size_t>(l)])
                    throw bad("output letter repeated");
                seen[static_cast<size_t>(l)] = true;
                bool found = false;
                for (const Term& t : m_inputs)
                    found = found || std::find(t.letters.begin(), t.letters.end(), l) != t.letters.end();
                if (!found)
                    throw bad("output letter not in any input");
            }
        } else {
            std::array<int, kLetters> uses {};
            bool anyEllipsis = false;
            for (const Term& t : m_inputs) {
                for (int l : t.letters)
                    ++uses[static_cast<size_t>(l)];
                anyEllipsis = anyEllipsis || t.ellipsisAt >= 0;
            }
            m_output.ellipsisAt = anyEllipsis ? 0 : -1;
            // Alphabetical as numpy sorts characters: upper case (ids 26..51) before lower case.
            for (int l = 26; l < kLetters; ++l)
                if (uses[static_cast<size_t>(l)] == 1)
                    m_output.letters.push_back(l);
            for (int l = 0; l < 26; ++l)
                if (uses[static_cast<size_t>(l)] == 1)
                    m_output.letters.push_back(l);
        }
    }

    void compute(KernelContext& ctx) const override
    {
        if (ctx.inputCount() != m_inputs.size())
            throw ctx.error("the equation has " + std::to_string(m_inputs.size()) + " input terms, the node has "
                + std::to_string(ctx.inputCount()) + " inputs");
        const size_t nOps = m_inputs.size();
        const DataType type = ctx.input(0).dtype();
        // Labels of every operand dimension; ellipsis dimensions are aligned to the right across operands.
        size_t ellipsisRank = 0;
        for (size_t k = 0; k < nOps; ++k) {
            const Tensor& t = ctx.input(k);
            if (t.dtype() != type)
                throw ctx.error("input " + std::to_string(k) + " has element type "
                    + std::string(dataTypeName(t.dtype())) + ", input 0 has " + std::string(dataTypeName(type)));
            const size_t letters = m_inputs[k].letters.size();
            const auto rank = static_cast<size_t>(t.rank());
            if (m_inputs[k].ellipsisAt < 0 ? rank != letters : rank < letters)
                throw ctx.error("input " + std::to_string(k) + " " + shapeToString(t.shape()) + " does not match term "
                    + std::to_string(k) + " of the equation");
            ellipsisRank = std::max(ellipsisRank, rank - letters);
        }
        const size_t nLabels = kLetters + ellipsisRank;
        std::vector<int64_t> size(nLabels, -1);
        std::vector<std::vector<int>> dimLabels(nOps);
        for (size_t k = 0; k < nOps; ++k) {
            const Tensor& t = ctx.input(k);
            const Term& term = m_inputs[k];
            const size_t e = static_cast<size_t>(t.rank()) - term.letters.size();
            for (size_t p = 0, li = 0; p < static_cast<size_t>(t.rank());) {
                if (static_cast<int>(li) == term.ellipsisAt && e > 0) {
                    for (size_t i = 0; i < e; ++i, ++p)
                        dimLabels[k].push_back(static_cast<int>(kLetters + ellipsisRank - e + i));
                    if (li == term.letters.size())
                        break;
                }
                dimLabels[k].push_back(term.letters[li++]);
                ++p;
            }
            for (size_t p = 0; p < dimLabels[k].size(); ++p) {
                const auto l = static_cast<size_t>(dimLabels[k][p]);
                const int64_t d = t.dim(static_cast<int64_t>(p));
                const bool ellipsis = l >= kLetters;
                if (size[l] < 0 || (ellipsis && size[l] == 1))
                    size[l] = d;
                else if (d != size[l] && !(ellipsis && d == 1))
                    throw ctx.error("dimension " + std::to_string(p) + " of input " + std::to_string(k) + " "
                        + shapeToString(t.shape()) + " is " + std::to_string(d) + ", elsewhere the same label has size "
                        + std::to_string(size[l]));
            }
        }
        // Output labels, then the summed ones.
        std::vector<int> loop;
        for (size_t li = 0; li <= m_output.letters.size(); ++li) {
            if (static_cast<int>(li) == m_output.ellipsisAt)
                for (size_t i = 0; i < ellipsisRank; ++i)
                    loop.push_back(static_cast<int>(kLetters + i));
            if (li < m_output.letters.size())
                loop.push_back(m_output.letters[li]);
        }
        const size_t nOut = loop.size();
        Shape outShape;
        for (int l : loop)
            outShape.push_back(size[static_cast<size_t>(l)]);
        for (size_t l = 0; l < nLabels; ++l)
            if (size[l] >= 0 && std::find(loop.begin(), loop.end(), static_cast<int>(l)) == loop.end())
                loop.push_back(static_cast<int>(l));
        // Per operand, the element stride of each loop label (summed over repeated letters, 0 where broadcast).
        std::vector<std::vector<int64_t>> strides(nOps, std::vector<int64_t>(loop.size(), 0));
        for (size_t k = 0; k < nOps; ++k) {
            const auto own = stridesOf(ctx.input(k).shape());
            for (size_t p = 0; p < dimLabels[k].size(); ++p) {
                if (ctx.input(k).dim(static_cast<int64_t>(p)) == 1)
                    continue;
                const auto at = std::find(loop.begin(), loop.end(), dimLabels[k][p]) - loop.begin();
                strides[k][static_cast<size_t>(at)] += own[p];
            }
        }
        std::vector<int64_t> sizes;
        for (int l : loop)
            sizes.push_back(size[static_cast<size_t>(l)]);
        Tensor& out = ctx.allocateOutput(0, type, outShape);
        dispatch<NumericTypes>(type, ctx.node(), [&]<class T>() { run<T>(ctx, out, sizes, nOut, strides); });
    }

private:
    template <class Bad> static Term parseTerm(const std::string& s, const Bad& bad)
    {
        Term t;
        for (size_t i = 0; i < s.size(); ++i) {
            if (s.compare(i, 3, "...") == 0) {
                if (t.ellipsisAt >= 0)
                    throw bad("more than one \"...\" in a term");
                t.ellipsisAt = static_cast<int>(t.letters.size());
                i += 2;
                continue;
            }
            const int l = letterId(s[i]);
            if (l < 0)
                throw bad(std::string("unexpected character '") + s[i] + "'");
            t.letters.push_back(l);
        }
        return t;
    }

    template <class T>
    static void run(const KernelContext& ctx, Tensor& out, const std::vector<int64_t>& sizes, size_t nOut,
        const std::vector<std::vector<int64_t>>& strides)
    {
        using A = std::conditional_t<std::is_integral_v<T>, uint64_t, double>;
        const size_t nOps = strides.size(), nLoop = sizes.size();
        std::vector<const T*> ptr(nOps);
        for (size_t k = 0; k < nOps; ++k)
            ptr[k] = ctx.input(k).data<T>().data();
        T* po = out.data<T>().data();
        const int64_t outCount = out.size();
        if (outCount == 0)
            return;
        int64_t sumCount = 1;
        for (size_t i = nOut; i < nLoop; ++i)
            sumCount *= sizes[i];
        // The innermost summed label runs as a tight loop; the others through an odometer.
        const bool hasSum = nLoop > nOut;
        const int64_t lastLen = hasSum ? sizes[nLoop - 1] : 1;
        std::vector<int64_t> lastStride(nOps, 0);
        if (hasSum)
            for (size_t k = 0; k < nOps; ++k)
                lastStride[k] = strides[k][nLoop - 1];
        const size_t nSumOuter = hasSum ? nLoop - nOut - 1 : 0;
        std::vector<int64_t> outIndex(nOut, 0), sumIndex(nSumOuter, 0), base(nOps, 0), off(nOps, 0);
        const auto value = [](const T* p, int64_t i) {
            if constexpr (std::is_integral_v<T>)
                return static_cast<A>(static_cast<std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>>(p[i]));
            else
                return static_cast<A>(p[i]);
        };
        for (int64_t o = 0; o < outCount; ++o) {
            A acc = 0;
            if (sumCount > 0) {
                off = base;
                std::fill(sumIndex.begin(), sumIndex.end(), 0);
                while (true) {
                    if (nOps == 2) {
                        const T* a = ptr[0] + off[0];
                        const T* b = ptr[1] + off[1];
                        for (int64_t j = 0; j < lastLen; ++j)
                            acc += value(a, j * lastStride[0]) * value(b, j * lastStride[1]);
                    } else {
                        for (int64_t j = 0; j < lastLen; ++j) {
                            A prod = 1;
                            for (size_t k = 0; k < nOps; ++k)
                                prod *= value(ptr[k], off[k] + j * lastStride[k]);
                            acc += prod;
                        }
                    }
                    size_t d = nSumOuter;
                    for (; d-- > 0;) {
                        const size_t li = nOut + d;
                        for (size_t k = 0; k < nOps; ++k)
                            off[k] += strides[k][li];
                        if (++sumIndex[d] < sizes[li])
                            break;
                        for (size_t k = 0; k < nOps; ++k)
                            off[k] -= strides[k][li] * sizes[li];
                        sumIndex[d] = 0;
                    }
                    if (d == static_cast<size_t>(-1))
                        break;
                }
            }
            po[o] = static_cast<T>(acc);
            for (size_t d = nOut; d-- > 0;) {
                for (size_t k = 0; k < nOps; ++k)
                    base[k] += strides[k][d];
                if (++outIndex[d] < sizes[d])
                    break;
                for (size_t k = 0; k < nOps; ++k)
                    base[k] -= strides[k][d] * sizes[d];
                outIndex[d] = 0;
            }
        }
    }

    std::vector<Term> m_inputs;
    Term m_output;
    bool m_explicit = false;
};

} // namespace

void registerEinsum(KernelRegistry& r)
{
    r.add("", "Einsum", 12, 28, makeFactory<Einsum>());
}

} // namespace onnxscope
