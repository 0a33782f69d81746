// SPDX-License-Identifier: MIT
#include "engine/kernels/contrib/fused_activation.h"
#include "engine/kernels/contrib/inner_kernel.h"
#include "engine/kernels/contrib/nchwc_layout.h"
#include "engine/kernels/kernel_registry.h"
#include "engine/kernels/nn/conv.h"

#include <cmath>
#include <mutex>
#include <vector>

namespace onnxscope {

namespace contrib {

int64_t nchwcBlockSize()
{
    static const int64_t size = __builtin_cpu_supports("avx512f") ? 16 : 8;
    return size;
}

} // namespace contrib

namespace {

using contrib::nchwcBlockSize;

int64_t roundUp(int64_t v, int64_t b)
{
    return (v + b - 1) / b * b;
}

/// The 4-D float input i, whose channels (dimension 1) are a multiple of the block size when `blocked`.
const Tensor& layoutInput(const KernelContext& ctx, size_t i, bool blocked, const char* what)
{
    const Tensor& t = ctx.input(i);
    if (t.dtype() != DataType::Float || t.rank() != 4)
        throw ctx.error(std::string(what) + " must be a 4-D float tensor, got " + t.typeString());
    if (blocked && t.dim(1) % nchwcBlockSize() != 0)
        throw ctx.error(std::string(what) + " " + shapeToString(t.shape()) + " has " + std::to_string(t.dim(1))
            + " channels, not a multiple of the NCHWc block size " + std::to_string(nchwcBlockSize())
            + " of this CPU (onnxruntime writes these models for the block size of the CPU it runs on)");
    return t;
}

/// NCHW [n, channels, spatial] (channels <= the blocked count cb) into NCHWc [n, cb / B, spatial, B], zero padded.
void block(const float* x, float* y, int64_t n, int64_t channels, int64_t cb, int64_t spatial)
{
    const int64_t b = nchwcBlockSize();
    for (int64_t i = 0; i < n; ++i)
        for (int64_t c = 0; c < cb; ++c) {
            float* dst = y + ((i * (cb / b) + c / b) * spatial) * b + c % b;
            const float* src = x + (i * channels + c) * spatial;
            for (int64_t s = 0; s < spatial; ++s)
                dst[s * b] = c < channels ? src[s] : 0.0f;
        }
}

/// NCHWc [n, cb / B, spatial, B] into NCHW [n, channels, spatial] (the first `channels` of cb).
void unblock(const float* x, float* y, int64_t n, int64_t channels, int64_t cb, int64_t spatial)
{
    const int64_t b = nchwcBlockSize();
    for (int64_t i = 0; i < n; ++i)
        for (int64_t c = 0; c < channels; ++c) {
            const float* src = x + ((i * (cb / b) + c / b) * spatial) * b + c % b;
            float* dst = y + (i * channels + c) * spatial;
            for (int64_t s = 0; s < spatial; ++s)
                dst[s] = src[s * b];
        }
}

Tensor unblocked(const Tensor& x)
{
    Tensor out = Tensor::uninitialized(DataType::Float, x.shape());
    unblock(x.data<float>().data(), out.data<float>().data(), x.dim(0), x.dim(1), x.dim(1), x.dim(2) * x.dim(3));
    return out;
}

Tensor blocked(const Tensor& x)
{
    Tensor out = Tensor::uninitialized(DataType::Float, x.shape());
    block(x.data<float>().data(), out.data<float>().data(), x.dim(0), x.dim(1), x.dim(1), x.dim(2) * x.dim(3));
    return out;
}

/// ReorderInput (com.microsoft.nchwc 1): X [N, C, H, W] (or [N, H, W, C] with channels_last = 1) into NCHWc
/// [N, Cb, H, W], Cb = C rounded up to the block size, the added channels zero. float.
class ReorderInput final : public Kernel {
public:
    explicit ReorderInput(const KernelInit& init)
        : m_channelsLast(init.attributes().getInt("channels_last", 0))
    {
        if (m_channelsLast != 0 && m_channelsLast != 1)
            throw init.attributes().error("channels_last", "expected 0 or 1, got " + std::to_string(m_channelsLast));
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = layoutInput(ctx, 0, false, "X");
        const int64_t n = x.dim(0);
        const int64_t c = m_channelsLast ? x.dim(3) : x.dim(1);
        const int64_t h = m_channelsLast ? x.dim(1) : x.dim(2), w = m_channelsLast ? x.dim(2) : x.dim(3);
        const int64_t cb = roundUp(c, nchwcBlockSize());
        Tensor& y = ctx.allocateOutputUninitialized(0, DataType::Float, { n, cb, h, w });
        if (!m_channelsLast) {
            block(x.data<float>().data(), y.data<float>().data(), n, c, cb, h * w);
            return;
        }
        const int64_t b = nchwcBlockSize(), spatial = h * w;
        const float* src = x.data<float>().data();
        float* dst = y.data<float>().data();
        for (int64_t i = 0; i < n; ++i)
            for (int64_t s = 0; s < spatial; ++s)
                for (int64_t ch = 0; ch < cb; ++ch)
                    dst[((i * (cb / b) + ch / b) * spatial + s) * b + ch % b]
                        = ch < c ? src[(i * spatial + s) * c + ch] : 0.0f;
    }

private:
    int64_t m_channelsLast;
};

/// ReorderOutput (com.microsoft.nchwc 1): NCHWc X [N, Cb, H, W] into [N, channels, H, W] (or [N, H, W, channels] with
/// channels_last = 1), dropping the padding channels. `channels` is required, 1 to Cb. float.
class ReorderOutput final : public Kernel {
public:
    explicit ReorderOutput(const KernelInit& init)
        : m_channels(init.attributes().getInt("channels", 0))
        , m_channelsLast(init.attributes().getInt("channels_last", 0))
    {
        if (m_channels <= 0)
            throw init.attributes().error("channels", "must be positive, got " + std::to_string(m_channels));
        if (m_channelsLast != 0 && m_channelsLast != 1)
            throw init.attributes().error("channels_last", "expected 0 or 1, got " + std::to_string(m_channelsLast));
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = layoutInput(ctx, 0, true, "X");
        const int64_t n = x.dim(0), cb = x.dim(1), h = x.dim(2), w = x.dim(3);
        if (m_channels > cb)
            throw ctx.error("attribute 'channels' (" + std::to_string(m_channels) + ") exceeds X's "
                + std::to_string(cb) + " channels");
        if (!m_channelsLast) {
            Tensor& y = ctx.allocateOutputUninitialized(0, DataType::Float, { n, m_channels, h, w });
            unblock(x.data<float>().data(), y.data<float>().data(), n, m_channels, cb, h * w);
            return;
        }
        Tensor& y = ctx.allocateOutputUninitialized(0, DataType::Float, { n, h, w, m_channels });
        const int64_t b = nchwcBlockSize(), spatial = h * w;
        const float* src = x.data<float>().data();
        float* dst = y.data<float>().data();
        for (int64_t i = 0; i < n; ++i)
            for (int64_t s = 0; s < spatial; ++s)
                for (int64_t c = 0; c < m_channels; ++c)
                    dst[(i * spatial + s) * m_channels + c] = src[((i * (cb / b) + c / b) * spatial + s) * b + c % b];
    }

private:
    int64_t m_channels;
    int64_t m_channelsLast;
};

/// Conv (com.microsoft.nchwc 1): 2-D convolution into NCHWc Y [N, M, OH, OW], then Y = act(Y + B + Sum). Conv's
/// attributes; `activation` and `activation_params` as FusedConv's. W [M, CW, KH, KW] is in the filter layout
/// onnxruntime's NCHWc transformer writes: OIHWBo (output channels blocked) when X is plain NCHW with fewer channels
/// than a block (group 1) and for a depthwise convolution (group = channels of X, CW = 1); OIHWBiBo (input and output
/// channels blocked) otherwise. B is [M] (padded), Sum (optional) NCHWc of Y's shape. Our Conv kernel computes it on
/// the plain layout. float.
class NchwcConv final : public Kernel {
public:
    explicit NchwcConv(const KernelInit& init)
        : m_activation(contrib::FusedActivation::fromConvAttributes(init))
        , m_group(init.attributes().getInt("group", 1))
        , m_conv(makeFoldedConv(init, {}))
    {
    }

