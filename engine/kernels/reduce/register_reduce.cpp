// SPDX-License-Identifier: MIT
#include "engine/kernels/kernel_registry.h"

namespace onnxscope {

void registerReduce(KernelRegistry& r);
void registerArgMinMax(KernelRegistry& r);

void registerReduceKernels(KernelRegistry& r)
{
    registerReduce(r);
    registerArgMinMax(r);
}

} // namespace onnxscope
