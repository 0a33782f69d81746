// SPDX-License-Identifier: MIT
#include "engine/kernels/kernel_registry.h"

namespace onnxscope {

void registerDebugOps(KernelRegistry& r);
void registerFusedMatMul(KernelRegistry& r);
void registerCDist(KernelRegistry& r);
void registerSolve(KernelRegistry& r);
void registerFftOps(KernelRegistry& r);
void registerBroadcastGradientArgs(KernelRegistry& r);
void registerTokenizer(KernelRegistry& r);

void registerCustomKernels(KernelRegistry& r)
{
    registerDebugOps(r);
    registerFusedMatMul(r);
    registerCDist(r);
    registerSolve(r);
    registerFftOps(r);
    registerBroadcastGradientArgs(r);
    registerTokenizer(r);
}

} // namespace onnxscope
