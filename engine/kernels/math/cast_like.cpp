// SPDX-License-Identifier: MIT
#include "engine/kernels/kernel_registry.h"
#include "engine/kernels/tensor/cast_options.h"

namespace onnxscope {

namespace {

/// CastLike 15, 19 (float8, `saturate`), 21, 23, 24 (float8e8m0, `round_mode`), 25: input converted to the element
/// type of `target_type` (whose values are not read), with Cast's conversions (castTensor): every numeric type, bool
/// and string.
class CastLike final : public Kernel {
public:
    explicit CastLike(const KernelInit& init)
        : m_options(castOptions(init))
    {
    }

    void compute(KernelContext& ctx) const override
    {
        const Tensor& x = ctx.input(0);
        const DataType to = ctx.input(1).dtype();
        try {
            ctx.setOutput(0, Value(castTensor(x, to, m_options)));
        } catch (const Error& e) {
            throw ctx.error(e.what());
        }
    }

private:
    CastOptions m_options;
};

} // namespace

void registerCastLike(KernelRegistry& r)
{
    r.add("", "CastLike", 15, 25, makeFactory<CastLike>());
}

} // namespace onnxscope