    void compute(KernelContext& ctx) const override
    {
        const int64_t b = nchwcBlockSize();
        const Tensor& x = layoutInput(ctx, 0, false, "X");
        const Tensor& w = layoutInput(ctx, 1, false, "W");
        const int64_t cx = x.dim(1), m = w.dim(0), cw = w.dim(1);
        const bool plainInput = cx < b;
        if (!plainInput && cx % b != 0)
            throw ctx.error("X has " + std::to_string(cx) + " channels: fewer than the NCHWc block size "
                + std::to_string(b) + " (plain NCHW) or a multiple of it (NCHWc) expected");
        if (m % b != 0)
            throw ctx.error("W " + shapeToString(w.shape()) + " has " + std::to_string(m)
                + " output channels, not a multiple of the NCHWc block size " + std::to_string(b) + " of this CPU");
        if (plainInput && m_group != 1)
            throw ctx.error(
                "a plain NCHW input (fewer channels than a block) needs group 1, got " + std::to_string(m_group));
        const bool outputBlocked = plainInput || (m_group > 1 && cw == 1 && m_group == cx);
        if (!outputBlocked && cw % b != 0)
            throw ctx.error("W " + shapeToString(w.shape()) + ": its input channels are not a multiple of the NCHWc "
                + "block size " + std::to_string(b) + " (the OIHWBiBo filter layout)");
        const Tensor plainW = plainFilter(w, outputBlocked);
        const Value plainX = plainInput ? ctx.inputValue(0) : Value(unblocked(x));
        std::vector<Value> out = contribRun(ctx, { plainX, Value(plainW), ctx.inputValue(2) });
        Tensor y = blocked(out[0].tensor());
        if (ctx.hasInput(3)) {
            const Tensor& sum = ctx.input(3);
            if (sum.dtype() != DataType::Float || sum.shape() != y.shape())
                throw ctx.error(
                    "input Sum (" + sum.typeString() + ") must have the output's type and shape " + y.typeString());
            simd::parallelBinary(ctx.threadPool(), simd::BinaryOp::Add, y.data<float>().data(), 1,
                sum.data<float>().data(), 1, y.data<float>().data(), y.size());
        }
        m_activation.apply(ctx, y);
        ctx.setOutput(0, Value(std::move(y)));
    }

private:
    /// W in plain OIHW. The last one is kept with the W it came from (a copy that shares W's storage, so that no other
    /// tensor can take its address while it is kept): a weight initializer is unpacked once, not at every run.
    Tensor plainFilter(const Tensor& w, bool outputBlocked) const
    {
        {
            std::lock_guard lock(m_cacheMutex);
            if (m_cachedFrom.defined() && m_cachedFrom.raw() == w.raw() && m_cachedFrom.shape() == w.shape()
                && m_cachedBlocked == outputBlocked)
                return m_cachedPlain;
        }
        const int64_t b = nchwcBlockSize(), m = w.dim(0), cw = w.dim(1), ks = w.dim(2) * w.dim(3);
        Tensor plain = Tensor::uninitialized(DataType::Float, w.shape());
        const float* src = w.data<float>().data();
        float* dst = plain.data<float>().data();
        for (int64_t o = 0; o < m; ++o)
            for (int64_t i = 0; i < cw; ++i)
                for (int64_t k = 0; k < ks; ++k)
                    dst[(o * cw + i) * ks + k] = outputBlocked
                        ? src[((o / b) * cw + i) * ks * b + k * b + o % b]
                        : src[(((o / b) * (cw / b) + i / b) * ks + k) * b * b + (i % b) * b + o % b];
        std::lock_guard lock(m_cacheMutex);
        m_cachedFrom = w;
        m_cachedPlain = plain;
        m_cachedBlocked = outputBlocked;
        return plain;
    }

