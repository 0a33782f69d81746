// SPDX-License-Identifier: MIT
#include "engine/kernels/common/dispatch.h"
#include "engine/kernels/common/elementwise.h"
#include "engine/kernels/kernel_registry.h"
#include "engine/kernels/simd/simd.h"

#include "engine/core/thread_pool.h"

#include <algorithm>
#include <array>
#include <span>
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
/// labels: floating types accumulate in double, integers wrap. Two float operands whose labels are each in both and
/// the output (batch), in one and the output (rows or columns), or in both and not the output (summed), each once per
/// term and without broadcasting, run instead as a batched product on the SIMD level's GEMM (batchedProduct), in
/// float as onnxruntime's Einsum does: "bhqd,bhkd->bhqk", "bhqk,bhkd->bhqd", "bij,bjk->bik", "ij,kj->ik", ...
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
        if (nOps == 2 && type == DataType::Float
            && batchedProduct(ctx, dimLabels, size, std::span<const int>(loop.data(), nOut), outShape))
            return;
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

    /// x (of `shape`) with its dimensions in the order `order` (positions in shape), into dst.
    static void permute(const float* x, const Shape& shape, const std::vector<size_t>& order, float* dst)
    {
        const size_t rank = order.size();
        const auto own = stridesOf(shape);
        std::vector<int64_t> dims(rank), strides(rank), index(rank, 0);
        int64_t total = 1;
        for (size_t i = 0; i < rank; ++i) {
            dims[i] = shape[order[i]];
            strides[i] = own[order[i]];
            total *= dims[i];
        }
        if (total == 0)
            return;
        if (rank == 0) {
            dst[0] = x[0];
            return;
        }
        const int64_t inner = dims[rank - 1], innerStride = strides[rank - 1];
        for (int64_t done = 0, offset = 0; done < total; done += inner) {
            const float* src = x + offset;
            if (innerStride == 1)
                std::copy(src, src + inner, dst + done);
            else
                for (int64_t j = 0; j < inner; ++j)
                    dst[done + j] = src[j * innerStride];
            for (size_t d = rank - 1; d-- > 0;) {
                offset += strides[d];
                if (++index[d] < dims[d])
                    break;
                offset -= strides[d] * dims[d];
                index[d] = 0;
            }
        }
    }

    /// The two-operand float contraction as products of [rows, depth] by [depth, columns] matrices, one per index of
    /// the batch labels, when every label is a batch, row, column or summed label (see the class comment). An operand
    /// whose dimensions are not already in the order (batch, rows, depth) or (batch, depth, rows) (the product reads
    /// it transposed), respectively (batch, depth, columns) or (batch, columns, depth), is copied into that order
    /// first; the output likewise when it is not (batch, rows, columns). False (nothing done) for other equations.
    static bool batchedProduct(KernelContext& ctx, const std::vector<std::vector<int>>& dimLabels,
        const std::vector<int64_t>& size, std::span<const int> outLabels, const Shape& outShape)
    {
        const Tensor& a = ctx.input(0);
        const Tensor& b = ctx.input(1);
        const auto position = [](const std::vector<int>& labels, int l) -> int {
            const auto it = std::find(labels.begin(), labels.end(), l);
            return it == labels.end() ? -1 : static_cast<int>(it - labels.begin());
        };
        for (size_t k = 0; k < 2; ++k) {
            const Tensor& t = k ? b : a;
            for (size_t p = 0; p < dimLabels[k].size(); ++p) {
                const int l = dimLabels[k][p];
                if (position(dimLabels[k], l) != static_cast<int>(p) // a repeated label (a diagonal)
                    || t.dim(static_cast<int64_t>(p)) != size[static_cast<size_t>(l)]) // broadcast
                    return false;
            }
        }
        const std::vector<int> out(outLabels.begin(), outLabels.end());
        std::vector<int> batch, rows, cols, depth;
        for (int l : out) {
            const bool inA = position(dimLabels[0], l) >= 0, inB = position(dimLabels[1], l) >= 0;
            (inA && inB ? batch : inA ? rows : cols).push_back(l);
        }
        for (int l : dimLabels[0])
            if (position(out, l) < 0) {
                if (position(dimLabels[1], l) < 0)
                    return false; // summed over one operand only
                depth.push_back(l);
            }
        for (int l : dimLabels[1])
            if (position(out, l) < 0 && position(dimLabels[0], l) < 0)
                return false;
        const auto count = [&](const std::vector<int>& labels) {
            int64_t n = 1;
            for (int l : labels)
                n *= size[static_cast<size_t>(l)];
            return n;
        };
        const int64_t batches = count(batch), m = count(rows), n = count(cols), depthSize = count(depth);
        const auto concat = [](std::initializer_list<const std::vector<int>*> parts) {
            std::vector<int> r;
            for (const auto* p : parts)
                r.insert(r.end(), p->begin(), p->end());
            return r;
        };
        // Each operand as it stands, read transposed, or copied into order.
        std::vector<float> aCopy, bCopy;
        const auto prepare = [&](const Tensor& t, const std::vector<int>& labels, const std::vector<int>& outer,
                                 const std::vector<int>& inner, bool& transposed, std::vector<float>& copy) {
            const std::vector<int> straight = concat({ &batch, &outer, &inner });
            transposed = false;
            if (labels == straight)
                return t.data<float>().data();
            if (labels == concat({ &batch, &inner, &outer })) {
                transposed = true;
                return t.data<float>().data();
            }
            std::vector<size_t> order;
            for (int l : straight)
                order.push_back(static_cast<size_t>(position(labels, l)));
            copy.resize(static_cast<size_t>(t.size()));
            permute(t.data<float>().data(), t.shape(), order, copy.data());
            return static_cast<const float*>(copy.data());
        };
        bool transA = false, transB = false;
        const float* pa = prepare(a, dimLabels[0], rows, depth, transA, aCopy);
        const float* pb = prepare(b, dimLabels[1], depth, cols, transB, bCopy);
        Tensor& y = ctx.allocateOutputUninitialized(0, DataType::Float, outShape);
        if (y.size() == 0)
            return true;
        const std::vector<int> produced = concat({ &batch, &rows, &cols });
        std::vector<float> result;
        float* pc = y.data<float>().data();
        if (produced != out) {
            result.resize(static_cast<size_t>(y.size()));
            pc = result.data();
        }
        if (depthSize == 0) {
            std::fill(pc, pc + y.size(), 0.0f);
        } else {
            const int64_t lda = transA ? m : depthSize, ldb = transB ? depthSize : n;
            const int64_t aStep = m * depthSize, bStep = depthSize * n, cStep = m * n;
            ThreadPool* pool = ctx.threadPool();
            const int64_t threads = pool ? pool->threads() : 1;
            if (batches >= 2 * threads) {
                const int64_t grain = std::max<int64_t>(1, simd::kGrainMacs / std::max<int64_t>(1, aStep * n));
                const simd::Ops& ops = simd::ops();
                parallelFor(pool, batches, grain, [&](int64_t i0, int64_t i1) {
                    for (int64_t i = i0; i < i1; ++i)
                        ops.gemm(m, n, depthSize, pa + i * aStep, lda, transA, pb + i * bStep, ldb, transB,
                            pc + i * cStep, n, false);
                });
            } else {
                for (int64_t i = 0; i < batches; ++i)
                    simd::parallelGemm(pool, m, n, depthSize, pa + i * aStep, lda, transA, pb + i * bStep, ldb, transB,
                        pc + i * cStep, n, false);
            }
        }
        if (produced != out) {
            Shape producedShape;
            for (int l : produced)
                producedShape.push_back(size[static_cast<size_t>(l)]);
            std::vector<size_t> order;
            for (int l : out)
                order.push_back(static_cast<size_t>(position(produced, l)));
            permute(result.data(), producedShape, order, y.data<float>().data());
        }
        return true;
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
