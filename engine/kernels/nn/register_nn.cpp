// SPDX-License-Identifier: MIT
#include "engine/kernels/kernel_registry.h"

namespace onnxscope {

void registerActivations(KernelRegistry& r);
void registerSoftmax(KernelRegistry& r);

void registerNnKernels(KernelRegistry& r)
{
    registerActivations(r);
    registerSoftmax(r);
}

} // namespace onnxscope
