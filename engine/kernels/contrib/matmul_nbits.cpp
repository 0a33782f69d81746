// SPDX-License-Identifier: MIT
#include "engine/kernels/common/half_convert.h"
#include "engine/kernels/contrib/contrib_util.h"
#include "engine/kernels/kernel_registry.h"
#include "engine/kernels/simd/simd.h"

#include "engine/core/thread_pool.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <mutex>
#include <vector>

namespace onnxscope {

namespace {

/// MatMulNBits (com.microsoft 1): Y = A · W (+ bias), W [K, N] dequantized from B, uint8 [N, k_blocks, blob_size]
/// holding `bits`-bit codes packed along K, lowest bits first. Code q of (k, n) in block j (k / block_size, or
/// g_idx[k]) is (q - zero_point) * scale[n, j]; the zero point is packed like B (uint8 [N, ceil(k_blocks * bits /
/// 8)]), or unpacked in A's type [N, k_blocks], or 2^(bits-1) when absent. A float, float16 or bfloat16, computed in
/// float with the weights dequantized to float. accuracy_level 4 (int8 A) quantizes each block of block_size
/// values of a row of A to int8 (symmetric, scale max|a| / 127) as onnxruntime's CPU provider does where it has an
/// int8 kernel (no g_idx, no float zero points, not 2 bits with blocks of 16); levels 0-3 compute with A as is.
class MatMulNBits final : public Kernel {
public:
    explicit MatMulNBits(const KernelInit& init)
    {
        const auto& a = init.attributes();
        m_k = a.requireInt("K");
        m_n = a.requireInt("N");
        m_bits = a.getInt("bits", 4);
        m_blockSize = a.requireInt("block_size");
        const int64_t accuracy = a.getInt("accuracy_level", 0);
        const int64_t prepacked = a.getInt("weight_prepacked", 0);
        if (m_bits != 2 && m_bits != 4 && m_bits != 8)
            throw a.error("bits", "supported values are 2, 4 and 8, got " + std::to_string(m_bits));
        if (m_blockSize < 16 || (m_blockSize & (m_blockSize - 1)))
            throw a.error("block_size", "must be a power of two of at least 16, got " + std::to_string(m_blockSize));
        if (m_k <= 0 || m_n <= 0)
            throw a.error(m_k <= 0 ? "K" : "N", "must be positive");
        if (accuracy < 0 || accuracy > 4)
            throw a.error("accuracy_level", "supported values are 0 to 4, got " + std::to_string(accuracy));
        if (prepacked != 0)
            throw a.error("weight_prepacked",
                "only 0 (B in the portable layout) is supported, got " + std::to_string(prepacked)
                    + " (a layout of one execution provider)");
        m_int8A = accuracy == 4 && !(m_bits == 2 && m_blockSize < 32);
        // The scales, zero points and g_idx turned into floats and block indices once, when all three are the
        // program's own initializers (as in every quantized export): they cost a run as much as a small product.
        const auto present = [&](size_t i) { return i < init.node.inputs.size() && init.node.inputs[i] != kNoValue; };
        m_constantParameters = isConstantInput(init, 2) && (!present(3) || isConstantInput(init, 3))
            && (!present(4) || isConstantInput(init, 4));
        m_kBlocks = (m_k + m_blockSize - 1) / m_blockSize;
        m_blobSize = m_blockSize * m_bits / 8;
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& a = ctx.input(0);
        const Tensor& b = ctx.input(1);
        const Tensor& scales = ctx.input(2);
        if (a.rank() < 1 || a.dim(a.rank() - 1) != m_k)
            throw ctx.error("A " + shapeToString(a.shape()) + " must end in K = " + std::to_string(m_k));
        if (b.dtype() != DataType::UInt8)
            throw ctx.error("B must be uint8, got " + b.typeString());
        Shape outShape = a.shape();
        outShape.back() = m_n;
        const int64_t m = a.size() / m_k;
        std::vector<float> biasBuf;
        const Shape nShape { m_n };
        const float* bias = contrib::optionalFloats(ctx, 5, biasBuf, "bias", &nShape);
        // Float outputs are computed in place; others through a float buffer rounded at the end.
        std::vector<float> yBuf;
        Tensor* out = nullptr;
        float* y = nullptr;
        if (a.dtype() == DataType::Float) {
            out = &ctx.allocateOutputUninitialized(0, DataType::Float, outShape);
            y = out->data<float>().data();
        } else {
            yBuf.resize(static_cast<size_t>(m * m_n));
            y = yBuf.data();
        }
        if (b.size() == 0) { // an omitted projection: Y is the bias
            for (int64_t r = 0; r < m; ++r)
                for (int64_t n = 0; n < m_n; ++n)
                    y[r * m_n + n] = bias ? bias[n] : 0.0f;
            if (!out)
                contrib::storeOutput(ctx, 0, a.dtype(), outShape, y);
            return;
        }
        if (b.size() != m_n * m_kBlocks * m_blobSize)
            throw ctx.error("B " + shapeToString(b.shape()) + " must hold [N, k_blocks, blob_size] = ["
                + std::to_string(m_n) + ", " + std::to_string(m_kBlocks) + ", " + std::to_string(m_blobSize) + "]");
        if (scales.size() != m_n * m_kBlocks)
            throw ctx.error("scales " + shapeToString(scales.shape())
                + " must hold N * k_blocks = " + std::to_string(m_n * m_kBlocks) + " values");
        std::vector<float> aBuf;
        const float* av = contrib::floats(ctx, a, aBuf, "A");
        const bool floatZeroPoints = ctx.hasInput(3) && ctx.input(3).dtype() != DataType::UInt8;
        const bool int8Steps = m_int8A && !floatZeroPoints && !ctx.hasInput(4);
        const float* unrounded = av; // A as given (in aBuf when converted), for the integer path
        std::vector<float> roundedBuf;
        const bool integerDecode = int8Steps && m_bits == 4 && m <= 4 && m_blockSize % 32 == 0;
        if (int8Steps && !integerDecode)
            av = quantizedRows(av, m, roundedBuf);
        // B stays packed: the weights are used straight from their codes (up to 4 rows of A, 4 bits) or dequantized a
        // chunk of output columns at a time, so memory stays bounded by the chunk rather than by K * N floats, and a
        // chunk stays in L2 for the product.
        std::shared_ptr<const Weights> cached;
        Weights uncached;
        const Weights& weights = m_constantParameters ? *(cached = cachedWeights(ctx, scales)) : uncached;
        if (!m_constantParameters)
            uncached = weightsOf(ctx, scales);
        const uint8_t* codes = b.data<uint8_t>().data();
        const int64_t chunk = std::clamp<int64_t>((int64_t(64) << 10) / std::max<int64_t>(m_k, 1), 16, 256) / 16 * 16;
        const int64_t chunks = (m_n + chunk - 1) / chunk;
        const int64_t grain = std::max<int64_t>(1, simd::kGrainMacs / std::max<int64_t>(1, (m + 4) * m_k * chunk));
        const simd::Ops& ops = simd::ops();
        bool biasAdded = false; // by the product itself (the transposed path)
        if (integerDecode) {
            // A decode step with A in int8 steps (accuracy_level 4), as onnxruntime computes it: integer dot
            // products of A's steps with the codes, scaled per block (simd.h, dot4Int8). K = N = 2048, one row,
            // 1 thread, AMD EPYC Zen 4, against dot4 on the same steps: 0.24 -> 0.22 ms at AVX-512, 0.28 -> 0.22 at
            // AVX2 (onnxruntime: 0.08, with AVX-512 VNNI).
            const int64_t padded = m_kBlocks * m_blockSize;
            std::vector<int8_t> qa(static_cast<size_t>(m * padded), 0);
            std::vector<float> aScale(static_cast<size_t>(m * m_kBlocks)), aSum(aScale.size());
            for (int64_t r = 0; r < m; ++r)
                int8Blocks(unrounded + r * m_k, qa.data() + r * padded, aScale.data() + r * m_kBlocks,
                    aSum.data() + r * m_kBlocks);
            const int64_t columnGrain = std::max<int64_t>(1, simd::kGrainMacs / std::max<int64_t>(1, m * padded));
            parallelFor(ctx.threadPool(), m_n, columnGrain, [&](int64_t n0, int64_t n1) {
                for (int64_t n = n0; n < n1; ++n)
                    ops.dot4Int8(codes + n * m_kBlocks * m_blobSize, m_kBlocks, m_blockSize,
                        weights.zero.data() + n * m_kBlocks, weights.scales + n * m_kBlocks, qa.data(), padded,
                        aScale.data(), aSum.data(), m_kBlocks, m, y + n, m_n);
            });
        } else if (m_bits == 4 && !weights.gIdx && m <= 4 && m_blockSize % ops.q4Unit == 0) {
            // A decode step (up to 4 rows of A): each column's dot products with A's rows straight from the packed
            // codes (the weights are never written out), A's rows reordered once for the SIMD level (simd.h, dot4).
            // K = N = 2048, one row, 1 thread, AMD EPYC Zen 4: 0.98 -> 0.24 ms at AVX-512, 0.28 ms at AVX2. From 16
            // rows on, dequantizing a chunk and the register-blocked product is faster (1.74 against 2.78 ms).
            const int64_t padded = m_kBlocks * m_blockSize, unit = ops.q4Unit;
            std::vector<float> a4(static_cast<size_t>(m * padded), 0.0f);
            for (int64_t r = 0; r < m; ++r)
                for (int64_t k = 0; k < m_k; ++k)
                    a4[static_cast<size_t>(r * padded + unitOrder(k, unit))] = av[r * m_k + k];
            const int64_t columnGrain = std::max<int64_t>(1, simd::kGrainMacs / std::max<int64_t>(1, m * padded));
            parallelFor(ctx.threadPool(), m_n, columnGrain, [&](int64_t n0, int64_t n1) {
                for (int64_t n = n0; n < n1; ++n)
                    ops.dot4(codes + n * m_kBlocks * m_blobSize, m_kBlocks, m_blockSize,
                        weights.zero.data() + n * m_kBlocks, weights.scales + n * m_kBlocks, a4.data(), padded, m,
                        y + n, m_n);
            });
        } else if (m <= kFewRows && m_bits == 4 && !weights.gIdx && m_k <= kPanelDepth) {
            // A short prompt: a chunk of W [K, chunk] dequantized straight into the layout the register-blocked
            // product reads in place (simd.h, dequantize4Panel), and Y's columns written by it directly. 16 rows, 1
            // thread, AVX-512, EPYC Zen 4, against the transposed product below: K = N = 64 (llama_int4) 0.096 ->
            // 0.083 ms a run of the whole graph, K = N = 1024 0.44 -> 0.42 ms; but K = N = 2048 1.74 -> 2.19 ms.
            parallelFor(ctx.threadPool(), chunks, grain, [&](int64_t c0, int64_t c1) {
                const int64_t columns = std::min(chunk, m_n);
                const std::unique_ptr<float[]> w(new float[static_cast<size_t>(columns * m_k)]);
                for (int64_t c = c0; c < c1; ++c) {
                    const int64_t n0 = c * chunk, count = std::min(chunk, m_n - n0);
                    ops.dequantize4Panel(codes + n0 * m_kBlocks * m_blobSize, m_kBlocks * m_blobSize, count, m_k,
                        m_blockSize, weights.zeroByBlock.data() + n0, weights.scaleByBlock.data() + n0, m_n, w.get(),
                        count);
                    ops.gemmBias(m, count, m_k, av, m_k, w.get(), count, nullptr, y + n0, m_n);
                }
            });
        } else if (m <= kFewRows) {
            // Few rows of A otherwise (2 or 8 bits, g_idx, or K over kPanelDepth): Y^T [chunk, m] = W^T [chunk, K] *
            // A^T [K, m] + bias on the register-blocked product, which reads W^T's rows (a dequantized column each)
            // in place, with no packing of the weights, which a general GEMM would repeat on every run; Y^T is then
            // written into Y's columns.
            std::vector<float> atBuf;
            const float* at = av;
            if (m > 1) {
                atBuf.resize(static_cast<size_t>(m_k * m));
                for (int64_t k = 0; k < m_k; ++k)
                    for (int64_t r = 0; r < m; ++r)
                        atBuf[static_cast<size_t>(k * m + r)] = av[r * m_k + k];
                at = atBuf.data();
            }
            biasAdded = true;
            parallelFor(ctx.threadPool(), chunks, grain, [&](int64_t c0, int64_t c1) {
                const int64_t rows = std::min(chunk, m_n);
                const std::unique_ptr<float[]> w(new float[static_cast<size_t>(rows * m_k)]);
                const std::unique_ptr<float[]> yt(new float[static_cast<size_t>(m > 1 ? rows * m : 0)]);
                for (int64_t c = c0; c < c1; ++c) {
                    const int64_t n0 = c * chunk, count = std::min(chunk, m_n - n0);
                    for (int64_t n = n0; n < n0 + count; ++n)
                        dequantizeColumn(weights, codes, n, w.get() + (n - n0) * m_k);
                    if (m == 1) {
                        ops.gemmBias(count, 1, m_k, w.get(), m_k, at, 1, bias ? bias + n0 : nullptr, y + n0, 1);
                        continue;
                    }
                    ops.gemmBias(count, m, m_k, w.get(), m_k, at, m, bias ? bias + n0 : nullptr, yt.get(), m);
                    for (int64_t r = 0; r < m; ++r)
                        for (int64_t n = 0; n < count; ++n)
                            y[r * m_n + n0 + n] = yt[static_cast<size_t>(n * m + r)];
                }
            });
        } else {
            parallelFor(ctx.threadPool(), chunks, grain, [&](int64_t c0, int64_t c1) {
                const std::unique_ptr<float[]> w(new float[static_cast<size_t>(std::min(chunk, m_n) * m_k)]);
                for (int64_t c = c0; c < c1; ++c) {
                    const int64_t n0 = c * chunk, count = std::min(chunk, m_n - n0);
                    for (int64_t n = n0; n < n0 + count; ++n)
                        dequantizeColumn(weights, codes, n, w.get() + (n - n0) * m_k);
                    ops.gemm(m, count, m_k, av, m_k, false, w.get(), m_k, true, y + n0, m_n, false);
                }
            });
        }
        if (bias && !biasAdded)
            for (int64_t r = 0; r < m; ++r)
                for (int64_t n = 0; n < m_n; ++n)
                    y[r * m_n + n] += bias[n];
        if (!out)
            contrib::storeOutput(ctx, 0, a.dtype(), outShape, y);
    }

private:
    /// A [m, K] with each block of a row rounded to int8 steps of max|block| / 127 (simd.h, int8Steps).
    const float* quantizedRows(const float* a, int64_t m, std::vector<float>& buffer) const
    {
        buffer.resize(static_cast<size_t>(m * m_k));
        std::vector<float> step(static_cast<size_t>(m_kBlocks));
        for (int64_t r = 0; r < m; ++r)
            simd::ops().int8Steps(a + r * m_k, m_k, m_blockSize, nullptr, buffer.data() + r * m_k, step.data());
        return buffer.data();
    }

