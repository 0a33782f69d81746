// SPDX-License-Identifier: MIT
// The loops of simd.h, compiled once per instruction-set level by simd_<level>.cpp, which define
// ONNXSCOPE_SIMD_LEVEL (the namespace) and rename Eigen's namespace before including this file.
//
// Every function here has internal linkage or lives in the level's own namespace, and only Eigen (renamed) and
// plain loops are used: an inline function or template shared with the rest of the program (std::vector, std::min,
// ...) compiled with AVX-512 here could be the copy the linker keeps for the baseline code too. The test
// engine_test_simd checks the object files for such symbols.

#ifndef ONNXSCOPE_SIMD_LEVEL
#error "define ONNXSCOPE_SIMD_LEVEL before including simd_impl.h"
#endif

#include "engine/kernels/simd/simd.h"

#include <Eigen/Core>
#include <unsupported/Eigen/SpecialFunctions>

#include <array>
#include <cmath>
#include <cstring>
#include <utility>

#if defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__))
#include <cpuid.h> // static inline functions only
#include <immintrin.h> // always-inline intrinsics only: they emit no symbol the rest of the program could share
#endif

namespace onnxscope::simd::ONNXSCOPE_SIMD_LEVEL {

namespace {

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using StridedMap = Eigen::Map<const RowMatrix, 0, Eigen::OuterStride<>>;
using StridedOut = Eigen::Map<RowMatrix, 0, Eigen::OuterStride<>>;
using ArrayMap = Eigen::Map<const Eigen::ArrayXf>;
using ArrayOut = Eigen::Map<Eigen::ArrayXf>;

inline int64_t minI(int64_t a, int64_t b)
{
    return a < b ? a : b;
}
inline int64_t maxI(int64_t a, int64_t b)
{
    return a > b ? a : b;
}
inline int64_t ceilDiv(int64_t a, int64_t b)
{
    return a >= 0 ? (a + b - 1) / b : -((-a) / b);
}

// The widest vector of this level, as a GCC vector type.
#if defined(__AVX512F__)
constexpr int64_t kVecFloats = 16;
#elif defined(__AVX__)
constexpr int64_t kVecFloats = 8;
#else
constexpr int64_t kVecFloats = 4;
#endif
typedef float FloatVec __attribute__((vector_size(kVecFloats * sizeof(float))));

template <class Lhs, class Rhs> void product(StridedOut& c, const Lhs& a, const Rhs& b, bool accumulate)
{
    if (accumulate)
        c.noalias() += a * b;
    else
        c.noalias() = a * b;
}

void eigenGemm(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, bool transA, const float* b, int64_t ldb,
    bool transB, float* c, int64_t ldc, bool accumulate)
{
    if (m <= 0 || n <= 0)
        return;
    StridedOut cm(c, m, n, Eigen::OuterStride<>(ldc));
    if (k <= 0) {
        if (!accumulate)
            cm.setZero();
        return;
    }
    const StridedMap am(a, transA ? k : m, transA ? m : k, Eigen::OuterStride<>(lda));
    const StridedMap bm(b, transB ? n : k, transB ? k : n, Eigen::OuterStride<>(ldb));
    if (!transA && !transB)
        product(cm, am, bm, accumulate);
    else if (transA && !transB)
        product(cm, am.transpose(), bm, accumulate);
    else if (!transA && transB)
        product(cm, am, bm.transpose(), accumulate);
    else
        product(cm, am.transpose(), bm.transpose(), accumulate);
}

// gemmBias: a register-blocked product that reads both operands in place. The convolution's products are small
// (tens of rows, a few hundred columns of im2col per chunk), where packing A and B as a general GEMM does each call
// costs as much as the multiply-adds. MR rows of A by NV vectors of B's columns are summed in registers over k; each
// k loads NV vectors of B's row and broadcasts MR elements of A's column.
#if defined(__AVX512F__)
#define ONNXSCOPE_GEMM_TILES 1
using Vec = __m512;
constexpr int kLanes = 16;
constexpr int kTileRows = 8; // 8 x 2 accumulators of the 32 registers
inline Vec vzero()
{
    return _mm512_setzero_ps();
}
inline Vec vset(float x)
{
    return _mm512_set1_ps(x);
}
inline Vec vload(const float* p)
{
    return _mm512_loadu_ps(p);
}
inline void vstore(float* p, Vec v)
{
    _mm512_storeu_ps(p, v);
}
inline __mmask16 laneMask(int lanes)
{
    return static_cast<__mmask16>((1u << lanes) - 1u);
}
inline Vec vloadPart(const float* p, int lanes)
{
    return _mm512_maskz_loadu_ps(laneMask(lanes), p);
}
inline void vstorePart(float* p, Vec v, int lanes)
{
    _mm512_mask_storeu_ps(p, laneMask(lanes), v);
}
inline Vec vfma(Vec a, Vec b, Vec c)
{
    return _mm512_fmadd_ps(a, b, c);
}
inline float vsum(Vec v)
{
    return _mm512_reduce_add_ps(v);
}
#elif defined(__AVX2__) && defined(__FMA__)
#define ONNXSCOPE_GEMM_TILES 1
using Vec = __m256;
constexpr int kLanes = 8;
constexpr int kTileRows = 6; // 6 x 2 accumulators, 2 vectors of B and a broadcast: 15 of the 16 registers
inline Vec vzero()
{
    return _mm256_setzero_ps();
}
inline Vec vset(float x)
{
    return _mm256_set1_ps(x);
}
inline Vec vload(const float* p)
{
    return _mm256_loadu_ps(p);
}
inline void vstore(float* p, Vec v)
{
    _mm256_storeu_ps(p, v);
}
inline __m256i laneMask(int lanes)
{
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(lanes), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}
inline Vec vloadPart(const float* p, int lanes)
{
    return _mm256_maskload_ps(p, laneMask(lanes));
}
inline void vstorePart(float* p, Vec v, int lanes)
{
    _mm256_maskstore_ps(p, laneMask(lanes), v);
}
inline Vec vfma(Vec a, Vec b, Vec c)
{
    return _mm256_fmadd_ps(a, b, c);
}
inline float vsum(Vec v)
{
    __m128 q = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    q = _mm_add_ps(q, _mm_movehl_ps(q, q));
    q = _mm_add_ss(q, _mm_movehdup_ps(q));
    return _mm_cvtss_f32(q);
}
#endif

#ifdef ONNXSCOPE_GEMM_TILES
constexpr int kTileVectors = 2;
// Ops::gemm's products that run on gemmBias: few rows, a depth whose strip of B stays in L2, and small enough that
// Eigen's packing would cost about as much as the product.
constexpr int64_t kSmallGemmRows = 64, kSmallGemmDepth = 1024, kSmallGemmMacs = int64_t(1) << 21;

/// C[MR, NV vectors] = bias + A[MR, k] * B[k, NV vectors]; the last vector holds `lastLanes` columns when Partial.
/// Masked loads and stores never touch memory past the last column.
template <int MR, int NV, bool Partial>
void gemmTile(int64_t k, const float* a, int64_t lda, const float* b, int64_t ldb, const float* bias, float* c,
    int64_t ldc, int lastLanes)
{
    Vec acc[MR][NV];
    for (int r = 0; r < MR; ++r) {
        const Vec init = bias ? vset(bias[r]) : vzero();
        for (int v = 0; v < NV; ++v)
            acc[r][v] = init;
    }
    for (int64_t p = 0; p < k; ++p) {
        const float* bp = b + p * ldb;
        Vec bv[NV];
        for (int v = 0; v < NV; ++v)
            bv[v] = Partial && v == NV - 1 ? vloadPart(bp + v * kLanes, lastLanes) : vload(bp + v * kLanes);
        for (int r = 0; r < MR; ++r) {
            const Vec av = vset(a[r * lda + p]);
            for (int v = 0; v < NV; ++v)
                acc[r][v] = vfma(av, bv[v], acc[r][v]);
        }
    }
    for (int r = 0; r < MR; ++r)
        for (int v = 0; v < NV; ++v) {
            if (Partial && v == NV - 1)
                vstorePart(c + r * ldc + v * kLanes, acc[r][v], lastLanes);
            else
                vstore(c + r * ldc + v * kLanes, acc[r][v]);
        }
}

using GemmTileFn = void (*)(int64_t, const float*, int64_t, const float*, int64_t, const float*, float*, int64_t, int);

template <int MR> constexpr GemmTileFn tileFor(int nv, bool partial)
{
    if (nv == 1)
        return partial ? gemmTile<MR, 1, true> : gemmTile<MR, 1, false>;
    return partial ? gemmTile<MR, 2, true> : gemmTile<MR, 2, false>;
}

GemmTileFn tileFor(int rows, int nv, bool partial)
{
    switch (rows) {
    case 1:
        return tileFor<1>(nv, partial);
    case 2:
        return tileFor<2>(nv, partial);
    case 3:
        return tileFor<3>(nv, partial);
    case 4:
        return tileFor<4>(nv, partial);
    case 5:
        return tileFor<5>(nv, partial);
    case 6:
        return tileFor<6>(nv, partial);
#if defined(__AVX512F__)
    case 7:
        return tileFor<7>(nv, partial);
    case 8:
        return tileFor<8>(nv, partial);
#endif
    }
    return nullptr;
}

/// C[R rows, J columns] (+)= dot products of R rows of A with the J rows of bt (B transposed, zero past `depth`),
/// over `depth` elements from column `k0` of A. `first`: C starts from the bias (or zero), else from its value.
template <int R, int J>
void dotTile(int64_t depth, const float* a, int64_t lda, const float* bt, int64_t ldbt, const float* bias, float* c,
    int64_t ldc, bool first)
{
    Vec acc[R][J];
    for (int r = 0; r < R; ++r)
        for (int j = 0; j < J; ++j)
            acc[r][j] = vzero();
    int64_t p = 0;
    for (; p + kLanes <= depth; p += kLanes)
        for (int r = 0; r < R; ++r) {
            const Vec av = vload(a + r * lda + p);
            for (int j = 0; j < J; ++j)
                acc[r][j] = vfma(av, vload(bt + j * ldbt + p), acc[r][j]);
        }
    if (p < depth)
        for (int r = 0; r < R; ++r) {
            const Vec av = vloadPart(a + r * lda + p, static_cast<int>(depth - p));
            for (int j = 0; j < J; ++j)
                acc[r][j] = vfma(av, vload(bt + j * ldbt + p), acc[r][j]);
        }
    for (int r = 0; r < R; ++r)
        for (int j = 0; j < J; ++j) {
            float& out = c[r * ldc + j];
            out = (first ? (bias ? bias[r] : 0.0f) : out) + vsum(acc[r][j]);
        }
}

using DotTileFn = void (*)(int64_t, const float*, int64_t, const float*, int64_t, const float*, float*, int64_t, bool);

/// dotTile by [rows - 1][columns - 1].
constexpr DotTileFn kDotTiles[2][4] = {
    { dotTile<1, 1>, dotTile<1, 2>, dotTile<1, 3>, dotTile<1, 4> },
    { dotTile<2, 1>, dotTile<2, 2>, dotTile<2, 3>, dotTile<2, 4> },
};

/// gemmBias for fewer columns than a vector holds (a strided convolution's few output positions against many
/// weights, as in an STFT): B's columns are transposed into a small buffer, block by block of k, and each element of
/// C is a dot product along k, two rows of A by up to four columns at a time.
void gemmBiasNarrow(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b, int64_t ldb,
    const float* bias, float* c, int64_t ldc)
{
    constexpr int64_t kBlock = 512;
    alignas(64) float bt[kLanes][kBlock];
    for (int64_t k0 = 0; k0 == 0 || k0 < k; k0 += kBlock) {
        const int64_t depth = minI(kBlock, k - k0);
        const int64_t padded = (depth + kLanes - 1) / kLanes * kLanes;
        for (int64_t j = 0; j < n; ++j) {
            for (int64_t p = 0; p < depth; ++p)
                bt[j][p] = b[(k0 + p) * ldb + j];
            for (int64_t p = depth; p < padded; ++p)
                bt[j][p] = 0.0f;
        }
        const bool first = k0 == 0;
        for (int64_t i = 0; i < m; i += 2) {
            const bool pair = i + 1 < m;
            const float* ai = a + i * lda + k0;
            const float* bi = bias ? bias + i : nullptr;
            for (int64_t j = 0; j < n; j += 4) {
                const int64_t cols = minI(4, n - j);
                float* cij = c + i * ldc + j;
                const float* btj = bt[j];
                kDotTiles[pair ? 1 : 0][cols - 1](depth, ai, lda, btj, kBlock, bi, cij, ldc, first);
            }
        }
    }
}
#endif

#ifdef ONNXSCOPE_GEMM_TILES
// gemmBias on B in panels (simd.h: kGemmPanel columns each, k rows of them): a block of kPackDepth rows of a panel
// stays in L1 while every tile of rows of A runs over it; A is read in place (a tile's rows are a few sequential
// streams, which the hardware prefetches). Each element of C is the same chain of fused multiply-adds as gemmTile's
// (the bias first, then k in order; a partial sum is stored and reloaded between blocks of k, exactly), so the floats
// equal gemmBias's unpacked path.
#if defined(__AVX512F__)
constexpr int kPackRows = 8, kPackVectors = 3; // 8 x 3 accumulators, 3 vectors of B; A broadcast from memory
constexpr int64_t kPackDepth = 192; // 192 x 48 floats: 36 KiB of a panel
#else
constexpr int kPackRows = 6, kPackVectors = 2; // as gemmTile's 6 x 2
constexpr int64_t kPackDepth = 256; // 256 x 48 floats: 48 KiB of a panel, read 16 columns at a time
#endif
constexpr int64_t kPackColumns = kPackVectors * kLanes;
static_assert(kGemmPanel % kPackColumns == 0, "a panel holds whole register tiles");
// Products whose rows of A reuse a packed panel often enough to pay for the copy, and deep enough to block.
constexpr int64_t kPackMinRows = 2 * kPackRows, kPackMinDepth = 32;

/// lanes of vector v of a panel with `cols` columns (0 to kLanes).
inline int panelLanes(int64_t cols, int v)
{
    const int64_t lanes = cols - int64_t(v) * kLanes;
    return static_cast<int>(lanes < 0 ? 0 : (lanes > kLanes ? kLanes : lanes));
}

/// C[Rows, cols] (+)= A[Rows, kc] (row stride lda) * bp[kc, cols] (row stride ldp; cols in NV vectors, the last one
/// read whole: up to a vector past the row), from the bias (or zero) when `first`, else from C.
template <int Rows, int NV, bool PackedA>
void packedTile(int64_t kc, const float* a, int64_t lda, const float* bp, int64_t ldp, const float* bias, bool first,
    float* c, int64_t ldc, int64_t cols)
{
    Vec acc[Rows][NV];
    for (int r = 0; r < Rows; ++r)
        for (int v = 0; v < NV; ++v) {
            const int lanes = panelLanes(cols, v);
            if (first)
                acc[r][v] = bias ? vset(bias[r]) : vzero();
            else if (lanes == kLanes)
                acc[r][v] = vload(c + r * ldc + v * kLanes);
            else
                acc[r][v] = vloadPart(c + r * ldc + v * kLanes, lanes);
        }
    for (int64_t p = 0; p < kc; ++p) {
        Vec bv[NV];
        for (int v = 0; v < NV; ++v)
            bv[v] = vload(bp + p * ldp + v * kLanes);
        for (int r = 0; r < Rows; ++r) {
            const Vec av = vset(PackedA ? a[p * kPackRows + r] : a[r * lda + p]);
            for (int v = 0; v < NV; ++v)
                acc[r][v] = vfma(av, bv[v], acc[r][v]);
        }
    }
    for (int r = 0; r < Rows; ++r)
        for (int v = 0; v < NV; ++v) {
            const int lanes = panelLanes(cols, v);
            if (lanes == kLanes)
                vstore(c + r * ldc + v * kLanes, acc[r][v]);
            else
                vstorePart(c + r * ldc + v * kLanes, acc[r][v], lanes);
        }
}

using PackedTileFn
    = void (*)(int64_t, const float*, int64_t, const float*, int64_t, const float*, bool, float*, int64_t, int64_t);

template <bool PackedA, int NV, size_t... R>
constexpr std::array<PackedTileFn, sizeof...(R)> packedTiles(std::index_sequence<R...>)
{
    return { packedTile<int(R) + 1, NV, PackedA>... };
}
template <bool PackedA, size_t... V> constexpr auto packedTileTable(std::index_sequence<V...>)
{
    return std::array<std::array<PackedTileFn, kPackRows>, sizeof...(V)> { packedTiles<PackedA, int(V) + 1>(
        std::make_index_sequence<kPackRows>())... };
}
/// packedTile by [A packed][vectors - 1][rows - 1].
constexpr std::array<std::array<std::array<PackedTileFn, kPackRows>, kPackVectors>, 2> kPackedTiles {
    packedTileTable<false>(std::make_index_sequence<kPackVectors>()),
    packedTileTable<true>(std::make_index_sequence<kPackVectors>())
};

/// C[m, 0..w) (+)= A[m, kc] * bp[kc, w] (row stride ldp), w <= kGemmPanel: every tile of rows over the block. Row i's
/// tile of A is at a + i * rowStep: A in place (a at the block's first column, rowStep its row stride), or packed
/// (packA: a at the block's first column of the first tile, rowStep the depth k).
template <bool PackedA>
void panelBlock(int64_t m, int64_t kc, const float* a, int64_t rowStep, const float* bp, int64_t ldp, int64_t w,
    const float* bias, bool first, float* c, int64_t ldc)
{
    for (int64_t s = 0; s < w; s += kPackColumns) {
        const int64_t cols = minI(kPackColumns, w - s);
        const auto& tiles = kPackedTiles[PackedA ? 1 : 0][static_cast<size_t>((cols + kLanes - 1) / kLanes - 1)];
        int64_t i = 0;
        for (; i + kPackRows <= m; i += kPackRows)
            tiles[kPackRows - 1](kc, a + i * rowStep, rowStep, bp + s, ldp, bias ? bias + i : nullptr, first,
                c + i * ldc + s, ldc, cols);
        if (i < m)
            tiles[static_cast<size_t>(m - i - 1)](kc, a + i * rowStep, rowStep, bp + s, ldp, bias ? bias + i : nullptr,
                first, c + i * ldc + s, ldc, cols);
    }
}

/// Rows [0, rows) of B from row p0 copied into a panel of kGemmPanel columns (columns j to j + w of B).
inline void packPanel(const float* b, int64_t ldb, int64_t p0, int64_t rows, int64_t j, int64_t w, float* bp)
{
    for (int64_t p = 0; p < rows; ++p) {
        const float* src = b + (p0 + p) * ldb + j;
        float* dst = bp + p * kGemmPanel;
        for (int v = 0; v * kLanes < w; ++v) {
            const int lanes = panelLanes(w, v);
            vstore(dst + v * kLanes, lanes == kLanes ? vload(src + v * kLanes) : vloadPart(src + v * kLanes, lanes));
        }
    }
}

/// The product over blocks of k: B in panels (ldb == 0, as gemmPanels takes it) or in place (row stride ldb, copied
/// block by block into a panel buffer); A in place (row stride lda) or packed (packA).
template <bool PackedA>
void blockedProduct(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b, int64_t ldb,
    const float* bias, float* c, int64_t ldc)
{
    alignas(64) float bp[kPackDepth * kGemmPanel + kLanes];
    if (k <= 0) {
        for (int64_t j = 0; j < n; j += kGemmPanel)
            panelBlock<PackedA>(
                m, 0, a, PackedA ? 0 : lda, bp, kGemmPanel, minI(kGemmPanel, n - j), bias, true, c + j, ldc);
        return;
    }
    for (int64_t p0 = 0; p0 < k; p0 += kPackDepth) {
        const int64_t kc = minI(kPackDepth, k - p0);
        const float* ab = PackedA ? a + p0 * kPackRows : a + p0;
        for (int64_t j = 0; j < n; j += kGemmPanel) {
            const int64_t w = minI(kGemmPanel, n - j);
            if (ldb == 0) {
                panelBlock<PackedA>(m, kc, ab, PackedA ? k : lda, b + j * k + p0 * w, w, w, bias, p0 == 0, c + j, ldc);
            } else {
                packPanel(b, ldb, p0, kc, j, w, bp);
                panelBlock<PackedA>(m, kc, ab, PackedA ? k : lda, bp, kGemmPanel, w, bias, p0 == 0, c + j, ldc);
            }
        }
    }
}

#endif

void gemmBias(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b, int64_t ldb,
    const float* bias, float* c, int64_t ldc);

/// Ops::gemmPanels.
void gemmPanels(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* panels, const float* bias,
    float* c, int64_t ldc)
{
    if (m <= 0 || n <= 0)
        return;
#ifdef ONNXSCOPE_GEMM_TILES
    blockedProduct<false>(m, n, k, a, lda, panels, 0, bias, c, ldc);
#else
    for (int64_t j = 0; j < n; j += kGemmPanel) {
        const int64_t w = minI(kGemmPanel, n - j);
        eigenGemm(m, w, k, a, lda, false, panels + j * k, w, false, c + j, ldc, false);
        if (bias)
            for (int64_t r = 0; r < m; ++r)
                for (int64_t q = 0; q < w; ++q)
                    c[r * ldc + j + q] += bias[r];
    }
#endif
}

#ifdef ONNXSCOPE_GEMM_TILES
constexpr int64_t kPackedARows = kPackRows;
#else
constexpr int64_t kPackedARows = 1; // A stays row-major
#endif

/// Ops::packA.
void packA(int64_t m, int64_t k, const float* a, int64_t lda, float* ap)
{
    for (int64_t i0 = 0; i0 < m; i0 += kPackedARows) {
        float* tile = ap + i0 * k;
        for (int64_t p = 0; p < k; ++p)
            for (int64_t r = 0; r < kPackedARows; ++r)
                tile[p * kPackedARows + r] = i0 + r < m ? a[(i0 + r) * lda + p] : 0.0f;
    }
}

/// Ops::gemmPackedA.
void gemmPackedA(int64_t m, int64_t n, int64_t k, const float* ap, const float* b, int64_t ldb, const float* bias,
    float* c, int64_t ldc)
{
    if (m <= 0 || n <= 0)
        return;
#ifdef ONNXSCOPE_GEMM_TILES
    blockedProduct<true>(m, n, k, ap, 0, b, ldb, bias, c, ldc);
#else
    if (ldb == 0)
        gemmPanels(m, n, k, ap, k, b, bias, c, ldc);
    else
        gemmBias(m, n, k, ap, k, b, ldb, bias, c, ldc);
#endif
}

void gemmBias(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b, int64_t ldb,
    const float* bias, float* c, int64_t ldc)
{
    if (m <= 0 || n <= 0)
        return;
#ifdef ONNXSCOPE_GEMM_TILES
    if (n < kLanes) {
        gemmBiasNarrow(m, n, k, a, lda, b, ldb, bias, c, ldc);
        return;
    }
    if (m >= kPackMinRows && k >= kPackMinDepth) {
        blockedProduct<false>(m, n, k, a, lda, b, ldb, bias, c, ldc);
        return;
    }
    constexpr int64_t kStrip = kTileVectors * kLanes;
    // Column strips outside, so that a strip of B (k rows of kStrip columns) stays in cache for every tile of rows.
    for (int64_t j = 0; j < n; j += kStrip) {
        const int64_t cols = minI(kStrip, n - j);
        const int nv = static_cast<int>((cols + kLanes - 1) / kLanes);
        const int lastLanes = static_cast<int>(cols - (nv - 1) * kLanes);
        const bool partial = lastLanes != kLanes;
        const GemmTileFn full = tileFor(kTileRows, nv, partial);
        int64_t i = 0;
        for (; i + kTileRows <= m; i += kTileRows)
            full(k, a + i * lda, lda, b + j, ldb, bias ? bias + i : nullptr, c + i * ldc + j, ldc, lastLanes);
        if (i < m)
            tileFor(static_cast<int>(m - i), nv, partial)(
                k, a + i * lda, lda, b + j, ldb, bias ? bias + i : nullptr, c + i * ldc + j, ldc, lastLanes);
    }
#else
    eigenGemm(m, n, k, a, lda, false, b, ldb, false, c, ldc, false);
    if (bias)
        for (int64_t r = 0; r < m; ++r)
            for (int64_t j = 0; j < n; ++j)
                c[r * ldc + j] += bias[r];
#endif
}

/// Ops::gemm. Small products of untransposed operands (a transformer's projections of a few tokens: 16 x 64 x 128)
/// run on gemmBias, which reads A and B in place: Eigen packs both on every call, which costs there as much as the
/// multiply-adds. Larger ones, and those of transposed operands, on Eigen's cache-blocked GEMM.
void gemm(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, bool transA, const float* b, int64_t ldb,
    bool transB, float* c, int64_t ldc, bool accumulate)
{
#ifdef ONNXSCOPE_GEMM_TILES
    if (!transA && !transB && !accumulate && m > 0 && k > 0 && m <= kSmallGemmRows && k <= kSmallGemmDepth
        && n >= kLanes && m * n * k <= kSmallGemmMacs) {
        gemmBias(m, n, k, a, lda, b, ldb, nullptr, c, ldc);
        return;
    }
#endif
    eigenGemm(m, n, k, a, lda, transA, b, ldb, transB, c, ldc, accumulate);
}

using Block = Eigen::Array<float, 64, 1>;

/// y = f(x) computed 64 elements at a time in an aligned block, so that every element takes the same vector code
/// whatever the alignment of x and y (Eigen's maps would run a misaligned head through scalar code that rounds
/// differently): a value written in place equals one written to a new buffer.
template <class F> void blockwise(const float* x, float* y, int64_t n, F f)
{
    Block in, out;
    for (int64_t i = 0; i < n; i += 64) {
        const int64_t m = minI(64, n - i);
        for (int64_t j = 0; j < m; ++j)
            in(j) = x[i + j];
        for (int64_t j = m; j < 64; ++j)
            in(j) = 0.0f;
        out = f(in);
        for (int64_t j = 0; j < m; ++j)
            y[i + j] = out(j);
    }
}

/// r with the NaN elements of v put back: Eigen 3.4's select is not vectorized, and `(v == v).select(f(v), v)` left
/// Erf and Gelu at AVX2 and GeluTanh at AVX-512 one element at a time (2.3-3.5 ns an element on the Xeon of issue
/// 42); this loop of blends is vectorized at every level.
inline Block keepNaN(const Block& v, Block r)
{
    for (int j = 0; j < 64; ++j)
        r(j) = v(j) == v(j) ? r(j) : v(j);
    return r;
}

/// y[i] = f(x[i]); in place (one pointer) when x == y, for the reason given at binaryInPlace.
template <class F> void mapLoop(const float* x, float* y, int64_t n, F f)
{
    if (x == y)
        for (int64_t i = 0; i < n; ++i)
            y[i] = f(y[i]);
    else
        for (int64_t i = 0; i < n; ++i)
            y[i] = f(x[i]);
}

/// y[i] = f(x[i]) with f a generic lambda written for float and FloatVec alike (its selects as `c ? a : b`, its
/// constants as `T {} + value`), run on whole vectors and then on the last elements one by one: the same operations
/// on every element, so the same values, in place or not. For loops that the compiler leaves scalar below AVX-512:
/// `v >= 0 ? v : alpha * v` (a multiply under a condition is not run speculatively, as it could raise a
/// floating-point exception), and HardSwish's clamps; on random signs they ran with a branch per element, 8-30x
/// slower than these.
template <class F> void vectorMap(const float* x, float* y, int64_t n, F f)
{
    int64_t i = 0;
    for (; i + kVecFloats <= n; i += kVecFloats) {
        FloatVec v;
        std::memcpy(&v, x + i, sizeof v);
        const FloatVec r = f(v);
        std::memcpy(y + i, &r, sizeof r);
    }
    for (; i < n; ++i)
        y[i] = f(x[i]);
}

void activation(const float* x, float* y, int64_t n, ActivationParams act)
{
    const float alpha = act.alpha, beta = act.beta;
    switch (act.kind) {
    case Activation::None:
        if (x != y)
            std::memmove(y, x, static_cast<size_t>(n) * sizeof(float));
        break;
    case Activation::Relu:
        mapLoop(x, y, n, [](float v) { return v > 0.0f ? v : 0.0f; });
        break;
    case Activation::LeakyRelu:
        vectorMap(x, y, n, [alpha]<class T>(T v) -> T { return v >= T {} ? v : alpha * v; });
        break;
    case Activation::Clip:
        mapLoop(x, y, n, [alpha, beta](float v) {
            v = v < alpha ? alpha : v;
            return v > beta ? beta : v;
        });
        break;
    case Activation::HardSigmoid:
        mapLoop(x, y, n, [alpha, beta](float v) {
            v = alpha * v + beta;
            v = v < 1.0f ? v : 1.0f;
            return v > 0.0f ? v : 0.0f;
        });
        break;
    case Activation::HardSwish:
        vectorMap(x, y, n, []<class T>(T v) -> T {
            const T zero {}, one = zero + 1.0f;
            T s = v / 6.0f + 0.5f;
            s = s < one ? s : one;
            s = s > zero ? s : zero;
            return v * s;
        });
        break;
    case Activation::Sigmoid:
        // 1 / (1 + exp(-x)): exp overflows to inf for very negative x, giving the right limit 0.
        blockwise(x, y, n, [](const Block& v) -> Block { return (1.0f + (-v).exp()).inverse(); });
        break;
    case Activation::Tanh:
        blockwise(x, y, n, [](const Block& v) -> Block { return v.tanh(); });
        break;
    case Activation::Silu:
        // x / (1 + exp(-x)): exp overflows to inf for very negative x, giving the right limit -0.
        blockwise(x, y, n, [](const Block& v) -> Block { return v / (1.0f + (-v).exp()); });
        break;
    case Activation::Gelu:
        // Eigen's rational erf (+-1 beyond [-4, 4], at most 7 ulp); it does not keep NaN, keepNaN does.
        blockwise(x, y, n,
            [](const Block& v) -> Block { return keepNaN(v, 0.5f * v * (1.0f + (v * 0.70710678118654752f).erf())); });
        break;
    case Activation::GeluTanh:
        blockwise(x, y, n, [](const Block& v) -> Block {
            const Block inner = 0.79788456080286536f * (v + 0.044715f * v * v * v);
            return keepNaN(v, 0.5f * v * (1.0f + inner.tanh()));
        });
        break;
    case Activation::Erf:
        blockwise(x, y, n, [](const Block& v) -> Block { return keepNaN(v, v.erf()); });
        break;
    case Activation::Exp:
        // Eigen's range-reduced polynomial exp: 0 below the float range, NaN kept (checked in test_simd at every
        // level). A select on v == v left it scalar (2.5 ns an element), and Eigen's exp keeps NaN itself.
#if defined(__AVX2__)
        blockwise(x, y, n, [](const Block& v) -> Block {
            Block e = v.exp();
            // Eigen's exp overflows to inf from about 88.38, where expf stays finite up to 88.72: those few by libm.
            int high = 0; // a count, vectorized (Eigen's any() and NaN-aware maxCoeff() were not)
            for (int j = 0; j < 64; ++j)
                high += v(j) > 88.0f ? 1 : 0;
            if (high > 0)
                for (int j = 0; j < 64; ++j)
                    if (v(j) > 88.0f)
                        e(j) = std::exp(v(j));
            return e;
        });
#else
        // In 4-float vectors Eigen's exp (2.3 ns an element) lost to libm's expf (1.75 ns) on the Xeon of issue 42.
        mapLoop(x, y, n, [](float v) { return std::exp(v); });
#endif
        break;
    }
}

void biasActivation(float* y, int64_t rows, int64_t size, const float* bias, ActivationParams act)
{
    for (int64_t r = 0; r < rows; ++r) {
        float* p = y + r * size;
        if (bias) {
            const float b = bias[r];
            for (int64_t i = 0; i < size; ++i)
                p[i] += b;
        }
        if (act.kind != Activation::None)
            activation(p, p, size, act);
    }
}

// Written over an operand (y == a or y == b): one pointer read and written, so that the compiler need not check
// for overlap at run time (an exact overlap fails its check and would run the scalar loop).
template <class F> void binaryInPlace(float* __restrict y, const float* __restrict other, int64_t n, bool yFirst, F f)
{
    if (yFirst)
        for (int64_t i = 0; i < n; ++i)
            y[i] = f(y[i], other[i]);
    else
        for (int64_t i = 0; i < n; ++i)
            y[i] = f(other[i], y[i]);
}

template <class F> void binaryLoop(const float* a, int64_t sa, const float* b, int64_t sb, float* y, int64_t n, F f)
{
    if (sa && sb) {
        if (y == a)
            binaryInPlace(y, b, n, true, f);
        else if (y == b)
            binaryInPlace(y, a, n, false, f);
        else
            for (int64_t i = 0; i < n; ++i)
                y[i] = f(a[i], b[i]);
    } else if (sa) {
        const float vb = *b;
        if (y == a)
            for (int64_t i = 0; i < n; ++i)
                y[i] = f(y[i], vb);
        else
            for (int64_t i = 0; i < n; ++i)
                y[i] = f(a[i], vb);
    } else if (sb) {
        const float va = *a;
        if (y == b)
            for (int64_t i = 0; i < n; ++i)
                y[i] = f(va, y[i]);
        else
            for (int64_t i = 0; i < n; ++i)
                y[i] = f(va, b[i]);
    } else {
        const float v = f(*a, *b);
        for (int64_t i = 0; i < n; ++i)
            y[i] = v;
    }
}

void binary(BinaryOp op, const float* a, int64_t sa, const float* b, int64_t sb, float* y, int64_t n)
{
    switch (op) {
    case BinaryOp::Add:
        binaryLoop(a, sa, b, sb, y, n, [](float u, float v) { return u + v; });
        break;
    case BinaryOp::Sub:
        binaryLoop(a, sa, b, sb, y, n, [](float u, float v) { return u - v; });
        break;
    case BinaryOp::Mul:
        binaryLoop(a, sa, b, sb, y, n, [](float u, float v) { return u * v; });
        break;
    case BinaryOp::Div:
        binaryLoop(a, sa, b, sb, y, n, [](float u, float v) { return u / v; });
        break;
    case BinaryOp::Max: // NaN in either operand gives NaN, as numpy's maximum
        binaryLoop(a, sa, b, sb, y, n, [](float u, float v) { return u != u ? u : (u < v || v != v ? v : u); });
        break;
    case BinaryOp::Min:
        binaryLoop(a, sa, b, sb, y, n, [](float u, float v) { return u != u ? u : (u > v || v != v ? v : u); });
        break;
    }
}

void reduceRows(ReduceOp op, const float* x, float* y, int64_t rows, int64_t cols)
{
    for (int64_t r = 0; r < rows; ++r) {
        const ArrayMap row(x + r * cols, cols);
        float v = 0.0f;
        switch (op) {
        case ReduceOp::Sum:
            v = row.sum();
            break;
        case ReduceOp::Mean:
            v = row.sum() / static_cast<float>(cols);
            break;
        case ReduceOp::SumSquare:
            v = row.square().sum();
            break;
        case ReduceOp::L1:
            v = row.abs().sum();
            break;
        case ReduceOp::L2:
            v = std::sqrt(row.square().sum());
            break;
        }
        y[r] = v;
    }
}

void softmaxRows(const float* x, float* y, int64_t rows, int64_t cols, bool log)
{
    for (int64_t r = 0; r < rows; ++r) {
        const ArrayMap in(x + r * cols, cols);
        ArrayOut out(y + r * cols, cols);
        float mx = in(0);
        for (int64_t i = 1; i < cols; ++i)
            mx = in(i) > mx ? in(i) : mx;
        if (log) {
            const float s = (in - mx).exp().sum();
            out = in - (mx + std::log(s));
        } else {
            out = (in - mx).exp();
            out *= 1.0f / out.sum();
        }
    }
}

/// The input row that tap row `kh` of output row `oh` reads in one depthwise channel, or null where it falls in the
/// padding.
inline const float* depthwiseInputRow(const float* img, const DepthwiseGeometry& g, int64_t oh, int64_t kh)
{
    const int64_t ih = oh * g.strideH - g.padTop + kh * g.dilationH;
    return ih < 0 || ih >= g.inH ? nullptr : img + ih * g.inW;
}

/// Output columns [c0, c1) of output row `oh` of one depthwise channel: each element is set to the bias, then gets its
/// taps added in order.
void depthwiseColumns(const float* img, const float* wk, float bias, float* o, const DepthwiseGeometry& g, int64_t oh,
    int64_t c0, int64_t c1)
{
    for (int64_t ow = c0; ow < c1; ++ow)
        o[ow] = bias;
    for (int64_t kh = 0; kh < g.kernelH; ++kh) {
        const float* row = depthwiseInputRow(img, g, oh, kh);
        if (!row)
            continue;
        for (int64_t kw = 0; kw < g.kernelW; ++kw) {
            const float wv = wk[kh * g.kernelW + kw];
            const int64_t shift = kw * g.dilationW - g.padLeft; // input column = ow * strideW + shift
            const int64_t lo = maxI(c0, minI(c1, shift >= 0 ? 0 : ceilDiv(-shift, g.strideW)));
            const int64_t hi = maxI(lo, minI(c1, g.inW - shift <= 0 ? 0 : ceilDiv(g.inW - shift, g.strideW)));
            if (g.strideW == 1) {
                const float* src = row + shift;
                for (int64_t ow = lo; ow < hi; ++ow)
                    o[ow] += wv * src[ow];
            } else if (g.strideW == 2) {
                const float* src = row + shift;
                for (int64_t ow = lo; ow < hi; ++ow)
                    o[ow] += wv * src[2 * ow];
            } else {
                for (int64_t ow = lo; ow < hi; ++ow)
                    o[ow] += wv * row[ow * g.strideW + shift];
            }
        }
    }
}

/// As depthwiseColumns with stride 1 across, one column at a time with its sum in a register: for the few columns at
/// the edges of a row, whose taps partly fall outside it.
void depthwiseEdgeColumns(const float* img, const float* wk, float bias, float* o, const DepthwiseGeometry& g,
    int64_t oh, int64_t c0, int64_t c1)
{
    for (int64_t ow = c0; ow < c1; ++ow) {
        float acc = bias;
        for (int64_t kh = 0; kh < g.kernelH; ++kh) {
            const float* row = depthwiseInputRow(img, g, oh, kh);
            if (!row)
                continue;
            for (int64_t kw = 0; kw < g.kernelW; ++kw) {
                const int64_t iw = ow + kw * g.dilationW - g.padLeft;
                if (iw >= 0 && iw < g.inW)
                    acc += wk[kh * g.kernelW + kw] * row[iw];
            }
        }
        o[ow] = acc;
    }
}

/// As depthwiseColumns for columns [ow0, ow0 + V * kVecFloats) of a convolution with stride 1 across, where every
/// tap reads inside the input row: the sums stay in V vector registers instead of going through `o` at each tap.
/// The operations on each element are the same, in the same order, so the result is the same to the bit.
template <int V>
void depthwiseBlock(
    const float* img, const float* wk, float bias, float* o, const DepthwiseGeometry& g, int64_t oh, int64_t ow0)
{
    FloatVec acc[V];
    for (int v = 0; v < V; ++v)
        acc[v] = FloatVec {} + bias;
    for (int64_t kh = 0; kh < g.kernelH; ++kh) {
        const float* inputRow = depthwiseInputRow(img, g, oh, kh);
        if (!inputRow)
            continue;
        const float* row = inputRow + ow0 - g.padLeft;
        for (int64_t kw = 0; kw < g.kernelW; ++kw) {
            const float wv = wk[kh * g.kernelW + kw];
            const float* src = row + kw * g.dilationW;
            for (int v = 0; v < V; ++v) {
                FloatVec s;
                std::memcpy(&s, src + v * kVecFloats, sizeof s);
                acc[v] += wv * s;
            }
        }
    }
    std::memcpy(o + ow0, acc, sizeof acc);
}

void depthwisePlanes(const float* x, const float* w, const float* bias, float* y, int64_t channels,
    const DepthwiseGeometry& g, ActivationParams act)
{
    const int64_t inSize = g.inH * g.inW, outSize = g.outH * g.outW, taps = g.kernelH * g.kernelW;
    // With stride 1 across, the output columns [inner0, inner1) read inside the input row at every tap: they run in
    // vector blocks (depthwiseBlock), the columns at the edges in depthwiseEdgeColumns. Other strides run in
    // depthwiseColumns.
    int64_t inner0 = 0, inner1 = 0;
    if (g.strideW == 1) {
        inner0 = minI(g.outW, maxI(0, g.padLeft));
        inner1 = maxI(inner0, minI(g.outW, g.inW + g.padLeft - (g.kernelW - 1) * g.dilationW));
    }
    for (int64_t c = 0; c < channels; ++c) {
        const float* img = x + c * inSize;
        const float* wk = w + c * taps;
        float* out = y + c * outSize;
        const float b = bias ? bias[c] : 0.0f;
        const auto block = [&](int64_t vectors, int64_t oh, int64_t ow) {
            float* o = out + oh * g.outW;
            if (vectors == 4)
                depthwiseBlock<4>(img, wk, b, o, g, oh, ow);
            else if (vectors == 3)
                depthwiseBlock<3>(img, wk, b, o, g, oh, ow);
            else if (vectors == 2)
                depthwiseBlock<2>(img, wk, b, o, g, oh, ow);
            else
                depthwiseBlock<1>(img, wk, b, o, g, oh, ow);
        };
        for (int64_t oh = 0; oh < g.outH; ++oh) {
            int64_t ow = inner0;
            if (inner1 - inner0 >= kVecFloats) {
                for (; ow + 4 * kVecFloats <= inner1; ow += 4 * kVecFloats)
                    block(4, oh, ow);
                // The rest in one block that ends at inner1; it may start inside the columns already done, which it
                // computes again to the same values.
                const int64_t rest = (inner1 - ow + kVecFloats - 1) / kVecFloats;
                if (rest > 0 && inner1 - rest * kVecFloats >= inner0) {
                    block(rest, oh, inner1 - rest * kVecFloats);
                } else if (rest > 0) {
                    for (; ow + kVecFloats <= inner1; ow += kVecFloats)
                        block(1, oh, ow);
                    if (ow < inner1)
                        block(1, oh, inner1 - kVecFloats);
                }
                ow = inner1;
            }
            if (g.strideW == 1) {
                depthwiseEdgeColumns(img, wk, b, out + oh * g.outW, g, oh, 0, inner0);
                depthwiseEdgeColumns(img, wk, b, out + oh * g.outW, g, oh, ow, g.outW);
            } else {
                depthwiseColumns(img, wk, b, out + oh * g.outW, g, oh, 0, g.outW);
            }
        }
        if (act.kind != Activation::None)
            activation(out, out, outSize, act);
    }
}

/// Columns [ow0, ow0 + V * kVecFloats) of output row `oh` of one depthwise channel, from `band`: input rows from
/// `row0` on, each as strideW phase rows of `len` elements (phase p holds the zero-padded row's columns p, p + strideW,
/// ...), so that every tap reads V whole vectors at one offset, whatever the stride, dilation and padding. Sums start
/// from the bias and take the taps in order (kh, then kw), as the reference does; padding adds w * 0.
template <int V>
void depthwisePhaseBlock(const float* band, int64_t row0, int64_t len, const int64_t* tapOffset, const float* wk,
    float bias, float* o, const DepthwiseGeometry& g, int64_t oh, int64_t ow0)
{
    FloatVec acc[V];
    for (int v = 0; v < V; ++v)
        acc[v] = FloatVec {} + bias;
    for (int64_t kh = 0; kh < g.kernelH; ++kh) {
        const int64_t ih = oh * g.strideH - g.padTop + kh * g.dilationH;
        if (ih < 0 || ih >= g.inH)
            continue;
        const float* phases = band + (ih - row0) * g.strideW * len + ow0;
        for (int64_t kw = 0; kw < g.kernelW; ++kw) {
            const float* src = phases + tapOffset[kw];
            const float wv = wk[kh * g.kernelW + kw];
            for (int v = 0; v < V; ++v) {
                FloatVec x;
                std::memcpy(&x, src + v * kVecFloats, sizeof x);
                acc[v] += wv * x;
            }
        }
    }
    std::memcpy(o, acc, sizeof acc);
}

/// phase[j] = src[2 * j] for j from lo while the pair of source vectors lies before src[2 * hi - 2] (only elements
/// that src[2 * j] for j < hi may read); returns the first j not done. Two loads and one shuffle per vector instead
/// of a scalar strided loop.
inline int64_t deinterleaveEven(const float* src, int64_t lo, int64_t hi, float* phase)
{
    int64_t j = lo;
    for (; j + kVecFloats < hi; j += kVecFloats) {
        FloatVec a, b;
        std::memcpy(&a, src + 2 * j, sizeof a);
        std::memcpy(&b, src + 2 * j + kVecFloats, sizeof b);
#if defined(__AVX512F__)
        const FloatVec r = __builtin_shufflevector(a, b, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
#elif defined(__AVX__)
        const FloatVec r = __builtin_shufflevector(a, b, 0, 2, 4, 6, 8, 10, 12, 14);
#else
        const FloatVec r = __builtin_shufflevector(a, b, 0, 2, 4, 6);
#endif
        std::memcpy(phase + j, &r, sizeof r);
    }
    return j;
}

/// depthwise2d for small planes with stride 1 and output rows as wide as the input's (a MobileNet's 7 x 7 and 14 x 14
/// maps): each plane is one flat run of vectors. Output element p reads input element p + (kh * dilationH - padTop) *
/// inW + kw * dilationW - padLeft at tap (kh, kw), from a copy of the plane between zero margins, under a mask that
/// zeroes the reads whose row or column falls outside the input (a column that wraps into the next row). Sums start
/// from the bias and take the taps in order (kh, then kw); every out-of-range tap adds w * 0. False (nothing done) for
/// other geometries, or when the plane's masks would not fit the buffer.
bool depthwiseFlat(const float* x, const float* w, const float* bias, float* y, int64_t channels,
    const DepthwiseGeometry& g, ActivationParams act)
{
    typedef int32_t MaskVec __attribute__((vector_size(kVecFloats * sizeof(int32_t))));
    constexpr int64_t kMaskInts = 16384, kBandFloats = 4096;
    const int64_t n = g.outH * g.outW, vectors = (n + kVecFloats - 1) / kVecFloats, padded = vectors * kVecFloats;
    const int64_t taps = g.kernelH * g.kernelW;
    if (g.strideH != 1 || g.strideW != 1 || g.outW != g.inW || taps * padded > kMaskInts)
        return false;
    const int64_t lowShift = -g.padTop * g.inW - g.padLeft;
    const int64_t highShift
        = ((g.kernelH - 1) * g.dilationH - g.padTop) * g.inW + (g.kernelW - 1) * g.dilationW - g.padLeft;
    const int64_t before = maxI(0, -lowShift), inSize = g.inH * g.inW;
    const int64_t after = maxI(0, padded + highShift - inSize);
    if (before + inSize + after > kBandFloats)
        return false;
    alignas(64) int32_t mask[kMaskInts];
    alignas(64) float band[kBandFloats];
    alignas(64) float scratch[kVecFloats];
    int64_t shift[64];
    if (taps > 64)
        return false;
    for (int64_t kh = 0, t = 0; kh < g.kernelH; ++kh)
        for (int64_t kw = 0; kw < g.kernelW; ++kw, ++t) {
            const int64_t dr = kh * g.dilationH - g.padTop, dc = kw * g.dilationW - g.padLeft;
            shift[t] = dr * g.inW + dc;
            int32_t* m = mask + t * padded;
            for (int64_t oh = 0; oh < g.outH; ++oh) {
                const bool rowIn = oh + dr >= 0 && oh + dr < g.inH;
                for (int64_t ow = 0; ow < g.outW; ++ow)
                    m[oh * g.outW + ow] = rowIn && ow + dc >= 0 && ow + dc < g.inW ? -1 : 0;
            }
            for (int64_t p = n; p < padded; ++p)
                m[p] = 0;
        }
    for (int64_t i = 0; i < before; ++i)
        band[i] = 0.0f;
    for (int64_t i = before + inSize; i < before + inSize + after; ++i)
        band[i] = 0.0f;
    const float* plane = band + before;
    for (int64_t c = 0; c < channels; ++c) {
        std::memcpy(band + before, x + c * inSize, static_cast<size_t>(inSize) * sizeof(float));
        const float* wk = w + c * taps;
        float* out = y + c * n;
        const float b = bias ? bias[c] : 0.0f;
        for (int64_t v0 = 0; v0 < vectors; v0 += 4) {
            const int64_t count = minI(4, vectors - v0);
            FloatVec acc[4];
            for (int64_t v = 0; v < 4; ++v)
                acc[v] = FloatVec {} + b;
            for (int64_t t = 0; t < taps; ++t) {
                const float wv = wk[t];
                for (int64_t v = 0; v < count; ++v) {
                    const int64_t p = (v0 + v) * kVecFloats;
                    MaskVec xv, m;
                    std::memcpy(&xv, plane + p + shift[t], sizeof xv);
                    std::memcpy(&m, mask + t * padded + p, sizeof m);
                    FloatVec masked;
                    const MaskVec bits = xv & m;
                    std::memcpy(&masked, &bits, sizeof masked);
                    acc[v] += wv * masked;
                }
            }
            for (int64_t v = 0; v < count; ++v) {
                const int64_t p = (v0 + v) * kVecFloats;
                if (p + kVecFloats <= n) {
                    std::memcpy(out + p, &acc[v], sizeof acc[v]);
                } else {
                    std::memcpy(scratch, &acc[v], sizeof acc[v]);
                    for (int64_t i = p; i < n; ++i)
                        out[i] = scratch[i - p];
                }
            }
        }
        if (act.kind != Activation::None)
            activation(out, out, n, act);
    }
    return true;
}

/// depthwise2d: every geometry runs in whole vectors. Bands of input rows are copied into a buffer with the side
/// padding as zeros and each row split into its strideW phases (depthwisePhaseBlock); output rows are computed in
/// vectors rounded up past outW (the last one through a scratch row), so that narrow planes (7 or 14 columns) and
/// strided ones run as vector code too. The padded taps add w * 0, which changes nothing but the sign of a zero sum,
/// or gives NaN for an infinite weight as numpy's padded reference does. Rows too long for the buffer run in
/// depthwisePlanes.
void depthwise2d(const float* x, const float* w, const float* bias, float* y, int64_t channels,
    const DepthwiseGeometry& g, ActivationParams act)
{
    if (depthwiseFlat(x, w, bias, y, channels, g, act))
        return;
    constexpr int64_t kBufferFloats = 16384;
    const int64_t s = g.strideW, vectors = (g.outW + kVecFloats - 1) / kVecFloats, outVec = vectors * kVecFloats;
    const int64_t len = outVec + (g.kernelW - 1) * g.dilationW / s;
    const int64_t rowFloats = s * len; // one input row's phases
    const auto inputRows
        = [&](int64_t outRows) { return (outRows - 1) * g.strideH + (g.kernelH - 1) * g.dilationH + 1; };
    if (g.padLeft < 0 || g.padTop < 0 || g.outW <= 0 || g.outH <= 0 || inputRows(1) * rowFloats > kBufferFloats) {
        depthwisePlanes(x, w, bias, y, channels, g, act);
        return;
    }
    int64_t bandRows = 1; // output rows per band
    while (bandRows < g.outH && inputRows(bandRows + 1) * rowFloats <= kBufferFloats)
        ++bandRows;
    alignas(64) float band[kBufferFloats];
    alignas(64) float scratch[4 * kVecFloats];
    // Tap kw of a row reads its phase row (kw * dilationW) % s from element (kw * dilationW) / s on.
    constexpr int64_t kMaxTaps = 64;
    int64_t tapOffset[kMaxTaps];
    if (g.kernelW > kMaxTaps) {
        depthwisePlanes(x, w, bias, y, channels, g, act);
        return;
    }
    for (int64_t kw = 0; kw < g.kernelW; ++kw)
        tapOffset[kw] = (kw * g.dilationW % s) * len + kw * g.dilationW / s;
    const int64_t inSize = g.inH * g.inW, outSize = g.outH * g.outW, taps = g.kernelH * g.kernelW;
    for (int64_t c = 0; c < channels; ++c) {
        const float* img = x + c * inSize;
        const float* wk = w + c * taps;
        float* out = y + c * outSize;
        const float b = bias ? bias[c] : 0.0f;
        for (int64_t oh0 = 0; oh0 < g.outH; oh0 += bandRows) {
            const int64_t oh1 = minI(g.outH, oh0 + bandRows);
            const int64_t row0 = maxI(0, oh0 * g.strideH - g.padTop);
            const int64_t row1 = minI(g.inH, (oh1 - 1) * g.strideH - g.padTop + (g.kernelH - 1) * g.dilationH + 1);
            for (int64_t r = row0; r < row1; ++r) {
                const float* in = img + r * g.inW;
                float* phases = band + (r - row0) * rowFloats;
                if (s == 1) {
                    const int64_t left = minI(g.padLeft, len), copy = maxI(0, minI(g.inW, len - left));
                    for (int64_t j = 0; j < left; ++j)
                        phases[j] = 0.0f;
                    std::memcpy(phases + left, in, static_cast<size_t>(copy) * sizeof(float));
                    for (int64_t j = left + copy; j < len; ++j)
                        phases[j] = 0.0f;
                } else {
                    // Phase p, element j: input column j * s + p - padLeft; [lo, hi) of j lie inside the row.
                    for (int64_t p = 0; p < s; ++p) {
                        float* phase = phases + p * len;
                        const int64_t first = g.padLeft - p; // j * s >= first
                        const int64_t lo = minI(len, first <= 0 ? 0 : (first + s - 1) / s);
                        const int64_t hi = maxI(lo, minI(len, (g.inW + first + s - 1) / s));
                        const float* src = in + p - g.padLeft;
                        for (int64_t j = 0; j < lo; ++j)
                            phase[j] = 0.0f;
                        int64_t j = lo;
                        if (s == 2)
                            j = deinterleaveEven(src, lo, hi, phase);
                        for (; j < hi; ++j)
                            phase[j] = src[j * s];
                        for (int64_t j = hi; j < len; ++j)
                            phase[j] = 0.0f;
                    }
                }
            }
            for (int64_t oh = oh0; oh < oh1; ++oh) {
                float* o = out + oh * g.outW;
                // Blocks of up to 4 vectors; one that passes outW goes through the scratch row.
                for (int64_t ow = 0; ow < g.outW; ow += 4 * kVecFloats) {
                    const int64_t v = minI(4, (g.outW - ow + kVecFloats - 1) / kVecFloats);
                    const bool whole = ow + v * kVecFloats <= g.outW;
                    float* dst = whole ? o + ow : scratch;
                    if (v == 4)
                        depthwisePhaseBlock<4>(band, row0, len, tapOffset, wk, b, dst, g, oh, ow);
                    else if (v == 3)
                        depthwisePhaseBlock<3>(band, row0, len, tapOffset, wk, b, dst, g, oh, ow);
                    else if (v == 2)
                        depthwisePhaseBlock<2>(band, row0, len, tapOffset, wk, b, dst, g, oh, ow);
                    else
                        depthwisePhaseBlock<1>(band, row0, len, tapOffset, wk, b, dst, g, oh, ow);
                    if (!whole)
                        for (int64_t j = ow; j < g.outW; ++j)
                            o[j] = scratch[j - ow];
                }
            }
            if (act.kind != Activation::None)
                activation(out + oh0 * g.outW, out + oh0 * g.outW, (oh1 - oh0) * g.outW, act);
        }
    }
}

bool chunkStats(const float* x, int64_t n, float* lo, float* hi, float* sum, float* sumSq, int64_t* zeros)
{
    typedef int32_t IntVec __attribute__((vector_size(kVecFloats * sizeof(int32_t))));
    constexpr float kInf = __builtin_huge_valf();
    // Two sets of accumulators, so that consecutive vectors do not wait on each other's additions.
    FloatVec lo0 = FloatVec {} + kInf, lo1 = lo0, hi0 = FloatVec {} - kInf, hi1 = hi0;
    FloatVec s0 {}, s1 {}, q0 {}, q1 {};
    IntVec z0 {}, z1 {};
    int64_t i = 0;
    for (; i + 2 * kVecFloats <= n; i += 2 * kVecFloats) {
        FloatVec a, b;
        std::memcpy(&a, x + i, sizeof a);
        std::memcpy(&b, x + i + kVecFloats, sizeof b);
        lo0 = a < lo0 ? a : lo0;
        lo1 = b < lo1 ? b : lo1;
        hi0 = a > hi0 ? a : hi0;
        hi1 = b > hi1 ? b : hi1;
        s0 += a;
        s1 += b;
        q0 += a * a;
        q1 += b * b;
        z0 -= a == FloatVec {}; // true is -1
        z1 -= b == FloatVec {};
    }
    lo0 = lo1 < lo0 ? lo1 : lo0;
    hi0 = hi1 > hi0 ? hi1 : hi0;
    s0 += s1;
    q0 += q1;
    z0 += z1;
    float l = kInf, h = -kInf, s = 0.0f, q = 0.0f;
    int64_t z = 0;
    for (int64_t k = 0; k < kVecFloats; ++k) {
        l = lo0[k] < l ? lo0[k] : l;
        h = hi0[k] > h ? hi0[k] : h;
        s += s0[k];
        q += q0[k];
        z += z0[k];
    }
    for (; i < n; ++i) {
        const float v = x[i];
        l = v < l ? v : l;
        h = v > h ? v : h;
        s += v;
        q += v * v;
        z += v == 0.0f;
    }
    *lo = l;
    *hi = h;
    *sum = s;
    *sumSq = q;
    *zeros = z;
    // A NaN makes the sums NaN; an Inf makes min or max infinite (or the sums); an empty chunk is finite. v - v is 0
    // for a finite v, NaN otherwise.
    const auto finite = [](float v) { return v - v == 0.0f; };
    return n == 0 || (finite(l) && finite(h) && finite(s) && finite(q));
}

// ---- 4-bit block-quantized weights -------------------------------------------------------------------------------
// A byte holds two codes, low nibble first. dequantize4 writes them in order; dot4 takes A with each unit's even
// elements first, so that the low and high nibbles of a unit's bytes each fill a vector as they are, unshuffled.

/// Code i of a column's packed bytes.
inline int code4(const uint8_t* codes, int64_t i)
{
    return (codes[i / 2] >> ((i & 1) * 4)) & 0x0F;
}

inline void dequantizeScalar(
    const uint8_t* codes, int64_t from, int64_t to, int64_t block, const float* zero, const float* scale, float* out)
{
    for (int64_t i = from; i < to; ++i)
        out[i] = (static_cast<float>(code4(codes, i)) - zero[i / block]) * scale[i / block];
}

void dequantize4(const uint8_t* codes, int64_t k, int64_t block, const float* zero, const float* scale, float* out)
{
    int64_t i = 0;
#if defined(__AVX2__)
    // 16 codes at a time: 8 bytes widened to 16-bit lanes holding (low | high << 8) are the 16 codes in order as
    // bytes, which widen to 32-bit lanes.
    const __m128i lowMask = _mm_set1_epi16(0x000F), highMask = _mm_set1_epi16(0x00F0);
    for (; i + 16 <= k; i += 16) {
        const __m128i wide = _mm_cvtepu8_epi16(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(codes + i / 2)));
        const __m128i bytes
            = _mm_or_si128(_mm_and_si128(wide, lowMask), _mm_slli_epi16(_mm_and_si128(wide, highMask), 4));
        const int64_t j = i / block;
#if defined(__AVX512F__)
        const __m512 q = _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(bytes));
        _mm512_storeu_ps(out + i, _mm512_mul_ps(_mm512_sub_ps(q, _mm512_set1_ps(zero[j])), _mm512_set1_ps(scale[j])));
#else
        const __m256 z = _mm256_set1_ps(zero[j]), s = _mm256_set1_ps(scale[j]);
        const __m256 q0 = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(bytes));
        const __m256 q1 = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_srli_si128(bytes, 8)));
        _mm256_storeu_ps(out + i, _mm256_mul_ps(_mm256_sub_ps(q0, z), s));
        _mm256_storeu_ps(out + i + 8, _mm256_mul_ps(_mm256_sub_ps(q1, z), s));
