// SPDX-License-Identifier: MIT
#include "engine/core/thread_pool.h"
#include "engine/kernels/common/dispatch.h"
#include "engine/kernels/common/elementwise.h"
#include "engine/kernels/common/int_input.h"
#include "engine/kernels/kernel_registry.h"
#include "engine/kernels/reduce/reduce_loop.h"
#include "engine/kernels/simd/simd.h"

#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

namespace onnxscope {

namespace {

enum class ReduceOp { Sum, Mean, Max, Min, Prod, L1, L2, LogSum, LogSumExp, SumSquare };

/// ReduceSum (1, 11, 13), ReduceMean, ReduceMax, ReduceMin, ReduceProd, ReduceL1, ReduceL2, ReduceLogSum,
/// ReduceLogSumExp, ReduceSumSquare (1, 11, 13, 18; Max/Min also 12 and 20, which adds bool): reduce over `axes` (all
/// axes when none are given), keeping the reduced axes as 1 when keepdims=1. `axes` is an attribute up to opset 12
/// (ReduceSum) or 17 (the others) and an optional int64 input from then on, where noop_with_empty_axes=1 with no or
/// empty axes makes the op an identity. Every numeric type. Floating types accumulate in double; integer Sum, Mean,
/// Prod, L1 and SumSquare wrap (Mean truncates), L2 and the Log reductions go through double and convert back
/// saturating. Max and Min propagate NaN. An empty reduction gives 0 (Sum, L1, L2, SumSquare), 1 (Prod), NaN (Mean; 0
/// for integers), -inf (LogSum, LogSumExp, Max; the lowest value for integers) or +inf (Min; the highest value for
/// integers). float Sum, Mean, SumSquare, L1 and L2 over trailing axes run on the SIMD row reductions, which accumulate
/// in float vector lanes rather than in double.
class Reduce final : public Kernel {
public:
    Reduce(const KernelInit& init, ReduceOp op)
        : m_op(op)
    {
        const NodeAttributes& attrs = init.attributes();
        m_keepDims = attrs.getInt("keepdims", 1) != 0;
        m_axesInput = init.opset() >= (op == ReduceOp::Sum ? 13 : 18);
        if (m_axesInput) {
            if (attrs.has("axes"))
                throw attrs.error("axes",
                    "from opset " + std::to_string(op == ReduceOp::Sum ? 13 : 18)
                        + " the axes are input 1, not an attribute");
            m_noopWithEmptyAxes = attrs.getInt("noop_with_empty_axes", 0) != 0;
        } else
            m_axes = attrs.getInts("axes");
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        std::vector<int64_t> axes = m_axes;
        if (m_axesInput && ctx.inputCount() > 1 && ctx.hasInput(1))
            axes = readIntList(ctx, 1, "axes");
        if (axes.empty() && m_noopWithEmptyAxes) {
            ctx.setOutput(0, Value(x));
            return;
        }
        const int64_t rank = x.rank();
        std::vector<bool> seen(static_cast<size_t>(rank), false);
        for (int64_t& a : axes) {
            if (a < -rank || a >= rank)
                throw ctx.error("axis " + std::to_string(a) + " is out of range for input " + shapeToString(x.shape()));
            if (a < 0)
                a += rank;
            if (seen[static_cast<size_t>(a)])
                throw ctx.error("axis " + std::to_string(a) + " is given twice");
            seen[static_cast<size_t>(a)] = true;
        }
        if (axes.empty())
            for (int64_t a = 0; a < rank; ++a) {
                axes.push_back(a);
                seen[static_cast<size_t>(a)] = true;
            }
        Shape outShape;
        int64_t count = 1;
        for (int64_t d = 0; d < rank; ++d) {
            if (!seen[static_cast<size_t>(d)])
                outShape.push_back(x.dim(d));
            else {
                count *= x.dim(d);
                if (m_keepDims)
                    outShape.push_back(1);
            }
        }
        Tensor& y = ctx.allocateOutput(0, x.dtype(), outShape);
        if (x.dtype() == DataType::Float && y.size() > 0 && runTrailingFloat(ctx, x, y, seen, count))
            return;
        const ReducePlan plan(x.shape(), axes);
        if (x.dtype() == DataType::Bool && (m_op == ReduceOp::Max || m_op == ReduceOp::Min)) {
            runBool(x, y, plan);
            return;
        }
        dispatch<NumericTypes>(x.dtype(), ctx.node(), [&]<class T>() { run<T>(x, y, plan, count); });
    }

private:
    /// float reductions over a suffix of the axes (the last axis, say) as rows of `count` elements; false if this
    /// op or these axes have no such path.
    bool runTrailingFloat(
        const KernelContext& ctx, const Tensor& x, Tensor& y, const std::vector<bool>& seen, int64_t count) const
    {
        simd::ReduceOp op;
        switch (m_op) {
        case ReduceOp::Sum:
            op = simd::ReduceOp::Sum;
            break;
        case ReduceOp::Mean:
            op = simd::ReduceOp::Mean;
            break;
        case ReduceOp::SumSquare:
            op = simd::ReduceOp::SumSquare;
            break;
        case ReduceOp::L1:
            op = simd::ReduceOp::L1;
            break;
        case ReduceOp::L2:
            op = simd::ReduceOp::L2;
            break;
        default:
            return false;
        }
        size_t first = seen.size();
        while (first > 0 && seen[first - 1])
            --first;
        for (size_t d = 0; d < first; ++d)
            if (seen[d])
                return false;
        const float* in = x.data<float>().data();
        float* out = y.data<float>().data();
        const simd::Ops& ops = simd::ops();
        parallelFor(ctx.threadPool(), y.size(),
            std::max<int64_t>(1, simd::kGrainElements / std::max<int64_t>(count, 1)),
            [&](int64_t r0, int64_t r1) { ops.reduceRows(op, in + r0 * count, out + r0, r1 - r0, count); });
        return true;
    }

