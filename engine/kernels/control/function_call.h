// SPDX-License-Identifier: MIT
#pragma once

#include "engine/kernels/kernel.h"

namespace onnxscope {

/// The kernel of a function call: runs `body` (a model-local function's Node::functionBody, or the function body
/// that onnx's schema defines for an op without a kernel) as one nested frame.
std::unique_ptr<Kernel> makeFunctionCallKernel(const Graph& body);

} // namespace onnxscope