    /// Where element k of a row of A goes when each unit of `unit` values holds its even-indexed values first and its
    /// odd-indexed after (the order in which the bytes of 4-bit codes unpack: dot4, dot4Int8).
    static int64_t unitOrder(int64_t k, int64_t unit)
    {
        const int64_t u = k / unit * unit, i = k - u;
        return u + (i & 1 ? unit / 2 : 0) + i / 2;
    }

    /// One row of A (K values) in int8 steps (simd.h, int8Steps) for dot4Int8: the values in unitOrder of 32, each
    /// block's step, and its step times the sum of its values.
    void int8Blocks(const float* x, int8_t* q, float* step, float* stepSum) const
    {
        std::vector<int8_t> steps(static_cast<size_t>(m_k));
        simd::ops().int8Steps(x, m_k, m_blockSize, steps.data(), nullptr, step);
        for (int64_t j = 0; j < m_kBlocks; ++j) {
            int32_t sum = 0;
            for (int64_t k = j * m_blockSize; k < std::min(m_k, (j + 1) * m_blockSize); ++k) {
                q[unitOrder(k, 32)] = steps[static_cast<size_t>(k)];
                sum += steps[static_cast<size_t>(k)];
            }
            stepSum[j] = step[j] * static_cast<float>(sum);
        }
    }

