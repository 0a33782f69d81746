// SPDX-License-Identifier: MIT
#pragma once

// The kernel that plain runs use for DequantizeLinear -> Conv -> (Relu) -> QuantizeLinear groups (engine/exec/
// fusion.cpp), as onnxruntime turns them into QLinearConv.

#include "engine/kernels/kernel.h"
#include "engine/kernels/quant/integer_product.h"

#include <memory>

namespace onnxscope {

/// What the fusion read from the group's known values. x's scale and zero point are per tensor; w's zero point is
/// one or one per output channel.
struct QdqConvParams {
    DataType xType = DataType::UInt8; // the quantized input's type (DequantizeLinear's input)
    int32_t xZero = 0;
    /// True when the kernel reads the dequantized x (the Conv's input) and takes it back to integers with xScale.
    bool fromFloat = false;
    float xScale = 1.0f;
    Tensor weights; // the quantized weights [M, C / group, kernel...], uint8 or int8
    std::vector<int32_t> weightZero;
    intprod::Requantize requantize; // scale x_scale * w_scale[m] / y_scale, the bias, y's zero point and range
};

/// A kernel that reads the quantized x (input 0 of the group's first node, the DequantizeLinear; or the Conv's float
/// input with `fromFloat`), convolves it in
/// integers with the Conv node's attributes (`conv`), and writes the quantized output. Attributes are parsed and
/// errors named as by the Conv node's own kernel.
std::unique_ptr<Kernel> makeQdqConv(const KernelInit& conv, QdqConvParams params);

} // namespace onnxscope