    std::vector<Value> contribRun(const KernelContext& ctx, const std::vector<Value>& inputs) const
    {
        std::vector<Value> out(1);
        KernelContext inner(ctx.node(), std::span<const Value>(inputs), std::span<Value>(out), ctx.threadPool());
        m_conv->compute(inner);
        return out;
    }

    contrib::FusedActivation m_activation;
    int64_t m_group;
    std::unique_ptr<Kernel> m_conv;
    mutable std::mutex m_cacheMutex;
    mutable Tensor m_cachedFrom, m_cachedPlain;
    mutable bool m_cachedBlocked = false;
};

/// MaxPool, AveragePool, GlobalMaxPool, GlobalAveragePool (com.microsoft.nchwc 1): the default-domain op's attributes
/// and meaning (MaxPool-22, AveragePool-22, GlobalMaxPool-1, GlobalAveragePool-1, which compute it) on an NCHWc X,
/// into an NCHWc Y. float.
class NchwcPool final : public Kernel {
public:
    NchwcPool(const KernelInit& init, const std::string& op, int64_t opset)
        : m_pool(init, op, opset)
    {
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = layoutInput(ctx, 0, true, "X");
        std::vector<Value> out = m_pool.run(ctx, { Value(unblocked(x)) });
        ctx.setOutput(0, Value(blocked(out[0].tensor())));
    }

private:
    contrib::InnerKernel m_pool;
};

KernelFactory poolFactory(const char* op, int64_t opset)
{
    return [op, opset](const KernelInit& init) -> std::unique_ptr<Kernel> {
        return std::make_unique<NchwcPool>(init, op, opset);
    };
}

/// Upsample (com.microsoft.nchwc 1): NCHWc X [N, C, H, W] to [N, C, H * sh, W * sw] by integer `scales` (4 values,
/// the first two 1). `mode` "nearest" (Y[h, w] = X[h / sh, w / sw]) or "linear" (bilinear, with
/// coordinate_transformation_mode "asymmetric", "align_corners" or "half_pixel"). float.
class NchwcUpsample final : public Kernel {
public:
    explicit NchwcUpsample(const KernelInit& init)
    {
        const NodeAttributes& attrs = init.attributes();
        m_scales = attrs.getInts("scales");
        if (m_scales.size() != 4 || m_scales[0] != 1 || m_scales[1] != 1 || m_scales[2] < 1 || m_scales[3] < 1)
            throw attrs.error("scales", "expected 4 positive integers, the first two 1");
        const std::string mode = attrs.getString("mode", "nearest");
        if (mode != "nearest" && mode != "linear")
            throw attrs.error("mode", "expected \"nearest\" or \"linear\", got \"" + mode + "\"");
        m_linear = mode == "linear";
        m_transform = attrs.getString("coordinate_transformation_mode", "asymmetric");
        if (m_transform != "asymmetric" && m_transform != "align_corners" && m_transform != "half_pixel")
            throw attrs.error("coordinate_transformation_mode",
                "expected \"asymmetric\", \"align_corners\" or \"half_pixel\", got \"" + m_transform + "\"");
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = layoutInput(ctx, 0, true, "X");
        const int64_t b = nchwcBlockSize();
        const int64_t n = x.dim(0), c = x.dim(1), h = x.dim(2), w = x.dim(3);
        const int64_t oh = h * m_scales[2], ow = w * m_scales[3];
        Tensor& y = ctx.allocateOutputUninitialized(0, DataType::Float, { n, c, oh, ow });
        const std::vector<float> ch = coordinates(h, oh, m_scales[2]), cw = coordinates(w, ow, m_scales[3]);
        const float* src = x.data<float>().data();
        float* dst = y.data<float>().data();
        for (int64_t slab = 0; slab < n * (c / b); ++slab) {
            const float* in = src + slab * h * w * b;
            float* out = dst + slab * oh * ow * b;
            for (int64_t i = 0; i < oh; ++i)
                for (int64_t j = 0; j < ow; ++j) {
                    float* o = out + (i * ow + j) * b;
                    if (!m_linear) {
                        const float* p = in + ((i / m_scales[2]) * w + j / m_scales[3]) * b;
                        std::copy(p, p + b, o);
                        continue;
                    }
                    const int64_t h0 = std::min<int64_t>(static_cast<int64_t>(ch[i]), h - 1);
                    const int64_t w0 = std::min<int64_t>(static_cast<int64_t>(cw[j]), w - 1);
                    const int64_t h1 = std::min(h0 + 1, h - 1), w1 = std::min(w0 + 1, w - 1);
                    const float dh = ch[i] - static_cast<float>(h0), dw = cw[j] - static_cast<float>(w0);
                    const float* p00 = in + (h0 * w + w0) * b;
                    const float* p01 = in + (h0 * w + w1) * b;
                    const float* p10 = in + (h1 * w + w0) * b;
                    const float* p11 = in + (h1 * w + w1) * b;
                    for (int64_t k = 0; k < b; ++k) {
                        const float top = p00[k] + (p01[k] - p00[k]) * dw;
                        const float bottom = p10[k] + (p11[k] - p10[k]) * dw;
                        o[k] = top + (bottom - top) * dh;
                    }
                }
        }
    }

private:
    /// The input coordinate of each output index along one axis (linear mode).
    std::vector<float> coordinates(int64_t in, int64_t out, int64_t scale) const
    {
        std::vector<float> c(static_cast<size_t>(out));
        for (int64_t o = 0; o < out; ++o) {
            float v = static_cast<float>(o) / static_cast<float>(scale);
            if (scale == 1)
                v = static_cast<float>(o);
            else if (m_transform == "align_corners")
                v = out > 1 ? static_cast<float>(o) * static_cast<float>(in - 1) / static_cast<float>(out - 1) : 0.0f;
            else if (m_transform == "half_pixel")
                v = std::max(0.0f, (static_cast<float>(o) + 0.5f) / static_cast<float>(scale) - 0.5f);
            c[static_cast<size_t>(o)] = v;
        }
        return c;
    }

    std::vector<int64_t> m_scales;
    bool m_linear = false;
    std::string m_transform;
};

} // namespace

void registerNchwcKernels(KernelRegistry& r)
{
    const std::string d = "com.microsoft.nchwc";
    r.add(d, "ReorderInput", 1, KernelRegistry::kLatest, makeFactory<ReorderInput>());
    r.add(d, "ReorderOutput", 1, KernelRegistry::kLatest, makeFactory<ReorderOutput>());
    r.add(d, "Conv", 1, KernelRegistry::kLatest, makeFactory<NchwcConv>());
    r.add(d, "MaxPool", 1, KernelRegistry::kLatest, poolFactory("MaxPool", 22));
    r.add(d, "AveragePool", 1, KernelRegistry::kLatest, poolFactory("AveragePool", 22));
    r.add(d, "GlobalMaxPool", 1, KernelRegistry::kLatest, poolFactory("GlobalMaxPool", 22));
    r.add(d, "GlobalAveragePool", 1, KernelRegistry::kLatest, poolFactory("GlobalAveragePool", 22));
    r.add(d, "Upsample", 1, KernelRegistry::kLatest, makeFactory<NchwcUpsample>());
}

} // namespace onnxscope
