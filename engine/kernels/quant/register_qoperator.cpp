// SPDX-License-Identifier: MIT
#include "engine/kernels/kernel_registry.h"

namespace onnxscope {

void registerContribQuantizeLinear(KernelRegistry& r);
void registerQLinearBinary(KernelRegistry& r);
void registerQLinearLookup(KernelRegistry& r);
void registerQLinearSoftmax(KernelRegistry& r);
void registerQLinearPool(KernelRegistry& r);
void registerContribQLinearConv(KernelRegistry& r);
void registerQGemm(KernelRegistry& r);
void registerMatMulInteger16(KernelRegistry& r);
void registerQAttention(KernelRegistry& r);
void registerQEmbedLayerNorm(KernelRegistry& r);
void registerDynamicQuantizeLstm(KernelRegistry& r);
void registerMatMulBnb4(KernelRegistry& r);
void registerMatMulFpQ4(KernelRegistry& r);

/// onnxruntime's quantized operators (domain com.microsoft) as its quantizer writes them in the QOperator format:
/// QuantizeLinear, DequantizeLinear, QLinearAdd, QLinearMul, QLinearSigmoid, QLinearLeakyRelu, QLinearConcat,
/// QLinearWhere, QLinearSoftmax, QLinearAveragePool, QLinearGlobalAveragePool, QLinearConv, QGemm, MatMulInteger16,
/// QAttention, QEmbedLayerNormalization, DynamicQuantizeLSTM (in rnn/, beside LSTM), MatMulBnb4, MatMulFpQ4.
/// (MatMulIntegerToFloat and DynamicQuantizeMatMul live with the contrib kernels.)
void registerQOperatorKernels(KernelRegistry& r)
{
    registerContribQuantizeLinear(r);
    registerQLinearBinary(r);
    registerQLinearLookup(r);
    registerQLinearSoftmax(r);
    registerQLinearPool(r);
    registerContribQLinearConv(r);
    registerQGemm(r);
    registerMatMulInteger16(r);
    registerQAttention(r);
    registerQEmbedLayerNorm(r);
    registerDynamicQuantizeLstm(r);
    registerMatMulBnb4(r);
    registerMatMulFpQ4(r);
}

} // namespace onnxscope