    /// Rows of A up to which the product runs transposed on the register-blocked kernel.
    static constexpr int64_t kFewRows = 64;
    /// Depth up to which those rows run on dequantize4Panel (measured, see compute).
    static constexpr int64_t kPanelDepth = 1024;

    /// What dequantizing a column of W needs besides B's codes: the scales, the zero point of every (column, block)
    /// and the block of every k.
    struct Weights {
        const float* scales = nullptr;
        std::vector<float> scaleBuffer, zero;
        // zero and scales transposed, [k_blocks, N], for dequantize4Panel (4 bits, no g_idx, K up to kPanelDepth)
        std::vector<float> zeroByBlock, scaleByBlock;
        std::vector<int64_t> group;
        bool gIdx = false; // the blocks come from g_idx rather than k / block_size
    };

    /// weightsOf, made on the first run and kept while the scales' storage stays the same (the parameters are
    /// constant). Shared, so that a session still using them keeps them alive. Thread-safe. What it keeps: the zero
    /// points as floats (for 4-bit blocks of 32, a quarter of the packed weights' bytes), and, where the panel path
    /// can run (K up to kPanelDepth), the zero points and scales once more by block.
    std::shared_ptr<const Weights> cachedWeights(const KernelContext& ctx, const Tensor& scales) const
    {
        std::lock_guard lock(m_cacheMutex);
        if (!m_cached || m_cachedKey != scales.raw()) {
            // Float scales stay a pointer into the initializer, which is the program's own storage (the key).
            m_cached = std::make_shared<Weights>(weightsOf(ctx, scales));
            m_cachedKey = scales.raw();
        }
        return m_cached;
    }

