// SPDX-License-Identifier: MIT
#include "engine/kernels/kernel_registry.h"

namespace onnxscope {

// One explicit list per family (register_<family>.cpp); self-registering statics get dropped from static libraries.
void registerMathKernels(KernelRegistry& r);
void registerNnKernels(KernelRegistry& r);
void registerTensorKernels(KernelRegistry& r);
void registerCustomKernels(KernelRegistry& r);
void registerReduceKernels(KernelRegistry& r);
void registerControlKernels(KernelRegistry& r);
void registerSequenceKernels(KernelRegistry& r);
void registerTrainingKernels(KernelRegistry& r);
void registerMlKernels(KernelRegistry& r);
void registerImageKernels(KernelRegistry& r);
void registerRnnKernels(KernelRegistry& r);
void registerQuantKernels(KernelRegistry& r);
void registerSignalKernels(KernelRegistry& r);
void registerContribKernels(KernelRegistry& r);
void registerQOperatorKernels(KernelRegistry& r);

void registerAllKernels(KernelRegistry& r)
{
    registerMathKernels(r);
    registerNnKernels(r);
    registerTensorKernels(r);
    registerCustomKernels(r);
    registerReduceKernels(r);
    registerControlKernels(r);
    registerSequenceKernels(r);
    registerTrainingKernels(r);
    registerMlKernels(r);
    registerImageKernels(r);
    registerRnnKernels(r);
    registerQuantKernels(r);
    registerSignalKernels(r);
    registerContribKernels(r);
    registerQOperatorKernels(r);
}

} // namespace onnxscope
