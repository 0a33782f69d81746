// SPDX-License-Identifier: MIT
#include "engine/kernels/kernel_registry.h"

namespace onnxscope {

void registerLstm(KernelRegistry& r);
void registerGru(KernelRegistry& r);
void registerRnn(KernelRegistry& r);
void registerAttnLstm(KernelRegistry& r);

void registerRnnKernels(KernelRegistry& r)
{
    registerLstm(r);
    registerGru(r);
    registerRnn(r);
    registerAttnLstm(r);
}

} // namespace onnxscope
