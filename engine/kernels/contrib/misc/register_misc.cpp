// SPDX-License-Identifier: MIT
// The rest of onnxruntime's com.microsoft CPU operators (issue #41): one file each in this folder.
#include "engine/kernels/kernel_registry.h"

namespace onnxscope {

void registerScaledSiLU(KernelRegistry& r);
void registerBifurcationDetector(KernelRegistry& r);
void registerCropAndResize(KernelRegistry& r);
void registerWordConvEmbedding(KernelRegistry& r);
void registerMaxpoolWithMask(KernelRegistry& r);
void registerNGramHashMapping(KernelRegistry& r);
void registerGatherPacked(KernelRegistry& r);
void registerSparseToDenseMatMul(KernelRegistry& r);
void registerConvTransposeWithDynamicPads(KernelRegistry& r); // engine/kernels/nn/conv_transpose.cpp

void registerContribMiscKernels(KernelRegistry& r)
{
    registerScaledSiLU(r);
    registerBifurcationDetector(r);
    registerCropAndResize(r);
    registerWordConvEmbedding(r);
    registerMaxpoolWithMask(r);
    registerNGramHashMapping(r);
    registerGatherPacked(r);
    registerSparseToDenseMatMul(r);
    registerConvTransposeWithDynamicPads(r);
}

} // namespace onnxscope
