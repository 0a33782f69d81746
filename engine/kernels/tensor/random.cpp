// SPDX-License-Identifier: MIT
#include "engine/kernels/common/dispatch.h"
#include "engine/kernels/kernel_registry.h"
#include "engine/kernels/tensor/indexing.h"

#include <bit>
#include <cmath>
#include <numbers>
#include <random>

namespace onnxscope {

namespace {

using namespace indexing;

enum class RandomOp { Uniform, Normal, UniformLike, NormalLike, Bernoulli, Multinomial };

using RandomFloatTypes = TypeList<float, double, Float16, BFloat16>;

/// RandomUniform, RandomNormal (opset 1, shape from the attribute), RandomUniformLike, RandomNormalLike (opset 1,
/// shape of the input), Bernoulli (opset 15) and Multinomial (opset 7).
///
/// Deterministic by design, so that a debugging session can be replayed: every run of a node draws the same numbers.
/// The stream is std::mt19937_64 (whose output the C++ standard fixes) seeded from the `seed` attribute, or, without
/// one, from the node's name; uniforms are the top 53 bits of a draw, normals come from Box-Muller. The values cannot
/// match numpy's or onnxruntime's generators bit for bit; only their distribution does.
class Random final : public Kernel {
public:
    Random(const KernelInit& init, RandomOp op)
        : m_op(op)
    {
        const auto& a = init.attributes();
        if (a.has("seed")) {
            m_seed = std::bit_cast<uint32_t>(a.getFloat("seed", 0.0f)) ^ 0x9e3779b97f4a7c15ULL;
        } else {
            m_seed = 1469598103934665603ULL; // FNV-1a of the node's name
            for (char c : init.node.displayName())
                m_seed = (m_seed ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
        }
        const bool like = op == RandomOp::UniformLike || op == RandomOp::NormalLike || op == RandomOp::Bernoulli;
        if (a.has("dtype"))
            m_dtype = dtypeAttribute(init, a.getInt("dtype", 0), "dtype");
        else if (!like)
            m_dtype = op == RandomOp::Multinomial ? DataType::Int32 : DataType::Float;
        m_low = a.getFloat("low", 0.0f);
        m_high = a.getFloat("high", 1.0f);
        m_mean = a.getFloat("mean", 0.0f);
        m_scale = a.getFloat("scale", 1.0f);
        if (op == RandomOp::Uniform || op == RandomOp::Normal) {
            if (!a.has("shape"))
                throw init.error("attribute 'shape' is required");
            m_shape = a.getInts("shape");
            try {
                elementCount(m_shape);
            } catch (const Error& e) {
                throw a.error("shape", e.what());
            }
        }
        if (op == RandomOp::Multinomial) {
            m_samples = a.getInt("sample_size", 1);
            if (m_samples < 0)
                throw a.error("sample_size", "must not be negative, got " + std::to_string(m_samples));
            if (m_dtype != DataType::Int32 && m_dtype != DataType::Int64)
                throw a.error("dtype", "must be int32 or int64, got " + std::string(dataTypeName(m_dtype)));
        }
    }

    void compute(KernelContext& ctx) const override
    {
        std::mt19937_64 gen(m_seed);
        switch (m_op) {
        case RandomOp::Uniform:
        case RandomOp::Normal:
            fill(ctx, ctx.allocateOutput(0, m_dtype, m_shape), gen);
            break;
        case RandomOp::UniformLike:
        case RandomOp::NormalLike: {
            const Tensor& x = ctx.input(0);
            fill(ctx, ctx.allocateOutput(0, m_dtype != DataType::Undefined ? m_dtype : x.dtype(), x.shape()), gen);
            break;
        }
        case RandomOp::Bernoulli:
            bernoulli(ctx, gen);
            break;
        case RandomOp::Multinomial:
            multinomial(ctx, gen);
            break;
        }
    }

private:
    static double uniform(std::mt19937_64& gen) { return static_cast<double>(gen() >> 11) * 0x1.0p-53; }

    void fill(const KernelContext& ctx, Tensor& out, std::mt19937_64& gen) const
    {
        const bool normal = m_op == RandomOp::Normal || m_op == RandomOp::NormalLike;
        dispatch<RandomFloatTypes>(out.dtype(), ctx.node(), ": output", [&]<class T>() {
            auto o = out.data<T>();
            for (size_t i = 0; i < o.size(); i += 2) {
                if (normal) {
                    const double r = std::sqrt(-2.0 * std::log(1.0 - uniform(gen)));
                    const double t = 2.0 * std::numbers::pi * uniform(gen);
                    o[i] = static_cast<T>(m_mean + m_scale * r * std::cos(t));
                    if (i + 1 < o.size())
                        o[i + 1] = static_cast<T>(m_mean + m_scale * r * std::sin(t));
                } else {
                    o[i] = static_cast<T>(m_low + (static_cast<double>(m_high) - m_low) * uniform(gen));
                    if (i + 1 < o.size())
                        o[i + 1] = static_cast<T>(m_low + (static_cast<double>(m_high) - m_low) * uniform(gen));
                }
            }
        });
    }

    void bernoulli(KernelContext& ctx, std::mt19937_64& gen) const
    {
        const Tensor& p = ctx.input(0);
        std::vector<bool> hits(static_cast<size_t>(p.size()));
        dispatch<RandomFloatTypes>(p.dtype(), ctx.node(), ": input", [&]<class T>() {
            auto in = p.data<T>();
            for (size_t i = 0; i < in.size(); ++i)
                hits[i] = uniform(gen) < static_cast<double>(in[i]);
        });
        Tensor& out = ctx.allocateOutput(0, m_dtype != DataType::Undefined ? m_dtype : p.dtype(), p.shape());
        dispatch<TypeList<float, double, Float16, BFloat16, int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t,
            uint32_t, uint64_t, bool>>(out.dtype(), ctx.node(), ": output", [&]<class T>() {
            auto o = out.data<T>();
            for (size_t i = 0; i < hits.size(); ++i)
                o[i] = hits[i] ? T(1) : T(0);
        });
    }

    /// Each row of the input holds unnormalised log-probabilities of the classes; draws sample_size classes per row.
    void multinomial(KernelContext& ctx, std::mt19937_64& gen) const
    {
        const Tensor& x = ctx.input(0);
        if (x.rank() != 2)
            throw ctx.error("input must be 2-D [batch_size, class_size], got " + x.typeString());
        const int64_t batch = x.dim(0), classes = x.dim(1);
        if (classes == 0 && batch > 0 && m_samples > 0)
            throw ctx.error("cannot sample from zero classes");
        std::vector<int64_t> drawn;
        Tensor& out = ctx.allocateOutput(0, m_dtype, { batch, m_samples });
        drawn.resize(static_cast<size_t>(out.size()));
        dispatch<RandomFloatTypes>(x.dtype(), ctx.node(), ": input", [&]<class T>() {
            auto in = x.data<T>();
            std::vector<double> cumulative(static_cast<size_t>(classes));
            for (int64_t b = 0; b < batch; ++b) {
                double top = -INFINITY;
                for (int64_t c = 0; c < classes; ++c)
                    top = std::max(top, static_cast<double>(in[static_cast<size_t>(b * classes + c)]));
                double sum = 0;
                for (int64_t c = 0; c < classes; ++c) {
                    const double v = static_cast<double>(in[static_cast<size_t>(b * classes + c)]);
                    sum += std::isinf(top) && top < 0 ? 1.0 : std::exp(v - top);
                    cumulative[static_cast<size_t>(c)] = sum;
                }
                for (int64_t s = 0; s < m_samples; ++s) {
                    const double u = uniform(gen) * sum;
                    auto it = std::upper_bound(cumulative.begin(), cumulative.end(), u);
                    const int64_t c = std::min<int64_t>(it - cumulative.begin(), classes - 1);
                    drawn[static_cast<size_t>(b * m_samples + s)] = c;
                }
            }
        });
        if (m_dtype == DataType::Int32) {
            auto o = out.data<int32_t>();
            for (size_t i = 0; i < drawn.size(); ++i)
                o[i] = static_cast<int32_t>(drawn[i]);
        } else {
            auto o = out.data<int64_t>();
            std::copy(drawn.begin(), drawn.end(), o.begin());
        }
    }

    RandomOp m_op;
    uint64_t m_seed = 0;
    DataType m_dtype = DataType::Undefined;
    float m_low = 0, m_high = 1, m_mean = 0, m_scale = 1;
    Shape m_shape;
    int64_t m_samples = 1;
};

template <RandomOp Op> KernelFactory randomFactory()
{
    return [](const KernelInit& init) -> std::unique_ptr<Kernel> { return std::make_unique<Random>(init, Op); };
}

} // namespace

void registerRandom(KernelRegistry& r)
{
    r.add("", "RandomUniform", 1, 22, randomFactory<RandomOp::Uniform>());
    r.add("", "RandomNormal", 1, 22, randomFactory<RandomOp::Normal>());
    r.add("", "RandomUniformLike", 1, 22, randomFactory<RandomOp::UniformLike>());
    r.add("", "RandomNormalLike", 1, 22, randomFactory<RandomOp::NormalLike>());
    r.add("", "Bernoulli", 15, 22, randomFactory<RandomOp::Bernoulli>());
    r.add("", "Multinomial", 7, 22, randomFactory<RandomOp::Multinomial>());
}

} // namespace onnxscope