#endif
    }
#endif
    dequantizeScalar(codes, i, k, block, zero, scale, out);
}

void dequantize4Panel(const uint8_t* codes, int64_t ldCodes, int64_t columns, int64_t k, int64_t block,
    const float* zero, const float* scale, int64_t ldz, float* w, int64_t ldw)
{
    // Rows [from, k) of columns [n0, n1), one element at a time.
    const auto scalar = [&](int64_t n0, int64_t n1, int64_t from) {
        for (int64_t n = n0; n < n1; ++n)
            for (int64_t i = from; i < k; ++i) {
                const int64_t j = i / block;
                w[i * ldw + n]
                    = (static_cast<float>(code4(codes + n * ldCodes, i)) - zero[j * ldz + n]) * scale[j * ldz + n];
            }
    };
    int64_t n0 = 0;
#if defined(__AVX2__)
    // kVecFloats columns at a time: a gather takes 4 bytes (8 codes) of each column, and each code position becomes
    // one row of the panel. The rows past the last whole 8 are left to the scalar loop below.
    const int64_t whole = k / 8 * 8;
#if defined(__AVX512F__)
    const __m512i offsets = _mm512_mullo_epi32(
        _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15), _mm512_set1_epi32(int(ldCodes)));
    for (; n0 + 16 <= columns && ldCodes * 16 < (int64_t(1) << 31); n0 += 16)
        for (int64_t i = 0; i < whole; i += 8) {
            const int64_t j = i / block;
            const __m512 z = _mm512_loadu_ps(zero + j * ldz + n0), s = _mm512_loadu_ps(scale + j * ldz + n0);
            const __m512i bytes = _mm512_i32gather_epi32(offsets, codes + n0 * ldCodes + i / 2, 1);
            for (int t = 0; t < 8; ++t) {
                const __m512i q = _mm512_and_si512(_mm512_srli_epi32(bytes, 4 * t), _mm512_set1_epi32(0x0F));
                _mm512_storeu_ps(w + (i + t) * ldw + n0, _mm512_mul_ps(_mm512_sub_ps(_mm512_cvtepi32_ps(q), z), s));
            }
        }
