// SPDX-License-Identifier: MIT
#pragma once

// The float loops that dominate real models (GEMM, element-wise arithmetic, activations, last-axis reductions and
// softmax, depthwise convolution), compiled once per x86-64 level (baseline, AVX2 + FMA, AVX-512) and chosen at run
// time for the CPU, so that a portable build is as fast as a -march=native one where it matters. The rest of the
// engine keeps the baseline. Used by kernels (and by whatever reports ops().name).

#include "engine/core/shape.h"

#include <cstdint>
#include <vector>

namespace onnxscope {

class ThreadPool;

namespace simd {

/// An activation a kernel can apply to its output (alone, or fused after a convolution's bias).
enum class Activation : uint8_t {
    None,
    Relu, // x > 0 ? x : 0
    LeakyRelu, // x >= 0 ? x : alpha * x
    Clip, // min(max(x, alpha), beta), NaN kept
    Sigmoid,
    Tanh,
    HardSigmoid, // max(0, min(1, alpha * x + beta))
    HardSwish, // x * max(0, min(1, x / 6 + 0.5))
    Silu, // x * sigmoid(x) (SiLU, or Swish: Sigmoid then Mul by the same input)
    Gelu, // 0.5 x (1 + erf(x / sqrt(2))), NaN kept
    GeluTanh, // 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))), NaN kept
    Erf, // erf(x), NaN kept
    Exp, // exp(x): inf past the float range (x > 88.72), 0 below it, NaN kept
};

struct ActivationParams {
    Activation kind = Activation::None;
    float alpha = 0.0f;
    float beta = 0.0f;
};

enum class BinaryOp : uint8_t { Add, Sub, Mul, Div, Max, Min };

enum class ReduceOp : uint8_t { Sum, Mean, SumSquare, L1, L2 };

/// A 2-D depthwise convolution: channel c of the output reads channel c of the input only.
struct DepthwiseGeometry {
    int64_t inH = 0, inW = 0, outH = 0, outW = 0;
    int64_t kernelH = 0, kernelW = 0, strideH = 1, strideW = 1, dilationH = 1, dilationW = 1;
    int64_t padTop = 0, padLeft = 0;
};

/// One implementation of every loop, for one instruction-set level. All pointers are to float; counts and strides
/// are in elements; matrices are row-major.
struct Ops {
    const char* name; // "x86-64", "AVX2", "AVX-512"

    /// C[m, n] (row stride ldc) = op(A)[m, k] * op(B)[k, n] (+ C when accumulate). op(A) is A[m, k] (row stride
    /// lda) or, with transA, the transpose of A[k, m]; likewise for B.
    void (*gemm)(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, bool transA, const float* b, int64_t ldb,
        bool transB, float* c, int64_t ldc, bool accumulate);

    /// C[m, n] (row stride ldc) = A[m, k] (row stride lda) * B[k, n] (row stride ldb) + bias[i] on row i (bias may
    /// be null), reading A and B in place: for small products such as a convolution's weights times one chunk of its
    /// im2col columns. Rounding differs from gemm's (the bias is added first, sums run in another order).
    void (*gemmBias)(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b, int64_t ldb,
        const float* bias, float* c, int64_t ldc);

    /// gemmBias (the same floats) with B given in panels of kGemmPanel columns, as a convolution writes its im2col
    /// columns straight into them: panel q holds columns [q * kGemmPanel, min(n, (q + 1) * kGemmPanel)) as k rows of
    /// w = its column count, at panels + q * kGemmPanel * k, row stride w. The last panel may be read up to
    /// kGemmPanelSlack floats past its end (the values there are not used).
    void (*gemmPanels)(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* panels,
        const float* bias, float* c, int64_t ldc);

    /// Rows of one tile of a packed A (packA): 8 at AVX-512, 6 at AVX2, 1 at the baseline (A row-major).
    int64_t packRows;

    /// A[m, k] (row stride lda) into ap, for gemmPackedA: tiles of packRows rows, each k columns of packRows values
    /// (rows past m zero). ap holds ceil(m / packRows) * packRows * k floats; rows [r, m) of A, r a multiple of
    /// packRows, start at ap + r * k.
    void (*packA)(int64_t m, int64_t k, const float* a, int64_t lda, float* ap);

    /// gemmBias with A packed by packA (one stream of A instead of a tile's rows far apart in memory: for deep
    /// products), B in panels as gemmPanels takes it when ldb is 0, else B[k, n] in place (row stride ldb). The same
    /// floats as gemmBias and gemmPanels give on n >= 16 columns (a vector at AVX-512).
    void (*gemmPackedA)(int64_t m, int64_t n, int64_t k, const float* ap, const float* b, int64_t ldb,
        const float* bias, float* c, int64_t ldc);

    /// y[i] = act(x[i]) for i in [0, n); x may equal y.
    void (*activation)(const float* x, float* y, int64_t n, ActivationParams act);

    /// In place over `rows` rows of `size` elements: y[r, i] = act(y[r, i] + bias[r]) (bias may be null).
    void (*biasActivation)(float* y, int64_t rows, int64_t size, const float* bias, ActivationParams act);

