// SPDX-License-Identifier: MIT
#include "engine/kernels/kernel_registry.h"

namespace onnxscope {

void registerIf(KernelRegistry& r);
void registerLoop(KernelRegistry& r);
void registerScan(KernelRegistry& r);

void registerControlKernels(KernelRegistry& r)
{
    registerIf(r);
    registerLoop(r);
    registerScan(r);
}

} // namespace onnxscope