#else
    const __m256i offsets
        = _mm256_mullo_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32(int(ldCodes)));
    for (; n0 + 8 <= columns && ldCodes * 8 < (int64_t(1) << 31); n0 += 8)
        for (int64_t i = 0; i < whole; i += 8) {
            const int64_t j = i / block;
            const __m256 z = _mm256_loadu_ps(zero + j * ldz + n0), s = _mm256_loadu_ps(scale + j * ldz + n0);
            const __m256i bytes
                = _mm256_i32gather_epi32(reinterpret_cast<const int*>(codes + n0 * ldCodes + i / 2), offsets, 1);
            for (int t = 0; t < 8; ++t) {
                const __m256i q = _mm256_and_si256(_mm256_srli_epi32(bytes, 4 * t), _mm256_set1_epi32(0x0F));
                _mm256_storeu_ps(w + (i + t) * ldw + n0, _mm256_mul_ps(_mm256_sub_ps(_mm256_cvtepi32_ps(q), z), s));
            }
        }
#endif
    scalar(0, n0, whole);
#endif
    scalar(n0, columns, 0);
}

#if defined(__AVX512F__)
constexpr int64_t kQ4Unit = 32;
#else
constexpr int64_t kQ4Unit = 16;
#endif

#ifdef ONNXSCOPE_GEMM_TILES
/// The low and high nibbles of kLanes bytes as two vectors of floats (codes 0, 2, 4, ... and 1, 3, 5, ...).
inline void nibbles(const uint8_t* p, Vec& low, Vec& high)
{
#if defined(__AVX512F__)
    const __m512i x = _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
    low = _mm512_cvtepi32_ps(_mm512_and_si512(x, _mm512_set1_epi32(0x0F)));
    high = _mm512_cvtepi32_ps(_mm512_srli_epi32(x, 4));
#else
    const __m256i x = _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)));
    low = _mm256_cvtepi32_ps(_mm256_and_si256(x, _mm256_set1_epi32(0x0F)));
    high = _mm256_cvtepi32_ps(_mm256_srli_epi32(x, 4));
