// SPDX-License-Identifier: MIT
#include "engine/kernels/kernel_registry.h"

#include <algorithm>

namespace onnxscope {

namespace {

/// BroadcastGradientArgs (mlprodict and com.microsoft 1): for shapes a_shape and b_shape (int64 1-D) of the operands
/// of a broadcast binary op, the output axes over which each operand's gradient must be summed. Walking from the last
/// axis: where the dims differ and A's is 1 the axis goes to a_axes, where B's is 1 to b_axes, other differences are an
/// error; the leading axes only the longer shape has all go to the shorter operand's list. Axes are listed in the order
/// found (last axis first).
class BroadcastGradientArgs final : public Kernel {
public:
    explicit BroadcastGradientArgs(const KernelInit&) { }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& a = ctx.input(0);
        const Tensor& b = ctx.input(1);
        if (a.dtype() != DataType::Int64 || b.dtype() != DataType::Int64 || a.rank() != 1 || b.rank() != 1)
            throw ctx.error("a_shape and b_shape must be 1-D int64, got " + a.typeString() + " and " + b.typeString());
        auto sa = a.data<int64_t>();
        auto sb = b.data<int64_t>();
        const int64_t na = a.size(), nb = b.size(), n = std::max(na, nb);
        std::vector<int64_t> axesA, axesB;
        for (int64_t axis = n - 1; axis >= 0; --axis) {
            const int64_t ia = axis - (n - na), ib = axis - (n - nb);
            if (ia < 0) {
                axesA.push_back(axis);
                continue;
            }
            if (ib < 0) {
                axesB.push_back(axis);
                continue;
            }
            const int64_t da = sa[static_cast<size_t>(ia)], db = sb[static_cast<size_t>(ib)];
            if (da == db)
                continue;
            if (da == 1)
                axesA.push_back(axis);
            else if (db == 1)
                axesB.push_back(axis);
            else
                throw ctx.error("broadcast is not possible: dimension " + std::to_string(da) + " of A and "
                    + std::to_string(db) + " of B at output axis " + std::to_string(axis));
        }
        ctx.setOutput(0, Value(Tensor::vector1D(axesA)));
        if (ctx.outputCount() > 1)
            ctx.setOutput(1, Value(Tensor::vector1D(axesB)));
    }
};

} // namespace

void registerBroadcastGradientArgs(KernelRegistry& r)
{
    for (const char* domain : { "mlprodict", "com.microsoft" })
        r.add(domain, "BroadcastGradientArgs", 1, KernelRegistry::kLatest, makeFactory<BroadcastGradientArgs>());
}

} // namespace onnxscope
