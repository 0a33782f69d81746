// SPDX-License-Identifier: MIT
#include "engine/kernels/common/dispatch.h"
#include "engine/kernels/kernel_registry.h"

namespace onnxscope {

namespace {

/// ArrayFeatureExtractor (ai.onnx.ml 1): selects columns Y (int64 indices) of the last axis of X. Output shape is X's
/// with the last dim replaced by len(Y); a 1-D X gives [1, len(Y)], as onnxruntime does. float, double, int32,
/// int64 and string. An index outside [0, C) is an error.
class ArrayFeatureExtractor final : public Kernel {
public:
    explicit ArrayFeatureExtractor(const KernelInit&) { }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        const Tensor& y = ctx.input(1);
        if (y.dtype() != DataType::Int64)
            throw ctx.error("input Y must be int64, got " + y.typeString());
        if (x.rank() == 0)
            throw ctx.error("input X must have at least one dimension");
        const int64_t cols = x.dim(x.rank() - 1);
        const auto idx = y.data<int64_t>();
        for (size_t i = 0; i < idx.size(); ++i)
            if (idx[i] < 0 || idx[i] >= cols)
                throw ctx.error("index Y[" + std::to_string(i) + "] = " + std::to_string(idx[i])
                    + " is out of range for the last dimension of X " + shapeToString(x.shape()));
        Shape outShape = x.shape();
        if (x.rank() == 1)
            outShape = { 1, static_cast<int64_t>(idx.size()) };
        else
            outShape.back() = static_cast<int64_t>(idx.size());
        const int64_t rows = cols == 0 ? 0 : x.size() / cols;
        Tensor& out = ctx.allocateOutput(0, x.dtype(), outShape);
        dispatch<AllTypes>(x.dtype(), ctx.node(), [&]<class T>() {
            auto src = x.data<T>();
            auto dst = out.data<T>();
            size_t k = 0;
            for (int64_t r = 0; r < rows; ++r)
                for (int64_t j : idx)
                    dst[k++] = src[static_cast<size_t>(r * cols + j)];
        });
    }
};

} // namespace

void registerArrayFeatureExtractor(KernelRegistry& r)
{
    r.add("ai.onnx.ml", "ArrayFeatureExtractor", 1, 1, makeFactory<ArrayFeatureExtractor>());
}

} // namespace onnxscope