    Weights weightsOf(const KernelContext& ctx, const Tensor& scales) const
    {
        Weights w;
        w.scales = contrib::floats(ctx, scales, w.scaleBuffer, "scales");
        const int64_t mask = (int64_t(1) << m_bits) - 1;
        const int64_t perByte = 8 / m_bits;
        w.zero.assign(static_cast<size_t>(m_n * m_kBlocks), static_cast<float>(int64_t(1) << (m_bits - 1)));
        if (ctx.hasInput(3)) {
            const Tensor& zp = ctx.input(3);
            if (zp.dtype() == DataType::UInt8) {
                const int64_t rowBytes = (m_kBlocks * m_bits + 7) / 8;
                if (zp.size() != m_n * rowBytes)
                    throw ctx.error("packed zero_points " + shapeToString(zp.shape()) + " must hold [N, "
                        + std::to_string(rowBytes) + "] bytes");
                const uint8_t* z = zp.data<uint8_t>().data();
                for (int64_t n = 0; n < m_n; ++n)
                    for (int64_t j = 0; j < m_kBlocks; ++j) {
                        const uint8_t byte = z[n * rowBytes + j / perByte];
                        w.zero[static_cast<size_t>(n * m_kBlocks + j)]
                            = static_cast<float>((byte >> ((j % perByte) * m_bits)) & mask);
                    }
            } else {
                if (zp.size() != m_n * m_kBlocks)
                    throw ctx.error("zero_points " + shapeToString(zp.shape())
                        + " must hold N * k_blocks = " + std::to_string(m_n * m_kBlocks) + " values");
                std::vector<float> zpBuf;
                const float* z = contrib::floats(ctx, zp, zpBuf, "zero_points");
                std::copy(z, z + zp.size(), w.zero.begin());
            }
        }
        w.group.resize(static_cast<size_t>(m_k));
        for (int64_t k = 0; k < m_k; ++k)
            w.group[static_cast<size_t>(k)] = k / m_blockSize;
        if (ctx.hasInput(4)) {
            const Tensor& g = ctx.input(4);
            if (g.dtype() != DataType::Int32 || g.size() != m_k)
                throw ctx.error("g_idx must be int32 of K = " + std::to_string(m_k) + " values, got " + g.typeString());
            for (int64_t k = 0; k < m_k; ++k) {
                const int32_t j = g.data<int32_t>()[static_cast<size_t>(k)];
                if (j < 0 || j >= m_kBlocks)
                    throw ctx.error("g_idx[" + std::to_string(k) + "] = " + std::to_string(j) + " is not a block");
                w.group[static_cast<size_t>(k)] = j;
            }
            w.gIdx = true;
        }
        if (m_bits == 4 && !w.gIdx && m_k <= kPanelDepth) {
            w.zeroByBlock.resize(w.zero.size());
            w.scaleByBlock.resize(w.zero.size());
            for (int64_t n = 0; n < m_n; ++n)
                for (int64_t j = 0; j < m_kBlocks; ++j) {
                    w.zeroByBlock[static_cast<size_t>(j * m_n + n)] = w.zero[static_cast<size_t>(n * m_kBlocks + j)];
                    w.scaleByBlock[static_cast<size_t>(j * m_n + n)] = w.scales[n * m_kBlocks + j];
                }
        }
        return w;
    }

