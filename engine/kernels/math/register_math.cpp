// SPDX-License-Identifier: MIT
#include "engine/kernels/kernel_registry.h"

namespace onnxscope {

void registerBinaryArith(KernelRegistry& r);

void registerMathKernels(KernelRegistry& r)
{
    registerBinaryArith(r);
}

} // namespace onnxscope
