// SPDX-License-Identifier: MIT
#include "engine/kernels/kernel_registry.h"

namespace onnxscope {

void registerContribNorms(KernelRegistry& r);
void registerContribGelu(KernelRegistry& r);
void registerMatMulNBits(KernelRegistry& r);
void registerContribRotaryEmbedding(KernelRegistry& r);
void registerGroupQueryAttention(KernelRegistry& r);
void registerMultiHeadAttention(KernelRegistry& r);
void registerContribAttention(KernelRegistry& r);
void registerEmbedLayerNorm(KernelRegistry& r);
void registerGatherBlockQuantized(KernelRegistry& r);
void registerQuantizedMatMuls(KernelRegistry& r);
void registerFusedAndLayoutKernels(KernelRegistry& r);
// restops: the rest of the com.microsoft list (contrib/misc/)
void registerContribMiscKernels(KernelRegistry& r);
// llmops: attention, LLM, MoE and linear-attention kernels (engine/kernels/contrib/llm/).
void registerLlmAttention(KernelRegistry& r);
void registerLlmRotary(KernelRegistry& r);
void registerLlmNorms(KernelRegistry& r);
void registerLlmMixes(KernelRegistry& r);
void registerLlmCausalConv(KernelRegistry& r);
void registerLlmLinearAttention(KernelRegistry& r);
void registerLlmMoE(KernelRegistry& r);
void registerLlmQMoE(KernelRegistry& r);
void registerLlmMoEGroupRouter(KernelRegistry& r);
void registerLlmSparseAttention(KernelRegistry& r);
void registerLlmGatedDeltaNet(KernelRegistry& r);
// issue 41, generation operators (branch gen)
void registerGenerationKernels(KernelRegistry& r);

/// onnxruntime's contrib operators (domain com.microsoft) of transformer and LLM graphs.
void registerContribKernels(KernelRegistry& r)
{
    registerContribNorms(r);
    registerContribGelu(r);
    registerMatMulNBits(r);
    registerContribRotaryEmbedding(r);
    registerGroupQueryAttention(r);
    registerMultiHeadAttention(r);
    registerContribAttention(r);
    registerEmbedLayerNorm(r);
    registerGatherBlockQuantized(r);
    registerQuantizedMatMuls(r);
    registerFusedAndLayoutKernels(r);
    registerContribMiscKernels(r);
    registerLlmAttention(r);
    registerLlmRotary(r);
    registerLlmNorms(r);
    registerLlmMixes(r);
    registerLlmCausalConv(r);
    registerLlmLinearAttention(r);
    registerLlmMoE(r);
    registerLlmQMoE(r);
    registerLlmMoEGroupRouter(r);
    registerLlmSparseAttention(r);
    registerLlmGatedDeltaNet(r);
    registerGenerationKernels(r); // branch gen
}

} // namespace onnxscope
