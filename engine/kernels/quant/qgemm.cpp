// SPDX-License-Identifier: MIT
#include "engine/core/thread_pool.h"
#include "engine/kernels/common/half_convert.h"
#include "engine/kernels/kernel_registry.h"
#include "engine/kernels/quant/integer_product.h"
#include "engine/kernels/quant/qlinear_common.h"
#include "engine/kernels/quant/quant_common.h"
#include "engine/kernels/simd/simd.h"

#include <memory>
#include <mutex>

namespace onnxscope {

namespace {

/// QGemm (com.microsoft 1): the int32 accumulator (on the shared integer product, intprod) acc[m, n] = C[m, n] + sum_k
/// (A[m, k] - a_zero_point)(B[k, n] - b_zero_point[n]) (C int32, optional, broadcast to [M, N]; A and B uint8 or int8,
/// 2-D, transposed by `transA` / `transB`), wrapping in 32 bits, then scaled in float by alpha * a_scale * b_scale[n]
/// (b_scale and b_zero_point per tensor or per column, of one shape): with y_zero_point, divided by y_scale, rounded
/// half to even, shifted by y_zero_point and saturated to its type; without it, Y is that float (divided by y_scale if
/// given), as onnxruntime's kernel does.
class QGemm final : public Kernel {
public:
    explicit QGemm(const KernelInit& init)
        : m_transA(init.attributes().getInt("transA", 0) != 0)
        , m_transB(init.attributes().getInt("transB", 0) != 0)
        , m_alpha(init.attributes().getFloat("alpha", 1.0f))
        , m_constantWeights(isConstantInput(init, 3) && (init.node.inputs.size() <= 5 || isConstantInput(init, 5)))
    {
    }

