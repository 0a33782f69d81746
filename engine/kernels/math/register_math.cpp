// SPDX-License-Identifier: MIT
#include "engine/kernels/kernel_registry.h"

namespace onnxscope {

void registerBinaryArith(KernelRegistry& r);
void registerMatMul(KernelRegistry& r);
void registerGemm(KernelRegistry& r);

void registerMathKernels(KernelRegistry& r)
{
    registerBinaryArith(r);
    registerMatMul(r);
    registerGemm(r);
}

} // namespace onnxscope
