// SPDX-License-Identifier: MIT
#include "engine/kernels/kernel_registry.h"

namespace onnxscope {

void registerBinaryArith(KernelRegistry& r);
void registerMatMul(KernelRegistry& r);
void registerGemm(KernelRegistry& r);
void registerUnary(KernelRegistry& r);
void registerPow(KernelRegistry& r);
void registerMod(KernelRegistry& r);
void registerBitShift(KernelRegistry& r);
void registerVariadic(KernelRegistry& r);
void registerLogical(KernelRegistry& r);
void registerCompare(KernelRegistry& r);
void registerWhere(KernelRegistry& r);
void registerClip(KernelRegistry& r);
void registerCumSum(KernelRegistry& r);
void registerCumProd(KernelRegistry& r);
void registerBitwise(KernelRegistry& r);
void registerLogSoftmax(KernelRegistry& r);
void registerEinsum(KernelRegistry& r);
void registerDet(KernelRegistry& r);
void registerCastLike(KernelRegistry& r);

void registerMathKernels(KernelRegistry& r)
{
    registerBinaryArith(r);
    registerMatMul(r);
    registerGemm(r);
    registerUnary(r);
    registerPow(r);
    registerMod(r);
    registerBitShift(r);
    registerVariadic(r);
    registerLogical(r);
    registerCompare(r);
    registerWhere(r);
    registerClip(r);
    registerCumSum(r);
    registerCumProd(r);
    registerBitwise(r);
    registerLogSoftmax(r);
    registerEinsum(r);
    registerDet(r);
    registerCastLike(r);
}

} // namespace onnxscope
