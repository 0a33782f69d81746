// SPDX-License-Identifier: MIT
#include "engine/kernels/contrib/llm/kv_cache_attention.h"

#include "engine/core/error.h"
#include "engine/kernels/contrib/contrib_attention.h"
#include "engine/kernels/contrib/contrib_util.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace onnxscope::contrib {

void runKvCacheAttention(KernelContext& ctx, const KvCacheStep& st, DataType type, size_t maskInput, size_t biasInput,
    size_t presentKey, size_t qkOutput)
{
    const int64_t B = st.batch, N = st.heads, S = st.qLen, L = st.newLen, H = st.headSize, Hv = st.vHeadSize;
    const int64_t P = st.pastK ? st.pastLen : 0;
    const int64_t T = P + L;
    const int64_t R = st.pastK ? (st.shared ? st.pastRows : P + L) : L; // rows of the present outputs
    if (st.shared && (P < 0 || T > st.pastRows))
        throw ctx.error("past_sequence_length " + std::to_string(P) + " plus " + std::to_string(L)
            + " new rows does not fit the shared KV buffer of " + std::to_string(st.pastRows)
            + " rows (max_sequence_length)");
    if (st.cacheIndirection) {
        if (B % st.beams)
            throw ctx.error(
                "batch " + std::to_string(B) + " is not a multiple of the beam width " + std::to_string(st.beams));
        if (st.indirectionLen < P)
            throw ctx.error("cache_indirection covers " + std::to_string(st.indirectionLen) + " positions, fewer than "
                + "past_sequence_length " + std::to_string(P));
        for (int64_t b = 0; b < B; ++b)
            for (int64_t j = 0; j < P; ++j) {
                const int32_t beam = st.cacheIndirection[b * st.indirectionLen + j];
                if (beam < 0 || beam >= st.beams)
                    throw ctx.error("cache_indirection[" + std::to_string(b / st.beams) + ", "
                        + std::to_string(b % st.beams) + ", " + std::to_string(j) + "] = " + std::to_string(beam)
                        + " is not a beam index in [0, " + std::to_string(st.beams) + ")");
            }
    }

    // The presents: the past buffer (or past rows) with the new rows written at P.
    std::vector<float> presentK(static_cast<size_t>(B * N * R * H)), presentV(static_cast<size_t>(B * N * R * Hv));
    for (int64_t i = 0; i < B * N; ++i) {
        if (st.pastK) {
            const int64_t keep = st.shared ? st.pastRows : P;
            std::copy(
                st.pastK + i * st.pastRows * H, st.pastK + (i * st.pastRows + keep) * H, presentK.begin() + i * R * H);
            std::copy(st.pastV + i * st.pastRows * Hv, st.pastV + (i * st.pastRows + keep) * Hv,
                presentV.begin() + i * R * Hv);
        }
        std::copy(st.k + i * L * H, st.k + (i + 1) * L * H, presentK.begin() + (i * R + P) * H);
        std::copy(st.v + i * L * Hv, st.v + (i + 1) * L * Hv, presentV.begin() + (i * R + P) * Hv);
    }

    // The keys and values attended [B, N, T, *]: past rows through the beam indirection, then the new rows.
    std::vector<float> k(static_cast<size_t>(B * N * T * H)), v(static_cast<size_t>(B * N * T * Hv));
    for (int64_t b = 0; b < B; ++b)
        for (int64_t n = 0; n < N; ++n)
            for (int64_t j = 0; j < T; ++j) {
                int64_t src = b;
                if (j < P && st.cacheIndirection)
                    src = (b / st.beams) * st.beams + st.cacheIndirection[b * st.indirectionLen + j];
                const int64_t from = (src * N + n) * R + j, to = (b * N + n) * T + j;
                std::copy(presentK.begin() + from * H, presentK.begin() + (from + 1) * H, k.begin() + to * H);
                std::copy(presentV.begin() + from * Hv, presentV.begin() + (from + 1) * Hv, v.begin() + to * Hv);
            }

    attention::Problem<float> p;
    p.batch = B;
    p.qHeads = p.kvHeads = N;
    p.qLen = S;
    p.kvLen = T;
    p.headSize = H;
    p.vHeadSize = Hv;
    p.scale = st.scale == 0.0f ? 1.0f / std::sqrt(static_cast<float>(H)) : st.scale;
    p.q = { st.q, S * N * H, H, N * H };
    p.k = { k.data(), N * T * H, T * H, H };
    p.v = { v.data(), N * T * Hv, T * Hv, Hv };
    std::vector<float> y(static_cast<size_t>(B * S * N * Hv));
    p.y = { y.data(), S * N * Hv, Hv, N * Hv };

    std::vector<float> mask;
    try {
        mask = additiveMask(ctx.hasInput(maskInput) ? &ctx.input(maskInput) : nullptr, B, S, T, P, st.causal, st.filter,
            "the mask", false);
    } catch (const Error& e) {
        throw ctx.error(e.what());
    }
    std::vector<float> biasBuffer, scores;
    const AttentionBias bias = attentionBias(ctx, biasInput, B, N, S, T, biasBuffer);
    const bool wantQk = ctx.hasOutput(qkOutput);
    std::vector<float> qk(wantQk ? static_cast<size_t>(B * N * S * T) : 0);
    runAttention(ctx.threadPool(), p, scores, [&](int64_t b, int64_t h, int64_t s, float* row) {
        const float* m = mask.empty() ? nullptr : mask.data() + (b * S + s) * T;
        const float* br = bias.row(b, h, s);
        for (int64_t j = 0; j < T; ++j) {
            if (m && m[j] == -std::numeric_limits<float>::infinity())
                row[j] = m[j];
            else
                row[j] += (m ? m[j] : 0.0f) + (br ? br[j] : 0.0f);
        }
        if (wantQk)
            std::copy(row, row + T, qk.begin() + ((b * N + h) * S + s) * T);
        softmaxWithSink(row, T, -std::numeric_limits<float>::infinity());
    });
    storeOutput(ctx, 0, type, { B, S, N * Hv }, y.data());
    if (ctx.hasOutput(presentKey))
        storeOutput(ctx, presentKey, type, { B, N, R, H }, presentK.data());
    if (ctx.hasOutput(presentKey + 1))
        storeOutput(ctx, presentKey + 1, type, { B, N, R, Hv }, presentV.data());
    if (wantQk)
        storeOutput(ctx, qkOutput, type, { B, N, S, T }, qk.data());
}

} // namespace onnxscope::contrib