#endif
}

template <int R>
void dot4Rows(const uint8_t* codes, int64_t blocks, int64_t block, const float* zero, const float* scale,
    const float* a, int64_t lda, float* y, int64_t ldy)
{
    Vec acc[R];
    for (int r = 0; r < R; ++r)
        acc[r] = vzero();
    for (int64_t j = 0; j < blocks; ++j) {
        const Vec z = vset(zero[j]);
        Vec t[R];
        for (int r = 0; r < R; ++r)
            t[r] = vzero();
        for (int64_t u = j * block; u < (j + 1) * block; u += kQ4Unit) {
            Vec low, high;
            nibbles(codes + u / 2, low, high);
            low = low - z;
            high = high - z;
            for (int r = 0; r < R; ++r) {
                t[r] = vfma(low, vload(a + r * lda + u), t[r]);
                t[r] = vfma(high, vload(a + r * lda + u + kLanes), t[r]);
            }
        }
        const Vec s = vset(scale[j]);
        for (int r = 0; r < R; ++r)
            acc[r] = vfma(s, t[r], acc[r]);
    }
    for (int r = 0; r < R; ++r)
        y[r * ldy] = vsum(acc[r]);
}
#else
template <int R>
void dot4Rows(const uint8_t* codes, int64_t blocks, int64_t block, const float* zero, const float* scale,
    const float* a, int64_t lda, float* y, int64_t ldy)
{
    for (int r = 0; r < R; ++r) {
        float acc = 0.0f;
        for (int64_t j = 0; j < blocks; ++j) {
            float t = 0.0f;
            for (int64_t u = j * block; u < (j + 1) * block; u += kQ4Unit)
                for (int64_t i = 0; i < kQ4Unit / 2; ++i) {
                    const uint8_t byte = codes[u / 2 + i];
                    t += (static_cast<float>(byte & 0x0F) - zero[j]) * a[r * lda + u + i];
                    t += (static_cast<float>(byte >> 4) - zero[j]) * a[r * lda + u + kQ4Unit / 2 + i];
                }
            acc += scale[j] * t;
        }
        y[r * ldy] = acc;
    }
}
#endif