    /// y[i] = a[i * strideA] op b[i * strideB] for i in [0, n), strides 0 (a scalar) or 1.
    void (*binary)(BinaryOp op, const float* a, int64_t strideA, const float* b, int64_t strideB, float* y, int64_t n);

    /// y[r] = reduce(x[r, 0..cols)) for r in [0, rows).
    void (*reduceRows)(ReduceOp op, const float* x, float* y, int64_t rows, int64_t cols);

    /// Softmax (or log-softmax) of each row of x[rows, cols] into y.
    void (*softmaxRows)(const float* x, float* y, int64_t rows, int64_t cols, bool log);

    /// Depthwise convolution of `channels` channels of x[channels, inH, inW] with w[channels, kernelH, kernelW]
    /// into y[channels, outH, outW], then y = act(y + bias[c]) (bias may be null).
    void (*depthwise2d)(const float* x, const float* w, const float* bias, float* y, int64_t channels,
        const DepthwiseGeometry& g, ActivationParams act);

    /// The statistics of x[0, n) in one pass (for the summary a debug run makes of every value, while it is in
    /// cache): min, max, sum and sum of squares (in float, for chunks of a few thousand elements) and the count of
    /// zeros. False when any of the four is not finite (a NaN or Inf, or a sum past float's range): the caller then
    /// counts element by element.
    bool (*chunkStats)(const float* x, int64_t n, float* lo, float* hi, float* sum, float* sumSq, int64_t* zeros);

    /// One column of 4-bit block-quantized weights (MatMulNBits' B) to floats: codes holds ceil(k / block) blocks of
    /// block / 2 bytes, two codes a byte, low nibble first; out[i] = (code i - zero[j]) * scale[j] for i in [0, k),
    /// j = i / block. block is a multiple of 16. Exact (one rounding), so every level gives the same floats.
    void (*dequantize4)(
        const uint8_t* codes, int64_t k, int64_t block, const float* zero, const float* scale, float* out);

    /// Columns [0, columns) of 4-bit weights (column n's codes at codes + n * ldCodes, laid out as for dequantize4)
    /// into W [k, columns] (row stride ldw), the layout a product A * W reads: W[i][n] = (code i of column n -
    /// zero[j * ldz + n]) * scale[j * ldz + n], j = i / block (zero and scale transposed, a row per block). Exact, as
    /// dequantize4.
    void (*dequantize4Panel)(const uint8_t* codes, int64_t ldCodes, int64_t columns, int64_t k, int64_t block,
        const float* zero, const float* scale, int64_t ldz, float* w, int64_t ldw);

    /// Codes a unit of dot4's A holds: 2 x a vector's lanes (16 below AVX-512, 32 at AVX-512).
    int64_t q4Unit;

    /// y[r * ldy] = sum over i < blocks * block of a[r][i] * (code i - zero[j]) * scale[j] (j = i / block), for
    /// r < rows (1 to 4): rows of A times one column of 4-bit weights laid out as for dequantize4, without writing
    /// the weights out. block is a multiple of q4Unit. A's rows (row stride lda) hold each unit of q4Unit values
    /// with its even-indexed elements first and its odd-indexed after (the order in which a byte's two codes
    /// unpack), padded with zeros to whole blocks.
    void (*dot4)(const uint8_t* codes, int64_t blocks, int64_t block, const float* zero, const float* scale,
        const float* a, int64_t lda, int64_t rows, float* y, int64_t ldy);

    /// x[0, n) quantized block by block (blocks of `block` elements, the last one shorter) to int8: with m the
    /// block's largest |x|, q = clamp(round(x * (127 / m)), -127, 127), the product rounded to float first and then
    /// to the nearest integer, ties to even (0 for a block of zeros); step[j] = m / 127. Writes q (unless null) and
    /// values = q * step (unless null): the value of A that MatMulNBits' accuracy_level 4 computes with. Same
    /// integers and floats at every level.
    void (*int8Steps)(const float* x, int64_t n, int64_t block, int8_t* q, float* values, float* step);

    /// dot4 for A in int8 steps (int8Steps; MatMulNBits' accuracy_level 4), in integers: y[r * ldy] = sum over blocks j
    /// of scale[j] * aScale[r][j] * (sum of code i * qa[r][i] over the block) - zero[j] * scale[j] * aSum[r][j], for
    /// r < rows (1 to 4). qa: int8 (row stride lda bytes), each 32 values of a block with the even-indexed first and
    /// the odd-indexed after, zero past K; aScale and aSum (row stride ldas): the block's step and its step times the
    /// sum of its qa. block is a multiple of 32. The integer sums are exact; the result differs from dot4's on
    /// the same steps by float rounding only.
    void (*dot4Int8)(const uint8_t* codes, int64_t blocks, int64_t block, const float* zero, const float* scale,
        const int8_t* qa, int64_t lda, const float* aScale, const float* aSum, int64_t ldas, int64_t rows, float* y,
        int64_t ldy);

