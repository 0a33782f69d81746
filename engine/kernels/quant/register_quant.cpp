// SPDX-License-Identifier: MIT
#include "engine/kernels/kernel_registry.h"

namespace onnxscope {

void registerQuantizeLinear(KernelRegistry& r);
void registerDynamicQuantizeLinear(KernelRegistry& r);
void registerMatMulInteger(KernelRegistry& r);

/// Quantization: QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear, MatMulInteger, QLinearMatMul.
/// (ConvInteger and QLinearConv live with Conv in nn/.)
void registerQuantKernels(KernelRegistry& r)
{
    registerQuantizeLinear(r);
    registerDynamicQuantizeLinear(r);
    registerMatMulInteger(r);
}

} // namespace onnxscope