template <int R>
void dot4Int8Rows(const uint8_t* codes, int64_t blocks, int64_t block, const float* zero, const float* scale,
    const int8_t* qa, int64_t lda, const float* aScale, const float* aSum, int64_t ldas, float* y, int64_t ldy)
{
    float corr[R];
    for (int r = 0; r < R; ++r)
        corr[r] = 0.0f;
#if defined(__AVX2__)
    // 32 codes at a time in 256 bits at both levels (Zen 4 splits 512-bit integer operations anyway): the 16 bytes'
    // low nibbles then their high ones, as unsigned bytes, against A's even then odd values; vpmaddubsw sums pairs
    // into 16 bits (at most 2 x 15 x 127, no saturation), vpmaddwd pairs of those into 32.
    const __m128i nibble = _mm_set1_epi8(0x0F);
    const __m256i ones = _mm256_set1_epi16(1);
    const auto blockSums = [&](int64_t j, __m256i* sums) {
        for (int r = 0; r < R; ++r)
            sums[r] = _mm256_setzero_si256();
        for (int64_t u = j * block; u < (j + 1) * block; u += 32) {
            const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(codes + u / 2));
            const __m256i w = _mm256_set_m128i(_mm_and_si128(_mm_srli_epi16(x, 4), nibble), _mm_and_si128(x, nibble));
            for (int r = 0; r < R; ++r) {
                const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(qa + r * lda + u));
                sums[r] = _mm256_add_epi32(sums[r], _mm256_madd_epi16(_mm256_maddubs_epi16(w, a), ones));
            }
        }
    };
    __m256 acc[R];
    for (int r = 0; r < R; ++r)
        acc[r] = _mm256_setzero_ps();
    for (int64_t j = 0; j < blocks; ++j) {
        __m256i sums[R];
        blockSums(j, sums);
        for (int r = 0; r < R; ++r) {
            acc[r]
                = _mm256_fmadd_ps(_mm256_cvtepi32_ps(sums[r]), _mm256_set1_ps(scale[j] * aScale[r * ldas + j]), acc[r]);
            corr[r] += zero[j] * scale[j] * aSum[r * ldas + j];
        }
    }
    for (int r = 0; r < R; ++r) {
        __m128 q = _mm_add_ps(_mm256_castps256_ps128(acc[r]), _mm256_extractf128_ps(acc[r], 1));
        q = _mm_add_ps(q, _mm_movehl_ps(q, q));
        q = _mm_add_ss(q, _mm_movehdup_ps(q));
        y[r * ldy] = _mm_cvtss_f32(q) - corr[r];
    }
