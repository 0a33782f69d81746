// SPDX-License-Identifier: MIT
#include "engine/kernels/kernel_registry.h"

namespace onnxscope {

void registerTensorKernels(KernelRegistry&)
{
}

} // namespace onnxscope
