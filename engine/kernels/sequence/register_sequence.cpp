// SPDX-License-Identifier: MIT
#include "engine/kernels/kernel_registry.h"

namespace onnxscope {

void registerSequenceBasic(KernelRegistry& r);
void registerSplitConcatSequence(KernelRegistry& r);
void registerSequenceMap(KernelRegistry& r);
void registerOptional(KernelRegistry& r);

void registerSequenceKernels(KernelRegistry& r)
{
    registerSequenceBasic(r);
    registerSplitConcatSequence(r);
    registerSequenceMap(r);
    registerOptional(r);
}

} // namespace onnxscope
