// SPDX-License-Identifier: MIT
#include "engine/kernels/simd/simd.h"

#include "engine/core/thread_pool.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

namespace onnxscope::simd {

namespace base {
const Ops& table();
}
#if defined(__x86_64__)
namespace avx2 {
const Ops& table();
}
namespace avx512 {
const Ops& table();
}
#endif

namespace {

constexpr int64_t kMinParallelMacs = kGrainMacs;
constexpr int64_t kMinParallelElements = kGrainElements;

const Ops& choose()
{
    const auto levels = supportedOps();
    const char* env = std::getenv("ONNXSCOPE_SIMD");
    const std::string requested = env ? env : "";
    for (const Ops* o : levels)
        if ((requested == "baseline" || requested == "x86-64") ? o == levels.front()
                                                               : (requested == "avx2" && std::string(o->name) == "AVX2")
                    || (requested == "avx512" && std::string(o->name) == "AVX-512"))
            return *o;
    return *levels.back();
}

/// Whether x[0, n) holds NaN or Inf: v - v is +0 for every finite v and NaN otherwise, so the OR of its bits is 0 only
/// when all are finite. Two vector operations per vector of floats (simd::Ops::chunkStats, which also says it, takes
/// six), written once and compiled for each level by inlining it into the functions below (a 64-byte vector is one
/// register at AVX-512, two at AVX2, four at the baseline).
[[gnu::always_inline]] inline bool anyNonFiniteFloats(const float* x, int64_t n)
{
    typedef float FloatVec __attribute__((vector_size(64)));
    typedef int32_t IntVec __attribute__((vector_size(64)));
    constexpr int64_t kLanes = 16;
    IntVec a0 {}, a1 {}, a2 {}, a3 {};
    int64_t i = 0;
    for (; i + 4 * kLanes <= n; i += 4 * kLanes) {
        FloatVec v0, v1, v2, v3;
        std::memcpy(&v0, x + i, sizeof v0);
        std::memcpy(&v1, x + i + kLanes, sizeof v1);
        std::memcpy(&v2, x + i + 2 * kLanes, sizeof v2);
        std::memcpy(&v3, x + i + 3 * kLanes, sizeof v3);
        a0 |= reinterpret_cast<IntVec>(v0 - v0);
        a1 |= reinterpret_cast<IntVec>(v1 - v1);
        a2 |= reinterpret_cast<IntVec>(v2 - v2);
        a3 |= reinterpret_cast<IntVec>(v3 - v3);
    }
    a0 |= a1 | a2 | a3;
    int32_t bits = 0;
    for (int64_t k = 0; k < kLanes; ++k)
        bits |= a0[k];
    for (; i < n; ++i) {
        const float d = x[i] - x[i];
        int32_t b;
        std::memcpy(&b, &d, sizeof b);
        bits |= b;
    }
    return bits != 0;
}

bool anyNonFiniteBaseline(const float* x, int64_t n)
{
    return anyNonFiniteFloats(x, n);
}

[[gnu::target("avx2")]] bool anyNonFiniteAvx2(const float* x, int64_t n)
{
    return anyNonFiniteFloats(x, n);
}

[[gnu::target("avx512f")]] bool anyNonFiniteAvx512(const float* x, int64_t n)
{
    return anyNonFiniteFloats(x, n);
}

} // namespace

std::vector<const Ops*> supportedOps()
{
    std::vector<const Ops*> levels { &base::table() };
#if defined(__x86_64__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("bmi2"))
        levels.push_back(&avx2::table());
    if (levels.size() == 2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw")
        && __builtin_cpu_supports("avx512cd") && __builtin_cpu_supports("avx512dq")
        && __builtin_cpu_supports("avx512vl"))
        levels.push_back(&avx512::table());
#endif
    return levels;
}

const Ops& ops()
{
    static const Ops& chosen = choose();
    return chosen;
}

void parallelGemm(ThreadPool* pool, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, bool transA,
    const float* b, int64_t ldb, bool transB, float* c, int64_t ldc, bool accumulate)
{
    const Ops& o = ops();
    const int64_t macs = m * n * std::max<int64_t>(k, 1);
    if (!pool || pool->threads() < 2 || macs < 2 * kMinParallelMacs) {
        o.gemm(m, n, k, a, lda, transA, b, ldb, transB, c, ldc, accumulate);
        return;
    }
    constexpr int64_t kTile = 16; // columns or rows per unit of work, so that blocks keep whole vectors
    if (n >= m) {
        const int64_t tiles = (n + kTile - 1) / kTile;
        const int64_t grain = std::max<int64_t>(1, kMinParallelMacs / std::max<int64_t>(1, m * k * kTile));
        pool->parallelFor(tiles, grain, [&](int64_t t0, int64_t t1) {
            const int64_t j0 = t0 * kTile, j1 = std::min(n, t1 * kTile);
            const float* bj = transB ? b + j0 * ldb : b + j0;
            o.gemm(m, j1 - j0, k, a, lda, transA, bj, ldb, transB, c + j0, ldc, accumulate);
        });
    } else {
        const int64_t tiles = (m + kTile - 1) / kTile;
        const int64_t grain = std::max<int64_t>(1, kMinParallelMacs / std::max<int64_t>(1, n * k * kTile));
        pool->parallelFor(tiles, grain, [&](int64_t t0, int64_t t1) {
            const int64_t i0 = t0 * kTile, i1 = std::min(m, t1 * kTile);
            const float* ai = transA ? a + i0 : a + i0 * lda;
            o.gemm(i1 - i0, n, k, ai, lda, transA, b, ldb, transB, c + i0 * ldc, ldc, accumulate);
        });
    }
}

void parallelActivation(ThreadPool* pool, const float* x, float* y, int64_t n, ActivationParams act)
{
    const Ops& o = ops();
    parallelFor(pool, n, kMinParallelElements, [&](int64_t b, int64_t e) { o.activation(x + b, y + b, e - b, act); });
}

void parallelBinary(ThreadPool* pool, BinaryOp op, const float* a, int64_t strideA, const float* b, int64_t strideB,
    float* y, int64_t n)
{
    const Ops& o = ops();
    parallelFor(pool, n, kMinParallelElements,
        [&](int64_t s, int64_t e) { o.binary(op, a + s * strideA, strideA, b + s * strideB, strideB, y + s, e - s); });
}

void broadcastBinary(ThreadPool* pool, BinaryOp op, const float* a, const Shape& sa, const float* b, const Shape& sb,
    float* y, const Shape& out)
{
    const int64_t n = elementCount(out);
    if (n == 0)
        return;
    const int64_t na = elementCount(sa), nb = elementCount(sb);
    if (na == n && nb == n) {
        parallelBinary(pool, op, a, 1, b, 1, y, n);
        return;
    }
    if ((na == n || na == 1) && (nb == n || nb == 1)) {
        parallelBinary(pool, op, a, na == 1 ? 0 : 1, b, nb == 1 ? 0 : 1, y, n);
        return;
    }
    // Each operand's dims aligned to `out`; 1 where it is broadcast.
    const size_t rank = out.size();
    std::vector<int64_t> da(rank, 1), db(rank, 1);
    std::copy(sa.begin(), sa.end(), da.end() - static_cast<std::ptrdiff_t>(sa.size()));
    std::copy(sb.begin(), sb.end(), db.end() - static_cast<std::ptrdiff_t>(sb.size()));
    // The longest suffix over which each operand is whole (dims equal to out's) or constant (all 1).
    enum class Run { Unknown, Whole, Constant };
    Run ra = Run::Unknown, rb = Run::Unknown;
    const auto fits = [](Run& run, int64_t dim, int64_t outDim) {
        if (outDim == 1)
            return true;
        const Run r = dim == 1 ? Run::Constant : Run::Whole;
        if (run == Run::Unknown)
            run = r;
        return run == r;
    };
    size_t split = rank;
    while (split > 0 && fits(ra, da[split - 1], out[split - 1]) && fits(rb, db[split - 1], out[split - 1]))
        --split;
    int64_t inner = 1;
    for (size_t d = split; d < rank; ++d)
        inner *= out[d];
    const int64_t strideA = ra == Run::Whole ? 1 : 0, strideB = rb == Run::Whole ? 1 : 0;
    const int64_t outer = n / inner;
    // Row-major strides of a and b over the outer dims (0 where broadcast).
    std::vector<int64_t> stA(split, 0), stB(split, 0);
    int64_t accA = ra == Run::Whole ? inner : 1, accB = rb == Run::Whole ? inner : 1;
    for (size_t d = split; d-- > 0;) {
        stA[d] = da[d] == 1 ? 0 : accA;
        stB[d] = db[d] == 1 ? 0 : accB;
        accA *= da[d];
        accB *= db[d];
    }
    const Ops& o = ops();
    const int64_t grain = std::max<int64_t>(1, kMinParallelElements / inner);
    parallelFor(pool, outer, grain, [&](int64_t r0, int64_t r1) {
        for (int64_t r = r0; r < r1; ++r) {
            int64_t offA = 0, offB = 0, rest = r;
            for (size_t d = split; d-- > 0;) {
                const int64_t i = rest % out[d];
                rest /= out[d];
                offA += i * stA[d];
                offB += i * stB[d];
            }
            o.binary(op, a + offA, strideA, b + offB, strideB, y + r * inner, inner);
        }
    });
}

bool anyNonFinite(const float* x, int64_t n)
{
    // The level the kernels run at (ops(): the CPU's widest, or ONNXSCOPE_SIMD's choice).
    static const auto scan = [] {
        const std::string_view level = ops().name;
        return level == "AVX-512" ? anyNonFiniteAvx512 : level == "AVX2" ? anyNonFiniteAvx2 : anyNonFiniteBaseline;
    }();
    return scan(x, n);
}

} // namespace onnxscope::simd