    /// ReduceMax (any) and ReduceMin (all) of bool, opset 20; an empty reduction gives false and true.
    void runBool(const Tensor& x, Tensor& y, const ReducePlan& plan) const
    {
        const bool isMax = m_op == ReduceOp::Max;
        auto out = y.data<bool>();
        std::vector<uint8_t> acc(out.size(), isMax ? 0 : 1);
        plan.run(x.data<bool>().data(), acc, [isMax](uint8_t& a, bool v, int64_t) { a = isMax ? (a | v) : (a & v); });
        std::copy(acc.begin(), acc.end(), out.begin());
    }

    template <class T> void run(const Tensor& x, Tensor& y, const ReducePlan& plan, int64_t count) const
    {
        const T* in = x.data<T>().data();
        auto out = y.data<T>();
        const size_t n = out.size();
        if constexpr (std::is_integral_v<T>) {
            using W = std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>;
            const auto wrapAdd
                = [](W a, W b) { return static_cast<W>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b)); };
            const auto wrapMul
                = [](W a, W b) { return static_cast<W>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b)); };
            switch (m_op) {
            case ReduceOp::Max:
            case ReduceOp::Min: {
                const bool isMax = m_op == ReduceOp::Max;
                std::vector<T> acc(n, isMax ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max());
                plan.run(in, acc, [isMax](T& a, T v, int64_t) { a = isMax ? (v > a ? v : a) : (v < a ? v : a); });
                std::copy(acc.begin(), acc.end(), out.begin());
                return;
            }
            case ReduceOp::Sum:
            case ReduceOp::Mean:
            case ReduceOp::L1:
            case ReduceOp::SumSquare:
            case ReduceOp::Prod: {
                const ReduceOp op = m_op;
                std::vector<W> acc(n, op == ReduceOp::Prod ? W(1) : W(0));
                plan.run(in, acc, [&](W& a, T v, int64_t) {
                    const W w = static_cast<W>(v);
                    switch (op) {
                    case ReduceOp::Prod:
                        a = wrapMul(a, w);
                        break;
                    case ReduceOp::L1:
                        a = wrapAdd(a, w < 0 ? wrapMul(w, W(-1)) : w);
                        break;
                    case ReduceOp::SumSquare:
                        a = wrapAdd(a, wrapMul(w, w));
                        break;
                    default:
                        a = wrapAdd(a, w);
                        break;
                    }
                });
                for (size_t i = 0; i < n; ++i) {
                    W v = acc[i];
                    if (op == ReduceOp::Mean)
                        v = count == 0 ? W(0) : static_cast<W>(v / static_cast<W>(count));
                    out[i] = static_cast<T>(v);
                }
                return;
            }
            default:
                break; // L2, LogSum, LogSumExp: through double below
            }
        }
        std::vector<double> acc(n, initial());
        const ReduceOp op = m_op;
        switch (op) {
        case ReduceOp::Max:
            plan.run(in, acc, [](double& a, T v, int64_t) {
                const double d = static_cast<double>(v);
                if (d > a || std::isnan(d))
                    a = d;
            });
            break;
        case ReduceOp::Min:
            plan.run(in, acc, [](double& a, T v, int64_t) {
                const double d = static_cast<double>(v);
                if (d < a || std::isnan(d))
                    a = d;
            });
            break;
        case ReduceOp::Prod:
            plan.run(in, acc, [](double& a, T v, int64_t) { a *= static_cast<double>(v); });
            break;
        case ReduceOp::L1:
            plan.run(in, acc, [](double& a, T v, int64_t) { a += std::abs(static_cast<double>(v)); });
            break;
        case ReduceOp::L2:
        case ReduceOp::SumSquare:
            plan.run(in, acc, [](double& a, T v, int64_t) { a += static_cast<double>(v) * static_cast<double>(v); });
            break;
        case ReduceOp::LogSumExp: {
            std::vector<double> mx(n, -std::numeric_limits<double>::infinity());
            plan.run(in, mx, [](double& a, T v, int64_t) {
                const double d = static_cast<double>(v);
                if (d > a || std::isnan(d))
                    a = d;
            });
            for (double& m : mx)
                if (std::isinf(m))
                    m = 0; // all -inf (or an +inf): shifting by it would give NaN
            plan.run(in, acc, [&mx](double& a, T v, int64_t o) {
                a += std::exp(static_cast<double>(v) - mx[static_cast<size_t>(o)]);
            });
            for (size_t i = 0; i < n; ++i)
                acc[i] = std::log(acc[i]) + mx[i];
            break;
        }
        default: // Sum, Mean, LogSum
            plan.run(in, acc, [](double& a, T v, int64_t) { a += static_cast<double>(v); });
            break;
        }
        for (size_t i = 0; i < n; ++i) {
            double v = acc[i];
            if (op == ReduceOp::Mean)
                v = count == 0 ? std::numeric_limits<double>::quiet_NaN() : v / static_cast<double>(count);
            else if (op == ReduceOp::L2)
                v = std::sqrt(v);
            else if (op == ReduceOp::LogSum)
                v = std::log(v);
            out[i] = convertFromFloat<T>(v);
        }
    }

    double initial() const
    {
        switch (m_op) {
        case ReduceOp::Prod:
            return 1.0;
        case ReduceOp::Max:
            return -std::numeric_limits<double>::infinity();
        case ReduceOp::Min:
            return std::numeric_limits<double>::infinity();
        default:
            return 0.0;
        }
    }

    ReduceOp m_op;
    bool m_keepDims = true;
    bool m_axesInput = false;
    bool m_noopWithEmptyAxes = false;
    std::vector<int64_t> m_axes;
};

