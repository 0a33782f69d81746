// SPDX-License-Identifier: MIT
// com.microsoft operators that are small variants of default-domain ones: ExpandDims, Trilu, GatherND, Range, Pad,
// GridSample, TransposeMatMul, SampleOp, Inverse, Unique. Where the meaning is a default-domain op's, its builtin
// kernel computes it (contrib::InnerKernel).
#include "engine/kernels/common/dispatch.h"
#include "engine/kernels/contrib/inner_kernel.h"
#include "engine/kernels/kernel_registry.h"

#include <Eigen/Core>
#include <Eigen/LU>

#include <cstring>
#include <functional>
#include <map>
#include <vector>

namespace onnxscope {

namespace {

/// A kernel that hands its inputs (some adjusted by `adjust`) to a builtin kernel: Trilu (Trilu-14), GatherND
/// (GatherND-11: batch_dims 0), GridSample (GridSample-16: the same attributes), TransposeMatMul (com.microsoft
/// FusedMatMul: alpha, transA, transB), Range (Range-11, with delta 1 when it is absent) and Pad (Pad-11, `pads` also
/// as [1, 2 * rank] and `value` also as [1]).
class Delegating final : public Kernel {
public:
    using Adjust = std::function<void(const KernelContext&, std::vector<Value>&)>;

    Delegating(const KernelInit& init, const std::string& op, int64_t opset, const std::string& domain, Adjust adjust)
        : m_inner(init, op, opset, domain)
        , m_adjust(std::move(adjust))
    {
    }

    void compute(KernelContext& ctx) const override
    {
        std::vector<Value> inputs;
        for (size_t i = 0; i < ctx.inputCount(); ++i)
            inputs.push_back(ctx.inputValue(i));
        if (m_adjust)
            m_adjust(ctx, inputs);
        std::vector<Value> out = m_inner.run(ctx, inputs, ctx.outputCount());
        for (size_t i = 0; i < out.size(); ++i)
            ctx.setOutput(i, std::move(out[i]));
    }

private:
    contrib::InnerKernel m_inner;
    Adjust m_adjust;
};

KernelFactory delegating(const char* op, int64_t opset, const char* domain = "", Delegating::Adjust adjust = {})
{
    return [=](const KernelInit& init) -> std::unique_ptr<Kernel> {
        return std::make_unique<Delegating>(init, op, opset, domain, adjust);
    };
}

/// Range: delta 1 (of start's type) when the third input is absent.
void rangeDefaultDelta(const KernelContext& ctx, std::vector<Value>& inputs)
{
    if (ctx.hasInput(2))
        return;
    const Tensor& start = ctx.input(0);
    inputs.resize(3);
    dispatch<TypeList<float, double, int16_t, int32_t, int64_t>>(
        start.dtype(), ctx.node(), [&]<class T>() { inputs[2] = Value(Tensor::scalar<T>(T(1))); });
}

/// Pad: `pads` [1, 2 * rank] as [2 * rank], `value` [1] as a scalar.
void padShapes(const KernelContext& ctx, std::vector<Value>& inputs)
{
    if (ctx.hasInput(1) && ctx.input(1).rank() == 2 && ctx.input(1).dim(0) == 1)
        inputs[1] = Value(ctx.input(1).reshaped({ ctx.input(1).dim(1) }));
    if (ctx.hasInput(2) && ctx.input(2).size() == 1 && ctx.input(2).rank() > 0)
        inputs[2] = Value(ctx.input(2).reshaped({}));
}

/// ExpandDims: X with a dimension of 1 inserted at `axis` (a scalar int32 input), -rank-1 <= axis <= rank; a negative
/// axis counts from the end (-1 appends). Any element type.
class ExpandDims final : public Kernel {
public:
    explicit ExpandDims(const KernelInit&) { }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        const Tensor& a = ctx.input(1);
        if (a.dtype() != DataType::Int32 || a.size() != 1)
            throw ctx.error("input 'axis' must be one int32 value, got " + a.typeString());
        const int64_t axis = a.data<int32_t>()[0], points = x.rank() + 1;
        if (axis < -points || axis >= points)
            throw ctx.error("axis " + std::to_string(axis) + " is outside [" + std::to_string(-points) + ", "
                + std::to_string(points - 1) + "] for X " + shapeToString(x.shape()));
        Shape shape = x.shape();
        shape.insert(shape.begin() + (axis >= 0 ? axis : points + axis), 1);
        ctx.setOutput(0, Value(x.reshaped(shape)));
    }
};

/// SampleOp: onnxruntime's sample operator, an identity ("Sample echo operator").
class SampleOp final : public Kernel {
public:
    explicit SampleOp(const KernelInit&) { }
    void compute(KernelContext& ctx) const override { ctx.setOutput(0, ctx.inputValue(0)); }
};

/// Inverse: the inverses of the square matrices in the last two dimensions of X [*, M, M]. float, double, float16
/// (computed in double, by LU decomposition with partial pivoting; a singular matrix gives non-finite values, as
/// onnxruntime's Eigen inverse does).
class Inverse final : public Kernel {
public:
    explicit Inverse(const KernelInit&) { }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        if (x.rank() < 2 || x.dim(x.rank() - 1) != x.dim(x.rank() - 2))
            throw ctx.error("input must be [*, M, M], got " + shapeToString(x.shape()));
        Tensor& y = ctx.allocateOutputUninitialized(0, x.dtype(), x.shape());
        const int64_t m = x.dim(x.rank() - 1);
        const int64_t count = m == 0 ? 0 : x.size() / (m * m);
        dispatch<FloatTypes>(x.dtype(), ctx.node(), [&]<class T>() {
            using Matrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
            Matrix a(m, m);
            const T* in = x.data<T>().data();
            T* out = y.data<T>().data();
            for (int64_t b = 0; b < count; ++b) {
                for (int64_t i = 0; i < m * m; ++i)
                    a.data()[i] = static_cast<double>(in[b * m * m + i]);
                const Matrix inv = a.partialPivLu().inverse();
                for (int64_t i = 0; i < m * m; ++i)
                    out[b * m * m + i] = static_cast<T>(inv.data()[i]);
            }
        });
    }
};