    void compute(KernelContext& ctx) const override
    {
        const DataType ta = qlinear::requireByteType(ctx, 0, "A");
        const DataType tb = qlinear::requireByteType(ctx, 3, "B");
        const Tensor& a = ctx.input(0);
        const Tensor& b = ctx.input(3);
        if (a.rank() != 2 || b.rank() != 2)
            throw ctx.error("A and B must be 2-D, got " + a.typeString() + " and " + b.typeString());
        const int64_t M = m_transA ? a.dim(1) : a.dim(0), K = m_transA ? a.dim(0) : a.dim(1);
        const int64_t N = m_transB ? b.dim(0) : b.dim(1);
        if ((m_transB ? b.dim(1) : b.dim(0)) != K)
            throw ctx.error("cannot multiply A " + shapeToString(a.shape()) + (m_transA ? " (transposed)" : "")
                + " by B " + shapeToString(b.shape()) + (m_transB ? " (transposed)" : ""));
        const qlinear::Params pa = qlinear::params(ctx, 1, 2, ta, "a", true);
        const std::vector<float> bScale = perColumn<float>(ctx, 4, N, "b_scale");
        std::vector<int64_t> bZero(bScale.size(), 0);
        if (ctx.hasInput(5)) {
            const Tensor& z = ctx.input(5);
            if (z.dtype() != tb || z.shape() != ctx.input(4).shape())
                throw ctx.error("b_zero_point " + z.typeString() + " must have B's type and b_scale's shape "
                    + shapeToString(ctx.input(4).shape()));
            bZero = integerValues(ctx, z, "b_zero_point");
        }
        // C broadcast to [M, N]: strides along M and N (0 where C has size 1).
        int64_t cStrideM = 0, cStrideN = 0;
        const bool hasC = ctx.hasInput(6);
        if (hasC) {
            const Tensor& c = ctx.input(6);
            const int64_t cm = c.rank() == 2 ? c.dim(0) : 1, cn = c.rank() >= 1 ? c.dim(c.rank() - 1) : 1;
            if (c.dtype() != DataType::Int32 || c.rank() > 2 || (cm != 1 && cm != M) || (cn != 1 && cn != N))
                throw ctx.error("C must be int32 and broadcast to [" + std::to_string(M) + ", " + std::to_string(N)
                    + "], got " + c.typeString());
            cStrideN = cn == 1 ? 0 : 1;
            cStrideM = cm == 1 ? 0 : cn;
        }
        const bool quantized = ctx.hasInput(8);
        float yScale = 1.0f;
        if (ctx.hasInput(7)) {
            const Tensor& s = ctx.input(7);
            if (s.dtype() != DataType::Float || s.size() != 1 || s.rank() > 1)
                throw ctx.error("y_scale must be a float scalar, got " + s.typeString());
            yScale = s.data<float>()[0];
        } else if (quantized) {
            throw ctx.error("y_zero_point is given without y_scale");
        }
        // The exact int32 product on the shared integer kernel: B's columns are the weights' rows, A's rows the
        // packed columns; C added in uint32 so that the sum wraps as onnxruntime's.
        std::vector<int32_t> acc(static_cast<size_t>(M * N));
        const auto w = preparedWeights(b, tb, K, N, bZero);
        intprod::Columns cols;
        intprod::packColumns(ta, static_cast<const uint8_t*>(a.raw()), K, M, m_transA ? M : 1, m_transA ? 1 : K, cols,
            w->needsColumnSums);
        const int32_t za = static_cast<int32_t>(pa.zeroPoint);
        const int64_t grain = std::max<int64_t>(16, simd::kGrainMacs / std::max<int64_t>(1, M * K));
        parallelFor(ctx.threadPool(), N, grain,
            [&](int64_t r0, int64_t r1) { intprod::product(*w, r0, r1 - r0, cols, za, acc.data() + r0, 1, N); });
        if (hasC) {
            const int32_t* cv = ctx.input(6).data<int32_t>().data();
            for (int64_t m = 0; m < M; ++m)
                for (int64_t n = 0; n < N; ++n) {
                    int32_t& v = acc[static_cast<size_t>(m * N + n)];
                    v = static_cast<int32_t>(
                        static_cast<uint32_t>(v) + static_cast<uint32_t>(cv[m * cStrideM + n * cStrideN]));
                }
        }
        std::vector<float> scales;
        for (float s : bScale) {
            float v = m_alpha * pa.scale * s;
            if (ctx.hasInput(7))
                v /= yScale;
            scales.push_back(v);
        }
        const auto scaleOf = [&](int64_t n) { return scales[scales.size() == 1 ? 0 : static_cast<size_t>(n)]; };
        if (!quantized) {
            Tensor& y = ctx.allocateOutputUninitialized(0, DataType::Float, { M, N });
            auto out = y.data<float>();
            for (int64_t i = 0; i < M * N; ++i)
                out[static_cast<size_t>(i)] = static_cast<float>(acc[static_cast<size_t>(i)]) * scaleOf(i % N);
            return;
        }
        const DataType ty = qlinear::requireByteType(ctx, 8, "y_zero_point");
        const qlinear::Params py = qlinear::params(ctx, 7, 8, ty, "y", true);
        Tensor& y = ctx.allocateOutputUninitialized(0, ty, { M, N });
        const auto requantize = [&]<class T>(std::span<T> out) {
            const auto lo = static_cast<float>(int32_t(std::numeric_limits<T>::lowest()) - py.zeroPoint);
            const auto hi = static_cast<float>(int32_t(std::numeric_limits<T>::max()) - py.zeroPoint);
            for (int64_t i = 0; i < M * N; ++i) {
                const float v = std::clamp(static_cast<float>(acc[static_cast<size_t>(i)]) * scaleOf(i % N), lo, hi);
                out[static_cast<size_t>(i)] = static_cast<T>(static_cast<int32_t>(std::nearbyint(v)) + py.zeroPoint);
            }
        };
        if (ty == DataType::UInt8)
            requantize(y.data<uint8_t>());
        else
            requantize(y.data<int8_t>());
    }

private:
    /// B^T as the integer product's rows, prepared once while a constant B (and zero point) keeps its storage.
    std::shared_ptr<const intprod::Weights> preparedWeights(
        const Tensor& b, DataType tb, int64_t K, int64_t N, const std::vector<int64_t>& bZero) const
    {
        const auto prepare = [&] {
            const std::vector<int32_t> zero(bZero.begin(), bZero.end());
            return std::make_shared<const intprod::Weights>(
                intprod::prepareWeights(tb, b.raw(), N, K, m_transB ? K : 1, m_transB ? 1 : N, zero));
        };
        if (!m_constantWeights)
            return prepare();
        std::lock_guard lock(m_cacheMutex);
        if (!m_cached || m_cachedKey != b.raw() || m_cached->rows != N || m_cached->k != K) {
            m_cached = prepare();
            m_cachedKey = b.raw();
        }
        return m_cached;
    }

    /// A float parameter per tensor (one value) or per column (1-D of n).
    template <class T>
    static std::vector<T> perColumn(const KernelContext& ctx, size_t input, int64_t n, const char* what)
    {
        const Tensor& t = ctx.input(input);
        if (t.dtype() != DataType::Float || t.rank() > 1 || (t.size() != 1 && t.size() != n))
            throw ctx.error(std::string(what) + " must be a float scalar or [" + std::to_string(n)
                + "] (per column), got " + t.typeString());
        auto d = t.data<float>();
        return { d.begin(), d.end() };
    }

    bool m_transA, m_transB;
    float m_alpha;
    bool m_constantWeights;
    mutable std::mutex m_cacheMutex;
    mutable std::shared_ptr<const intprod::Weights> m_cached;
    mutable const void* m_cachedKey = nullptr;
};

} // namespace

void registerQGemm(KernelRegistry& r)
{
    r.add("com.microsoft", "QGemm", 1, KernelRegistry::kLatest, makeFactory<QGemm>());
}

} // namespace onnxscope
