// SPDX-License-Identifier: MIT
#include "engine/kernels/common/half_convert.h"

#include "engine/kernels/kernel.h"

#include <cpuid.h>
#include <immintrin.h>

#include <algorithm>
#include <cstring>

namespace onnxscope {

namespace {

#if defined(__x86_64__)
// F16C's conversions (8 elements per instruction), compiled for that extension only and called when the CPU has it.
__attribute__((target("avx,f16c"))) void halfToFloatF16c(const Float16* in, float* out, int64_t n)
{
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i));
        _mm256_storeu_ps(out + i, _mm256_cvtph_ps(h));
    }
    if (i < n) {
        uint16_t tail[8] = {};
        std::memcpy(tail, in + i, static_cast<size_t>(n - i) * sizeof(uint16_t));
        float f[8];
        _mm256_storeu_ps(f, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(tail))));
        std::memcpy(out + i, f, static_cast<size_t>(n - i) * sizeof(float));
    }
}

__attribute__((target("avx,f16c"))) void floatToHalfF16c(const float* in, Float16* out, int64_t n)
{
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(in + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), h);
    }
    if (i < n) {
        float f[8] = {};
        std::memcpy(f, in + i, static_cast<size_t>(n - i) * sizeof(float));
        uint16_t h[8];
        _mm_storeu_si128(reinterpret_cast<__m128i*>(h),
            _mm256_cvtps_ph(_mm256_loadu_ps(f), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
        std::memcpy(out + i, h, static_cast<size_t>(n - i) * sizeof(uint16_t));
    }
}

bool hasF16c()
{
    // CPUID leaf 1, ECX bit 29 (clang's __builtin_cpu_supports knows no "f16c"); AVX also checks that the OS saves
    // the YMM registers.
    static const bool has = [] {
        unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
        return __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & (1u << 29)) != 0 && __builtin_cpu_supports("avx");
    }();
    return has;
}
#endif

} // namespace

void halfToFloat(const Float16* in, float* out, int64_t n)
{
#if defined(__x86_64__)
    if (hasF16c())
        return halfToFloatF16c(in, out, n);
#endif
    for (int64_t i = 0; i < n; ++i)
        out[i] = static_cast<float>(in[i]);
}

void floatToHalf(const float* in, Float16* out, int64_t n)
{
#if defined(__x86_64__)
    if (hasF16c())
        return floatToHalfF16c(in, out, n);
#endif
    for (int64_t i = 0; i < n; ++i)
        out[i] = static_cast<Float16>(in[i]);
}

bool isConstantInput(const KernelInit& init, size_t index)
{
    if (!init.graph || index >= init.node.inputs.size() || init.node.inputs[index] == kNoValue)
        return false;
    const ValueId id = init.node.inputs[index];
    if (!init.graph->value(id).hasInitializer())
        return false;
    const auto& inputs = init.graph->inputs();
    return std::find(inputs.begin(), inputs.end(), id) == inputs.end();
}

const float* ConstantFloats::get(const Tensor& t) const
{
    std::lock_guard lock(m_mutex);
    if (m_key == t.raw() && m_size == t.size())
        return m_data.data();
    m_data.resize(static_cast<size_t>(t.size()));
    if (t.dtype() == DataType::Float16) {
        halfToFloat(t.data<Float16>().data(), m_data.data(), t.size());
    } else {
        const auto in = t.data<BFloat16>();
        for (size_t i = 0; i < m_data.size(); ++i)
            m_data[i] = static_cast<float>(in[i]);
    }
    m_key = t.raw();
    m_size = t.size();
    return m_data.data();
}

} // namespace onnxscope