#else
    float acc[R];
    for (int r = 0; r < R; ++r)
        acc[r] = 0.0f;
    for (int64_t j = 0; j < blocks; ++j)
        for (int r = 0; r < R; ++r) {
            int32_t sum = 0;
            for (int64_t u = j * block; u < (j + 1) * block; u += 32)
                for (int64_t i = 0; i < 16; ++i) {
                    const uint8_t byte = codes[u / 2 + i];
                    sum += (byte & 0x0F) * qa[r * lda + u + i] + (byte >> 4) * qa[r * lda + u + 16 + i];
                }
            acc[r] += static_cast<float>(sum) * (scale[j] * aScale[r * ldas + j]);
            corr[r] += zero[j] * scale[j] * aSum[r * ldas + j];
        }
    for (int r = 0; r < R; ++r)
        y[r * ldy] = acc[r] - corr[r];
#endif
}

void dot4Int8(const uint8_t* codes, int64_t blocks, int64_t block, const float* zero, const float* scale,
    const int8_t* qa, int64_t lda, const float* aScale, const float* aSum, int64_t ldas, int64_t rows, float* y,
    int64_t ldy)
{
    switch (rows) {
    case 1:
        return dot4Int8Rows<1>(codes, blocks, block, zero, scale, qa, lda, aScale, aSum, ldas, y, ldy);
    case 2:
        return dot4Int8Rows<2>(codes, blocks, block, zero, scale, qa, lda, aScale, aSum, ldas, y, ldy);
    case 3:
        return dot4Int8Rows<3>(codes, blocks, block, zero, scale, qa, lda, aScale, aSum, ldas, y, ldy);
    default:
        return dot4Int8Rows<4>(codes, blocks, block, zero, scale, qa, lda, aScale, aSum, ldas, y, ldy);
    }
}

