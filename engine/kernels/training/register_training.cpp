// SPDX-License-Identifier: MIT
#include "engine/kernels/kernel_registry.h"

namespace onnxscope {

// Gradient (ai.onnx.preview.training) is not implemented: it needs automatic differentiation of the graph, so
// models using it fail at plan time with the registry's "not supported" error.
void registerOptimizers(KernelRegistry& r);

void registerTrainingKernels(KernelRegistry& r)
{
    registerOptimizers(r);
}

} // namespace onnxscope
