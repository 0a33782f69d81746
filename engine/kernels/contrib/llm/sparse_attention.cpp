// SPDX-License-Identifier: MIT
#include "engine/kernels/contrib/contrib_attention.h"
#include "engine/kernels/contrib/contrib_util.h"
#include "engine/kernels/kernel_registry.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace onnxscope {

namespace {

/// SparseAttention (com.microsoft 1), the block-sparse causal attention of Phi-3-small: query [B, S, N*H] with key
/// and value [B, S, Nkv*H], or packed QKV [B, S, (N + 2 Nkv) H]; the KV caches past_key/past_value [B, Nkv, M, H]
/// are shared buffers (present_key/present_value [B, Nkv, M, H]): batch b's new rows go at P_b = 0 for a prompt
/// (total_sequence_length = S) and P_b = key_total_sequence_lengths[b] - S otherwise. Query s sits at position
/// P_b + s and sees key j when j <= P_b + s, j < key_total_sequence_lengths[b], and the block mask of its head's
/// layout (head h uses layout h % num_layout, given in CSR by block_row_indices [L, max_blocks + 1] and
/// block_col_indices [L, max_nnz], -1 padding) has block (position / sparse_block_size, j / sparse_block_size).
/// do_rotary rotates Q and the new K at their positions with cos_cache/sin_cache [*, rotary_dim / 2]
/// (rotary_interleaved). scale 0 means 1/sqrt(H). float, float16, bfloat16 computed in float.
class SparseAttention final : public Kernel {
public:
    explicit SparseAttention(const KernelInit& init)
    {
        const auto& a = init.attributes();
        m_heads = a.requireInt("num_heads");
        m_kvHeads = a.requireInt("kv_num_heads");
        m_block = a.requireInt("sparse_block_size");
        m_scale = a.getFloat("scale", 0.0f);
        m_rotary = a.getInt("do_rotary", 0) != 0;
        m_interleaved = a.getInt("rotary_interleaved", 0) != 0;
        if (m_heads <= 0 || m_kvHeads <= 0 || m_heads % m_kvHeads)
            throw a.error("kv_num_heads",
                "must be positive and divide num_heads " + std::to_string(m_heads) + ", got "
                    + std::to_string(m_kvHeads));
        if (m_block <= 0)
            throw a.error("sparse_block_size", "must be positive, got " + std::to_string(m_block));
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& query = ctx.input(0);
        contrib::requireSameType(ctx, query.dtype(), { 1, 2, 3, 4, 9, 10 });
        const int64_t N = m_heads, Nkv = m_kvHeads;
        const bool packed = !ctx.hasInput(1);
        if (ctx.hasInput(1) != ctx.hasInput(2))
            throw ctx.error("key and value must be given together (or neither, for packed QKV)");
        if (query.rank() != 3)
            throw ctx.error("query must be [B, S, hidden], got " + shapeToString(query.shape()));
        const int64_t B = query.dim(0), S = query.dim(1);
        const int64_t width = query.dim(2), H = packed ? width / (N + 2 * Nkv) : width / N;
        if (H <= 0 || (packed ? width % (N + 2 * Nkv) : width % N))
            throw ctx.error("query's hidden size " + std::to_string(width) + " does not split into "
                + (packed ? "num_heads + 2 kv_num_heads" : "num_heads") + " heads");
        if (!packed)
            for (size_t i : { 1, 2 })
                if (ctx.input(i).shape() != Shape { B, S, Nkv * H })
                    throw ctx.error(std::string(i == 1 ? "key" : "value") + " must be [B, S, kv_num_heads * H] = "
                        + shapeToString(Shape { B, S, Nkv * H }) + ", got " + shapeToString(ctx.input(i).shape()));
        const Tensor& pk = ctx.input(3);
        const Tensor& pv = ctx.input(4);
        if (pk.rank() != 4 || pk.dim(0) != B || pk.dim(1) != Nkv || pk.dim(3) != H || pv.shape() != pk.shape())
            throw ctx.error("past_key and past_value must be [B, kv_num_heads, max_cache_sequence_length, H], got "
                + shapeToString(pk.shape()) + " and " + shapeToString(pv.shape()));
        const int64_t M = pk.dim(2);
        const Tensor& rowsT = ctx.input(5);
        const Tensor& colsT = ctx.input(6);
        if (rowsT.dtype() != DataType::Int32 || colsT.dtype() != DataType::Int32 || rowsT.rank() != 2
            || colsT.rank() != 2 || rowsT.dim(0) != colsT.dim(0) || rowsT.dim(0) <= 0 || N % rowsT.dim(0)
            || rowsT.dim(1) < 2)
            throw ctx.error("block_row_indices [num_layout, max_blocks + 1] and block_col_indices [num_layout, "
                            "max_nnz] must be int32 with num_heads divisible by num_layout, got "
                + shapeToString(rowsT.shape()) + " and " + shapeToString(colsT.shape()));
        const int64_t layouts = rowsT.dim(0), maxBlocks = rowsT.dim(1) - 1, nnz = colsT.dim(1);
        const Tensor& totalT = ctx.input(7);
        const Tensor& lensT = ctx.input(8);
        if (totalT.dtype() != DataType::Int32 || totalT.size() != 1)
            throw ctx.error("total_sequence_length must be one int32 value");
        if (lensT.dtype() != DataType::Int32 || lensT.shape() != Shape { B })
            throw ctx.error("key_total_sequence_lengths must be int32 [B], got " + lensT.typeString() + " "
                + shapeToString(lensT.shape()));
        const int64_t total = totalT.data<int32_t>()[0];
        const int32_t* lens = lensT.data<int32_t>().data();
        const bool prompt = total == S;
        if (total < S || total > M || total > maxBlocks * m_block)
            throw ctx.error("total_sequence_length " + std::to_string(total)
                + " must be at least S = " + std::to_string(S) + " and fit the cache (" + std::to_string(M)
                + ") and the block mask (" + std::to_string(maxBlocks * m_block) + " positions)");
        for (int64_t b = 0; b < B; ++b)
            if (lens[b] > total || (prompt ? lens[b] < 1 : lens[b] < S))
                throw ctx.error("key_total_sequence_lengths[" + std::to_string(b) + "] = " + std::to_string(lens[b])
                    + " must be in [" + std::to_string(prompt ? 1 : S) + ", total_sequence_length "
                    + std::to_string(total) + "]");
        // The block masks [layout][row block][column block].
        const int32_t* rowIdx = rowsT.data<int32_t>().data();
        const int32_t* colIdx = colsT.data<int32_t>().data();
        std::vector<uint8_t> mask(static_cast<size_t>(layouts * maxBlocks * maxBlocks), 0);
        for (int64_t l = 0; l < layouts; ++l) {
            const int32_t* rows = rowIdx + l * (maxBlocks + 1);
            if (rows[0] != 0)
                throw ctx.error("block_row_indices[" + std::to_string(l) + ", 0] must be 0");
            for (int64_t rb = 0; rb < maxBlocks; ++rb) {
                if (rows[rb + 1] < rows[rb] || rows[rb + 1] > nnz)
                    throw ctx.error("block_row_indices[" + std::to_string(l) + "] is not a CSR row index within the "
                        + std::to_string(nnz) + " columns of block_col_indices");
                for (int32_t i = rows[rb]; i < rows[rb + 1]; ++i) {
                    const int32_t cb = colIdx[l * nnz + i];
                    if (cb < 0 || cb >= maxBlocks)
                        throw ctx.error("block_col_indices[" + std::to_string(l) + ", " + std::to_string(i) + "] = "
                            + std::to_string(cb) + " is not a block column in [0, " + std::to_string(maxBlocks) + ")");
                    mask[static_cast<size_t>((l * maxBlocks + rb) * maxBlocks + cb)] = 1;
                }
            }
        }
        std::vector<float> qb, kb, vb, pkb, pvb, cb, sb;
        const float* qIn = contrib::floats(ctx, query, qb, "query");
        const float* kIn = packed ? nullptr : contrib::floats(ctx, ctx.input(1), kb, "key");
        const float* vIn = packed ? nullptr : contrib::floats(ctx, ctx.input(2), vb, "value");
        const float* cs = nullptr;
        const float* sn = nullptr;
        int64_t rd = 0;
        if (m_rotary) {
            if (!ctx.hasInput(9) || !ctx.hasInput(10))
                throw ctx.error("do_rotary needs cos_cache and sin_cache");
            const Tensor& c = ctx.input(9);
            if (c.rank() != 2 || ctx.input(10).shape() != c.shape() || 2 * c.dim(1) > H || c.dim(0) < total)
                throw ctx.error("cos_cache and sin_cache must be [max_rotary_sequence_length >= total_sequence_length, "
                                "rotary_dim / 2 <= H / 2], got "
                    + shapeToString(c.shape()) + " and " + shapeToString(ctx.input(10).shape()));
            rd = 2 * c.dim(1);
            cs = contrib::floats(ctx, c, cb, "cos_cache");
            sn = contrib::floats(ctx, ctx.input(10), sb, "sin_cache");
        }
        const float* pkIn = contrib::floats(ctx, pk, pkb, "past_key");
        const float* pvIn = contrib::floats(ctx, pv, pvb, "past_value");
        std::vector<float> presentK(pkIn, pkIn + pk.size()), presentV(pvIn, pvIn + pv.size());
        std::vector<float> q(static_cast<size_t>(B * S * N * H));
        // Element (b, s, head, i) of the query / key / value input.
        const int64_t rowWidth = packed ? (N + 2 * Nkv) * H : 0;
        auto qAt
            = [&](int64_t b, int64_t s, int64_t h) { return qIn + (b * S + s) * (packed ? rowWidth : N * H) + h * H; };
        auto kAt = [&](int64_t b, int64_t s, int64_t h) {
            return packed ? qIn + (b * S + s) * rowWidth + (N + h) * H : kIn + ((b * S + s) * Nkv + h) * H;
        };
        auto vAt = [&](int64_t b, int64_t s, int64_t h) {
            return packed ? qIn + (b * S + s) * rowWidth + (N + Nkv + h) * H : vIn + ((b * S + s) * Nkv + h) * H;
        };
        for (int64_t b = 0; b < B; ++b) {
            const int64_t past = prompt ? 0 : lens[b] - S;
            for (int64_t s = 0; s < S; ++s) {
                const int64_t pos = past + s;
                for (int64_t h = 0; h < N; ++h) {
                    float* dst = q.data() + ((b * S + s) * N + h) * H;
                    std::copy(qAt(b, s, h), qAt(b, s, h) + H, dst);
                    if (m_rotary)
                        contrib::rotate(dst, rd, cs + pos * (rd / 2), sn + pos * (rd / 2), m_interleaved);
                }
                for (int64_t h = 0; h < Nkv; ++h) {
                    float* kd = presentK.data() + ((b * Nkv + h) * M + pos) * H;
                    std::copy(kAt(b, s, h), kAt(b, s, h) + H, kd);
                    if (m_rotary)
                        contrib::rotate(kd, rd, cs + pos * (rd / 2), sn + pos * (rd / 2), m_interleaved);
                    std::copy(vAt(b, s, h), vAt(b, s, h) + H, presentV.data() + ((b * Nkv + h) * M + pos) * H);
                }
            }
        }
        const float scale = m_scale == 0.0f ? 1.0f / std::sqrt(static_cast<float>(H)) : m_scale;
        std::vector<float> y(static_cast<size_t>(B * S * N * H), 0.0f), row(static_cast<size_t>(M));
        for (int64_t b = 0; b < B; ++b) {
            const int64_t past = prompt ? 0 : lens[b] - S;
            for (int64_t h = 0; h < N; ++h) {
                const int64_t kvh = h / (N / Nkv), layout = h % layouts;
                const float* K = presentK.data() + (b * Nkv + kvh) * M * H;
                const float* V = presentV.data() + (b * Nkv + kvh) * M * H;
                for (int64_t s = 0; s < S; ++s) {
                    const int64_t pos = past + s, seen = std::min<int64_t>(pos + 1, lens[b]);
                    const float* qv = q.data() + ((b * S + s) * N + h) * H;
                    const uint8_t* maskRow = mask.data() + (layout * maxBlocks + pos / m_block) * maxBlocks;
                    for (int64_t j = 0; j < seen; ++j) {
                        if (!maskRow[j / m_block]) {
                            row[static_cast<size_t>(j)] = -std::numeric_limits<float>::infinity();
                            continue;
                        }
                        float acc = 0;
                        for (int64_t i = 0; i < H; ++i)
                            acc += qv[i] * K[j * H + i];
                        row[static_cast<size_t>(j)] = acc * scale;
                    }
                    contrib::softmaxWithSink(row.data(), seen, -std::numeric_limits<float>::infinity());
                    float* out = y.data() + ((b * S + s) * N + h) * H;
                    for (int64_t j = 0; j < seen; ++j)
                        for (int64_t i = 0; i < H; ++i)
                            out[i] += row[static_cast<size_t>(j)] * V[j * H + i];
                }
            }
        }
        contrib::storeOutput(ctx, 0, query.dtype(), { B, S, N * H }, y.data());
        if (ctx.hasOutput(1))
            contrib::storeOutput(ctx, 1, query.dtype(), pk.shape(), presentK.data());
        if (ctx.hasOutput(2))
            contrib::storeOutput(ctx, 2, query.dtype(), pv.shape(), presentV.data());
    }

private:
    int64_t m_heads = 0, m_kvHeads = 0, m_block = 0;
    float m_scale = 0;
    bool m_rotary = false, m_interleaved = false;
};

} // namespace

void registerLlmSparseAttention(KernelRegistry& r)
{
    r.add("com.microsoft", "SparseAttention", 1, KernelRegistry::kLatest, makeFactory<SparseAttention>());
}

} // namespace onnxscope
