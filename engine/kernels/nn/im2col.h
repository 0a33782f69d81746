// SPDX-License-Identifier: MIT
#pragma once

// Sliding-window geometry shared by convolution and pooling kernels (attributes, output size, padding), and the
// im2col/col2im transforms that turn a convolution into a GEMM. Include only from kernel .cpp files.

#include "engine/kernels/kernel.h"
#include "engine/kernels/simd/simd.h"

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

namespace onnxscope {

enum class AutoPad { NotSet, SameUpper, SameLower, Valid };

/// The window attributes of Conv*, ConvTranspose and the pooling ops, read once at plan time. Empty vectors mean
/// "not given" (defaults depend on the input's rank, known only at run time).
struct WindowAttributes {
    std::vector<int64_t> kernelShape;
    std::vector<int64_t> strides;
    std::vector<int64_t> dilations;
    std::vector<int64_t> pads;
    AutoPad autoPad = AutoPad::NotSet;
    bool ceilMode = false;

    /// Reads kernel_shape, strides, dilations, pads, auto_pad and ceil_mode; checks that values are positive
    /// (pads non-negative) and that auto_pad is a known value.
    static WindowAttributes parse(const KernelInit& init, bool kernelShapeRequired);
};

/// A window resolved against one input, with the spatial axes padded to three (leading axes of size 1), so that
/// every kernel runs the same 3-D loops for 1-D, 2-D and 3-D data.
struct WindowGeometry {
    static constexpr size_t kMaxRank = 3;
    int64_t rank = 0; // spatial rank as given (1..3)
    std::array<int64_t, kMaxRank> in { 1, 1, 1 }, out { 1, 1, 1 }, kernel { 1, 1, 1 }, stride { 1, 1, 1 },
        dilation { 1, 1, 1 }, padBegin { 0, 0, 0 }, padEnd { 0, 0, 0 };

    int64_t inSize() const { return in[0] * in[1] * in[2]; }
    int64_t outSize() const { return out[0] * out[1] * out[2]; }
    int64_t kernelSize() const { return kernel[0] * kernel[1] * kernel[2]; }
    /// True when im2col would be the identity (1x1 kernel, stride 1, no padding).
    bool isPointwise() const;
    /// The spatial part of the output shape (rank values).
    Shape outSpatial() const;
};

/// Resolves the window of a Conv or pooling op over an input of spatial shape `inSpatial` with kernel `kernel`:
/// output size per auto_pad (SAME_* pads split with the extra pad at the end for SAME_UPPER, at the start for
/// SAME_LOWER), explicit pads, ceil_mode (a last window must start inside the input or its begin padding).
/// Errors (bad attribute lengths, rank beyond 3, empty output) name the node.
WindowGeometry resolveWindow(const KernelContext& ctx, const WindowAttributes& attrs,
    std::span<const int64_t> inSpatial, std::span<const int64_t> kernel);

/// A convolution's window and output shape [N, M, out...] for x [N, C, spatial...] and weights w [M, C / group,
/// kernel...] (ranks and channels checked by the caller): the kernel_shape attribute, if given, must equal w's
/// kernel (the error names the weights as `weightName`), then resolveWindow.
struct ConvWindow {
    WindowGeometry geometry;
    Shape outShape;
};
ConvWindow resolveConvWindow(
    const KernelContext& ctx, const WindowAttributes& attrs, const Tensor& x, const Shape& w, const char* weightName);

/// Copies the windows of `image` (channels x geometry.in) into `col` (channels * kernelSize rows x (p1 - p0)
/// columns, row-major), for output positions [p0, p1); positions in the padding get `padValue`.
template <class T>
void im2col(const T* image, int64_t channels, const WindowGeometry& g, int64_t p0, int64_t p1, T* col, T padValue);

/// The adjoint of im2col over all output positions: adds each column entry to the image element it was read from
/// (entries that fall in the padding are dropped). `image` must be initialised by the caller.
template <class T> void col2im(const T* col, int64_t channels, const WindowGeometry& g, T* image);

/// The weights of a convolution cut to the taps that read the input (convolve() skips those that read only padding),
/// one cut per set of live taps, for a kernel whose weights do not change: the cut then costs one pass over the
/// weights, not one per run.
struct LiveTapCache {
    std::mutex mutex;
    std::map<std::array<int64_t, 6>, std::shared_ptr<const std::vector<float>>> cuts; // null: not cut (NaN or Inf)
};

/// How convolve() runs: the intra-op pool (null: the calling thread only) and, for float, an activation applied to
/// the output after the bias.
struct ConvolveOptions {
    ThreadPool* pool = nullptr;
    simd::ActivationParams activation;
    /// float only: the weights packed by packConvWeights, used instead of w (which may then be null).
    const float* packedWeights = nullptr;
    /// The caller knows every weight to be finite (constant weights, checked once): skipping the taps that read only
    /// padding then needs no look at the weights it skips.
    bool weightsFinite = false;
    /// Where to keep the cut weights between runs (null: cut them on each run).
    LiveTapCache* liveTaps = nullptr;
};

/// The float weights w[M, C / group, kernel...] of a convolution, each group's rows packed by simd::Ops::packA for
/// the chosen level (convolve() reads them through ConvolveOptions::packedWeights). Empty for depthwise weights (one
/// input and one output channel per group), which convolve() reads as they are.
std::vector<float> packConvWeights(const float* w, const Shape& shape, int64_t group);

/// y[N, M, out] = conv(x[N, C, in], w[M, C / group, kernel]) (+ bias[M] if not null) over geometry g. float and
/// double. im2col + GEMM in column chunks (split over the pool, bias and activation applied to each chunk while it
/// is in cache); 1x1 kernels skip im2col; 1-D and 2-D depthwise ones (one input and one output channel per group)
/// run a direct loop. float runs on the SIMD kernels of simd.h; double on Eigen and plain loops, single-threaded,
/// without activation.
template <class F>
void convolve(const F* x, const F* w, const F* bias, F* y, int64_t batch, int64_t channels, int64_t outChannels,
    int64_t group, const WindowGeometry& g, const ConvolveOptions& options = {});

/// The transposed convolution: y[N, M, g.in] = sum over x[N, C, g.out] scattered through w[C, M / group, kernel]
/// (+ bias[M] if not null). Here g.in is the output image and g.out the input image, g.padBegin may be negative
/// (an output larger than the full result). float and double; float's GEMM is split over options.pool (the
/// activation is not applied).
template <class F>
void convolveTranspose(const F* x, const F* w, const F* bias, F* y, int64_t batch, int64_t channels,
    int64_t outChannels, int64_t group, const WindowGeometry& g, const ConvolveOptions& options = {});

/// Elements of `in` converted to F (the compute type of half-precision tensors).
template <class F, class T> std::vector<F> convertElements(std::span<const T> in)
{
    std::vector<F> out(in.size());
    for (size_t i = 0; i < in.size(); ++i)
        out[i] = static_cast<F>(in[i]);
    return out;
}

} // namespace onnxscope
