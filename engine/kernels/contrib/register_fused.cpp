// SPDX-License-Identifier: MIT
#include "engine/kernels/kernel_registry.h"

namespace onnxscope {

void registerFusedConv(KernelRegistry& r);
void registerFusedGemm(KernelRegistry& r);
void registerNhwcMaxPool(KernelRegistry& r);
void registerNchwcKernels(KernelRegistry& r);
void registerOnnxExperimentalKernels(KernelRegistry& r);
void registerMsTensorOps(KernelRegistry& r);
void registerMsMiscOps(KernelRegistry& r);

/// The operators onnxruntime's graph optimizer writes: FusedConv, FusedGemm, NhwcMaxPool (com.microsoft) and the
/// NCHWc layout operators (com.microsoft.nchwc); and the experimental default-domain operators that onnx removed and
/// onnxruntime still registers (ImageScaler, Crop, Affine, ...); and the com.microsoft variants of default-domain
/// operators (ExpandDims, Trilu, GatherND, Range, Pad, ...).
void registerFusedAndLayoutKernels(KernelRegistry& r)
{
    registerFusedConv(r);
    registerFusedGemm(r);
    registerNhwcMaxPool(r);
    registerNchwcKernels(r);
    registerOnnxExperimentalKernels(r);
    registerMsTensorOps(r);
    registerMsMiscOps(r);
}

} // namespace onnxscope
