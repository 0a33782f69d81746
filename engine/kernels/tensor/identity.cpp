// SPDX-License-Identifier: MIT
#include "engine/kernels/kernel_registry.h"

namespace onnxscope {

namespace {

/// Identity 1, 13, 14, 16: passes its input through unchanged (shared storage). Tensors, sequences (14+) and
/// optionals (16+), of any element type, all pass; a missing input is an error.
class Identity final : public Kernel {
public:
    explicit Identity(const KernelInit&) { }

    void compute(KernelContext& ctx) const override
    {
        const Value& v = ctx.inputValue(0);
        if (v.isNone())
            throw ctx.error("input 0 is missing");
        ctx.setOutput(0, v);
    }
};

} // namespace

void registerIdentity(KernelRegistry& r)
{
    r.add("", "Identity", 1, 25, makeFactory<Identity>());
}

} // namespace onnxscope