void dot4(const uint8_t* codes, int64_t blocks, int64_t block, const float* zero, const float* scale, const float* a,
    int64_t lda, int64_t rows, float* y, int64_t ldy)
{
    switch (rows) {
    case 1:
        return dot4Rows<1>(codes, blocks, block, zero, scale, a, lda, y, ldy);
    case 2:
        return dot4Rows<2>(codes, blocks, block, zero, scale, a, lda, y, ldy);
    case 3:
        return dot4Rows<3>(codes, blocks, block, zero, scale, a, lda, y, ldy);
    default:
        return dot4Rows<4>(codes, blocks, block, zero, scale, a, lda, y, ldy);
    }
}

void int8Steps(const float* x, int64_t n, int64_t block, int8_t* q, float* values, float* step)
{
    // Adding and subtracting 1.5 * 2^23 rounds to the nearest integer, ties to even, as nearbyint does in the
    // default rounding mode (|v| <= 127 here).
    constexpr float kRound = 12582912.0f;
    for (int64_t b0 = 0; b0 < n; b0 += block) {
        const int64_t end = minI(n, b0 + block);
        int64_t i = b0;
        FloatVec top = FloatVec {};
        for (; i + kVecFloats <= end; i += kVecFloats) {
            FloatVec v;
            std::memcpy(&v, x + i, sizeof v);
            v = v < 0.0f ? -v : v;
            top = v > top ? v : top;
        }
        float amax = 0.0f;
        for (int64_t l = 0; l < kVecFloats; ++l)
            amax = top[l] > amax ? top[l] : amax;
        for (; i < end; ++i) {
            const float v = std::fabs(x[i]);
            amax = v > amax ? v : amax;
        }
        const float stepOf = amax / 127.0f;
        step[b0 / block] = stepOf;
        const float inverse = amax != 0 ? 127.0f / amax : 0.0f;
        i = b0;
        for (; i + kVecFloats <= end; i += kVecFloats) {
            FloatVec v;
            std::memcpy(&v, x + i, sizeof v);
            FloatVec r = v * inverse;
            // The product rounded on its own, as onnxruntime rounds it: not fused with the addition below into an
            // FMA (GCC contracts across statements at AVX2 and AVX-512), which would round the exact product.
            __asm__("" : "+x"(r));
            r = (r + kRound) - kRound;
            r = r < -127.0f ? FloatVec {} - 127.0f : r;
            r = r > 127.0f ? FloatVec {} + 127.0f : r;
            if (q) {
                typedef int32_t IntVec __attribute__((vector_size(kVecFloats * sizeof(int32_t))));
                typedef int8_t ByteVec __attribute__((vector_size(kVecFloats)));
                const ByteVec bytes = __builtin_convertvector(__builtin_convertvector(r, IntVec), ByteVec);
                std::memcpy(q + i, &bytes, sizeof bytes);
            }
            if (values) {
                r = r * stepOf;
                std::memcpy(values + i, &r, sizeof r);
            }
        }
        for (; i < end; ++i) {
            float r = x[i] * inverse;
            __asm__("" : "+x"(r));
            r = (r + kRound) - kRound;
            r = r < -127.0f ? -127.0f : (r > 127.0f ? 127.0f : r);
            if (q)
                q[i] = static_cast<int8_t>(r);
            if (values)
                values[i] = r * stepOf;
        }
    }
}

// Ops::gemmS8U8: tiles of up to kS8Rows rows of w times P panels of 16 columns, each tile's int32 sums kept in
// registers over the whole depth, then written through a small buffer (any row and column strides).
constexpr int64_t kS8Rows = 4;

inline int32_t load4(const int8_t* p)
{
    int32_t v;
    std::memcpy(&v, p, 4);
    return v;
}

inline void storeTile(
    const int32_t* t, int64_t rows, int64_t cols, int64_t ldt, int32_t* c, int64_t ldcRow, int64_t ldcCol)
{
    for (int64_t r = 0; r < rows; ++r)
        for (int64_t j = 0; j < cols; ++j)
            c[r * ldcRow + j * ldcCol] = t[r * ldt + j];
}

// The scalar tile: the definition.
template <int R, int P>
void tileScalar(int64_t k4, const int8_t* w, int64_t ldw, const uint8_t* x, int64_t panelBytes, int32_t* t)
{
    for (int r = 0; r < R; ++r)
        for (int p = 0; p < P; ++p)
            for (int64_t j = 0; j < 16; ++j) {
                int32_t sum = 0;
                for (int64_t q = 0; q < k4; ++q)
                    for (int64_t b = 0; b < 4; ++b)
                        sum += int32_t(w[r * ldw + 4 * q + b]) * int32_t(x[p * panelBytes + q * 64 + j * 4 + b]);
                t[r * P * 16 + p * 16 + j] = sum;
            }
}

#if defined(__AVX512F__)
// One panel is one 512-bit vector of 16 int32 sums. The widening path splits each 32-bit lane's four bytes into its
// even and odd bytes as 16-bit values (x zero-extended, w sign-extended) and sums the pairs with vpmaddwd: exactly
// what vpdpbusd computes.
template <int R, int P>
void tileWide512(int64_t k4, const int8_t* w, int64_t ldw, const uint8_t* x, int64_t panelBytes, int32_t* t)
{
    const __m512i lowBytes = _mm512_set1_epi16(0x00FF);
    __m512i acc[R][P];
    for (int r = 0; r < R; ++r)
        for (int p = 0; p < P; ++p)
            acc[r][p] = _mm512_setzero_si512();
    for (int64_t q = 0; q < k4; ++q) {
        __m512i xe[P], xo[P];
        for (int p = 0; p < P; ++p) {
            const __m512i v = _mm512_loadu_si512(x + p * panelBytes + q * 64);
            xe[p] = _mm512_and_si512(v, lowBytes);
            xo[p] = _mm512_srli_epi16(v, 8);
        }
        for (int r = 0; r < R; ++r) {
            const __m512i wv = _mm512_set1_epi32(load4(w + r * ldw + 4 * q));
            const __m512i we = _mm512_srai_epi16(_mm512_slli_epi16(wv, 8), 8), wo = _mm512_srai_epi16(wv, 8);
            for (int p = 0; p < P; ++p)
                acc[r][p] = _mm512_add_epi32(
                    acc[r][p], _mm512_add_epi32(_mm512_madd_epi16(xe[p], we), _mm512_madd_epi16(xo[p], wo)));
        }
    }
    for (int r = 0; r < R; ++r)
        for (int p = 0; p < P; ++p)
            _mm512_storeu_si512(t + r * P * 16 + p * 16, acc[r][p]);
}