    /// Column n of W (K values) into out: (q - zero) * scale, exactly, whichever path computes it.
    void dequantizeColumn(const Weights& w, const uint8_t* codes, int64_t n, float* out) const
    {
        const uint8_t* row = codes + n * m_kBlocks * m_blobSize;
        const float* zero = w.zero.data() + n * m_kBlocks;
        const float* scale = w.scales + n * m_kBlocks;
        if (m_bits == 4 && !w.gIdx) {
            simd::ops().dequantize4(row, m_k, m_blockSize, zero, scale, out);
            return;
        }
        const int64_t mask = (int64_t(1) << m_bits) - 1;
        for (int64_t k = 0; k < m_k; ++k) {
            const int64_t bit = (k % m_blockSize) * m_bits;
            const int64_t q = (row[(k / m_blockSize) * m_blobSize + bit / 8] >> (bit % 8)) & mask;
            const int64_t j = w.group[static_cast<size_t>(k)];
            out[k] = (static_cast<float>(q) - zero[j]) * scale[j];
        }
    }

    int64_t m_k = 0, m_n = 0, m_bits = 4, m_blockSize = 0, m_kBlocks = 0, m_blobSize = 0;
    bool m_int8A = false;
    bool m_constantParameters = false;
    mutable std::mutex m_cacheMutex;
    mutable std::shared_ptr<const Weights> m_cached;
    mutable const void* m_cachedKey = nullptr;
};

} // namespace

void registerMatMulNBits(KernelRegistry& r)
{
    r.add("com.microsoft", "MatMulNBits", 1, KernelRegistry::kLatest, makeFactory<MatMulNBits>());
}

} // namespace onnxscope
