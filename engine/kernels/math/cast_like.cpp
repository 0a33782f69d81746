// SPDX-License-Identifier: MIT
#include "engine/core/cast.h"
#include "engine/kernels/kernel_registry.h"

namespace onnxscope {

namespace {

/// CastLike 15: input converted to the element type of `target_type` (whose values are not read), with Cast's
/// conversions (castTensor): every numeric type, bool and string.
class CastLike final : public Kernel {
public:
    explicit CastLike(const KernelInit&) { }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        const DataType to = ctx.input(1).dtype();
        try {
            ctx.setOutput(0, Value(castTensor(x, to)));
        } catch (const Error& e) {
            throw ctx.error(e.what());
        }
    }
};

} // namespace

void registerCastLike(KernelRegistry& r)
{
    r.add("", "CastLike", 15, 25, makeFactory<CastLike>());
}

} // namespace onnxscope
