// SPDX-License-Identifier: MIT
// Run on demand, not in CI: what writing an element-wise result into cold memory costs, and whether a store
// technique avoids it. A debug run writes every output into a block of its own, last touched a run earlier; a plain
// run writes over a dying input that is still in cache. docs/performance.md ("Where the time goes") quotes it.
//
//   g++ -O2 -mavx512f -mprfchw -mclzero tests/bench/cold_stores.cpp -o /tmp/cold_stores && /tmp/cold_stores [BLOCKS]
//
// y = x * s over BLOCKS blocks of 36 864 floats (147 KiB, an ocr_cls activation), each op reading the block the last
// one wrote. Needs AVX-512 and CLZERO (AMD).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <immintrin.h>
#include <vector>
using Clock = std::chrono::steady_clock;
constexpr size_t N = 36864; // floats per block (147 KiB)
__attribute__((noinline)) void mulPlain(const float* x, float* y, size_t n, float s)
{
    __m512 vs = _mm512_set1_ps(s);
    for (size_t i = 0; i < n; i += 16)
        _mm512_storeu_ps(y + i, _mm512_mul_ps(_mm512_loadu_ps(x + i), vs));
}
__attribute__((noinline)) void mulPrefetch(const float* x, float* y, size_t n, float s)
{
    __m512 vs = _mm512_set1_ps(s);
    for (size_t i = 0; i < n; i += 16) { // one 64-byte line per step, 2 KiB ahead
        _m_prefetchw(y + i + 512);
        _mm512_storeu_ps(y + i, _mm512_mul_ps(_mm512_loadu_ps(x + i), vs));
    }
}
__attribute__((noinline)) void mulNT(const float* x, float* y, size_t n, float s)
{
    __m512 vs = _mm512_set1_ps(s);
    for (size_t i = 0; i < n; i += 16)
        _mm512_stream_ps(y + i, _mm512_mul_ps(_mm512_loadu_ps(x + i), vs));
    _mm_sfence();
}
__attribute__((noinline)) void clz(float* y, size_t n)
{
    for (size_t i = 0; i < n; i += 16)
        _mm_clzero(y + i);
}
int main(int argc, char** argv)
{
    size_t blocks = argc > 1 ? atoi(argv[1]) : 90; // 13 MiB, what a debug run of ocr_cls keeps
    std::vector<float*> b(blocks);
    for (auto& p : b) {
        p = (float*)aligned_alloc(64, N * 4);
        memset(p, 0, N * 4);
    }
    for (int mode = 0; mode < 5; ++mode) {
        std::vector<double> t;
        for (int rep = 0; rep < 200; ++rep) {
            auto t0 = Clock::now();
            for (size_t k = 1; k < blocks; ++k) {
                float* y = mode == 4 ? b[0] : b[k];
                const float* x = mode == 4 ? b[1] : b[k - 1];
                if (mode == 0 || mode == 4)
                    mulPlain(x, y, N, 1.0001f);
                else if (mode == 1)
                    mulPrefetch(x, y, N, 1.0001f);
                else if (mode == 2)
                    mulNT(x, y, N, 1.0001f);
                else {
                    clz(y, N);
                    mulPlain(x, y, N, 1.0001f);
                }
            }
            t.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count() / (blocks - 1));
        }
        std::sort(t.begin(), t.end());
        const char* names[] = { "plain cold", "prefetchw", "nt-store", "clzero", "hot (same blocks)" };
        printf("%-18s median %.2f us per op (%.1f GB/s written)\n", names[mode], t[100], N * 4 / t[100] / 1e3);
    }
}
