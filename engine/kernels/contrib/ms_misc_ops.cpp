// SPDX-License-Identifier: MIT
// com.microsoft UnfoldTensor, MurmurHash3, NGramRepeatBlock and DynamicTimeWarping.
#include "engine/kernels/kernel_registry.h"

#include <cstring>
#include <limits>
#include <vector>

namespace onnxscope {

namespace {

/// UnfoldTensor (com.microsoft 1): every slice of `size` elements along `dim` (default -1), `step` apart (default 1),
/// as torch.Tensor.unfold: the output has input's shape with dim's extent replaced by (extent - size) / step + 1, and
/// a last dimension of `size`. Any element type but strings.
class UnfoldTensor final : public Kernel {
public:
    explicit UnfoldTensor(const KernelInit& init)
        : m_dim(init.attributes().getInt("dim", -1))
        , m_size(init.attributes().requireInt("size"))
        , m_step(init.attributes().getInt("step", 1))
    {
        if (m_size <= 0)
            throw init.attributes().error("size", "must be positive, got " + std::to_string(m_size));
        if (m_step <= 0)
            throw init.attributes().error("step", "must be positive, got " + std::to_string(m_step));
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        if (x.dtype() == DataType::String)
            throw ctx.error("string tensors are not supported");
        const int64_t rank = x.rank();
        const int64_t dim = m_dim < 0 ? m_dim + rank : m_dim;
        if (dim < 0 || dim >= rank)
            throw ctx.error(
                "attribute 'dim' " + std::to_string(m_dim) + " is outside the input's rank " + std::to_string(rank));
        const int64_t extent = x.dim(dim);
        if (m_size > extent)
            throw ctx.error("attribute 'size' " + std::to_string(m_size) + " exceeds dimension " + std::to_string(dim)
                + " of the input " + shapeToString(x.shape()));
        const int64_t windows = (extent - m_size) / m_step + 1;
        Shape shape = x.shape();
        shape[static_cast<size_t>(dim)] = windows;
        shape.push_back(m_size);
        Tensor& y = ctx.allocateOutputUninitialized(0, x.dtype(), shape);
        int64_t outer = 1, inner = 1;
        for (int64_t d = 0; d < dim; ++d)
            outer *= x.dim(d);
        for (int64_t d = dim + 1; d < rank; ++d)
            inner *= x.dim(d);
        const size_t e = elementSize(x.dtype());
        const auto* src = static_cast<const uint8_t*>(x.raw());
        auto* dst = static_cast<uint8_t*>(y.mutableRaw());
        // y[o, w, i, k] = x[o, w * step + k, i]
        for (int64_t o = 0; o < outer; ++o)
            for (int64_t w = 0; w < windows; ++w)
                for (int64_t i = 0; i < inner; ++i)
                    for (int64_t k = 0; k < m_size; ++k) {
                        const int64_t from = (o * extent + w * m_step + k) * inner + i;
                        const int64_t to = ((o * windows + w) * inner + i) * m_size + k;
                        std::memcpy(dst + static_cast<size_t>(to) * e, src + static_cast<size_t>(from) * e, e);
                    }
    }

private:
    int64_t m_dim, m_size, m_step;
};

/// MurmurHash3_x86_32 of `length` bytes (Austin Appleby's public-domain algorithm; written here from its description,
/// since no Debian library exposes the 32-bit x86 variant).
uint32_t murmur3(const uint8_t* data, size_t length, uint32_t seed)
{
    constexpr uint32_t c1 = 0xcc9e2d51, c2 = 0x1b873593;
    auto rotl = [](uint32_t x, int r) { return (x << r) | (x >> (32 - r)); };
    uint32_t h = seed;
    const size_t blocks = length / 4;
    for (size_t i = 0; i < blocks; ++i) {
        uint32_t k;
        std::memcpy(&k, data + i * 4, 4);
        k *= c1;
        k = rotl(k, 15);
        k *= c2;
        h ^= k;
        h = rotl(h, 13);
        h = h * 5 + 0xe6546b64;
    }
    const uint8_t* tail = data + blocks * 4;
    uint32_t k = 0;
    switch (length & 3) {
    case 3:
        k ^= uint32_t(tail[2]) << 16;
        [[fallthrough]];
    case 2:
        k ^= uint32_t(tail[1]) << 8;
        [[fallthrough]];
    case 1:
        k ^= tail[0];
        k *= c1;
        k = rotl(k, 15);
        k *= c2;
        h ^= k;
    }
    h ^= static_cast<uint32_t>(length);
    h ^= h >> 16;
    h *= 0x85ebca6b;
    h ^= h >> 13;
    h *= 0xc2b2ae35;
    h ^= h >> 16;
    return h;
}

/// MurmurHash3 (com.microsoft 1): the MurmurHash3_x86_32 hash of each element of X (its bytes, little-endian; a
/// string's UTF-8 bytes) with `seed`; uint32 output, or int32 with positive = 0. X int32, uint32, int64, uint64,
/// float, double, string.
class MurmurHash3 final : public Kernel {
public:
    explicit MurmurHash3(const KernelInit& init)
        : m_seed(static_cast<uint32_t>(init.attributes().getInt("seed", 0)))
        , m_positive(init.attributes().getInt("positive", 1) != 0)
    {
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        Tensor& y = ctx.allocateOutputUninitialized(0, m_positive ? DataType::UInt32 : DataType::Int32, x.shape());
        auto* out = static_cast<uint32_t*>(y.mutableRaw());
        if (x.dtype() == DataType::String) {
            auto in = x.data<std::string>();
            for (size_t i = 0; i < in.size(); ++i)
                out[i] = murmur3(reinterpret_cast<const uint8_t*>(in[i].data()), in[i].size(), m_seed);
            return;
        }
        switch (x.dtype()) {
        case DataType::Int32:
        case DataType::UInt32:
        case DataType::Int64:
        case DataType::UInt64:
        case DataType::Float:
        case DataType::Double:
            break;
        default:
            throw ctx.error("X must be int32, uint32, int64, uint64, float, double or string, got " + x.typeString());
        }
        const size_t e = elementSize(x.dtype());
        const auto* in = static_cast<const uint8_t*>(x.raw());
        for (int64_t i = 0; i < x.size(); ++i)
            out[i] = murmur3(in + static_cast<size_t>(i) * e, e, m_seed);
    }

private:
    uint32_t m_seed;
    bool m_positive;
};

/// NGramRepeatBlock (com.microsoft 1): scores [B, V] (float) with -inf at every token that would complete an n-gram
/// (ngram_size, required) already in input_ids [B, S] (int64): token ids[i + n - 1] is banned where ids[i, i + n - 1)
/// equals the last n - 1 ids. A banned id outside [0, V) is an error.
class NGramRepeatBlock final : public Kernel {
public:
    explicit NGramRepeatBlock(const KernelInit& init)
        : m_n(init.attributes().requireInt("ngram_size"))
    {
        if (m_n <= 0)
            throw init.attributes().error("ngram_size", "must be positive, got " + std::to_string(m_n));
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& ids = ctx.input(0);
        const Tensor& scores = ctx.input(1);
        if (ids.dtype() != DataType::Int64 || ids.rank() != 2)
            throw ctx.error("input_ids must be int64 [batch, sequence], got " + ids.typeString());
        if (scores.dtype() != DataType::Float || scores.rank() != 2 || scores.dim(0) != ids.dim(0))
            throw ctx.error(
                "scores must be float [batch, vocabulary] with input_ids' batch, got " + scores.typeString());
        Tensor& y = ctx.allocateOutputUninitialized(0, DataType::Float, scores.shape());
        std::copy(scores.data<float>().begin(), scores.data<float>().end(), y.data<float>().begin());
        const int64_t batch = ids.dim(0), len = ids.dim(1), vocab = scores.dim(1);
        const int64_t* t = ids.data<int64_t>().data();
        float* out = y.data<float>().data();
        for (int64_t b = 0; b < batch; ++b)
            for (int64_t i = 0; i + m_n <= len; ++i) {
                bool repeats = true;
                for (int64_t j = 0; j + 1 < m_n && repeats; ++j)
                    repeats = t[b * len + i + j] == t[b * len + len + 1 - m_n + j];
                if (!repeats)
                    continue;
                const int64_t token = t[b * len + i + m_n - 1];
                if (token < 0 || token >= vocab)
                    throw ctx.error("token id " + std::to_string(token) + " of input_ids is outside the vocabulary [0, "
                        + std::to_string(vocab) + ")");
                out[b * vocab + token] = -std::numeric_limits<float>::infinity();
            }
    }

private:
    int64_t m_n;
};

/// DynamicTimeWarping (com.microsoft 1): the alignment path through a cost matrix [M, N] (or [1, M, N]), float, as
/// int32 [2, L] (row indices, then column indices, from (0, 0) to (M - 1, N - 1)). Each step comes from the cheapest of
/// the diagonal, upper and left neighbours; on ties the left one, then as onnxruntime breaks them.
class DynamicTimeWarping final : public Kernel {
public:
    explicit DynamicTimeWarping(const KernelInit&) { }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        if (x.dtype() != DataType::Float || !(x.rank() == 2 || (x.rank() == 3 && x.dim(0) == 1)))
            throw ctx.error("input must be float [M, N] or [1, M, N], got " + x.typeString());
        const int64_t rows = x.dim(x.rank() - 2), cols = x.dim(x.rank() - 1);
        const float* c = x.data<float>().data();
        const float inf = std::numeric_limits<float>::infinity();
        std::vector<float> cost(static_cast<size_t>((rows + 1) * (cols + 1)), inf);
        std::vector<int8_t> trace(cost.size(), -1);
        auto at = [&](int64_t i, int64_t j) { return static_cast<size_t>(i * (cols + 1) + j); };
        cost[0] = 0;
        for (int64_t j = 1; j <= cols; ++j)
            for (int64_t i = 1; i <= rows; ++i) {
                const float c0 = cost[at(i - 1, j - 1)], c1 = cost[at(i - 1, j)], c2 = cost[at(i, j - 1)];
                const int8_t from = c0 < c1 && c0 < c2 ? 0 : (c1 < c0 && c1 < c2 ? 1 : 2);
                cost[at(i, j)] = (from == 0 ? c0 : from == 1 ? c1 : c2) + c[(i - 1) * cols + j - 1];
                trace[at(i, j)] = from;
            }
        std::vector<std::pair<int32_t, int32_t>> path;
        for (int64_t i = rows, j = cols; i > 0 && j > 0;) {
            path.emplace_back(static_cast<int32_t>(i - 1), static_cast<int32_t>(j - 1));
            const int8_t from = trace[at(i, j)];
            i -= from != 2;
            j -= from != 1;
        }
        const int64_t n = static_cast<int64_t>(path.size());
        Tensor& y = ctx.allocateOutputUninitialized(0, DataType::Int32, { 2, n });
        int32_t* out = y.data<int32_t>().data();
        for (int64_t k = 0; k < n; ++k) {
            out[k] = path[static_cast<size_t>(n - 1 - k)].first;
            out[n + k] = path[static_cast<size_t>(n - 1 - k)].second;
        }
    }
};

} // namespace

void registerMsMiscOps(KernelRegistry& r)
{
    r.add("com.microsoft", "UnfoldTensor", 1, KernelRegistry::kLatest, makeFactory<UnfoldTensor>());
    r.add("com.microsoft", "MurmurHash3", 1, KernelRegistry::kLatest, makeFactory<MurmurHash3>());
    r.add("com.microsoft", "NGramRepeatBlock", 1, KernelRegistry::kLatest, makeFactory<NGramRepeatBlock>());
    r.add("com.microsoft", "DynamicTimeWarping", 1, KernelRegistry::kLatest, makeFactory<DynamicTimeWarping>());
}

} // namespace onnxscope
