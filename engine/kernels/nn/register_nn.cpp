// SPDX-License-Identifier: MIT
#include "engine/kernels/kernel_registry.h"

namespace onnxscope {

void registerActivations(KernelRegistry& r);
void registerSoftmax(KernelRegistry& r);
void registerConv(KernelRegistry& r);
void registerConvTranspose(KernelRegistry& r);
void registerPool(KernelRegistry& r);
void registerGlobalPool(KernelRegistry& r);
void registerMaxUnpool(KernelRegistry& r);
void registerMaxRoiPool(KernelRegistry& r);
void registerParamActivations(KernelRegistry& r);
void registerPRelu(KernelRegistry& r);
void registerBatchNorm(KernelRegistry& r);
void registerInstanceNorm(KernelRegistry& r);
void registerGroupNorm(KernelRegistry& r);
void registerGelu(KernelRegistry& r);
void registerCol2Im(KernelRegistry& r);
void registerDeformConv(KernelRegistry& r);
void registerLayerNorm(KernelRegistry& r);
void registerLrn(KernelRegistry& r);
void registerMeanVarianceNorm(KernelRegistry& r);
void registerLpNorm(KernelRegistry& r);
void registerDropout(KernelRegistry& r);
void registerLosses(KernelRegistry& r);
void registerConvInteger(KernelRegistry& r);
void registerResize(KernelRegistry& r);
void registerUpsample(KernelRegistry& r);
void registerGridSample(KernelRegistry& r);
void registerRoiAlign(KernelRegistry& r);
void registerNonMaxSuppression(KernelRegistry& r);
void registerAttention(KernelRegistry& r);
void registerRmsNormalization(KernelRegistry& r);
void registerRotaryEmbedding(KernelRegistry& r);
void registerTensorScatter(KernelRegistry& r);
void registerLinearAttention(KernelRegistry& r);
void registerCausalConvWithState(KernelRegistry& r);
void registerFlexAttention(KernelRegistry& r);

void registerNnKernels(KernelRegistry& r)
{
    registerActivations(r);
    registerSoftmax(r);
    registerConv(r);
    registerConvTranspose(r);
    registerPool(r);
    registerGlobalPool(r);
    registerMaxUnpool(r);
    registerMaxRoiPool(r);
    registerParamActivations(r);
    registerPRelu(r);
    registerBatchNorm(r);
    registerInstanceNorm(r);
    registerGroupNorm(r);
    registerGelu(r);
    registerCol2Im(r);
    registerDeformConv(r);
    registerLayerNorm(r);
    registerLrn(r);
    registerMeanVarianceNorm(r);
    registerLpNorm(r);
    registerDropout(r);
    registerLosses(r);
    registerConvInteger(r);
    registerResize(r);
    registerUpsample(r);
    registerGridSample(r);
    registerRoiAlign(r);
    registerNonMaxSuppression(r);
    registerAttention(r);
    registerRmsNormalization(r);
    registerRotaryEmbedding(r);
    registerTensorScatter(r);
    registerLinearAttention(r);
    registerCausalConvWithState(r);
    registerFlexAttention(r);
}

} // namespace onnxscope
