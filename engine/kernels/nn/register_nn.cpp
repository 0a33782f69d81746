// SPDX-License-Identifier: MIT
#include "engine/kernels/kernel_registry.h"

namespace onnxscope {

void registerNnKernels(KernelRegistry&)
{
}

} // namespace onnxscope
