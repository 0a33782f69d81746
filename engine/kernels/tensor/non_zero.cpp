// SPDX-License-Identifier: MIT
#include "engine/kernels/common/dispatch.h"
#include "engine/kernels/kernel_registry.h"

namespace onnxscope {

namespace {

/// NonZero, opsets 9 and 13, every element type (a string is non-zero when not empty; a complex number when either
/// part is): int64 [rank, count] of the indices of the non-zero elements in row-major order, as numpy.nonzero. A
/// scalar is treated as a 1-element vector, as numpy does, giving [1, count].
class NonZero final : public Kernel {
public:
    explicit NonZero(const KernelInit&) { }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& data = ctx.input(0);
        std::vector<bool> nonzero(static_cast<size_t>(data.size()));
        dispatch<AllTypes>(data.dtype(), ctx.node(), [&]<class T>() {
            auto d = data.data<T>();
            for (size_t i = 0; i < d.size(); ++i) {
                if constexpr (std::is_same_v<T, std::string>)
                    nonzero[i] = !d[i].empty();
                else
                    nonzero[i] = d[i] != T(0);
            }
        });
        int64_t count = 0;
        for (bool b : nonzero)
            count += b;
        const Shape shape = data.rank() == 0 ? Shape { 1 } : data.shape();
        const int64_t rank = static_cast<int64_t>(shape.size());
        Tensor& out = ctx.allocateOutput(0, DataType::Int64, { rank, count });
        auto o = out.data<int64_t>();
        std::vector<int64_t> index(shape.size(), 0);
        int64_t column = 0;
        for (size_t i = 0; i < nonzero.size(); ++i) {
            if (nonzero[i]) {
                for (int64_t d = 0; d < rank; ++d)
                    o[static_cast<size_t>(d * count + column)] = index[static_cast<size_t>(d)];
                ++column;
            }
            for (size_t d = shape.size(); d-- > 0;) {
                if (++index[d] < shape[d])
                    break;
                index[d] = 0;
            }
        }
    }
};

} // namespace

void registerNonZero(KernelRegistry& r)
{
    r.add("", "NonZero", 9, 13, makeFactory<NonZero>());
}

} // namespace onnxscope
