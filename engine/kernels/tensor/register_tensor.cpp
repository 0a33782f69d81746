// SPDX-License-Identifier: MIT
#include "engine/kernels/kernel_registry.h"

namespace onnxscope {

void registerReshape(KernelRegistry& r);
void registerTranspose(KernelRegistry& r);
void registerConcat(KernelRegistry& r);
void registerFlatten(KernelRegistry& r);
void registerConstant(KernelRegistry& r);
void registerIdentity(KernelRegistry& r);
void registerCast(KernelRegistry& r);
void registerShape(KernelRegistry& r);
void registerGather(KernelRegistry& r);
void registerSqueezeUnsqueeze(KernelRegistry& r);
void registerSlice(KernelRegistry& r);
void registerSplit(KernelRegistry& r);
void registerTile(KernelRegistry& r);
void registerExpand(KernelRegistry& r);
void registerPad(KernelRegistry& r);
void registerCompress(KernelRegistry& r);
void registerNonZero(KernelRegistry& r);
void registerOneHot(KernelRegistry& r);
void registerTopK(KernelRegistry& r);
void registerUnique(KernelRegistry& r);
void registerTrilu(KernelRegistry& r);
void registerGatherElements(KernelRegistry& r);
void registerGatherND(KernelRegistry& r);
void registerScatterElements(KernelRegistry& r);
void registerScatterND(KernelRegistry& r);
void registerSpaceDepth(KernelRegistry& r);
void registerConstantOfShape(KernelRegistry& r);
void registerEyeLike(KernelRegistry& r);
void registerRange(KernelRegistry& r);
void registerBitCast(KernelRegistry& r);
void registerCenterCropPad(KernelRegistry& r);
void registerStringConcat(KernelRegistry& r);
void registerStringSplit(KernelRegistry& r);
void registerRegexFullMatch(KernelRegistry& r);
void registerSize(KernelRegistry& r);
void registerReverseSequence(KernelRegistry& r);
void registerRandom(KernelRegistry& r);

void registerTensorKernels(KernelRegistry& r)
{
    registerReshape(r);
    registerTranspose(r);
    registerConcat(r);
    registerFlatten(r);
    registerConstant(r);
    registerIdentity(r);
    registerCast(r);
    registerShape(r);
    registerGather(r);
    registerSqueezeUnsqueeze(r);
    registerSlice(r);
    registerSplit(r);
    registerTile(r);
    registerExpand(r);
    registerPad(r);
    registerCompress(r);
    registerNonZero(r);
    registerOneHot(r);
    registerTopK(r);
    registerUnique(r);
    registerTrilu(r);
    registerGatherElements(r);
    registerGatherND(r);
    registerScatterElements(r);
    registerScatterND(r);
    registerSpaceDepth(r);
    registerConstantOfShape(r);
    registerEyeLike(r);
    registerRange(r);
    registerBitCast(r);
    registerCenterCropPad(r);
    registerStringConcat(r);
    registerStringSplit(r);
    registerRegexFullMatch(r);
    registerSize(r);
    registerReverseSequence(r);
    registerRandom(r);
}

} // namespace onnxscope