    /// The integer product of the int8 operators (engine/kernels/quant/integer_product.h): c[i * ldcRow + j * ldcCol]
    /// = sum over k < 4 * k4 of w[i * ldw + k] * x(k, j), for i < m and j < n, in int32 (exact: each sum of four
    /// products fits). w: int8 rows of 4 * k4 bytes (zero past K); x: uint8 columns packed by kInt8Panel
    /// (packInt8Panels): panel p (columns 16p to 16p + 15) at x + p * k4 * 64, and in it group q (k = 4q to 4q + 3) at
    /// q * 64, column c at c * 4, one byte per k. With VNNI (AVX-512 VNNI, or AVX-VNNI at AVX2) where the CPU has
    /// it, chosen at run time; else pairs widened to 16 bits (vpmaddwd: exact, unlike vpmaddubsw's saturation).
    void (*gemmS8U8)(int64_t m, int64_t n, int64_t k4, const int8_t* w, int64_t ldw, const uint8_t* x, int32_t* c,
        int64_t ldcRow, int64_t ldcCol);
    /// gemmS8U8 without VNNI (the widening path at this level), for tests on CPUs that have VNNI.
    void (*gemmS8U8Widening)(int64_t m, int64_t n, int64_t k4, const int8_t* w, int64_t ldw, const uint8_t* x,
        int32_t* c, int64_t ldcRow, int64_t ldcCol);
    /// Which instructions gemmS8U8 runs on: "AVX-512 VNNI", "AVX-VNNI", "AVX-512 vpmaddwd", "AVX2 vpmaddwd", "scalar".
    const char* int8Path;

    /// The requantization of an int32 product (QLinearConv, QLinearMatMul, a QDQ convolution): y[j] = clamp(float(
    /// acc[j] + bias) * scale + offset, lo, hi) rounded half to even, plus zero, as bytes (uint8, or int8 when
    /// `isSigned`); the sum wraps as an int32 does, NaN clamps to lo. A product and then a sum, each rounded (never
    /// fused), so every level gives the same bytes.
    void (*requantizeBytes)(const int32_t* acc, int64_t n, int32_t bias, float scale, float offset, float lo, float hi,
        int32_t zero, bool isSigned, uint8_t* y);

    /// QLinearAdd's arithmetic (onnxruntime's) on bytes, uint8 or int8 (`isSigned`): y[i] = q(fma(a[i], r1,
    /// fma(b[i], r2, c))), or q(fma(a[i], r1, c)) when b is null; q rounds half to even and saturates to the type.
    /// Exact fused multiply-adds at every level, so every level gives the same bytes.
    void (*qlinearAddBytes)(
        bool isSigned, const uint8_t* a, const uint8_t* b, int64_t n, float r1, float r2, float c, uint8_t* y);
};

/// Columns of one panel of Ops::gemmPanels' B, and the floats it may read past the last one.
constexpr int64_t kGemmPanel = 48;
constexpr int64_t kGemmPanelSlack = 16;

/// Columns of a packed uint8 panel of Ops::gemmS8U8.
constexpr int64_t kInt8Panel = 16;

/// Work below which a parallel loop block is not worth waking a thread for: multiply-adds of a GEMM block, and
/// elements of an element-wise block (a few microseconds each). Kernels size their parallelFor grains with them.
constexpr int64_t kGrainMacs = int64_t(1) << 18;
constexpr int64_t kGrainElements = int64_t(1) << 16;

/// The implementation for this CPU: the widest level it supports, unless the environment variable ONNXSCOPE_SIMD
/// (x86-64, avx2 or avx512) asks for a narrower one. Chosen once.
const Ops& ops();

/// Whether x[0, n) holds a NaN or an infinity: one vector pass at the chosen level.
bool anyNonFinite(const float* x, int64_t n);

/// Every level this CPU can run, narrowest first (for tests and benchmarks).
std::vector<const Ops*> supportedOps();

/// gemm (as Ops::gemm, with the chosen ops) split over the pool by blocks of rows or columns.
void parallelGemm(ThreadPool* pool, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, bool transA,
    const float* b, int64_t ldb, bool transB, float* c, int64_t ldc, bool accumulate);

/// activation over [0, n), split over the pool for large n.
void parallelActivation(ThreadPool* pool, const float* x, float* y, int64_t n, ActivationParams act);

/// binary over [0, n), split over the pool for large n.
void parallelBinary(ThreadPool* pool, BinaryOp op, const float* a, int64_t strideA, const float* b, int64_t strideB,
    float* y, int64_t n);

/// y = a op b with numpy broadcasting (y has the broadcast shape `out`; a and b are contiguous of shapes sa and sb,
/// aligned to the right). The trailing dimensions over which each operand is either whole or constant run as one
/// vector loop, so per-channel scales, biases and row vectors cost no index arithmetic per element.
void broadcastBinary(ThreadPool* pool, BinaryOp op, const float* a, const Shape& sa, const float* b, const Shape& sb,
    float* y, const Shape& out);

} // namespace simd
} // namespace onnxscope