template <ReduceOp Op> KernelFactory reduceFactory()
{
    return [](const KernelInit& init) -> std::unique_ptr<Kernel> { return std::make_unique<Reduce>(init, Op); };
}

} // namespace

void registerReduce(KernelRegistry& r)
{
    r.add("", "ReduceSum", 1, 13, reduceFactory<ReduceOp::Sum>());
    r.add("", "ReduceMean", 1, 18, reduceFactory<ReduceOp::Mean>());
    r.add("", "ReduceMax", 1, 20, reduceFactory<ReduceOp::Max>());
    r.add("", "ReduceMin", 1, 20, reduceFactory<ReduceOp::Min>());
    r.add("", "ReduceProd", 1, 18, reduceFactory<ReduceOp::Prod>());
    r.add("", "ReduceL1", 1, 18, reduceFactory<ReduceOp::L1>());
    r.add("", "ReduceL2", 1, 18, reduceFactory<ReduceOp::L2>());
    r.add("", "ReduceLogSum", 1, 28, reduceFactory<ReduceOp::LogSum>());
    r.add("", "ReduceLogSumExp", 1, 28, reduceFactory<ReduceOp::LogSumExp>());
    r.add("", "ReduceSumSquare", 1, 18, reduceFactory<ReduceOp::SumSquare>());
}

} // namespace onnxscope
