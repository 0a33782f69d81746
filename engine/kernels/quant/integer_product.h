// SPDX-License-Identifier: MIT
#pragma once

// The integer product that the int8 operators share (QLinearConv, ConvInteger, QLinearMatMul, MatMulInteger, and the
// DequantizeLinear -> Conv/MatMul -> QuantizeLinear groups that plain runs fuse, engine/exec/fusion.h): uint8 or int8
// operands with zero points, multiplied exactly in int32 on simd::Ops::gemmS8U8 (VNNI where the CPU has it). Any
// signedness is brought to int8 weights times uint8 columns by shifting by 128, and the shifts and zero points are
// taken out again with row and column sums:
//   sum_k (w - zw)(x - zx) = P + (sw - zw) colsum(x') - (sx + zx) rowsum(w') - K (sw - zw)(sx + zx)
// with w' = w - sw (sw = 128 for uint8 weights, else 0), x' = x + sx (sx = 128 for int8 columns, else 0) and
// P = sum_k w' x'. Sums wrap past int32 as a 32-bit accumulator does (onnxruntime's). Include only from kernel and
// fusion .cpp files.

#include "engine/core/data_type.h"
#include "engine/kernels/nn/im2col.h"

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

namespace onnxscope {

class ThreadPool;

namespace intprod {

/// Weights [rows, k] prepared once for gemmS8U8: int8 rows padded to a multiple of 4 with zeros.
struct Weights {
    int64_t rows = 0, k = 0, k4 = 0;
    std::vector<int8_t> data; // [rows, 4 * k4]: w - shift
    std::vector<int32_t> rowSum; // by row: sum over k of data
    std::vector<int32_t> zero; // by row: the weights' zero point, in their own type
    int32_t shift = 0; // 128 for uint8 weights, else 0
    bool needsColumnSums = false; // some row's shift differs from its zero point (packColumns' `sums`)
};

/// Weights of `type` (UInt8 or Int8) read at src[i * strideRow + kk * strideK]; `zero`: one zero point or one per row
/// (empty: 0).
Weights prepareWeights(DataType type, const void* src, int64_t rows, int64_t k, int64_t strideRow, int64_t strideK,
    std::span<const int32_t> zero);

/// Columns [k, n] packed for gemmS8U8 (uint8, shifted by 128 when the values are int8), with their sums.
struct Columns {
    int64_t k = 0, n = 0, k4 = 0;
    std::vector<uint8_t> panels;
    std::vector<int32_t> colSum;
    int32_t shift = 0; // 128 for int8 values, else 0
};

/// Packs k x n values of `type` (UInt8 or Int8, as bytes) at src[kk * strideK + j * strideN] into `out` (its buffers
/// reused), with the column sums unless `sums` is false (weights whose zero point equals their shift, as symmetric
/// int8 weights, do not need them).
void packColumns(DataType type, const uint8_t* src, int64_t k, int64_t n, int64_t strideK, int64_t strideN,
    Columns& out, bool sums = true);

/// c[i * ldcRow + j * ldcCol] = sum over kk of (w[row0 + i, kk] - zw[row0 + i]) * (x[kk, j] - zx) for i < rows,
/// j < x.n. w.k must equal x.k; x needs its column sums when w.needsColumnSums.
void product(const Weights& w, int64_t row0, int64_t rows, const Columns& x, int32_t zx, int32_t* c, int64_t ldcRow,
    int64_t ldcCol);

/// The requantization of QLinearConv and QLinearMatMul as onnxruntime does it: v = float(acc + bias) * scale (+
/// offset), clamped to [lo, hi] (the output type's range less the zero point, or narrower for a fused Relu), rounded
/// half to even, plus the zero point.
struct Requantize {
    DataType type = DataType::UInt8; // UInt8 or Int8
    std::vector<float> scale; // one, or one per output channel
    std::vector<int32_t> bias; // empty, or one per output channel
    std::vector<float> offset; // empty, or one per output channel (a float bias over y_scale)
    int32_t zero = 0;
    float lo = 0, hi = 0;

    /// Sets lo and hi from the type and zero point; with `relu`, lo is at least 0.
    void setRange(bool relu);
    /// out[j] for j < n from acc[j], for output channel `channel`.
    void row(const int32_t* acc, int64_t n, int64_t channel, void* out) const;
};

/// Where a convolution's output goes, a block at a time: output channels [row0, row0 + rows) of image `batch`,
/// positions [col0, col0 + cols), acc [rows, cols] (row stride cols).
using ConvSink
    = std::function<void(int64_t batch, int64_t row0, int64_t rows, int64_t col0, int64_t cols, const int32_t* acc)>;

/// conv(x[N, C, in] of xType, w) with x's zero point `zx` (per tensor; the padding holds it), over geometry g, with
/// w prepared from [M, C / group * kernel]. Blocks of output positions are split over the pool.
void convolve(DataType xType, const uint8_t* x, int32_t zx, const Weights& w, int64_t batch, int64_t channels,
    int64_t group, const WindowGeometry& g, ThreadPool* pool, const ConvSink& sink);

} // namespace intprod
} // namespace onnxscope