/// Unique (com.microsoft 1): the distinct values of a 1-D x in order of first occurrence (y), the index in y of each
/// element of x (idx, int64) and how often each value occurs (counts, int64). float, int64, int8, string.
class Unique final : public Kernel {
public:
    explicit Unique(const KernelInit&) { }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        if (x.rank() != 1)
            throw ctx.error("input must be 1-D, got " + shapeToString(x.shape()));
        dispatch<TypeList<float, double, int8_t, int32_t, int64_t, std::string>>(x.dtype(), ctx.node(), [&]<class T>() {
            auto in = x.data<T>();
            std::vector<T> values;
            std::vector<int64_t> idx(in.size()), counts;
            std::map<T, int64_t> seen;
            for (size_t i = 0; i < in.size(); ++i) {
                auto [it, added] = seen.emplace(in[i], static_cast<int64_t>(values.size()));
                if (added) {
                    values.push_back(in[i]);
                    counts.push_back(0);
                }
                idx[i] = it->second;
                ++counts[static_cast<size_t>(it->second)];
            }
            const int64_t n = static_cast<int64_t>(values.size());
            Tensor& y = ctx.allocateOutput(0, x.dtype(), { n });
            std::copy(values.begin(), values.end(), y.data<T>().begin());
            Tensor& yi = ctx.allocateOutputUninitialized(1, DataType::Int64, { x.dim(0) });
            std::copy(idx.begin(), idx.end(), yi.data<int64_t>().begin());
            Tensor& yc = ctx.allocateOutputUninitialized(2, DataType::Int64, { n });
            std::copy(counts.begin(), counts.end(), yc.data<int64_t>().begin());
        });
    }
};

} // namespace

void registerMsTensorOps(KernelRegistry& r)
{
    const std::string ms = "com.microsoft";
    const int64_t last = KernelRegistry::kLatest;
    r.add(ms, "ExpandDims", 1, last, makeFactory<ExpandDims>());
    r.add(ms, "SampleOp", 1, last, makeFactory<SampleOp>());
    r.add(ms, "Inverse", 1, last, makeFactory<Inverse>());
    r.add(ms, "Unique", 1, last, makeFactory<Unique>());
    r.add(ms, "Trilu", 1, last, delegating("Trilu", 14));
    r.add(ms, "GatherND", 1, last, delegating("GatherND", 11));
    r.add(ms, "GridSample", 1, last, delegating("GridSample", 16));
    r.add(ms, "TransposeMatMul", 1, last, delegating("FusedMatMul", 1, "com.microsoft"));
    r.add(ms, "Range", 1, last, delegating("Range", 11, "", rangeDefaultDelta));
    r.add(ms, "Pad", 1, last, delegating("Pad", 11, "", padShapes));
}

} // namespace onnxscope
