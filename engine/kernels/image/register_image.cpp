// SPDX-License-Identifier: MIT
#include "engine/kernels/kernel_registry.h"

namespace onnxscope {

void registerImageDecoder(KernelRegistry& r);

void registerImageKernels(KernelRegistry& r)
{
    registerImageDecoder(r);
}

} // namespace onnxscope
