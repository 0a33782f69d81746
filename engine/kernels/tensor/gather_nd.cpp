// SPDX-License-Identifier: MIT
#include "engine/kernels/kernel_registry.h"
#include "engine/kernels/tensor/indexing.h"

namespace onnxscope {

namespace {

using namespace indexing;

/// GatherND, opsets 11, 12 and 13 (batch_dims from 12), every element type, int64 (or int32) indices. The last
/// dimension of indices (k) addresses the first k dimensions after the batch dimensions of data; the output is
/// indices.shape[:-1] + data.shape[batch_dims + k:]. Negative indices count from the end; out-of-range ones are
/// errors.
class GatherND final : public Kernel {
public:
    explicit GatherND(const KernelInit& init)
        : m_batchDims(init.opset() >= 12 ? init.attributes().getInt("batch_dims", 0) : 0)
    {
        if (m_batchDims < 0)
            throw init.error("attribute 'batch_dims' must not be negative, got " + std::to_string(m_batchDims));
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& data = ctx.input(0);
        const Tensor& indicesTensor = ctx.input(1);
        const int64_t r = data.rank(), q = indicesTensor.rank(), b = m_batchDims;
        if (r < 1 || q < 1)
            throw ctx.error("data and indices must have rank 1 or more, got " + data.typeString() + " and "
                + indicesTensor.typeString());
        if (b >= std::min(r, q))
            throw ctx.error("batch_dims " + std::to_string(b) + " must be less than the ranks of data "
                + data.typeString() + " and indices " + indicesTensor.typeString());
        for (int64_t d = 0; d < b; ++d)
            if (data.dim(d) != indicesTensor.dim(d))
                throw ctx.error("batch dimension " + std::to_string(d) + " differs between data " + data.typeString()
                    + " and indices " + indicesTensor.typeString());
        const int64_t k = indicesTensor.dim(q - 1);
        if (k > r - b)
            throw ctx.error("indices " + indicesTensor.typeString() + " address " + std::to_string(k)
                + " dimensions but data " + data.typeString() + " has only " + std::to_string(r - b)
                + " after the batch dimensions");
        Shape outShape(indicesTensor.shape().begin(), indicesTensor.shape().end() - 1);
        outShape.insert(outShape.end(), data.shape().begin() + b + k, data.shape().end());
        const std::vector<int64_t> indices = toInt64s(ctx, indicesTensor, "input 'indices'");
        Tensor& out = ctx.allocateOutput(0, data.dtype(), outShape);
        if (out.size() == 0)
            return;

        int64_t batches = 1, slice = 1;
        for (int64_t d = 0; d < b; ++d)
            batches *= data.dim(d);
        for (int64_t d = b + k; d < r; ++d)
            slice *= data.dim(d);
        const auto strides = stridesOf(data.shape());
        const int64_t batchStride = b > 0 ? strides[static_cast<size_t>(b - 1)] : data.size();
        int64_t perBatch = 1; // index tuples per batch
        for (int64_t d = b; d < q - 1; ++d)
            perBatch *= indicesTensor.dim(d);
        byElementSize(data.dtype(), [&]<class W>() {
            const W* in = words<W>(data);
            W* o = mutableWords<W>(out);
            for (int64_t bt = 0; bt < batches; ++bt)
                for (int64_t t = 0; t < perBatch; ++t) {
                    int64_t offset = bt * batchStride;
                    for (int64_t j = 0; j < k; ++j) {
                        const int64_t v = indices[static_cast<size_t>((bt * perBatch + t) * k + j)];
                        offset += checkIndex(ctx, v, data.dim(b + j), "index") * strides[static_cast<size_t>(b + j)];
                    }
                    std::copy(in + offset, in + offset + slice, o + (bt * perBatch + t) * slice);
                }
        });
    }

private:
    int64_t m_batchDims;
};

} // namespace

void registerGatherND(KernelRegistry& r)
{
    r.add("", "GatherND", 11, 13, makeFactory<GatherND>());
}

} // namespace onnxscope