template <int R, int P>
__attribute__((target("avx512vnni"))) void tileVnni512(
    int64_t k4, const int8_t* w, int64_t ldw, const uint8_t* x, int64_t panelBytes, int32_t* t)
{
    __m512i acc[R][P];
    for (int r = 0; r < R; ++r)
        for (int p = 0; p < P; ++p)
            acc[r][p] = _mm512_setzero_si512();
    for (int64_t q = 0; q < k4; ++q) {
        __m512i xv[P];
        for (int p = 0; p < P; ++p)
            xv[p] = _mm512_loadu_si512(x + p * panelBytes + q * 64);
        for (int r = 0; r < R; ++r) {
            const __m512i wv = _mm512_set1_epi32(load4(w + r * ldw + 4 * q));
            for (int p = 0; p < P; ++p)
                acc[r][p] = _mm512_dpbusd_epi32(acc[r][p], xv[p], wv);
        }
    }
    for (int r = 0; r < R; ++r)
        for (int p = 0; p < P; ++p)
            _mm512_storeu_si512(t + r * P * 16 + p * 16, acc[r][p]);
}
#define ONNXSCOPE_TILE_WIDE tileWide512
#define ONNXSCOPE_TILE_VNNI tileVnni512
#define ONNXSCOPE_VNNI_NAME "AVX-512 VNNI"
#define ONNXSCOPE_WIDE_NAME "AVX-512 vpmaddwd"
constexpr int kS8Panels = 2;
#elif defined(__AVX2__)
// One panel is two 256-bit vectors; the same two paths as at AVX-512.
template <int R, int P>
void tileWide256(int64_t k4, const int8_t* w, int64_t ldw, const uint8_t* x, int64_t panelBytes, int32_t* t)
{
    const __m256i lowBytes = _mm256_set1_epi16(0x00FF);
    __m256i acc[R][2 * P];
    for (int r = 0; r < R; ++r)
        for (int h = 0; h < 2 * P; ++h)
            acc[r][h] = _mm256_setzero_si256();
    for (int64_t q = 0; q < k4; ++q) {
        __m256i xe[2 * P], xo[2 * P];
        for (int h = 0; h < 2 * P; ++h) {
            const __m256i v = _mm256_loadu_si256(
                reinterpret_cast<const __m256i*>(x + (h / 2) * panelBytes + q * 64 + (h % 2) * 32));
            xe[h] = _mm256_and_si256(v, lowBytes);
            xo[h] = _mm256_srli_epi16(v, 8);
        }
        for (int r = 0; r < R; ++r) {
            const __m256i wv = _mm256_set1_epi32(load4(w + r * ldw + 4 * q));
            const __m256i we = _mm256_srai_epi16(_mm256_slli_epi16(wv, 8), 8), wo = _mm256_srai_epi16(wv, 8);
            for (int h = 0; h < 2 * P; ++h)
                acc[r][h] = _mm256_add_epi32(
                    acc[r][h], _mm256_add_epi32(_mm256_madd_epi16(xe[h], we), _mm256_madd_epi16(xo[h], wo)));
        }
    }
    for (int r = 0; r < R; ++r)
        for (int h = 0; h < 2 * P; ++h)
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(t + r * P * 16 + h * 8), acc[r][h]);
}

template <int R, int P>
__attribute__((target("avxvnni"))) void tileVnni256(
    int64_t k4, const int8_t* w, int64_t ldw, const uint8_t* x, int64_t panelBytes, int32_t* t)
{
    __m256i acc[R][2 * P];
    for (int r = 0; r < R; ++r)
        for (int h = 0; h < 2 * P; ++h)
            acc[r][h] = _mm256_setzero_si256();
    for (int64_t q = 0; q < k4; ++q) {
        __m256i xv[2 * P];
        for (int h = 0; h < 2 * P; ++h)
            xv[h] = _mm256_loadu_si256(
                reinterpret_cast<const __m256i*>(x + (h / 2) * panelBytes + q * 64 + (h % 2) * 32));
        for (int r = 0; r < R; ++r) {
            const __m256i wv = _mm256_set1_epi32(load4(w + r * ldw + 4 * q));
            for (int h = 0; h < 2 * P; ++h)
                acc[r][h] = _mm256_dpbusd_avx_epi32(acc[r][h], xv[h], wv);
        }
    }
    for (int r = 0; r < R; ++r)
        for (int h = 0; h < 2 * P; ++h)
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(t + r * P * 16 + h * 8), acc[r][h]);
}
#define ONNXSCOPE_TILE_WIDE tileWide256
#define ONNXSCOPE_TILE_VNNI tileVnni256
#define ONNXSCOPE_VNNI_NAME "AVX-VNNI"
#define ONNXSCOPE_WIDE_NAME "AVX2 vpmaddwd"
constexpr int kS8Panels = 1;
#else
#define ONNXSCOPE_TILE_WIDE tileScalar
constexpr int kS8Panels = 1;
#endif

using S8Tile = void (*)(int64_t, const int8_t*, int64_t, const uint8_t*, int64_t, int32_t*);

#define ONNXSCOPE_TILE_TABLE(tile)                                                                                     \
    {                                                                                                                  \
        { tile<1, 1>, tile<2, 1>, tile<3, 1>, tile<4, 1> },                                                            \
        {                                                                                                              \
            tile<1, kS8Panels>, tile<2, kS8Panels>, tile<3, kS8Panels>, tile<4, kS8Panels>                             \
        }                                                                                                              \
    }

void gemmS8U8With(const S8Tile (&tiles)[2][kS8Rows], int64_t m, int64_t n, int64_t k4, const int8_t* w, int64_t ldw,
    const uint8_t* x, int32_t* c, int64_t ldcRow, int64_t ldcCol)
{
    alignas(64) int32_t t[kS8Rows * 2 * 16];
    const int64_t panelBytes = k4 * 64, panels = ceilDiv(n, 16);
    for (int64_t p0 = 0; p0 < panels; p0 += kS8Panels) {
        const int64_t p = minI(kS8Panels, panels - p0), cols = minI(n - p0 * 16, p * 16);
        for (int64_t i0 = 0; i0 < m; i0 += kS8Rows) {
            const int64_t rows = minI(kS8Rows, m - i0);
            tiles[p == kS8Panels ? 1 : 0][rows - 1](k4, w + i0 * ldw, ldw, x + p0 * panelBytes, panelBytes, t);
            int32_t* dst = c + i0 * ldcRow + p0 * 16 * ldcCol;
            if (ldcCol == 1)
                for (int64_t r = 0; r < rows; ++r)
                    std::memcpy(dst + r * ldcRow, t + r * p * 16, static_cast<size_t>(cols) * sizeof(int32_t));
            else
                storeTile(t, rows, cols, p * 16, dst, ldcRow, ldcCol);
        }
    }
}

void gemmS8U8Wide(int64_t m, int64_t n, int64_t k4, const int8_t* w, int64_t ldw, const uint8_t* x, int32_t* c,
    int64_t ldcRow, int64_t ldcCol)
{
    static const S8Tile tiles[2][kS8Rows] = ONNXSCOPE_TILE_TABLE(ONNXSCOPE_TILE_WIDE);
    gemmS8U8With(tiles, m, n, k4, w, ldw, x, c, ldcRow, ldcCol);
}

#ifdef ONNXSCOPE_TILE_VNNI
void gemmS8U8Vnni(int64_t m, int64_t n, int64_t k4, const int8_t* w, int64_t ldw, const uint8_t* x, int32_t* c,
    int64_t ldcRow, int64_t ldcCol)
{
    static const S8Tile tiles[2][kS8Rows] = ONNXSCOPE_TILE_TABLE(ONNXSCOPE_TILE_VNNI);
    gemmS8U8With(tiles, m, n, k4, w, ldw, x, c, ldcRow, ldcCol);
}

// CPUID leaf 7 (the level's own checks already hold: AVX-512 or AVX2 with OS support), read directly because
// clang 14's __builtin_cpu_supports does not know "avxvnni".
bool hasVnni()
{
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
#if defined(__AVX512F__)
    return __get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) && (ecx & (1u << 11)) != 0; // AVX512_VNNI
#else
    return __get_cpuid_count(7, 1, &eax, &ebx, &ecx, &edx) && (eax & (1u << 4)) != 0; // AVX-VNNI
#endif
}
#endif

template <bool Signed, bool WithB>
void qlinearAddLoop(const uint8_t* a, const uint8_t* b, int64_t n, float r1, float r2, float c, uint8_t* y)
{
    // Clamped to the type's integer bounds first, then rounded half to even by adding and taking away 1.5 * 2^23.
    constexpr float kRound = 12582912.0f;
    constexpr float lo = Signed ? -128.0f : 0.0f, hi = Signed ? 127.0f : 255.0f;
    for (int64_t i = 0; i < n; ++i) {
        const float x = Signed ? float(static_cast<int8_t>(a[i])) : float(a[i]);
        float inner = c;
        if constexpr (WithB)
            inner = __builtin_fmaf(Signed ? float(static_cast<int8_t>(b[i])) : float(b[i]), r2, c);
        const float v = __builtin_fmaf(x, r1, inner);
        float k = v > lo ? v : lo;
        k = k < hi ? k : hi;
        const int32_t r = static_cast<int32_t>((k + kRound) - kRound);
        y[i] = static_cast<uint8_t>(r);
    }
}

void qlinearAddBytes(
    bool isSigned, const uint8_t* a, const uint8_t* b, int64_t n, float r1, float r2, float c, uint8_t* y)
{
    if (isSigned)
        b ? qlinearAddLoop<true, true>(a, b, n, r1, r2, c, y) : qlinearAddLoop<true, false>(a, b, n, r1, r2, c, y);
    else
        b ? qlinearAddLoop<false, true>(a, b, n, r1, r2, c, y) : qlinearAddLoop<false, false>(a, b, n, r1, r2, c, y);
}

// requantizeBytes: the product and the sum rounded apart at every level (GCC would fuse them into one multiply-add
// where the level has FMA; clang fuses only within one expression).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC push_options
#pragma GCC optimize("fp-contract=off")
#endif
template <bool Signed>
void requantizeLoop(const int32_t* acc, int64_t n, int32_t bias, float scale, float offset, float lo, float hi,
    int32_t zero, uint8_t* y)
{
    constexpr float kRound = 12582912.0f; // 1.5 * 2^23: adding and taking it away rounds half to even
    for (int64_t j = 0; j < n; ++j) {
        const float product
            = static_cast<float>(static_cast<int32_t>(static_cast<uint32_t>(acc[j]) + static_cast<uint32_t>(bias)))
            * scale;
        float v = product + offset;
        v = v > lo ? v : lo;
        v = v < hi ? v : hi;
        const int32_t q = static_cast<int32_t>((v + kRound) - kRound) + zero;
        y[j] = Signed ? static_cast<uint8_t>(static_cast<int8_t>(q)) : static_cast<uint8_t>(q);
    }
}

void requantizeBytes(const int32_t* acc, int64_t n, int32_t bias, float scale, float offset, float lo, float hi,
    int32_t zero, bool isSigned, uint8_t* y)
{
    if (isSigned)
        requantizeLoop<true>(acc, n, bias, scale, offset, lo, hi, zero, y);
    else
        requantizeLoop<false>(acc, n, bias, scale, offset, lo, hi, zero, y);
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC pop_options
#endif

} // namespace

const Ops& table()
{
    static const Ops ops { ONNXSCOPE_SIMD_NAME, gemm, gemmBias, gemmPanels, kPackedARows, packA, gemmPackedA,
        activation, biasActivation, binary, reduceRows, softmaxRows, depthwise2d, chunkStats, dequantize4,
        dequantize4Panel, kQ4Unit, dot4, int8Steps, dot4Int8,
#ifdef ONNXSCOPE_TILE_VNNI
        hasVnni() ? gemmS8U8Vnni : gemmS8U8Wide, gemmS8U8Wide, hasVnni() ? ONNXSCOPE_VNNI_NAME : ONNXSCOPE_WIDE_NAME,
#else
        gemmS8U8Wide, gemmS8U8Wide, "scalar",
#endif
        requantizeBytes, qlinearAddBytes };
    return ops;
}

} // namespace onnxscope::simd::ONNXSCOPE_SIMD_LEVEL
